// Embedding lookup, reference version.
//   forward:  ids [N] (each in [0, V)), table [V, C] -> y [N, C], y[i] = table[ids[i]]
//   backward: dy [N, C] -> dtable [V, C], dtable[ids[i]] += dy[i] for i in order
#include <string>

#include "ops/embedding.h"
#include "util/error.h"

namespace tinylm::ops::ref {
namespace {

void check_id(int32_t id, int64_t i, int64_t V) {
  require(id >= 0 && id < V, "embedding: id " + std::to_string(id) + " at position " +
                                 std::to_string(i) + " is out of range [0, " + std::to_string(V) +
                                 ")");
}

}  // namespace

void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    check_id(ids[i], i, V);
    for (int64_t c = 0; c < C; ++c) y[i * C + c] = table[ids[i] * C + c];
  }
}

void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    check_id(ids[i], i, V);
    for (int64_t c = 0; c < C; ++c) dtable[ids[i] * C + c] += dy[i * C + c];
  }
}

}  // namespace tinylm::ops::ref
