// The few-row linear product (ops::linear_forward_rows: one row per sequence of a
// decoding batch) over GPT-2 124M's matrices (12 layers of qkv, proj, fc, fc-proj, and
// the head), with every buffer on a 64-byte boundary (what tinylm's tensors get,
// util/aligned.h) and 16 bytes past one (what glibc's malloc gives a large block). The
// best of --rounds passes, per number of rows. docs/performance.md, section 13.
//   rows_alignment [--rows 1,8] [--rounds 15] [--threads 2]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/aligned.h"

using namespace tinylm;

namespace {

struct Shape {
  int64_t in, out;
};

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
  const Shape block[] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}};
  std::vector<Shape> shapes;
  for (int l = 0; l < 12; ++l) shapes.insert(shapes.end(), std::begin(block), std::end(block));
  shapes.push_back({768, 50257});  // the head
  std::vector<std::unique_ptr<Buffer>> weights;
  for (const Shape& s : shapes) weights.push_back(std::make_unique<Buffer>(s.in * s.out, offset));
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
  std::vector<int64_t> rows = {1, 8};
  int rounds = 15, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--rounds")
      rounds = std::atoi(value.c_str());
    else if (flag == "--threads")
      threads = std::atoi(value.c_str());
    else if (flag == "--rows") {
      rows.clear();
      for (size_t p = 0; p < value.size();) {
        const size_t comma = value.find(',', p);
        rows.push_back(std::atoll(value.substr(p, comma - p).c_str()));
        p = comma == std::string::npos ? value.size() : comma + 1;
      }
    } else {
      std::fprintf(stderr, "rows_alignment: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(threads);
  std::printf("linear_forward_rows over GPT-2 124M's matrices, %d threads, best of %d\n", threads,
              rounds);
  for (int64_t n : rows) {
    if (n < 1 || n > ops::kRowInvariantMaxRows) {
      std::fprintf(stderr, "rows_alignment: rows must be 1..%lld\n",
                   static_cast<long long>(ops::kRowInvariantMaxRows));
      return 2;
    }
    const double aligned = best_pass_ms(0, n, rounds), off16 = best_pass_ms(16, n, rounds);
    std::printf("rows %2lld: 64-byte aligned %.2f ms, 16 bytes past %.2f ms (%.2fx)\n",
                static_cast<long long>(n), aligned, off16, off16 / aligned);
  }
}
