// What data parallelism over N machines would give (tinylm info --device NAME): each
// step computes on every machine, then the float32 gradients are summed by a ring
// all-reduce, which sends and receives 2 (N - 1) / N times their bytes per machine, after
// the backward pass (tinylm does not overlap the two). At a link of G Gbit/s:
//   all-reduce seconds = 2 (N - 1) / N * gradient bytes / (G * 1e9 / 8)
//   efficiency = compute / (compute + all-reduce); speed-up = N * efficiency
// Latency and the sharing of one link by several ranks of a machine are left out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm::report {

struct DataParallelRow {
  int machines = 0;
  double gbit_per_s = 0;
  double allreduce_seconds = 0;
  double efficiency = 0;  // compute / (compute + all-reduce)
  double speedup = 0;     // machines * efficiency, against one machine
};

struct DataParallelPlan {
  int64_t gradient_bytes = 0;  // 4 x trainable parameters (each once)
  double compute_seconds = 0;  // one step on one machine
  std::vector<DataParallelRow> rows;
};

// For 2, 4, 8 and 16 machines at 10 and 100 Gbit/s.
DataParallelPlan plan_data_parallel(int64_t trainable_parameters, double compute_seconds);
std::string render_data_parallel(const DataParallelPlan& plan);

}  // namespace tinylm::report
