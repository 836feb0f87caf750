// The gradients of one optimizer step summed over the ranks of a data-parallel run, once,
// in one flat buffer (each parameter once: a tied embedding/head is reduced once): the
// gradients' own block when they lie in one (tensor/parameter_block.h), else a copy.
//   sum mode (the default): each rank adds its micro-batches into the gradients as one
//     process does, then one MPI all-reduce (chunked) over the flat buffer;
//   ordered mode: each micro-batch's gradient is computed on zeroed gradients and added
//     to the flat buffer in micro-batch order, then the ranks' buffers are added in rank
//     order; N ranks with one micro-batch each give the bits of one process accumulating
//     the same N micro-batches in this mode, for any N.
// The micro-batch scale (1 / micro-batches of the whole step) makes the sum the global mean.
#pragma once
#include <string>
#include <vector>

#include "dist/communicator.h"
#include "tensor/parameter.h"

namespace tinylm::dist {

enum class ReduceMode { kSum, kOrdered };
// "sum" or "ordered"; InputError naming `field` otherwise.
ReduceMode reduce_mode(const std::string& name, const std::string& field);

class GradientSync {
 public:
  // The trainable parameters of `params`; `comm` must outlive this.
  GradientSync(const ParameterList& params, Communicator& comm, ReduceMode mode);

  // True when each micro-batch after a rank's first needs zeroed gradients (ordered mode).
  bool zero_between_micros() const { return mode_ == ReduceMode::kOrdered; }
  void begin_step() { parts_ = 0; }
  void after_micro();  // ordered mode: the micro-batch's gradient added to the buffer
  void finish_step();  // the gradients := their sum over micro-batches and ranks
  // data[0, n) := its sum over the ranks, in this mode (ordered: in rank order), for the
  // step's loss and counts: an ordered run logs one process's losses bit for bit.
  void sum_over_ranks(double* data, int64_t n);
  int64_t elements() const { return elements_; }  // floats reduced per step

 private:
  void gather_grads(bool add);  // flat_ := (or +=) the gradients
  void scatter_grads();         // the gradients := flat_

  std::vector<Parameter*> unique_;
  Communicator& comm_;
  ReduceMode mode_;
  int64_t elements_ = 0;
  int64_t parts_ = 0;
  std::vector<float> flat_;
  float* in_place_ = nullptr;  // the first gradient, when all lie in one block (summed there)
};

// Rank 0's values of every parameter (trainable or frozen, each once) on every rank.
void broadcast_parameters(const ParameterList& params, Communicator& comm);
// A 53-bit hash of every parameter's bits (the same list order on every rank).
double parameter_checksum(const ParameterList& params);
// Every rank's checksum, in rank order (for checking that the replicas agree).
std::vector<double> gather_checksums(double mine, Communicator& comm);

}  // namespace tinylm::dist
