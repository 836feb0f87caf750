// Defensive reference.json reading and error measures for the fine-tuning checks.
#include "finetune/verify_util.h"

#include <cmath>
#include <cstdlib>

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

bool JsonFields::has(const std::string& key) const {
  return json.contains(key);
}

const nlohmann::json& JsonFields::at(const std::string& key) const {
  require(json.contains(key), field(key) + " is missing");
  return json[key];
}

double JsonFields::number(const std::string& key) const {
  const auto& v = at(key);
  require(v.is_number(), field(key) + " must be a number");
  const double d = v.get<double>();
  require(std::isfinite(d), field(key) + " must be finite");
  return d;
}

int64_t JsonFields::integer(const std::string& key) const {
  const auto& v = at(key);
  require(v.is_number_integer(), field(key) + " must be an integer");
  return v.get<int64_t>();
}

std::string JsonFields::string(const std::string& key) const {
  const auto& v = at(key);
  require(v.is_string(), field(key) + " must be a string");
  return v.get<std::string>();
}

std::vector<std::string> JsonFields::strings(const std::string& key) const {
  const auto& v = at(key);
  require(v.is_array() && !v.empty(), field(key) + " must be a non-empty array of strings");
  std::vector<std::string> out;
  for (const auto& s : v) {
    require(s.is_string(), field(key) + " must be a non-empty array of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

JsonFields JsonFields::object(const std::string& key) const {
  const auto& v = at(key);
  require(v.is_object(), field(key) + " must be an object");
  return {v, file, prefix + key + "."};
}

nlohmann::json read_reference_json(const std::string& dir) {
  const std::string path = dir + "/reference.json";
  require(file_exists(path), path + ": not found");
  const nlohmann::json j = read_json_file(path);  // duplicate keys refused
  require(j.is_object(), path + " must be a JSON object");
  return j;
}

AdamWSettings read_adamw(const JsonFields& a) {
  AdamWSettings s;
  s.steps = a.integer("steps");
  require(s.steps > 0 && s.steps <= 1000, a.field("steps") + " must be in [1, 1000]");
  s.optimizer.lr = static_cast<float>(a.number("lr"));
  const auto& betas = a.at("betas");
  require(betas.is_array() && betas.size() == 2 && betas[0].is_number() && betas[1].is_number(),
          a.field("betas") + " must be an array of two numbers");
  s.optimizer.beta1 = betas[0].get<float>();
  s.optimizer.beta2 = betas[1].get<float>();
  require(s.optimizer.beta1 >= 0 && s.optimizer.beta1 < 1 && s.optimizer.beta2 >= 0 &&
              s.optimizer.beta2 < 1,
          a.field("betas") + " must be in [0, 1)");
  s.optimizer.eps = static_cast<float>(a.number("eps"));
  // A number, or a sentence that starts with one ("0.1 on tensors with 2+ dims ...").
  const auto& wd = a.at("weight_decay");
  if (wd.is_number()) {
    s.optimizer.weight_decay = wd.get<float>();
  } else {
    require(wd.is_string(), a.field("weight_decay") + " must be a number");
    const std::string text = wd.get<std::string>();
    char* end = nullptr;
    s.optimizer.weight_decay = std::strtof(text.c_str(), &end);
    require(end != text.c_str(), a.field("weight_decay") + " must be a number (or start with one)");
  }
  require(s.optimizer.weight_decay >= 0, a.field("weight_decay") + " must be >= 0");
  for (const char* key : {"grad_clip", "grad_clip_global_norm"}) {
    if (!a.has(key) || a.at(key).is_null()) continue;
    s.clip = a.number(key);
    require(s.clip > 0, a.field(key) + " must be positive or null");
  }
  if (a.has("per_step")) {
    const auto& steps = a.at("per_step");
    require(steps.is_array(), a.field("per_step") + " must be an array");
    for (size_t i = 0; i < steps.size(); ++i) {
      require(steps[i].is_object(),
              a.field("per_step") + "[" + std::to_string(i) + "] must be an object");
      const JsonFields step{steps[i], a.file, a.prefix + "per_step[" + std::to_string(i) + "]."};
      s.per_step.push_back({step.number("loss"), step.number("grad_norm_before_clip")});
    }
  }
  return s;
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
