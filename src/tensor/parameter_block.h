// The parameters of a list as views into one block per device (llm.c's one allocation):
// every value in one buffer, every trainable gradient in another, in list order and each
// parameter once (a tied embedding and head are one tensor). Values keep their contents,
// gradients start at zero. A run builds it once its model is on its device and knows what
// trains (run session); a parameter moved or frozen later gets its own buffer again, and
// then intact() says so and the users fall back to per-parameter work.
//   values [total]    grads [trainable total]    offsets: where each parameter starts
#pragma once
#include <cstdint>
#include <vector>

#include "tensor/parameter.h"

namespace tinylm {

class ParameterBlock {
 public:
  ParameterBlock() = default;
  // Re-points every parameter of the list into the blocks (on the device of the first; a
  // list on several devices is left as it is, and never intact()).
  explicit ParameterBlock(const ParameterList& params);

  // Whether every parameter still views the blocks.
  bool intact() const;
  // All trainable gradients := 0: one fill when intact, else one per parameter.
  void zero_grads();
  int64_t value_count() const { return values_.numel(); }
  int64_t grad_count() const { return grads_.numel(); }

 private:
  struct Entry {
    Parameter* param;
    const float* value;  // where the block put it (null: not in a block)
    const float* grad;   // null: frozen
  };
  std::vector<Entry> entries_;
  Tensor values_, grads_;
};

// Each parameter of the list once, in list order (a tied tensor is listed twice).
std::vector<Parameter*> unique_parameters(const ParameterList& params);

}  // namespace tinylm
