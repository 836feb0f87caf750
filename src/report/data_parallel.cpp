#include "report/data_parallel.h"

#include <cstdio>

namespace tinylm::report {

DataParallelPlan plan_data_parallel(int64_t trainable_parameters, double compute_seconds) {
  DataParallelPlan plan;
  plan.gradient_bytes = 4 * trainable_parameters;
  plan.compute_seconds = compute_seconds;
  for (const double gbit : {10.0, 100.0})
    for (const int n : {2, 4, 8, 16}) {
      DataParallelRow r;
      r.machines = n;
      r.gbit_per_s = gbit;
      const double moved = 2.0 * (n - 1) / n * static_cast<double>(plan.gradient_bytes);
      r.allreduce_seconds = moved / (gbit * 1e9 / 8);
      r.efficiency = compute_seconds / (compute_seconds + r.allreduce_seconds);
      r.speedup = n * r.efficiency;
      plan.rows.push_back(r);
    }
  return plan;
}

std::string render_data_parallel(const DataParallelPlan& plan) {
  char line[200];
  std::snprintf(line, sizeof line,
                "data parallel (mpirun, docs/distributed.md): a ring all-reduce of %.1f MB of "
                "float32 gradients per step after a %.3f s step:\n",
                static_cast<double>(plan.gradient_bytes) / 1e6, plan.compute_seconds);
  std::string out = line;
  out += "  machines  link        all-reduce  efficiency  speed-up\n";
  for (const DataParallelRow& r : plan.rows) {
    std::snprintf(line, sizeof line, "  %8d  %3.0f Gbit/s  %8.3f s  %9.0f %%  %7.2fx\n", r.machines,
                  r.gbit_per_s, r.allreduce_seconds, 100 * r.efficiency, r.speedup);
    out += line;
  }
  return out;
}

}  // namespace tinylm::report
