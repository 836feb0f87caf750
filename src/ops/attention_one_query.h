// Attention for one query (a decoding step: Tq = 1), in vector loops rather than the two
// sgemm calls of ops::attention_forward, whose setup costs more than products this small:
//   q [Dk], k [Tk, Dk], v [Tk, Dv], additive [Tk] (or null)
//   -> A [Tk] = softmax(q k^T * scale + additive),  y [Dv] = A v
// Causality hides no key from the last query. With no allowed key (Tk = 0, or every
// additive entry -inf) A and y are zeros. Each score is one dot product summed in a fixed
// order (8 lanes, then ops/lanes.h's tree), so the result depends on nothing but the
// inputs: not on other queries, batching or threads.
#pragma once
#include <cstdint>

namespace tinylm::ops {

void attention_one_query(const float* q, const float* k, const float* v, float* y, float* A,
                         int64_t Tk, int64_t Dk, int64_t Dv, float scale, const float* additive);

}  // namespace tinylm::ops
