// Shared pieces of the fine-tuning verify checks (verify_classify, verify_lora):
// defensive reading of reference.json fields (every bad field is an InputError naming
// the file and the field), the AdamW settings a reference ran with, relative errors.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "train/adamw.h"
#include "train/verify.h"

namespace tinylm::finetune {

// A JSON object read field by field; errors read "<file>: field <prefix><key> ...".
struct JsonFields {
  const nlohmann::json& json;
  std::string file;
  std::string prefix;

  bool has(const std::string& key) const;
  const nlohmann::json& at(const std::string& key) const;  // required
  double number(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  std::string string(const std::string& key) const;
  std::vector<std::string> strings(const std::string& key) const;  // non-empty array
  JsonFields object(const std::string& key) const;
  std::string field(const std::string& key) const { return file + ": field " + prefix + key; }
};

// DIR/reference.json parsed; InputError if missing, malformed or not an object.
nlohmann::json read_reference_json(const std::string& dir);

// The AdamW run a reference describes under "adamw".
struct AdamWSettings {
  AdamWConfig optimizer;
  int64_t steps = 0;
  double clip = 0;  // 0: no clipping (grad_clip null)
  struct Step {
    double loss, grad_norm;
  };
  std::vector<Step> per_step;  // may be empty
};
AdamWSettings read_adamw(const JsonFields& adamw);

// ||a - b|| / ||b|| (in double; the plain norm of a - b when b is zero).
double relative_error(const float* a, const float* b, int64_t n);
double relative_error(double a, double b);
CheckResult make_check(const std::string& name, double error, double tol, std::string detail = "");

// An integer tensor of the reference as int32 ids, with its shape checked to have `ndim`.
std::vector<int32_t> reference_ids(const SafeTensors& ref, const std::string& key, int ndim,
                                   Shape* shape = nullptr);

}  // namespace tinylm::finetune
