// The gradient sum of a data-parallel step at the GPT-2 124M shape, on the ranks mpirun
// starts (bench/distributed.sh): the float32 gradients of every parameter (each once),
// summed by MPI's all-reduce (dist.reduce = sum) and in rank order (ordered), median of
// --reps after one warm-up, with a barrier before each.
//   mpirun -np 2 build/allreduce [--preset gpt2-124m] [--reps 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "dist/communicator.h"
#include "model/config.h"
#include "report/model_info.h"

namespace {

using tinylm::dist::Communicator;

double median_seconds(Communicator& comm, std::vector<float>& grads, int reps, bool ordered) {
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    comm.barrier();
    const auto start = std::chrono::steady_clock::now();
    if (ordered)
      comm.all_reduce_ordered(grads.data(), static_cast<int64_t>(grads.size()));
    else
      comm.all_reduce_sum(grads.data(), static_cast<int64_t>(grads.size()));
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0) times.push_back(s);  // the first is the warm-up
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "gpt2-124m";
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--preset")) preset = argv[i + 1];
    if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
  }
  const tinylm::GPTConfig config = tinylm::GPTConfig::preset(preset);
  const int64_t params = tinylm::report::model_info(config, 1, config.block_size).params.total;
  Communicator& comm = tinylm::dist::world();
  std::vector<float> grads(static_cast<size_t>(params),
                           1e-3f * static_cast<float>(comm.rank() + 1));
  const double mb = 4.0 * static_cast<double>(params) / 1e6;
  const int n = comm.size();
  for (const bool ordered : {false, true}) {
    const double s = median_seconds(comm, grads, reps, ordered);
    if (comm.rank() == 0)
      std::printf(
          "all-reduce (%s) of %s's gradients, %.1f MB, on %d ranks (%s): %.1f ms, median of %d "
          "(%.2f GB/s of gradients)\n",
          ordered ? "ordered" : "sum", preset.c_str(), mb, n, comm.name().c_str(), 1e3 * s, reps,
          mb / 1e3 / s);
  }
  tinylm::dist::finish(0);
  return 0;
}
