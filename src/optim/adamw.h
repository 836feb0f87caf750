// The AdamW optimizer over a model's parameters, with its state (first and second
// moments, step count) kept per parameter so checkpoints can save and restore it.
// Weight decay applies only to parameters whose `decay` flag is set (matrices and
// embeddings by default; biases and LayerNorm gains never), as PyTorch users configure
// torch.optim.AdamW with two parameter groups. Frozen parameters (no gradient buffer)
// are left out: no moments, no update. The moments are views into one block each, and the
// update walks a list of spans made once: the parameters keep their buffers (and decay
// flags) while the optimizer lives (checkpoints are loaded by copying into them).
#pragma once
#include <vector>

#include "ops/adamw.h"
#include "tensor/parameter.h"

namespace tinylm {

struct AdamWConfig {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;
};

class AdamW {
 public:
  AdamW(ParameterList params, const AdamWConfig& config);

  // One update with learning rate lr (the schedule's value for this step).
  void step(float lr);
  int64_t steps_taken() const { return step_; }
  void set_steps_taken(int64_t s) { step_ = s; }

  // Moment tensors, in parameter order (for checkpoints).
  std::vector<Tensor>& first_moments() { return m_; }
  std::vector<Tensor>& second_moments() { return v_; }
  const ParameterList& params() const { return params_; }

 private:
  ParameterList params_;
  AdamWConfig config_;
  Device device_ = Device::kCpu;
  std::vector<Tensor> m_, v_;
  std::vector<ops::AdamWSpan> spans_;  // param, grad, m, v of each trainable parameter
  int64_t step_ = 0;
};

// Global-norm clipping of every trainable parameter's gradient; returns the norm before
// clipping.
double clip_gradients(const ParameterList& params, double max_norm);

}  // namespace tinylm
