// Pooling: which hidden states of a sequence a classification head reads.
//   last          position T-1 (the course's classifier; padding must not come last)
//   last_non_pad  the last position whose id is not the pad id, position 0 if every id
//                 is the pad id (transformers' GPT2ForSequenceClassification)
//   mean          the mean over the positions whose id is not the pad id (InputError for
//                 a sequence made only of padding)
//   forward:  hidden [B, T, C], ids [B, T] -> pooled [B, C]
//   backward: dpooled [B, C] -> dhidden [B, T, C] (overwritten; zero where not pooled)
#pragma once
#include <cstdint>
#include <string>

namespace tinylm {

enum class Pooling { Last, LastNonPad, Mean };

Pooling parse_pooling(const std::string& name);  // InputError naming the value
std::string pooling_name(Pooling p);

void pool_forward(Pooling p, const float* hidden, const int32_t* ids, int32_t pad_id, float* pooled,
                  int64_t B, int64_t T, int64_t C);
void pool_backward(Pooling p, const float* dpooled, const int32_t* ids, int32_t pad_id,
                   float* dhidden, int64_t B, int64_t T, int64_t C);

}  // namespace tinylm
