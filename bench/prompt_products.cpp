// A prompt's products over GPT-2 124M's block matrices (12 layers of qkv, proj, fc,
// fc-proj; 85M weights), x [rows, in] -> y [rows, out] each, two ways, alternating:
//   sgemm:  ops::matmul (oneDNN's sgemm, which packs the weights on every call): what a
//           prompt ran before docs/performance.md section 15
//   packed: ops::linear_forward_packed on copies packed once (ops/linear_packed.h)
// The best of --rounds passes each, as GFLOP/s and fractions of the FMA and sgemm peaks
// (bench/ceilings.h), and the largest difference between the two results.
//   prompt_products [--rows 64] [--rounds 9] [--threads 2]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ceilings.h"
#include "ops/linear_packed.h"
#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/aligned.h"

using namespace tinylm;

namespace {

struct Matrix {
  int64_t in, out;
};
constexpr Matrix kBlock[] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}};

struct Layer {
  Matrix shape;
  AlignedVector<float> w, packed, y_sgemm, y_packed;
};

std::vector<Layer> make_layers(int64_t rows) {
  std::vector<Layer> layers;
  for (int l = 0; l < 12; ++l)
    for (const Matrix& m : kBlock) {
      Layer layer{m, AlignedVector<float>(m.in * m.out), {}, {}, {}};
      for (int64_t i = 0; i < m.in * m.out; ++i)
        layer.w[i] = static_cast<float>((i * 7 + l) % 101) * 1e-3f - 0.05f;
      layer.packed.resize(ops::packed_floats(m.out, m.in));
      ops::pack_linear(layer.w.data(), layer.packed.data(), m.out, m.in);
      layer.y_sgemm.resize(rows * m.out);
      layer.y_packed.resize(rows * m.out);
      layers.push_back(std::move(layer));
    }
  return layers;
}

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 64;
  int rounds = 9, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows") {
      rows = std::atoll(argv[i + 1]);
    } else if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--threads") {
      threads = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "prompt_products: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (rows < 1 || rounds < 1 || threads < 1) {
    std::fprintf(stderr, "prompt_products: --rows, --rounds and --threads must be >= 1\n");
    return 2;
  }
  set_num_threads(threads);
  const double peak = bench::sgemm_peak_gflops(), fma_peak = bench::fma_peak_gflops();
  std::vector<Layer> layers = make_layers(rows);
  AlignedVector<float> x(rows * 3072);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 89) * 1e-2f - 0.4f;

  double flops = 0, best_sgemm = 1e30, best_packed = 1e30;
  for (const Layer& l : layers) flops += 2.0 * rows * l.shape.in * l.shape.out;
  for (int r = 0; r < rounds; ++r) {
    best_sgemm = std::min(best_sgemm, seconds([&] {
                            for (Layer& l : layers)
                              ops::matmul(x.data(), l.w.data(), l.y_sgemm.data(), rows, l.shape.out,
                                          l.shape.in, false,
                                          /*trans_b=*/true);
                          }));
    best_packed =
        std::min(best_packed, seconds([&] {
                   for (Layer& l : layers)
                     ops::linear_forward_packed(x.data(), l.packed.data(), nullptr,
                                                l.y_packed.data(), rows, l.shape.in, l.shape.out);
                 }));
  }
  double diff = 0, scale = 0;
  for (const Layer& l : layers)
    for (size_t i = 0; i < l.y_sgemm.size(); ++i) {
      diff = std::max(diff, double(std::fabs(l.y_sgemm[i] - l.y_packed[i])));
      scale = std::max(scale, double(std::fabs(l.y_sgemm[i])));
    }
  const auto line = [&](const char* name, double s) {
    const double gflops = flops / s / 1e9;
    std::printf(
        "%-7s %7.2f ms  %6.1f GFLOP/s  %3.0f %% of the FMA peak, %3.0f %% of the sgemm peak\n",
        name, s * 1e3, gflops, 100.0 * gflops / fma_peak, 100.0 * gflops / peak);
  };
  std::printf(
      "prompt products over GPT-2 124M's block matrices, %lld rows, %d threads, best of %d; "
      "FMA peak %.1f GFLOP/s, sgemm peak %.1f GFLOP/s (%s)\n",
      static_cast<long long>(rows), threads, rounds, fma_peak, peak, ops::matmul_backend());
  line("sgemm", best_sgemm);
  line("packed", best_packed);
  std::printf("packed / sgemm speed %.2fx; largest difference %.2e (largest value %.2e)\n",
              best_sgemm / best_packed, diff, scale);
  return 0;
}
