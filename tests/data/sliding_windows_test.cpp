// The sliding-window dataset of Raschka chapter 2: window starts, batches, shuffle,
// drop_last and epochs.
#include "data/sliding_windows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "common/input_error.h"

namespace tinylm {
namespace {

std::vector<int32_t> iota_ids(int n) {
  std::vector<int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 100);
  return ids;
}

TEST(SlidingWindows, StartsFollowTheBooksRange) {
  // Python: range(0, len(ids) - max_length, stride)
  const auto ids = iota_ids(20);
  for (int64_t max_length : {1, 4, 7})
    for (int64_t stride : {1, 3, 4, 5}) {
      SlidingWindowOptions o;
      o.max_length = max_length;
      o.stride = stride;
      o.batch_size = 1;
      const SlidingWindows w(ids, o);
      std::vector<int64_t> want;
      for (int64_t i = 0; i < 20 - max_length; i += stride) want.push_back(i);
      EXPECT_EQ(w.starts(), want) << max_length << " " << stride;
    }
}

TEST(SlidingWindows, BatchRowsAreWindowsAndTargetsShiftByOne) {
  const auto ids = iota_ids(30);
  SlidingWindowOptions o;
  o.max_length = 4;
  o.stride = 2;
  o.batch_size = 3;
  const SlidingWindows w(ids, o);
  const Batch b = w.batch(1);  // windows 3, 4, 5: starts 6, 8, 10
  ASSERT_EQ(b.B, 3);
  ASSERT_EQ(b.T, 4);
  EXPECT_EQ(std::vector<int32_t>(b.inputs.begin(), b.inputs.begin() + 4),
            (std::vector<int32_t>{106, 107, 108, 109}));
  EXPECT_EQ(std::vector<int32_t>(b.targets.begin(), b.targets.begin() + 4),
            (std::vector<int32_t>{107, 108, 109, 110}));
  EXPECT_EQ(b.inputs[2 * 4], 110);
}

TEST(SlidingWindows, DropLastAndEpochs) {
  const auto ids = iota_ids(11);  // max_length 2, stride 2: starts 0, 2, 4, 6, 8 (5 windows)
  SlidingWindowOptions o;
  o.max_length = 2;
  o.stride = 2;
  o.batch_size = 2;
  o.drop_last = true;
  const SlidingWindows dropped(ids, o);
  EXPECT_EQ(dropped.num_windows(), 5);
  EXPECT_EQ(dropped.batches_per_epoch(), 2);
  EXPECT_EQ(dropped.batch(2).inputs[0], 100);  // epoch 1 starts again at window 0
  o.drop_last = false;
  const SlidingWindows kept(ids, o);
  EXPECT_EQ(kept.batches_per_epoch(), 3);
  const Batch last = kept.batch(2);
  EXPECT_EQ(last.B, 1);
  EXPECT_EQ(last.inputs, (std::vector<int32_t>{108, 109}));
}

TEST(SlidingWindows, ShuffleIsAPermutationPerEpochAndReproducible) {
  const auto ids = iota_ids(200);
  SlidingWindowOptions o;
  o.max_length = 4;
  o.stride = 4;
  o.batch_size = 7;
  o.shuffle = true;
  o.seed = 5;
  const SlidingWindows w(ids, o);
  const auto e0 = w.epoch_order(0), e1 = w.epoch_order(1);
  std::vector<int64_t> sorted = e0;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], static_cast<int64_t>(i));
  EXPECT_NE(e0, e1);
  EXPECT_EQ(e0, SlidingWindows(ids, o).epoch_order(0));
  // Within an epoch no window comes twice.
  std::set<int32_t> firsts;
  for (int64_t k = 0; k < w.batches_per_epoch(); ++k) {
    const Batch b = w.batch(k);
    for (int64_t r = 0; r < b.B; ++r) EXPECT_TRUE(firsts.insert(b.inputs[r * 4]).second);
  }
}

// Data parallel (docs/distributed.md): a step of global batch 8 is micro-batches
// step * m + micro of batch_size 8 / m, rank r of W training those with micro % W == r.
// Whatever the split, a step's micro-batches hold the one-process batch's windows in its
// order (drop_last keeps whole steps: 48 of the 49 windows, even for micro-batches of
// 1), so over each epoch the ranks together read each window exactly once, as one
// process does (shuffled or not).
TEST(SlidingWindows, MicroBatchesOfAStepAreTheWholeBatchsWindows) {
  const auto ids = iota_ids(200);  // 49 windows of 4: 6 batches of 8, the last dropped
  for (bool shuffle : {false, true}) {
    SlidingWindowOptions o;
    o.shuffle = shuffle;
    o.seed = 11;
    o.batch_size = 8;
    const SlidingWindows whole(ids, o);
    for (int64_t micros : {2, 4, 8}) {
      o.batch_size = 8 / micros;
      o.batches_per_step = micros;
      const SlidingWindows parts(ids, o);
      std::multiset<int32_t> epoch;
      for (int64_t step = 0; step < 2 * whole.batches_per_epoch(); ++step) {  // 2 epochs
        std::vector<int32_t> joined;
        for (int64_t micro = 0; micro < micros; ++micro) {
          const Batch b = parts.batch(step * micros + micro);
          joined.insert(joined.end(), b.inputs.begin(), b.inputs.end());
          if (step < whole.batches_per_epoch())
            for (int64_t r = 0; r < b.B; ++r) epoch.insert(b.inputs[r * b.T]);
        }
        EXPECT_EQ(joined, whole.batch(step).inputs)
            << "shuffle " << shuffle << ", " << micros << " micro-batches, step " << step;
      }
      EXPECT_EQ(epoch.size(), 48u);
      EXPECT_EQ(std::set<int32_t>(epoch.begin(), epoch.end()).size(), 48u);  // none twice
    }
  }
}

TEST(SlidingWindows, TooShortIsAnInputError) {
  const auto ids = iota_ids(4);
  SlidingWindowOptions o;
  o.max_length = 4;
  EXPECT_NE(testing::input_error([&] { SlidingWindows w(ids, o); }).find("no window"),
            std::string::npos);
  o.max_length = 2;
  o.stride = 1;
  o.batch_size = 5;  // 2 windows, drop_last: no batch
  EXPECT_NE(testing::input_error([&] { SlidingWindows w(ids, o); }).find("no full step of 5"),
            std::string::npos);
  o.batch_size = 1;
  o.batches_per_step = 3;  // 2 windows: no step of 3 micro-batches of 1
  EXPECT_NE(testing::input_error([&] { SlidingWindows w(ids, o); }).find("no full step of 3"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
