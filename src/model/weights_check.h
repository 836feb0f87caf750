// Checking a model config against a weights file before the model is built: the sizes
// in a config.json or a checkpoint's metadata are untrusted, and building a GPT
// allocates them. A config that does not describe the file's tensors, or a model that
// cannot fit in this machine's memory, is refused (InputError naming the field) before
// any allocation.
#pragma once
#include <string>

#include "io/safetensors.h"
#include "model/config.h"

namespace tinylm {

// prefix: how the file names the model's tensors ("transformer.", "model.", "").
// Checks wte [vocab_size, d_model], wpe [block_size, d_model] (learned positions),
// the number of blocks (h.<n_layer - 1> present, h.<n_layer> absent), the width of
// the feed-forward layer, and that the weights and their gradients fit in memory.
// The llama family (c.arch): embed_tokens, norm, the number of layers, q_proj [H*D, C],
// k_proj [KV*D, C], gate_proj [F, C], and the memory.
void check_config_against_weights(const GPTConfig& c, const SafeTensors& file,
                                  const std::string& prefix, const std::string& path);

}  // namespace tinylm
