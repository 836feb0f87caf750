#include "train/resume_check.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "util/error.h"

namespace tinylm {

namespace {

// {"train": {"lr": 1}} -> {"train.lr": 1}. An empty object has no settings: {"model": {}}
// against {"model": {"n_layer": 3}} differs in model.n_layer, which the message names.
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, nlohmann::json>& out) {
  if (!j.is_object()) {
    out[prefix] = j;
    return;
  }
  for (const auto& [key, value] : j.items())
    flatten(value, prefix.empty() ? key : prefix + "." + key, out);
}

bool listed(const std::vector<std::string>& may_change, const std::string& key) {
  return std::any_of(may_change.begin(), may_change.end(), [&](const std::string& m) {
    if (m.size() > 2 && m.compare(m.size() - 2, 2, ".*") == 0)
      return key.rfind(m.substr(0, m.size() - 1), 0) == 0;
    return key == m;
  });
}

// "a, b and c"
std::string list_text(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

}  // namespace

void check_resume_settings(const nlohmann::json& saved, const nlohmann::json& now,
                           const std::vector<std::string>& may_change,
                           const std::string& checkpoint) {
  std::map<std::string, nlohmann::json> before, after;
  flatten(saved, "", before);
  flatten(now, "", after);
  for (const auto& [key, value] : before) after.emplace(key, nlohmann::json());
  for (const auto& [key, value] : after) {
    const auto it = before.find(key);
    const nlohmann::json old = it == before.end() ? nlohmann::json() : it->second;
    if (old == value || listed(may_change, key)) continue;
    throw InputError("--resume: " + key + " is " + value.dump() + " but the run in " + checkpoint +
                     " used " + old.dump() + "; only " + list_text(may_change) +
                     " may change on resume (start a new --out to change anything else)");
  }
}

void check_resume_settings(const TrainConfig& saved, const TrainConfig& now, int64_t step,
                           const std::string& checkpoint) {
  check_resume_settings(saved.to_json(), now.to_json(),
                        {"train.max_steps", "train.eval_interval", "train.log_interval",
                         "train.checkpoint_interval", "train.threads", "sample.*"},
                        checkpoint);
  require(now.train.max_steps > step,
          "--resume: train.max_steps is " + std::to_string(now.train.max_steps) + " but " +
              checkpoint + " is already at step " + std::to_string(step) +
              ": nothing to do (raise train.max_steps to train further)");
}

}  // namespace tinylm
