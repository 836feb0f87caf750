// The registered backends (backend/backend.h) and the one each device uses.
//   backend_for(device)   the table nn/ and model/ call for tensors of `device`
//                         ("cpu" for the CPU; "cuda" for CUDA, an InputError in a build
//                         without CUDA)
//   on(tensor)            backend_for(tensor.device()): on(x).layernorm_forward(...)
//   backend_named(name)   "cpu", "ref" or "cuda"; InputError listing the names otherwise
//   registered_backends() every table this build has, "ref" first
//   require_device(d)     InputError "--device cuda: <why>" unless d's backend runs here
//                         (what a command checks before it moves a model there)
#pragma once
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "tensor/tensor.h"

namespace tinylm {

const Backend& backend_for(Device device);
const Backend& backend_named(std::string_view name);
const std::vector<const Backend*>& registered_backends();
void require_device(Device device);
// The matrix products of `device` from now on computed at precision p (ops/precision.h);
// InputError "--precision tf32: ..." when that device does not have it (the CPU: fp32 and
// bf16 only, ops/matmul_bf16.h).
void use_matmul_precision(Device device, ops::MatmulPrecision p);

inline const Backend& on(const Tensor& t) {
  return backend_for(t.device());
}

// The tables themselves (backend/*_backend.cpp).
const Backend& cpu_backend();
const Backend& ref_backend();
#ifdef TINYLM_WITH_CUDA
const Backend& cuda_backend();
#endif

}  // namespace tinylm
