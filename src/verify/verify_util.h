// Shared pieces of the fine-tuning verify checks (verify_classify, verify_lora,
// verify_instruct): reading reference.json (its fields then go through util/json_read.h's
// JsonField, and "adamw" through verify/verify_lm.h's read_adamw_reference), relative errors.
#pragma once
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "optim/adamw.h"
#include "verify/verify_lm.h"

namespace tinylm::finetune {

// DIR/reference.json parsed; InputError if missing, malformed or not an object.
nlohmann::json read_reference_json(const std::string& dir);

// ||a - b|| / ||b|| (in double; the plain norm of a - b when b is zero).
double relative_error(const float* a, const float* b, int64_t n);
double relative_error(double a, double b);
CheckResult make_check(const std::string& name, double error, double tol, std::string detail = "");

// The reference's AdamW steps (verify/verify_lm.h's AdamWReference) over `params`: weight
// decay on tensors of 2+ dims (torch's usual grouping), each step zeroing the trainable
// gradients, running loss_and_backward (returns the loss), clipping as the reference did,
// then AdamW. Returns the worst relative error of the per-step loss and gradient norm
// against the reference's (0 when it has none).
double run_reference_adamw(const AdamWReference& a, const ParameterList& params,
                           const std::function<double()>& loss_and_backward);

// An integer tensor of the reference as int32 ids, with its shape checked to have `ndim`.
std::vector<int32_t> reference_ids(const SafeTensors& ref, const std::string& key, int ndim,
                                   Shape* shape = nullptr);

}  // namespace tinylm::finetune
