// A whole model's gradients against finite differences of its loss, for the model tests
// of every family.
#pragma once
#include <vector>

#include "common/gradcheck.h"
#include "model/gpt.h"

namespace tinylm::testing {

// ids and targets [B, T], drawn below the model's vocabulary.
struct RandomBatch {
  std::vector<int32_t> ids, targets;
  int64_t B = 0, T = 0;
};

// Weights drawn normal(0, 0.3) (larger than GPT-2's 0.02, so that every path carries
// signal), then the batch's ids, then its targets.
inline RandomBatch randomize(GPT& model, Rng& rng, int64_t B, int64_t T) {
  for (auto& p : model.parameters())
    p.param->value.copy_from(random_tensor(p.param->value.shape(), rng, 0.3f));
  const int64_t V = model.config().vocab_size;
  RandomBatch b{std::vector<int32_t>(B * T), std::vector<int32_t>(B * T), B, T};
  for (auto& id : b.ids) id = static_cast<int32_t>(rng.below(V));
  for (auto& t : b.targets) t = static_cast<int32_t>(rng.below(V));
  return b;
}

// One backward of the batch's loss against central differences in `samples` entries of
// every parameter; returns the loss.
inline double expect_loss_gradients_close(GPT& model, const RandomBatch& b, int samples) {
  model.zero_grad();
  const double loss_value = model.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T);
  model.backward();
  const auto loss = [&] { return model.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T); };
  for (auto& p : model.parameters()) {
    const Tensor analytic = p.param->grad.clone();
    expect_grad_close(p.name, p.param->value, analytic, loss, samples, 1e-2f, 2e-2);
  }
  return loss_value;
}

}  // namespace tinylm::testing
