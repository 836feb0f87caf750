// Random training batches and deterministic evaluation windows.
#include "data/sampler.h"

#include <gtest/gtest.h>

#include <numeric>

#include "data/eval_windows.h"
#include "util/error.h"

namespace tinylm {
namespace {

std::vector<int32_t> sampler_iota(int n) {
  std::vector<int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

TEST(SampleBatch, TargetsAreInputsShiftedByOne) {
  // ids[i] = i, so a window's values are its offsets.
  const std::vector<int32_t> ids = sampler_iota(500);
  Rng rng(42);
  const Batch b = sample_batch(ids, 16, 32, rng);
  ASSERT_EQ(b.B, 16);
  ASSERT_EQ(b.T, 32);
  ASSERT_EQ(b.inputs.size(), 16u * 32u);
  ASSERT_EQ(b.targets.size(), 16u * 32u);
  EXPECT_EQ(b.supervised(), 16 * 32);
  for (int64_t r = 0; r < b.B; ++r) {
    const int32_t start = b.inputs[r * b.T];
    EXPECT_GE(start, 0);
    EXPECT_LE(start, 500 - 32 - 1);
    for (int64_t t = 0; t < b.T; ++t) {
      EXPECT_EQ(b.inputs[r * b.T + t], start + t);
      EXPECT_EQ(b.targets[r * b.T + t], start + t + 1);
    }
  }
}

TEST(SampleBatch, SameSeedSameBatches) {
  const std::vector<int32_t> ids = sampler_iota(10000);
  Rng a(7), b(7), c(8);
  for (int step = 0; step < 5; ++step) {
    const Batch x = sample_batch(ids, 4, 16, a);
    const Batch y = sample_batch(ids, 4, 16, b);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.targets, y.targets);
  }
  EXPECT_NE(sample_batch(ids, 4, 16, a).inputs, sample_batch(ids, 4, 16, c).inputs);
}

TEST(SampleBatch, ResumesFromASavedRngState) {
  const std::vector<int32_t> ids = sampler_iota(10000);
  Rng run(1337);
  sample_batch(ids, 8, 8, run);
  const auto saved = run.state();
  const Batch next = sample_batch(ids, 8, 8, run);
  Rng resumed(0);
  resumed.set_state(saved);
  EXPECT_EQ(sample_batch(ids, 8, 8, resumed).inputs, next.inputs);
}

TEST(SampleBatch, EveryOffsetCanBeDrawn) {
  const std::vector<int32_t> ids = sampler_iota(6);  // T = 3: offsets 0, 1, 2
  Rng rng(1);
  std::vector<int> seen(3, 0);
  for (int i = 0; i < 300; ++i) ++seen[sample_batch(ids, 1, 3, rng).inputs[0]];
  for (int count : seen) EXPECT_GT(count, 50);
}

TEST(SampleBatch, Errors) {
  const std::vector<int32_t> ids = sampler_iota(8);
  Rng rng(1);
  EXPECT_NO_THROW(sample_batch(ids, 2, 7, rng));
  EXPECT_THROW(sample_batch(ids, 2, 8, rng), InputError);  // needs 9 tokens
  EXPECT_THROW(sample_batch(ids, 0, 4, rng), InputError);
}

// Collects every batch of an EvalWindows pass.
std::vector<Batch> all_batches(EvalWindows& w, int64_t B) {
  std::vector<Batch> out;
  Batch b;
  while (w.next(B, b)) out.push_back(b);
  return out;
}

TEST(EvalWindows, NonOverlappingWindowsCoverTheFileOnce) {
  const std::vector<int32_t> ids = sampler_iota(21);  // T = 5: windows at 0, 5, 10, 15 (ends at 20)
  EvalWindows w(ids, 5, 5);
  EXPECT_EQ(w.starts(), (std::vector<int64_t>{0, 5, 10, 15}));
  const std::vector<Batch> batches = all_batches(w, 3);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].B, 3);
  EXPECT_EQ(batches[1].B, 1);  // the last batch is short
  EXPECT_EQ(batches[1].inputs, (std::vector<int32_t>{15, 16, 17, 18, 19}));
  EXPECT_EQ(batches[1].targets, (std::vector<int32_t>{16, 17, 18, 19, 20}));
  EXPECT_EQ(batches[0].supervised() + batches[1].supervised(), w.num_scored());
  w.reset();
  EXPECT_EQ(all_batches(w, 3)[0].inputs, batches[0].inputs);
}

TEST(EvalWindows, TailWindowScoresOnlyWhatIsLeft) {
  const std::vector<int32_t> ids = sampler_iota(14);  // T = 5: windows at 0, 5, then tail at 8
  EvalWindows w(ids, 5, 5);
  EXPECT_EQ(w.starts(), (std::vector<int64_t>{0, 5, 8}));
  const std::vector<Batch> batches = all_batches(w, 8);
  ASSERT_EQ(batches.size(), 1u);
  const int32_t I = kIgnoreTarget;
  // Window at 8 targets ids 9..13; 9 and 10 were scored by the window at 5.
  EXPECT_EQ(std::vector<int32_t>(batches[0].targets.begin() + 10, batches[0].targets.end()),
            (std::vector<int32_t>{I, I, 11, 12, 13}));
  EXPECT_EQ(batches[0].supervised(), 13);
}

TEST(EvalWindows, SlidingWindowsScoreEachTargetExactlyOnce) {
  const int n = 103;
  const std::vector<int32_t> ids = sampler_iota(n);
  for (int64_t stride : {1, 3, 7, 16}) {
    EvalWindows w(ids, 16, stride);
    std::vector<int> scored(n, 0);
    for (const Batch& b : all_batches(w, 5)) {
      for (int32_t t : b.targets) {
        if (t != kIgnoreTarget) ++scored[t];
      }
    }
    EXPECT_EQ(scored[0], 0) << stride;
    for (int i = 1; i < n; ++i) EXPECT_EQ(scored[i], 1) << "stride " << stride << " id " << i;
  }
}

TEST(EvalWindows, Errors) {
  const std::vector<int32_t> ids = sampler_iota(10);
  EXPECT_THROW(EvalWindows(ids, 10, 10), InputError);  // needs 11 tokens
  EXPECT_THROW(EvalWindows(ids, 4, 5), InputError);    // stride > T
  EXPECT_THROW(EvalWindows(ids, 4, 0), InputError);
  EvalWindows one(ids, 9, 9);
  EXPECT_EQ(one.num_windows(), 1);
}

}  // namespace
}  // namespace tinylm
