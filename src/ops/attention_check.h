// The shape and mask checks every attention kernel makes first (ops/attention.h): no
// negative dimension; an additive mask's set count divides N. InputError otherwise, with
// the same message on every backend.
#pragma once

#include "ops/attention.h"

namespace tinylm::ops {

void check_attention(const AttentionShape& s, const AttentionMask& mask);

}  // namespace tinylm::ops
