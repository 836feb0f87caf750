// Keys and values of the positions seen so far, per layer, so that generating one more
// token costs one position's work instead of recomputing the whole sequence.
//   k[l], v[l]: [KV, max_len, D] for layer l (batch size 1), on the model's device (KV
//   key/value heads: fewer than the query heads with grouped-query attention);
//   pos = positions filled.
#pragma once
#include <vector>

#include "model/config.h"
#include "tensor/tensor.h"

namespace tinylm {

struct KVCache {
  explicit KVCache(const GPTConfig& c, Device device = Device::kCpu) : max_len(c.block_size) {
    for (int64_t l = 0; l < c.n_layer; ++l) {
      k.push_back(Tensor::zeros({c.kv_heads(), c.block_size, c.head_size()}, device));
      v.push_back(Tensor::zeros({c.kv_heads(), c.block_size, c.head_size()}, device));
    }
  }
  void clear() { pos = 0; }

  int64_t pos = 0;
  int64_t max_len;
  std::vector<Tensor> k, v;
};

}  // namespace tinylm
