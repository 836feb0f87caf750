// Each CUDA kernel against its CPU reference (ops::ref) on random data of odd shapes:
// rows and widths that are not multiples of the block or of a warp, a vocabulary larger
// than a block, ignored targets. Skipped on a machine without a GPU.
#include "cuda/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cuda/device.h"
#include "ops/cross_entropy.h"
#include "ops/layernorm.h"

namespace tinylm::cuda {
namespace {

#define SKIP_WITHOUT_GPU()                                               \
  do {                                                                   \
    std::string why;                                                     \
    if (device_count(&why) == 0) GTEST_SKIP() << "no CUDA GPU: " << why; \
  } while (0)

std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// ||a - b|| / ||b|| (the plain norm of a - b when b is zero).
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    norm += static_cast<double>(b[i]) * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

TEST(CudaDevice, ReportsWhetherAGpuIsThere) {
  std::string why;
  const int n = device_count(&why);
  if (n == 0) {
    EXPECT_FALSE(why.empty());  // the runtime's reason, for the user's message
    EXPECT_THROW(require_device("--device cuda"), std::exception);
    GTEST_SKIP() << "no CUDA GPU: " << why;
  }
  EXPECT_NO_THROW(require_device("--device cuda"));
  EXPECT_FALSE(describe_device().empty());
  DeviceBuffer<float> buf(std::vector<float>{1.0f, -2.0f, 3.5f});
  EXPECT_EQ(buf.download(), (std::vector<float>{1.0f, -2.0f, 3.5f}));
  buf.zero();
  EXPECT_EQ(buf.download(), (std::vector<float>{0.0f, 0.0f, 0.0f}));
}

TEST(CudaKernels, LayerNormMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  for (const auto& [N, C] : {std::pair<int64_t, int64_t>{7, 77}, {33, 768}, {5, 1031}, {1, 3}}) {
    const auto x = random_vector(N * C, 1, 2.0f), w = random_vector(C, 2), b = random_vector(C, 3);
    const auto dy = random_vector(N * C, 4);
    std::vector<float> y(N * C), mean(N), rstd(N), dx(N * C), dw(C, 0.5f), db(C, -0.25f);
    ops::ref::layernorm_forward(x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data(), N,
                                C, 1e-5f);
    ops::ref::layernorm_backward(dy.data(), x.data(), w.data(), mean.data(), rstd.data(), dx.data(),
                                 dw.data(), db.data(), N, C);

    DeviceBuffer<float> gx(x), gw(w), gb(b), gdy(dy), gy(N * C), gmean(N), grstd(N), gdx(N * C);
    DeviceBuffer<float> gdw(std::vector<float>(C, 0.5f)), gdb(std::vector<float>(C, -0.25f));
    cuda::layernorm_forward(gx.data(), gw.data(), gb.data(), gy.data(), gmean.data(), grstd.data(),
                            N, C, 1e-5f);
    cuda::layernorm_backward(gdy.data(), gx.data(), gw.data(), gmean.data(), grstd.data(),
                             gdx.data(), gdw.data(), gdb.data(), N, C);
    synchronize();
    EXPECT_LT(relative_error(gy.download(), y), 1e-6) << N << " x " << C;
    EXPECT_LT(relative_error(gmean.download(), mean), 1e-6);
    EXPECT_LT(relative_error(grstd.download(), rstd), 1e-6);
    EXPECT_LT(relative_error(gdx.download(), dx), 1e-5);
    EXPECT_LT(relative_error(gdw.download(), dw), 1e-5);  // accumulated onto 0.5
    EXPECT_LT(relative_error(gdb.download(), db), 1e-5);
  }
}

TEST(CudaKernels, LayerNormWithoutBiasOrWeightGradients) {
  SKIP_WITHOUT_GPU();
  const int64_t N = 9, C = 65;
  const auto x = random_vector(N * C, 5), w = random_vector(C, 6), dy = random_vector(N * C, 7);
  std::vector<float> y(N * C), mean(N), rstd(N), dx(N * C);
  ops::ref::layernorm_forward(x.data(), w.data(), nullptr, y.data(), mean.data(), rstd.data(), N, C,
                              1e-5f);
  ops::ref::layernorm_backward(dy.data(), x.data(), w.data(), mean.data(), rstd.data(), dx.data(),
                               nullptr, nullptr, N, C);
  DeviceBuffer<float> gx(x), gw(w), gdy(dy), gy(N * C), gmean(N), grstd(N), gdx(N * C);
  layernorm_forward(gx.data(), gw.data(), nullptr, gy.data(), gmean.data(), grstd.data(), N, C,
                    1e-5f);
  layernorm_backward(gdy.data(), gx.data(), gw.data(), gmean.data(), grstd.data(), gdx.data(),
                     nullptr, nullptr, N, C);
  synchronize();
  EXPECT_LT(relative_error(gy.download(), y), 1e-6);
  EXPECT_LT(relative_error(gdx.download(), dx), 1e-5);
}

TEST(CudaKernels, ActivationsMatchTheReference) {
  SKIP_WITHOUT_GPU();
  const int64_t N = 3 * 257 + 5;
  const auto x = random_vector(N, 8, 3.0f), dy = random_vector(N, 9);
  for (const auto a :
       {ops::Activation::GeluTanh, ops::Activation::GeluErf, ops::Activation::Relu}) {
    std::vector<float> y(N), dx(N);
    ops::ref::activation_forward(a, x.data(), y.data(), N);
    ops::ref::activation_backward(a, dy.data(), x.data(), dx.data(), N);
    DeviceBuffer<float> gx(x), gdy(dy), gy(N), gdx(N);
    cuda::activation_forward(a, gx.data(), gy.data(), N);
    cuda::activation_backward(a, gdy.data(), gx.data(), gdx.data(), N);
    synchronize();
    EXPECT_LT(relative_error(gy.download(), y), 1e-6) << ops::activation_name(a);
    EXPECT_LT(relative_error(gdx.download(), dx), 1e-5) << ops::activation_name(a);
  }
}

TEST(CudaKernels, AdamWMatchesTheReferenceOverSteps) {
  SKIP_WITHOUT_GPU();
  const int64_t N = 1000 + 3;
  auto p = random_vector(N, 10), m = std::vector<float>(N, 0.0f), v = m;
  DeviceBuffer<float> gp(p), gm(m), gv(v), gg(N);
  const ops::AdamWHyper h{3e-3f, 0.9f, 0.95f, 1e-8f, 0.1f};
  for (int64_t step = 1; step <= 5; ++step) {
    const auto g = random_vector(N, 100 + static_cast<uint32_t>(step), 0.1f);
    ops::ref::adamw_update(p.data(), g.data(), m.data(), v.data(), N, h, step);
    gg.upload(g);
    cuda::adamw_update(gp.data(), gg.data(), gm.data(), gv.data(), N, h, step);
  }
  synchronize();
  EXPECT_LT(relative_error(gp.download(), p), 1e-6);
  EXPECT_LT(relative_error(gm.download(), m), 1e-6);
  EXPECT_LT(relative_error(gv.download(), v), 1e-5);
}

TEST(CudaKernels, CrossEntropyMatchesTheReferenceWithIgnoredRows) {
  SKIP_WITHOUT_GPU();
  for (const auto& [N, V] : {std::pair<int64_t, int64_t>{6, 65}, {13, 50257}, {4, 1}}) {
    const auto logits = random_vector(N * V, 11, 4.0f);
    std::vector<int32_t> targets(N);
    int64_t count = 0;
    for (int64_t i = 0; i < N; ++i) {
      targets[i] = i % 3 == 1 ? ops::kIgnoreIndex : static_cast<int32_t>((i * 7919) % V);
      count += targets[i] != ops::kIgnoreIndex;
    }
    std::vector<float> dlogits(N * V);
    const double loss =
        ops::ref::cross_entropy(logits.data(), targets.data(), dlogits.data(), N, V);

    DeviceBuffer<float> gl(logits), gd(N * V), grow(N);
    DeviceBuffer<int32_t> gt(targets);
    cuda::cross_entropy(gl.data(), gt.data(), gd.data(), grow.data(), N, V, count);
    synchronize();
    double sum = 0;
    for (const float r : grow.download()) sum += r;
    EXPECT_NEAR(sum / static_cast<double>(count), loss, 1e-5 * std::max(1.0, std::abs(loss)))
        << N << " x " << V;
    EXPECT_LT(relative_error(gd.download(), dlogits), 1e-5) << N << " x " << V;
  }
}

}  // namespace
}  // namespace tinylm::cuda
