// reference.json and error measures for the fine-tuning checks.
#include "verify/verify_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

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

double run_reference_adamw(const AdamWReference& a, const ParameterList& params,
                           const std::function<double()>& loss_and_backward) {
  for (const auto& p : params) p.param->decay = p.param->value.ndim() >= 2;
  AdamW opt(params, a.config);
  double worst = 0;
  for (int64_t step = 0; step < a.steps; ++step) {
    for (const auto& p : params)
      if (p.param->trainable()) p.param->grad.zero();
    const double loss = loss_and_backward();
    const double norm = clip_gradients(
        params, a.grad_clip > 0 ? a.grad_clip : std::numeric_limits<double>::infinity());
    const auto i = static_cast<size_t>(step);
    if (i < a.step_loss.size()) worst = std::max(worst, relative_error(loss, a.step_loss[i]));
    if (i < a.step_grad_norm.size())
      worst = std::max(worst, relative_error(norm, a.step_grad_norm[i]));
    opt.step(a.config.lr);
  }
  return worst;
}

}  // namespace tinylm::finetune
