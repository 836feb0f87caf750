// What may change when a run resumes: the settings are compared leaf by leaf, and the
// message names the leaf that changed.
#include "train/resume_check.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/input_error.h"

namespace tinylm {
namespace {

std::string message_of(const nlohmann::json& saved, const nlohmann::json& now) {
  try {
    check_resume_settings(saved, now, {"train.max_steps", "sample.*"}, "RUN/last.safetensors");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ResumeCheck, NamesTheSettingThatChanged) {
  const nlohmann::json saved = {{"model", nlohmann::json::object()}, {"train", {{"lr", 1}}}};
  EXPECT_EQ(message_of(saved, saved), "");
  nlohmann::json now = saved;
  now["model"]["n_layer"] = 3;  // under a section that was empty
  EXPECT_NE(message_of(saved, now)
                .find("model.n_layer is 3 but the run in RUN/last.safetensors "
                      "used null"),
            std::string::npos)
      << message_of(saved, now);
  now = saved;
  now["train"]["lr"] = 2;
  EXPECT_NE(message_of(saved, now).find("train.lr is 2"), std::string::npos);
  now = saved;
  now["train"]["max_steps"] = 9;  // may change
  now["sample"] = {{"prompt", "x"}};
  EXPECT_EQ(message_of(saved, now), "");
}

}  // namespace
}  // namespace tinylm
