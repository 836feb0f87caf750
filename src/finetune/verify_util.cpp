// reference.json and error measures for the fine-tuning checks.
#include "finetune/verify_util.h"

#include <cmath>
#include <cstdlib>

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

nlohmann::json read_reference_json(const std::string& dir) {
  const std::string path = dir + "/reference.json";
  require(file_exists(path), path + ": not found");
  const nlohmann::json j = read_json_file(path);  // duplicate keys refused
  require(j.is_object(), path + " must be a JSON object");
  return j;
}

double relative_error(const float* a, const float* b, int64_t n) {
  double diff = 0, ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    diff += d * d;
    ref += static_cast<double>(b[i]) * b[i];
  }
  return ref > 0 ? std::sqrt(diff / ref) : std::sqrt(diff);
}

double relative_error(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-30);
}

CheckResult make_check(const std::string& name, double error, double tol, std::string detail) {
  return {name, error, tol, std::isfinite(error) && error <= tol, std::move(detail)};
}

std::vector<int32_t> reference_ids(const SafeTensors& ref, const std::string& key, int ndim,
                                   Shape* shape) {
  const SafeTensorEntry& e = ref.get(key);
  require(static_cast<int>(e.shape.size()) == ndim && e.numel() > 0,
          ref.source + ": " + key + " must be a non-empty " + std::to_string(ndim) +
              "-D tensor, got " + shape_str(e.shape));
  std::vector<int32_t> ids;
  for (int64_t v : e.to_int64()) {
    require(v >= INT32_MIN && v <= INT32_MAX, ref.source + ": " + key + " has an id out of range");
    ids.push_back(static_cast<int32_t>(v));
  }
  if (shape) *shape = e.shape;
  return ids;
}

}  // namespace tinylm::finetune
