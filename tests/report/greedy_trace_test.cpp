// trace_greedy: the tokens are the argmax of model.forward's last row, step by step; each
// step's heads are most_attended of trace_input on the ids so far; it stops at the stop
// id (not added), after max_tokens, and when the ids outgrow the context.
#include "report/greedy_trace.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "report/random_gpt.h"
#include "util/error.h"

namespace tinylm::report {
namespace {

GPTConfig trace_config() {
  GPTConfig c;
  c.vocab_size = 11, c.block_size = 9, c.n_layer = 2, c.n_head = 2, c.d_model = 12;
  return c;
}

int32_t argmax_next(GPT& model, const std::vector<int32_t>& ids) {
  const auto T = static_cast<int64_t>(ids.size());
  const int64_t V = model.config().vocab_size;
  const Tensor logits = model.forward(ids.data(), 1, T);
  const float* last = logits.data() + (T - 1) * V;
  return static_cast<int32_t>(std::max_element(last, last + V) - last);
}

TEST(GreedyTrace, EachStepIsTheArgmaxAndTheTraceOfTheIdsSoFar) {
  GPT model = testing::random_gpt(trace_config(), 7);
  const std::vector<int32_t> prompt = {1, 5, 2};
  const GreedyTrace g = trace_greedy(model, prompt, 4, /*layer=*/1, /*top_attended=*/2);
  ASSERT_EQ(g.steps.size(), 4u);
  ASSERT_EQ(g.ids.size(), 7u);
  EXPECT_FALSE(g.context_full);
  EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), g.ids.begin()));
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const std::vector<int32_t> so_far(g.ids.begin(), g.ids.begin() + 3 + s);
    const GreedyStep& step = g.steps[s];
    EXPECT_EQ(step.query, static_cast<int64_t>(2 + s));
    EXPECT_EQ(step.next.id, argmax_next(model, so_far)) << "step " << s;
    EXPECT_EQ(step.next.id, g.ids[3 + s]);
    const Trace trace = trace_input(model, so_far, 1, 1);
    EXPECT_EQ(step.next.probability, trace.top_next[0].probability);
    ASSERT_EQ(step.heads.size(), 2u);
    for (int64_t h = 0; h < 2; ++h) {
      const auto want = most_attended(trace, 1, h, step.query, 2);
      ASSERT_EQ(step.heads[h].size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(step.heads[h][i].position, want[i].position);
        EXPECT_EQ(step.heads[h][i].weight, want[i].weight);
      }
    }
  }
}

TEST(GreedyTrace, StopsAtTheStopIdWithoutAddingIt) {
  GPT model = testing::random_gpt(trace_config(), 8);
  const std::vector<int32_t> prompt = {3, 4};
  const int32_t first = argmax_next(model, prompt);
  const GreedyTrace g = trace_greedy(model, prompt, 5, 0, 3, /*stop_id=*/first);
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].next.id, first);
  EXPECT_EQ(g.ids, prompt);
  EXPECT_EQ(g.steps[0].heads[0].size(), 2u);  // only positions 0..query carry weight
}

TEST(GreedyTrace, StopsWhenTheContextIsFull) {
  GPT model = testing::random_gpt(trace_config(), 9);
  // 8 of 9 positions: the token predicted at position 8 is the last one that fits a step.
  const GreedyTrace g = trace_greedy(model, {1, 2, 3, 4, 5, 6, 7, 8}, 5, 0, 1);
  EXPECT_EQ(g.steps.size(), 2u);
  EXPECT_EQ(g.ids.size(), 10u);
  EXPECT_TRUE(g.context_full);
  const GreedyTrace none = trace_greedy(model, {1, 2}, 0, 0, 1);
  EXPECT_TRUE(none.steps.empty());
  EXPECT_FALSE(none.context_full);
}

TEST(GreedyTrace, RejectsABlockTheModelDoesNotHave) {
  GPT model = testing::random_gpt(trace_config(), 10);
  EXPECT_THROW(trace_greedy(model, {1}, 1, 2, 1), InputError);
  EXPECT_THROW(trace_greedy(model, {1}, 1, -1, 1), InputError);
  EXPECT_THROW(trace_greedy(model, {1}, 1, 0, 0), InputError);
  EXPECT_THROW(trace_greedy(model, {}, 1, 0, 1), InputError);
}

}  // namespace
}  // namespace tinylm::report
