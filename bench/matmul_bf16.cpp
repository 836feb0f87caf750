// float32 products against bf16 ones on the CPU, C [M, N] = op(A) [M, K] @ op(B) [K, N]:
//   fp32: ops::matmul (oneDNN's sgemm, what every product ran before)
//   bf16: ops::matmul_bf16 (operands rounded to bf16 by ops::to_bf16 on every call, then
//         oneDNN's matmul primitive: AMX, AVX512_BF16 or emulated; float32 sums)
// on 2048^3 and the shapes of issue 55 (a 10.65M Shakespeare step's products and GPT-2
// 124M's prompt), the best of --rounds each, in GFLOP/s (2 M N K per product), with the
// largest difference between the two results relative to the largest value.
//   matmul_bf16 [--rounds 5] [--threads 2]
#include "ops/matmul_bf16.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/aligned.h"

using namespace tinylm;

namespace {

struct Shape {
  int64_t M, N, K;
  bool ta, tb;
  const char* what;
};
constexpr Shape kShapes[] = {
    {2048, 2048, 2048, false, false, "square"},
    {2048, 2048, 2048, false, true, "square, x W^T (a linear forward)"},
    {2048, 2048, 2048, true, false, "square, dy^T x (a weight gradient)"},
    {16384, 1536, 384, false, true, "Shakespeare B64 T256: fc forward"},
    {16384, 384, 1536, false, true, "Shakespeare B64 T256: fc-proj forward"},
    {256, 3072, 768, false, true, "GPT-2 124M: fc of a 256-token prompt"},
};

template <class F>
double best_seconds(int rounds, F&& f) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// One shape: both products (each run once untimed, so that oneDNN's kernels are made), the
// best times as GFLOP/s, the speed-up and the largest difference.
void bench_shape(const Shape& s, int rounds) {
  AlignedVector<float> A(s.M * s.K), B(s.K * s.N), c32(s.M * s.N), c16(s.M * s.N);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(i % 97) * 1e-2f - 0.48f;
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(i % 89) * 1e-2f - 0.44f;
  auto fp32 = [&] { ops::matmul(A.data(), B.data(), c32.data(), s.M, s.N, s.K, s.ta, s.tb); };
  auto bf16 = [&] { ops::matmul_bf16(A.data(), B.data(), c16.data(), s.M, s.N, s.K, s.ta, s.tb); };
  fp32();
  bf16();
  const double t32 = best_seconds(rounds, fp32), t16 = best_seconds(rounds, bf16);
  double diff = 0, scale = 0;
  for (size_t i = 0; i < c32.size(); ++i) {
    diff = std::max(diff, double(std::fabs(c32[i] - c16[i])));
    scale = std::max(scale, double(std::fabs(c32[i])));
  }
  const double flops = 2.0 * s.M * s.N * s.K;
  std::printf("%6lld x %5lld x %5lld %-2s  fp32 %7.1f  bf16 %7.1f GFLOP/s  %5.2fx  diff %.1e  %s\n",
              static_cast<long long>(s.M), static_cast<long long>(s.N), static_cast<long long>(s.K),
              s.ta ? "Tn" : (s.tb ? "nT" : "nn"), flops / t32 / 1e9, flops / t16 / 1e9, t32 / t16,
              diff / scale, s.what);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--threads") {
      threads = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "matmul_bf16: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (rounds < 1 || threads < 1) {
    std::fprintf(stderr, "matmul_bf16: --rounds and --threads must be >= 1\n");
    return 2;
  }
  set_num_threads(threads);
  std::printf("M x N x K (op), %d threads, best of %d; fp32: %s; bf16: %s\n", threads, rounds,
              ops::matmul_backend(), ops::matmul_bf16_kernel().c_str());
  for (const Shape& s : kShapes) bench_shape(s, rounds);
  return 0;
}
