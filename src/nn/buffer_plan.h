// What a module keeps from step to step, listed by the module itself beside the members
// that hold them (as parameters() lists its weights): for a step of B sequences of T
// positions, each buffer's name, symbolic shape and size. A model's list is its
// modules' lists, so the memory estimate `tinylm info` prints (report/memory.h) is the
// sum of what the modules say they keep, not a second description of them. The lists
// are static (from the sizes alone): nothing is allocated to plan a model of any size.
//   forward:   kept by a forward for backward (activations, outputs)
//   backward:  gradients of inputs each module reuses from step to step
//   transient: backward's work buffers, one set shared by every module of a kind
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm::nn {

enum class BufferUse { kForward, kBackward, kTransient };

struct PlannedBuffer {
  BufferUse use = BufferUse::kForward;
  std::string name;    // "h.*.ln_1: y, mean, rstd"
  std::string shape;   // "[B, T, C] + 2 x [B, T]"
  int64_t elems = 0;   // 4-byte elements (float32; token ids are int32) of one instance
  int64_t copies = 1;  // n_layer for a block's buffers
  int64_t bytes() const { return 4 * elems * copies; }
};

// The step a plan is for: B sequences of T positions, a training step (dropout active,
// tiled attention) or not.
struct StepShape {
  int64_t B = 0, T = 0;
  bool training = true;
  int64_t rows() const { return B * T; }
};

// A width and its symbol in shapes ("C", "3C", "F").
struct Width {
  std::string name;
  int64_t n = 0;
};

struct BufferPlan {
  std::vector<PlannedBuffer> buffers;
  void add(BufferUse use, std::string name, std::string shape, int64_t elems) {
    buffers.push_back({use, std::move(name), std::move(shape), elems, 1});
  }
  // [B, T, width]: one row of `width` per position.
  void add_rows(BufferUse use, std::string name, const StepShape& s, const Width& w,
                int64_t count = 1) {
    const std::string shape = "[B, T, " + w.name + "]";
    add(use, std::move(name), count == 1 ? shape : std::to_string(count) + " x " + shape,
        count * s.rows() * w.n);
  }
  // Every buffer added from index `first` on belongs to a module repeated n times.
  void repeat_since(size_t first, int64_t n) {
    for (size_t i = first; i < buffers.size(); ++i) buffers[i].copies *= n;
  }
  int64_t bytes(BufferUse use) const {
    int64_t total = 0;
    for (const PlannedBuffer& b : buffers)
      if (b.use == use) total += b.bytes();
    return total;
  }
};

}  // namespace tinylm::nn
