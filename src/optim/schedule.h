// Learning-rate schedule (nanoGPT's): linear warmup from 0 to lr over warmup_steps, then
// cosine decay from lr to min_lr until decay_steps, then min_lr.
#pragma once
#include <cmath>
#include <cstdint>

namespace tinylm {

struct LrSchedule {
  double lr = 1e-3;
  double min_lr = 1e-4;
  int64_t warmup_steps = 0;
  int64_t decay_steps = 0;  // the step at which min_lr is reached; 0: constant lr after warmup

  // nanoGPT's get_lr(it): lr * (it + 1) / (warmup + 1) during warmup (never exactly 0),
  // then min_lr + 0.5 (1 + cos(pi * ratio)) (lr - min_lr), ratio from 0 to 1.
  double at(int64_t step) const {
    if (step < warmup_steps) return lr * static_cast<double>(step + 1) / (warmup_steps + 1);
    if (decay_steps <= warmup_steps) return lr;
    if (step >= decay_steps) return min_lr;
    const double ratio =
        static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps - warmup_steps);
    return min_lr + 0.5 * (1.0 + std::cos(M_PI * ratio)) * (lr - min_lr);
  }
};

}  // namespace tinylm
