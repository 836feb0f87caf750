// for (i = 0; i < n; ++i) body(i): spread over the threads (OpenMP, static schedule) when
// `parallel`, else a plain loop in the calling thread. Not `#pragma omp parallel for if
// (parallel)`: a region whose `if` is false still sets up a team of one, about 1.6 us on
// the Zen 5 host and 3.5 us inside another region, and a decoding step runs a few hundred
// such small loops per token (docs/performance.md section 20).
#pragma once
#include <cstdint>

namespace tinylm::ops {

template <class Body>
inline void parallel_for(int64_t n, bool parallel, const Body& body) {
  if (parallel) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) body(i);
  } else {
    for (int64_t i = 0; i < n; ++i) body(i);
  }
}

}  // namespace tinylm::ops
