// Gradient clipping by global norm: the norm value, scaling only above max_norm,
// determinism across thread counts. Fast vs reference: the op table test
// (tests/backend/op_table_test.cpp).
#include "ops/clip.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "tensor/threads.h"

namespace tinylm::ops {
namespace {

using ops_test::bit_equal;
using ops_test::random_vec;

TEST(ClipGradNorm, NormAndScaling) {
  for (bool fast : {false, true}) {
    auto clip = fast ? &clip_grad_norm : &ref::clip_grad_norm;
    // two tensors {3, 4} and {12}: global norm 13
    std::vector<float> a = {3, 4}, b = {12};
    EXPECT_DOUBLE_EQ(clip({{a.data(), 2}, {b.data(), 1}}, 100.0), 13.0);
    EXPECT_EQ(a, (std::vector<float>{3, 4}));  // below max_norm: untouched
    EXPECT_EQ(b, (std::vector<float>{12}));

    EXPECT_DOUBLE_EQ(clip({{a.data(), 2}, {b.data(), 1}}, 6.5), 13.0);  // returns the old norm
    const double coef = 6.5 / (13.0 + 1e-6);
    EXPECT_NEAR(a[0], 3 * coef, 1e-6);
    EXPECT_NEAR(a[1], 4 * coef, 1e-6);
    EXPECT_NEAR(b[0], 12 * coef, 1e-6);
    double n2 = 0;
    for (float x : {a[0], a[1], b[0]}) n2 += double(x) * x;
    EXPECT_NEAR(std::sqrt(n2), 6.5, 1e-5);

    // exactly at max_norm PyTorch still scales by max_norm / (norm + 1e-6) < 1
    std::vector<float> c = {3, 4};
    EXPECT_DOUBLE_EQ(clip({{c.data(), 2}}, 5.0), 5.0);
    EXPECT_LT(c[0], 3.0f);
    EXPECT_NEAR(c[0], 3 * 5.0 / (5.0 + 1e-6), 1e-6);

    EXPECT_EQ(clip({}, 1.0), 0.0);
    std::vector<float> z = {0, 0};
    EXPECT_EQ(clip({{z.data(), 2}}, 1.0), 0.0);
    EXPECT_EQ(z, (std::vector<float>{0, 0}));
  }
}

TEST(ClipGradNorm, IsDeterministicAcrossThreadCounts) {
  Rng rng(70);
  std::vector<std::vector<float>> grads;
  for (int64_t n : {1, 7, 65, 100003, 33, 50000}) grads.push_back(random_vec(n, rng, 0.1f));
  auto spans = [](std::vector<std::vector<float>>& gs) {
    std::vector<GradSpan> s;
    for (auto& g : gs) s.push_back({g.data(), static_cast<int64_t>(g.size())});
    return s;
  };
  for (double max_norm : {1e6, 1.0}) {
    auto g1 = grads, g3 = grads;
    set_num_threads(2);
    const double n_fast = clip_grad_norm(spans(g1), max_norm);
    set_num_threads(1);
    const double n_fast1 = clip_grad_norm(spans(g3), max_norm);
    set_num_threads(0);
    EXPECT_EQ(n_fast, n_fast1);
    for (size_t i = 0; i < grads.size(); ++i) EXPECT_TRUE(bit_equal(g1[i], g3[i]));
  }
}

}  // namespace
}  // namespace tinylm::ops
