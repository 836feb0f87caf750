// The GPT-2 -> Llama walk (course/gpt_to_llama.h): counts from built modules equal the
// report's closed forms on released shapes, the published parameter counts come out at
// the ends, and each step changes what it says and nothing else.
#include "course/gpt_to_llama.h"

#include <gtest/gtest.h>

#include "report/block_layers.h"
#include "report/flops.h"
#include "report/param_table.h"

namespace tinylm::course {
namespace {

TEST(GptToLlama, ReleasedShapesCountAsTheReportCountsThem) {
  for (const char* name : {"gpt2-124m", "smollm2-135m", "qwen2.5-0.5b", "qwen3-0.6b"}) {
    const GPTConfig c = GPTConfig::preset(name);
    const StepCounts n = count_step(step_of(c, name), c.block_size > 4096 ? 4096 : c.block_size);
    EXPECT_EQ(n.params, report::param_table(c).total) << name;
    const int64_t T = c.block_size > 4096 ? 4096 : c.block_size;
    EXPECT_EQ(n.flops_per_token, report::estimate_flops(c, 1, T).forward_per_token) << name;
    EXPECT_EQ(n.kv_bytes_per_token, report::kv_cache_bytes_per_token(c)) << name;
  }
}

TEST(GptToLlama, TheWalkStartsAtTheCoursesGpt2AndEndsAtPublishedCounts) {
  const std::vector<ArchStep> steps = gpt_to_llama_steps();
  ASSERT_EQ(steps.size(), 9u);
  EXPECT_EQ(count_step(steps.front(), 1024).params, 163009536);  // the course's GPTModel
  EXPECT_EQ(count_step(steps[7], 1024).params, 134515008);       // SmolLM2-135M
  EXPECT_EQ(count_step(steps[8], 1024).params, 1235814400);      // Llama-3.2-1B
}

TEST(GptToLlama, EachStepChangesWhatItSays) {
  const std::vector<ArchStep> s = gpt_to_llama_steps();
  std::vector<StepCounts> n;
  for (const ArchStep& step : s) n.push_back(count_step(step, 1024));
  const int64_t C = 768, L = 12, V = 50257, T = 1024;
  EXPECT_EQ(n[0].params - n[1].params, (2 * L + 1) * C);  // the norms' biases
  EXPECT_EQ(n[1].params - n[2].params, T * C);            // the position table
  EXPECT_EQ(n[1].flops_per_token, n[2].flops_per_token);  // RoPE adds no matmul
  EXPECT_EQ(n[2].params - n[3].params, L * (C + 4 * C + C));
  EXPECT_EQ(n[3].params, n[4].params);  // SwiGLU at 2/3 the width keeps the count
  EXPECT_EQ(n[3].flops_per_token, n[4].flops_per_token);
  EXPECT_EQ(n[4].params - n[5].params, L * 2 * C * (C - C / 3));  // 4 of 12 KV heads
  EXPECT_EQ(n[4].kv_bytes_per_token, 3 * n[5].kv_bytes_per_token);
  EXPECT_EQ(n[5].params - n[6].params, V * C);  // the head shares the embedding
  EXPECT_EQ(n[5].flops_per_token, n[6].flops_per_token);
}

TEST(GptToLlama, TheTableNamesEveryStep) {
  const std::vector<ArchStep> steps = gpt_to_llama_steps();
  const std::string table = format_gpt_to_llama(steps, 1024);
  for (const ArchStep& s : steps) EXPECT_NE(table.find(s.change), std::string::npos) << table;
  EXPECT_NE(table.find("1,235,814,400"), std::string::npos) << table;
}

}  // namespace
}  // namespace tinylm::course
