#include "train/resume_check.h"

#include <map>
#include <set>

#include "util/error.h"

namespace tinylm {

namespace {

// {"train": {"lr": 1}} -> {"train.lr": 1}
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, nlohmann::json>& out) {
  if (!j.is_object()) {
    out[prefix] = j;
    return;
  }
  for (const auto& [key, value] : j.items())
    flatten(value, prefix.empty() ? key : prefix + "." + key, out);
}

bool may_change(const std::string& key) {
  static const std::set<std::string> allowed = {"train.max_steps", "train.eval_interval",
                                                "train.log_interval", "train.checkpoint_interval",
                                                "train.threads"};
  return allowed.count(key) > 0 || key.rfind("sample.", 0) == 0;
}

}  // namespace

void check_resume_settings(const TrainConfig& saved, const TrainConfig& now, int64_t step,
                           const std::string& checkpoint) {
  std::map<std::string, nlohmann::json> before, after;
  flatten(saved.to_json(), "", before);
  flatten(now.to_json(), "", after);
  for (const auto& [key, value] : after) {
    const auto it = before.find(key);
    const nlohmann::json old = it == before.end() ? nlohmann::json() : it->second;
    if (old == value || may_change(key)) continue;
    throw InputError("--resume: " + key + " is " + value.dump() + " but the run in " + checkpoint +
                     " used " + old.dump() +
                     "; only train.max_steps, train.eval_interval, train.log_interval, "
                     "train.checkpoint_interval, train.threads and sample.* may change on "
                     "resume (start a new --out to change anything else)");
  }
  require(now.train.max_steps > step,
          "--resume: train.max_steps is " + std::to_string(now.train.max_steps) + " but " +
              checkpoint + " is already at step " + std::to_string(step) +
              ": nothing to do (raise train.max_steps to train further)");
}

}  // namespace tinylm
