// What `tinylm serve` decides from the model it opens: the chat template and the id.
#include "serve/serve.h"

#include <gtest/gtest.h>

namespace tinylm::serve {
namespace {

TEST(Serve, InstructRunsChatInTheirAlpacaTemplateOthersInThePlainOne) {
  OpenedModel m;
  EXPECT_EQ(chat_template_for(m).name, "plain");
  m.finetune_config.emplace();
  m.finetune_config->task = "instruct";
  EXPECT_EQ(chat_template_for(m).name, "alpaca");
  m.finetune_config->task = "classify";
  EXPECT_EQ(chat_template_for(m).name, "plain");
}

TEST(Serve, TheModelIdIsTheSourcesLastPart) {
  EXPECT_EQ(default_model_id("runs/shakespeare/"), "shakespeare");
  EXPECT_EQ(default_model_id("runs/shakespeare"), "shakespeare");
  EXPECT_EQ(default_model_id("gpt2-124m"), "gpt2-124m");
  EXPECT_EQ(default_model_id("models/tiny.gguf"), "tiny.gguf");
}

}  // namespace
}  // namespace tinylm::serve
