// What the op table test (op_table_test.cpp) is made of: a case (one kernel on one
// shape), its inputs and outputs, tolerances, moving arrays to a backend's device and
// back, and the names of cases. The cases of each family of kernels are built in their
// own file, op_table_<family>_test.cpp; op_table_test.cpp says how to add one.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/registry.h"
#include "ops/gradcheck.h"

namespace tinylm::op_table {
using ops::AttentionMask;
using ops::AttentionShape;
using ops_test::random_vec;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------------------------------
// Inputs, outputs, tolerances, cases

// A case's inputs: host arrays by name, made once and given to both backends.
struct Inputs {
  std::map<std::string, std::vector<float>> f;
  std::map<std::string, std::vector<int32_t>> ids;  // token ids, targets

  const std::vector<float>& operator[](const std::string& name) const {
    const auto it = f.find(name);
    if (it == f.end()) throw std::logic_error("the case has no input " + name);
    return it->second;
  }
  bool has(const std::string& name) const { return f.count(name) > 0; }
};

// What a kernel wrote, downloaded, by name; and what it returned, if anything.
struct Outputs {
  std::vector<std::pair<std::string, std::vector<float>>> arrays;
  std::optional<double> returned;

  Outputs& add(const std::string& name, const Tensor& t) {  // downloads t
    arrays.emplace_back(name, t.to_vector());
    return *this;
  }
  Outputs& add(const std::string& name, std::vector<float> values) {
    arrays.emplace_back(name, std::move(values));
    return *this;
  }
};

// |got - want| <= abs + rel * |want| for every entry (equal infinities pass, NaN fails);
// exact: the same bits (NaN payloads included). norm, when not 0, also bounds the error of
// the whole array: ||got - want|| <= norm * ||want|| (norm * 1 when want is all 0).
struct Tol {
  double rel = 1e-5, abs = 1e-6;
  bool exact = false;
  double norm = 0.0;
};
constexpr Tol kExact{0.0, 0.0, true};

// The table entry a case calls: its name, and whether a backend has it.
struct Entry {
  const char* name;
  bool (*present)(const Backend&);
};
// clang-format off
#define ENTRY(member) Entry{#member, [](const Backend& b) { return static_cast<bool>(b.member); }}
// clang-format on

struct Case {
  std::string name;
  Entry entry;
  std::function<Inputs(Rng&)> make;
  std::function<Outputs(const Backend&, const Inputs&)> run;
  Tol tol = {};
  std::map<std::string, Tol> tol_for = {};  // by output name; "returned": the returned value

  Tol tol_of(const std::string& output) const {
    const auto it = tol_for.find(output);
    return it == tol_for.end() ? tol : it->second;
  }
};

// c with the error of every output array also bounded as a whole: norm, or others[name].
// (The CUDA kernel tests that some cases replace bounded ||got - ref|| / ||ref||.)
inline Case bounded(Case c, double norm, const std::map<std::string, double>& others = {}) {
  c.tol.norm = norm;
  for (auto& [name, t] : c.tol_for) t.norm = norm;
  for (const auto& [name, n] : others) {
    c.tol_for[name] = c.tol_of(name);
    c.tol_for[name].norm = n;
  }
  return c;
}

// ---------------------------------------------------------------------------------------
// Moving arrays to a backend's device and back

// A copy of a host array on device d.
inline Tensor upload(const std::vector<float>& host, Device d) {
  return Tensor::from({static_cast<int64_t>(host.size())}, host).to(d);
}
// n floats that the kernel must overwrite: NaN until it does.
inline Tensor fresh(int64_t n, Device d) {
  return upload(std::vector<float>(n, kNaN), d);
}

// Device memory for arrays that are not float (ids, targets, bf16 weights): a copy of a
// host vector, freed with the object.
template <typename T>
class DeviceArray {
 public:
  DeviceArray(const std::vector<T>& host, Device d)
      : memory_(&device_memory(d)),
        n_(host.size()),
        data_(static_cast<T*>(memory_->alloc(sizeof(T) * std::max<size_t>(n_, 1)))) {
    if (n_) memory_->to_device(data_, host.data(), sizeof(T) * n_);
  }
  ~DeviceArray() { memory_->free(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* data() const { return data_; }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) memory_->to_host(host.data(), data_, sizeof(T) * n_);
    return host;
  }

 private:
  const DeviceMemory* memory_;
  size_t n_;
  T* data_;
};

// ops::ref through its table, on the host: what a backward case takes from forward.
inline const Backend& host_ref() {
  return backend_named("ref");
}

// ---------------------------------------------------------------------------------------
// Names

// "g3"
inline std::string numbered(const char* prefix, size_t i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

// "N=7 C=33"
inline std::string dims(std::initializer_list<std::pair<const char*, int64_t>> sizes) {
  std::string s;
  for (const auto& [name, n] : sizes) {
    if (!s.empty()) s += ' ';
    s.append(name).append("=").append(std::to_string(n));
  }
  return s;
}

inline std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// "layernorm_forward N=7 C=33 no-bias" -> "layernorm_forward_N7_C33_no_bias": letters and
// digits kept, '=' and '^' dropped, any other run of characters one '_'.
inline std::string identifier(const std::string& name) {
  std::string id;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      id += ch;
    else if (ch != '=' && ch != '^' && !id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  return id;
}

// FNV-1a of the case name: its inputs do not change when other cases are added.
inline uint64_t seed_of(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

// Which gradients a backward case asks for (the others are null: a frozen parameter).
struct Grads {
  bool dx, dw, db;
  const char* label;
};
constexpr Grads kAllGrads{true, true, true, "all grads"};

// ---------------------------------------------------------------------------------------
// The builders of the cases, one family per file

void add_matmul_cases(std::vector<Case>& cases);  // op_table_linear_test.cpp
void add_linear_cases(std::vector<Case>& cases);
void add_matmul_bf16_cases(std::vector<Case>& cases);  // op_table_matmul_bf16_test.cpp
void add_packed_cases(std::vector<Case>& cases);
void add_bf16_cases(std::vector<Case>& cases);
void add_f16_cases(std::vector<Case>& cases);
void add_q8_0_cases(std::vector<Case>& cases);
void add_layernorm_cases(std::vector<Case>& cases);  // op_table_norm_test.cpp
void add_rmsnorm_cases(std::vector<Case>& cases);    // op_table_norm_test.cpp
void add_rope_cases(std::vector<Case>& cases);       // op_table_norm_test.cpp
void add_swiglu_cases(std::vector<Case>& cases);     // op_table_norm_test.cpp
void add_activation_cases(std::vector<Case>& cases);
void add_softmax_cases(std::vector<Case>& cases);
void add_attention_cases(std::vector<Case>& cases);              // op_table_attention_test.cpp
void add_embedding_and_dropout_cases(std::vector<Case>& cases);  // op_table_training_test.cpp
void add_cross_entropy_cases(std::vector<Case>& cases);
void add_adamw_cases(std::vector<Case>& cases);
void add_adamw_spans_cases(std::vector<Case>& cases);
void add_clip_cases(std::vector<Case>& cases);
void add_layout_cases(std::vector<Case>& cases);  // op_table_layout_test.cpp

}  // namespace tinylm::op_table
