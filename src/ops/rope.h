// Rotary position embeddings as Hugging Face's Llama applies them (rotate_half: the two
// halves of a head are rotated against each other, not interleaved pairs). For a head of
// even width D, half = D/2, at position p, with angle a_i = p * inv_freq[i] (i < half):
//   y[i]        = x[i] cos a_i - x[i + half] sin a_i
//   y[i + half] = x[i + half] cos a_i + x[i] sin a_i
// cos, sin: tables [n_pos, half] (rope_tables). x, y: [S, T, D], S sequences of T rows at
// positions pos0 .. pos0+T-1 (a batch's heads [B*H, T, D], or one span of a KV cache). y
// may be x (in place). backward rotates back: dx = R(-a) dy (dx may be dy).
#pragma once
#include <cstdint>

namespace tinylm::ops {

// Llama 3's rope_scaling ("rope_type": "llama3"): long wavelengths slowed by `factor`,
// short ones kept, the band between smoothed (Hugging Face's _compute_llama3_parameters).
struct Llama3RopeScaling {
  float factor = 0, low_freq_factor = 0, high_freq_factor = 0;
  int64_t original_max_position = 0;
};

// inv_freq [D/2] = 1 / theta^(2i/D) in float32 as Hugging Face computes it, then scaled
// by `scaling` when given.
void rope_inv_freq(float theta, int64_t D, const Llama3RopeScaling* scaling, float* inv_freq);
// cos, sin [n_pos, half] of the angles p * inv_freq[i], the angle in float32 as Hugging
// Face's (the product of two floats), its cosine and sine rounded from double.
void rope_tables(const float* inv_freq, int64_t half, int64_t n_pos, float* cos, float* sin);

void rope_forward(const float* x, const float* cos, const float* sin, float* y, int64_t S,
                  int64_t T, int64_t D, int64_t pos0);
void rope_backward(const float* dy, const float* cos, const float* sin, float* dx, int64_t S,
                   int64_t T, int64_t D, int64_t pos0);

namespace ref {
void rope_forward(const float* x, const float* cos, const float* sin, float* y, int64_t S,
                  int64_t T, int64_t D, int64_t pos0);
void rope_backward(const float* dy, const float* cos, const float* sin, float* dx, int64_t S,
                   int64_t T, int64_t D, int64_t pos0);
}  // namespace ref

}  // namespace tinylm::ops
