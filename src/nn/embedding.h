// Embedding table lookup.
//   weight [V, C]
//   forward:  ids [N] -> y [N, C]      (keeps ids for backward; ids are host memory,
//                                       copied to the table's device when it is not the CPU)
//   backward: dy [N, C] -> weight.grad += scatter-add by id
#pragma once
#include <string>
#include <vector>

#include "nn/buffer_plan.h"
#include "tensor/device_ids.h"
#include "tensor/parameter.h"
#include "util/rng.h"

namespace tinylm::nn {

class Embedding {
 public:
  Embedding() = default;
  Embedding(int64_t num, int64_t dim);

  // ids: N token ids in [0, V); throws InputError naming a bad id.
  Tensor forward(const int32_t* ids, int64_t n);
  void backward(const Tensor& dy);
  void init(Rng& rng, float std);
  void parameters(ParameterList& list, const std::string& prefix);
  // What a step keeps: the ids [B, T] (int32) and y [B, T, dim].
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                           const StepShape& s);

  Parameter weight;  // [V, C]

 private:
  int64_t num_ = 0, dim_ = 0;
  DeviceIds device_ids_;                    // the ids on the table's device
  const int32_t* ids_on_device_ = nullptr;  // what backward reads
  int64_t n_ = 0;
  Tensor y_;
};

}  // namespace tinylm::nn
