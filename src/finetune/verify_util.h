// Shared pieces of the fine-tuning verify checks (verify_classify, verify_lora,
// verify_instruct): reading reference.json (its fields then go through util/json_read.h's
// JsonField, and "adamw" through train/verify.h's read_adamw_reference), relative errors.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "train/adamw.h"
#include "train/verify.h"

namespace tinylm::finetune {

// DIR/reference.json parsed; InputError if missing, malformed or not an object.
nlohmann::json read_reference_json(const std::string& dir);

// ||a - b|| / ||b|| (in double; the plain norm of a - b when b is zero).
double relative_error(const float* a, const float* b, int64_t n);
double relative_error(double a, double b);
CheckResult make_check(const std::string& name, double error, double tol, std::string detail = "");

// An integer tensor of the reference as int32 ids, with its shape checked to have `ndim`.
std::vector<int32_t> reference_ids(const SafeTensors& ref, const std::string& key, int ndim,
                                   Shape* shape = nullptr);

}  // namespace tinylm::finetune
