// Pooling of the final hidden states for sequence classification (see pooling.h).
#include "model/pooling.h"

#include <algorithm>
#include <vector>

#include "util/error.h"

namespace tinylm {

namespace {

// The positions of sequence b that are pooled, each with its weight.
std::vector<std::pair<int64_t, float>> pooled_positions(Pooling p, const int32_t* ids,
                                                        int32_t pad_id, int64_t b, int64_t T) {
  const int32_t* row = ids + b * T;
  if (p == Pooling::Last) return {{T - 1, 1.0f}};
  if (p == Pooling::LastNonPad) {
    int64_t last = 0;
    for (int64_t t = 0; t < T; ++t)
      if (row[t] != pad_id) last = t;
    return {{last, 1.0f}};
  }
  std::vector<std::pair<int64_t, float>> out;
  for (int64_t t = 0; t < T; ++t)
    if (row[t] != pad_id) out.push_back({t, 0.0f});
  require(!out.empty(), "mean pooling: sequence " + std::to_string(b) +
                            " is only padding (pad id " + std::to_string(pad_id) + ")");
  for (auto& [t, w] : out) w = 1.0f / static_cast<float>(out.size());
  return out;
}

}  // namespace

Pooling parse_pooling(const std::string& name) {
  if (name == "last") return Pooling::Last;
  if (name == "last_non_pad") return Pooling::LastNonPad;
  if (name == "mean") return Pooling::Mean;
  throw InputError("pooling '" + name + "': expected last, last_non_pad or mean");
}

std::string pooling_name(Pooling p) {
  switch (p) {
    case Pooling::Last:
      return "last";
    case Pooling::LastNonPad:
      return "last_non_pad";
    case Pooling::Mean:
      break;
  }
  return "mean";
}

void pool_forward(Pooling p, const float* hidden, const int32_t* ids, int32_t pad_id, float* pooled,
                  int64_t B, int64_t T, int64_t C) {
  for (int64_t b = 0; b < B; ++b) {
    float* out = pooled + b * C;
    std::fill(out, out + C, 0.0f);
    for (const auto& [t, w] : pooled_positions(p, ids, pad_id, b, T)) {
      const float* h = hidden + (b * T + t) * C;
      for (int64_t c = 0; c < C; ++c) out[c] += w * h[c];
    }
  }
}

void pool_backward(Pooling p, const float* dpooled, const int32_t* ids, int32_t pad_id,
                   float* dhidden, int64_t B, int64_t T, int64_t C) {
  std::fill(dhidden, dhidden + B * T * C, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    const float* d = dpooled + b * C;
    for (const auto& [t, w] : pooled_positions(p, ids, pad_id, b, T)) {
      float* dh = dhidden + (b * T + t) * C;
      for (int64_t c = 0; c < C; ++c) dh[c] += w * d[c];
    }
  }
}

}  // namespace tinylm
