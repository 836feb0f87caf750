#include "dist/gradient_sync.h"

#include <algorithm>
#include <cstring>

#include "tensor/parameter_block.h"
#include "util/error.h"

namespace tinylm::dist {

namespace {

// Each parameter once, in list order (tensor/parameter_block.h); with `on_cpu`, each must
// be in the CPU's memory (the collectives and copies read it there).
std::vector<Parameter*> reduced_parameters(const ParameterList& params, bool trainable_only,
                                           bool on_cpu = true) {
  for (const auto& p : params)
    require(!on_cpu || (trainable_only && !p.param->trainable()) ||
                p.param->value.device() == Device::kCpu,
            [&] {
              return "data-parallel training runs on the CPU (" + p.name + " is on another device)";
            });
  std::vector<Parameter*> out;
  for (Parameter* p : unique_parameters(params))
    if (!trainable_only || p->trainable()) out.push_back(p);
  return out;
}

// Whether the gradients lie one after the other in memory (a ParameterBlock's).
bool adjacent_grads(const std::vector<Parameter*>& params) {
  const float* next = nullptr;
  for (const Parameter* p : params) {
    if (next && p->grad.data() != next) return false;
    next = p->grad.data() + p->grad.numel();
  }
  return true;
}

}  // namespace

ReduceMode reduce_mode(const std::string& name, const std::string& field) {
  if (name == "sum") return ReduceMode::kSum;
  if (name == "ordered") return ReduceMode::kOrdered;
  throw InputError(field + ": unknown '" + name + "' (sum, ordered)");
}

GradientSync::GradientSync(const ParameterList& params, Communicator& comm, ReduceMode mode)
    : unique_(reduced_parameters(params, true, comm.size() > 1 || mode == ReduceMode::kOrdered)),
      comm_(comm),
      mode_(mode) {
  for (const Parameter* p : unique_) elements_ += p->grad.numel();
  if (!unique_.empty() && adjacent_grads(unique_)) in_place_ = unique_[0]->grad.data();
}

void GradientSync::gather_grads(bool add) {
  flat_.resize(static_cast<size_t>(elements_));
  float* at = flat_.data();
  for (Parameter* p : unique_) {
    const float* g = p->grad.data();
    const int64_t n = p->grad.numel();
    if (add)
      for (int64_t i = 0; i < n; ++i) at[i] += g[i];
    else
      std::memcpy(at, g, static_cast<size_t>(n) * sizeof(float));
    at += n;
  }
}

void GradientSync::scatter_grads() {
  const float* at = flat_.data();
  for (Parameter* p : unique_) {
    std::memcpy(p->grad.data(), at, static_cast<size_t>(p->grad.numel()) * sizeof(float));
    at += p->grad.numel();
  }
}

void GradientSync::after_micro() {
  if (mode_ != ReduceMode::kOrdered) return;
  gather_grads(parts_ > 0);  // the first part is copied: 0 + g would turn -0 into +0
  ++parts_;
}

void GradientSync::finish_step() {
  if (mode_ == ReduceMode::kSum) {
    if (comm_.size() == 1) return;                            // the gradients are the sum already
    if (in_place_ && unique_[0]->grad.data() == in_place_) {  // one block: no copies
      comm_.all_reduce_sum(in_place_, elements_);
      return;
    }
    gather_grads(false);
    comm_.all_reduce_sum(flat_.data(), elements_);
  } else {
    require(parts_ > 0, "GradientSync: a step without a micro-batch");
    comm_.all_reduce_ordered(flat_.data(), elements_);
  }
  scatter_grads();
}

void GradientSync::sum_over_ranks(double* data, int64_t n) {
  if (comm_.size() == 1) return;
  if (mode_ == ReduceMode::kSum)
    comm_.all_reduce_sum(data, n);
  else
    comm_.all_reduce_ordered(data, n);
}

void broadcast_parameters(const ParameterList& params, Communicator& comm) {
  if (comm.size() == 1) return;
  for (Parameter* p : reduced_parameters(params, false))
    comm.broadcast(p->value.data(), p->value.numel());
}

double parameter_checksum(const ParameterList& params) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a over the float bits
  for (Parameter* p : reduced_parameters(params, false)) {
    const float* v = p->value.data();
    for (int64_t i = 0; i < p->value.numel(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, v + i, sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
    }
  }
  return static_cast<double>(h >> 11);  // 53 bits: exact in a double
}

std::vector<double> gather_checksums(double mine, Communicator& comm) {
  std::vector<double> all(static_cast<size_t>(comm.size()), 0.0);
  all[static_cast<size_t>(comm.rank())] = mine;
  comm.all_reduce_sum(all.data(), static_cast<int64_t>(all.size()));  // + 0 is exact
  return all;
}

}  // namespace tinylm::dist
