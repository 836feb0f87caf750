// The op table test, in the spirit of ggml's test-backend-ops: every kernel of every
// registered backend (backend/backend.h) against the same kernel of "ref" (ops::ref), from
// one list of cases.
//
// A case is one kernel on one shape (and one variant: bias or not, which gradients, ...):
//   name     op and shape, "layernorm_forward N=7 C=33 no-bias"
//   entry    the table entry it calls; a backend without it runs none of its cases
//   make     its inputs (named host arrays) from an Rng seeded with a hash of the name
//   run      (backend, inputs) -> outputs: uploads the inputs to the backend's device,
//            calls the kernel through the table, downloads what the kernel wrote (named
//            host arrays, plus the value cross_entropy and clip_grad_norm return)
//   tol      |got - ref| <= abs + rel |ref| for every entry, or exact (the same bits),
//            and, if norm is set, ||got - ref|| <= norm ||ref|| for the whole array;
//            tol_for overrides it for some outputs (by name; "returned": the value)
// The test runs a case on the backend and on "ref" with the same inputs and compares
// every output. Outputs a kernel must overwrite start as NaN on the device, so an entry it
// leaves unwritten fails; outputs it accumulates into start from random values. A backend
// that cannot run here (cuda without a GPU) is skipped with its reason.
//
// To add a case: push it in the builder of its op in op_table_<family>_test.cpp (or
// write a builder there, declare it in op_table.h and list it in all_cases() below). Use
// upload() / fresh() for float arrays (Outputs::add downloads them) and DeviceArray for
// the others (ids, targets, bf16 weights). The test is named "<backend>_<case name>" with
// the punctuation folded to '_' (cpu_layernorm_forward_N7_C33_no_bias): case names must
// stay unique after folding.
#include "op_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace tinylm::op_table {
namespace {

// ---------------------------------------------------------------------------------------
// The list, and the comparison

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> c;
    add_matmul_cases(c);
    add_linear_cases(c);
    add_matmul_bf16_cases(c);
    add_bf16_cases(c);
    add_f16_cases(c);
    add_q8_0_cases(c);
    add_packed_cases(c);
    add_layernorm_cases(c);
    add_rmsnorm_cases(c);
    add_rope_cases(c);
    add_swiglu_cases(c);
    add_activation_cases(c);
    add_softmax_cases(c);
    add_attention_cases(c);
    add_embedding_and_dropout_cases(c);
    add_cross_entropy_cases(c);
    add_adamw_cases(c);
    add_adamw_spans_cases(c);
    add_clip_cases(c);
    add_layout_cases(c);
    return c;
  }();
  return cases;
}

bool within(double got, double want, const Tol& t) {
  if (got == want) return true;                                     // equal infinities too
  return std::fabs(got - want) <= t.abs + t.rel * std::fabs(want);  // false for NaN
}

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// "" when got matches want within t; else the first offenders and their count.
std::string array_differences(const std::string& what, const std::vector<float>& got,
                              const std::vector<float>& want, const Tol& t) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " values, ref " + std::to_string(want.size());
  std::ostringstream os;
  os << std::setprecision(9);
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = t.exact ? bits_of(got[i]) == bits_of(want[i]) : within(got[i], want[i], t);
    if (ok || bad++ >= 5) continue;
    os << what << "[" << i << "]: " << got[i] << " vs ref " << want[i];
    if (t.exact)
      os << std::hex << " (bits 0x" << bits_of(got[i]) << " vs 0x" << bits_of(want[i]) << ")"
         << std::dec;
    os << "\n";
  }
  if (bad > 0) os << what << ": " << bad << " of " << got.size() << " entries differ\n";
  if (t.norm > 0) {
    double diff2 = 0.0, want2 = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
      diff2 += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
      want2 += double(want[i]) * want[i];
    }
    const double err = std::sqrt(diff2) / (want2 > 0 ? std::sqrt(want2) : 1.0);
    if (!(err <= t.norm))
      os << what << ": ||got - ref|| / ||ref|| = " << err << " > " << t.norm << "\n";
  }
  return os.str();
}

// "" when every output of got matches want within the case's tolerances.
std::string differences(const Case& c, const Outputs& got, const Outputs& want) {
  if (got.arrays.size() != want.arrays.size() ||
      got.returned.has_value() != want.returned.has_value())
    return "the backend's outputs are not the ref's";
  std::string diff;
  for (size_t i = 0; i < want.arrays.size(); ++i) {
    const auto& [name, values] = want.arrays[i];
    if (got.arrays[i].first != name) return "output " + got.arrays[i].first + ", ref " + name;
    diff += array_differences(name, got.arrays[i].second, values, c.tol_of(name));
  }
  if (want.returned && !within(*got.returned, *want.returned, c.tol_of("returned"))) {
    std::ostringstream os;
    os << std::setprecision(17) << "returned " << *got.returned << " vs ref " << *want.returned
       << "\n";
    diff += os.str();
  }
  return diff;
}

// Runs case c on backend b and on ref, from the same inputs.
std::pair<Outputs, Outputs> run_both(const Case& c, const Backend& b) {
  Rng rng(seed_of(c.name));
  const Inputs in = c.make(rng);
  return {c.run(b, in), c.run(host_ref(), in)};
}

// ---------------------------------------------------------------------------------------
// The test: (backend, case) for every registered backend but ref

struct Param {
  const Backend* backend;
  const Case* c;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.backend->name << ": " << p.c->name;
}

// Every case of every kernel a backend has (a kernel a backend lacks has no instances
// there).
std::vector<Param> backend_case_pairs() {
  std::vector<Param> params;
  for (const Backend* b : registered_backends())
    if (std::string(b->name) != "ref")
      for (const Case& c : all_cases())
        if (c.entry.present(*b)) params.push_back({b, &c});
  return params;
}

std::string test_name(const ::testing::TestParamInfo<Param>& info) {
  return identifier(std::string(info.param.backend->name) + " " + info.param.c->name);
}

class OpTable : public ::testing::TestWithParam<Param> {};

TEST_P(OpTable, MatchesRef) {
  const Backend& b = *GetParam().backend;
  const Case& c = *GetParam().c;
  std::string why;
  if (!b.available || !b.available(&why)) GTEST_SKIP() << b.name << " cannot run here: " << why;
  const auto [got, want] = run_both(c, b);
  ASSERT_TRUE(!want.arrays.empty() || want.returned) << c.name << ": nothing to compare";
  const std::string diff = differences(c, got, want);
  EXPECT_TRUE(diff.empty()) << b.name << " vs ref, " << c.name << ":\n" << diff;
}

INSTANTIATE_TEST_SUITE_P(Backends, OpTable, ::testing::ValuesIn(backend_case_pairs()), test_name);

// ---------------------------------------------------------------------------------------
// The list itself

// Every entry of Backend, in its order.
// clang-format off
constexpr const char* kKernels[] = {
    "matmul", "linear_forward", "linear_backward", "matmul_bf16", "to_bf16", "linear_forward_bf16",
    "to_f16", "linear_forward_f16", "quantize_q8_0", "linear_forward_q8_0", "pack_linear",
    "linear_forward_packed",
    "layernorm_forward", "layernorm_backward", "rmsnorm_forward", "rmsnorm_backward",
    "rope_forward", "rope_backward", "swiglu_forward", "swiglu_backward",
    "activation_forward", "activation_backward",
    "softmax_forward", "softmax_backward", "attention_forward", "attention_backward",
    "attention_forward_tiled", "attention_backward_tiled", "embedding_forward",
    "embedding_backward", "dropout_forward", "dropout_backward", "cross_entropy", "add", "scale",
    "copy", "split_heads", "join_heads", "heads_to_rows", "rows_to_heads", "repeat_kv",
    "sum_kv_groups", "add_positions",
    "sum_over_batch", "adamw_update", "adamw_update_spans", "clip_grad_norm"};
// clang-format on

TEST(OpTableCases, EveryKernelOfTheTableHasCases) {
  // Backend is three fields then one Kernel<> per entry (all the same size): a kernel added
  // to the table but not to kKernels (and so without cases) changes this count.
  EXPECT_EQ(std::size(kKernels),
            (sizeof(Backend) - offsetof(Backend, matmul)) / sizeof(Kernel<void()>));
  for (const char* kernel : kKernels) {
    int64_t n = 0;
    for (const Case& c : all_cases()) n += std::string(c.entry.name) == kernel;
    EXPECT_GT(n, 0) << kernel << " has no case";
  }
  for (const Case& c : all_cases()) EXPECT_TRUE(c.entry.present(host_ref())) << c.name;
}

// The cpu kernels with one mistake each, made on purpose: the comparison must see it.
void softmax_one_entry_off(const float* x, float* y, int64_t N, int64_t D) {
  cpu_backend().softmax_forward(x, y, N, D);
  y[0] *= 1.0001f;
}
void layernorm_backward_overwriting(const float* dy, const float* x, const float* w,
                                    const float* mean, const float* rstd, float* dx, float* dw,
                                    float* db, int64_t N, int64_t C) {
  for (int64_t c = 0; c < C; ++c) {  // instead of accumulating
    if (dw) dw[c] = 0.0f;
    if (db) db[c] = 0.0f;
  }
  cpu_backend().layernorm_backward(dy, x, w, mean, rstd, dx, dw, db, N, C);
}
void embedding_forward_last_row_unwritten(const int32_t* ids, const float* table, float* y,
                                          int64_t N, int64_t V, int64_t C) {
  cpu_backend().embedding_forward(ids, table, y, N - 1, V, C);
}
void dropout_forward_next_key(const float* x, float* y, float* mask, int64_t N, float p,
                              uint64_t key) {
  cpu_backend().dropout_forward(x, y, mask, N, p, key + 1);
}
double cross_entropy_counting_ignored_rows(const float* logits, const int32_t* targets,
                                           float* dlogits, int64_t N, int64_t V, int32_t ignore) {
  return cpu_backend().cross_entropy(logits, targets, dlogits, N, V, ignore) * 2.0 / 3.0;
}

// float32 products where bf16 ones are asked for (operands not rounded)
void matmul_bf16_unrounded(const float* A, const float* B, float* C, int64_t M, int64_t N,
                           int64_t K, bool ta, bool tb, float alpha, float beta) {
  cpu_backend().matmul(A, B, C, M, N, K, ta, tb, alpha, beta);
}

const Case& case_named(const std::string& name) {
  for (const Case& c : all_cases())
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

TEST(OpTableCases, ABrokenKernelIsCaught) {
  Backend broken = cpu_backend();
  broken.name = "broken";
  broken.softmax_forward = softmax_one_entry_off;
  broken.layernorm_backward = layernorm_backward_overwriting;
  broken.embedding_forward = embedding_forward_last_row_unwritten;
  broken.dropout_forward = dropout_forward_next_key;
  broken.cross_entropy = cross_entropy_counting_ignored_rows;
  broken.matmul_bf16 = matmul_bf16_unrounded;
  const std::pair<const char*, const char*> caught[] = {
      {"softmax_forward N=7 D=33", "y[0]"},
      {"layernorm_backward N=7 C=33 dw db", "dw["},
      {"embedding_forward N=7 V=5 C=33", "y[198]"},
      {"dropout_forward N=65 p=0.5", "mask["},
      {"cross_entropy N=33 V=1000 every-third-ignored no-dlogits", "returned"},
      {"matmul_bf16 M=33 N=65 K=17", "C = 0.75 A B + 0.5 C["},
  };
  for (const auto& [name, what] : caught) {
    const Case& c = case_named(name);
    const auto [good, want] = run_both(c, cpu_backend());
    EXPECT_EQ(differences(c, good, want), "") << name;
    const auto [bad, bad_want] = run_both(c, broken);
    const std::string diff = differences(c, bad, bad_want);
    EXPECT_NE(diff.find(what), std::string::npos) << name << ":\n" << diff;
  }
}

TEST(OpTableCases, NamesFoldToIdentifiers) {
  EXPECT_EQ(identifier("cpu layernorm_forward N=7 C=33 no-bias"),
            "cpu_layernorm_forward_N7_C33_no_bias");
  EXPECT_EQ(identifier("cpu matmul M=7 N=33 K=65 alpha/beta"), "cpu_matmul_M7_N33_K65_alpha_beta");
}

}  // namespace
}  // namespace tinylm::op_table
