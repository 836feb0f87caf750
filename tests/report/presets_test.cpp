// The presets of released models (model/presets.cpp): the parameter table of each shape
// gives the model's published parameter count, so the shapes are the real ones.
#include <gtest/gtest.h>

#include <string>

#include "model/config.h"
#include "report/param_table.h"
#include "util/error.h"

namespace tinylm::report {
namespace {

TEST(Presets, ParameterCountsAreThePublishedOnes) {
  const struct {
    const char* name;
    int64_t params;  // the released checkpoint's, each tensor once
  } kPublished[] = {
      {"gpt2-124m", 124439808},   {"gpt2-355m", 354823168},     {"gpt2-774m", 774030080},
      {"gpt2-1558m", 1557611200}, {"smollm2-135m", 134515008},  {"qwen2.5-0.5b", 494032768},
      {"qwen3-0.6b", 596049920},  {"llama-3.2-1b", 1235814400},
  };
  for (const auto& p : kPublished) {
    const GPTConfig c = GPTConfig::preset(p.name);
    c.validate();
    EXPECT_EQ(param_table(c).total, p.params) << p.name;
  }
}

TEST(Presets, AnUnknownNameListsThemAll) {
  try {
    GPTConfig::preset("llama-3.2-7b");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    for (const char* name : {"gpt2-124m", "smollm2-135m", "qwen3-0.6b", "llama-3.2-1b"})
      EXPECT_NE(m.find(name), std::string::npos) << m;
  }
}

TEST(Presets, TheLlamaFamilysArchAndHeads) {
  const GPTConfig smol = GPTConfig::preset("smollm2-135m");
  EXPECT_EQ(smol.arch, Arch::Llama);
  EXPECT_EQ(smol.kv_heads(), 3);
  EXPECT_EQ(smol.head_size(), 64);
  const GPTConfig qwen3 = GPTConfig::preset("qwen3-0.6b");
  EXPECT_EQ(qwen3.head_size(), 128);  // head_dim != d_model / n_head
  EXPECT_TRUE(qwen3.qk_norm);
  EXPECT_EQ(GPTConfig::preset("llama-3.2-1b").rope_scaling.factor, 32.0f);
}

}  // namespace
}  // namespace tinylm::report
