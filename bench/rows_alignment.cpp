// The few-row linear product (ops::linear_forward_rows: one row per sequence of a
// decoding batch) over GPT-2 124M's matrices (12 layers of qkv, proj, fc, fc-proj, and
// the head), with every buffer on a 64-byte boundary (what tinylm's tensors get,
// util/aligned.h) and 16 bytes past one (what glibc's malloc gives a large block). The
// best of --rounds passes, per number of rows. docs/performance.md, section 13.
// The fastest one row can be is the weights' bytes over the triad bandwidth; more rows
// also reach for the sgemm peak (bench/ceilings.h).
//   rows_alignment [--rounds 15] [--threads 2]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ceilings.h"
#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/aligned.h"

using namespace tinylm;

namespace {

struct Matrix {
  int64_t in, out;
};
constexpr Matrix kBlock[] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}};
constexpr Matrix kHead = {768, 50257};
constexpr int64_t kWeights = 12 * (768 * 2304 + 768 * 768 + 2 * 768 * 3072) + 768 * 50257;

// n floats at `offset` bytes past a 64-byte boundary, filled with small values.
struct Buffer {
  Buffer(int64_t n, int64_t offset) : base(static_cast<char*>(aligned_host_alloc(4 * n + 64))) {
    data = reinterpret_cast<float*>(base + offset);
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(i % 97) * 1e-3f;
  }
  ~Buffer() { aligned_host_free(base); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* base;
  float* data;
};

// Best time of `rounds` passes over every matrix, rows x in -> rows x out each.
double best_pass_ms(int64_t offset, int64_t rows, int rounds) {
  std::vector<Matrix> shapes;
  for (int l = 0; l < 12; ++l) shapes.insert(shapes.end(), std::begin(kBlock), std::end(kBlock));
  shapes.push_back(kHead);
  std::vector<std::unique_ptr<Buffer>> weights;
  for (const Matrix& s : shapes) weights.push_back(std::make_unique<Buffer>(s.in * s.out, offset));
  const Buffer x(16 * 3072, offset), y(16 * 50257, offset), bias(50257, offset);
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < shapes.size(); ++i)
      ops::linear_forward_rows(x.data, weights[i]->data, bias.data, y.data, rows, shapes[i].in,
                               shapes[i].out);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--threads") {
      threads = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "rows_alignment: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(threads);
  const double peak = bench::sgemm_peak_gflops(), triad = bench::triad_bandwidth_gbs();
  std::printf(
      "linear_forward_rows over GPT-2 124M's matrices (%.0f MB), %d threads, best of %d; "
      "sgemm peak %.1f GFLOP/s, triad %.1f GB/s\n",
      4.0 * kWeights / 1e6, threads, rounds, peak, triad);
  for (int64_t n : {1, 4, 8, 16}) {
    const double aligned = best_pass_ms(0, n, rounds), off16 = best_pass_ms(16, n, rounds);
    // One pass reads every weight once and computes 2 n flops per weight.
    const double bound_ms = 4.0 * kWeights / (triad * 1e9) * 1e3;
    const double gflops = 2.0 * n * kWeights / (aligned * 1e-3) / 1e9;
    std::printf(
        "rows %2lld: 64-byte aligned %.2f ms, 16 bytes past %.2f ms (%.2fx); aligned: "
        "%.0f %% of the bandwidth bound (%.2f ms), %.1f GFLOP/s (%.0f %% of the sgemm peak)\n",
        static_cast<long long>(n), aligned, off16, off16 / aligned, 100.0 * bound_ms / aligned,
        bound_ms, gflops, 100.0 * gflops / peak);
  }
}
