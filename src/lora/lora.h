// LoRA (Hu et al. 2021) on the linear layers of a GPT, as PEFT does it:
//   y = W x + b + s * B A dropout(x),   A [r, in], B [out, r],   s = alpha / r
// (alpha / sqrt(r) with use_rslora). The course's current code and PEFT scale by
// alpha / r; the printed book scaled by alpha alone. A starts Kaiming-uniform as PEFT
// (kaiming_uniform_(a = sqrt(5)) on [r, in]: U(-1/sqrt(in), 1/sqrt(in))), B at zeros, so
// the adapted model starts equal to the base. The base weights stay frozen.
//
// Targets (PEFT matches module names by suffix): GPT-2's c_attn (attention QKV), c_proj
// (the attention output AND the MLP output projections), c_fc (MLP input); the llama
// family's q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj; head (the
// classification head `score`). Modules are named as in Hugging Face
// ("transformer.h.0.attn.c_attn", "model.layers.0.self_attn.q_proj", "score").
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/gpt.h"
#include "nn/linear.h"

namespace tinylm {

// PEFT's target_modules="all-linear": every linear layer of the blocks, whichever family
// (GPT-2's c_attn, c_proj, c_fc; the llama family's q_proj .. down_proj), not the head.
inline constexpr const char* kAllLinear = "all-linear";

struct LoraConfig {
  int64_t r = 8;
  float alpha = 16.0f;
  std::vector<std::string> targets = {"c_attn"};
  float dropout = 0.0f;
  bool rslora = false;  // scaling alpha / sqrt(r) instead of alpha / r

  float scaling() const;
};

// The LoRA branch attached to one nn::Linear.
//   forward_add:  x [N, in] -> y [N, out] += s * (drop(x) A^T) B^T
//   backward_add: dy [N, out] -> dB += s dy^T u, dA += (s dy B)^T drop(x), dx += drop'(s dy B A)
class LoraAdapter : public nn::LinearAdapter {
 public:
  LoraAdapter(int64_t in, int64_t out, int64_t r, float scaling, float dropout);

  // Dropout (in training steps only) draws from ctx.dropout_key (the run's dropout
  // generator, which checkpoints keep, so a resumed run draws the same masks; keyed by
  // sequence, as nn::Dropout).
  void forward_add(const float* x, float* y, int64_t N, const nn::Context& ctx) override;
  void backward_add(const float* x, const float* dy, float* dx, int64_t N) override;
  // PEFT's init: A Kaiming-uniform (bound 1/sqrt(in)), B zeros.
  void init(Rng& rng);

  Parameter A;  // lora_A.weight [r, in]
  Parameter B;  // lora_B.weight [out, r]
  int64_t in() const { return in_; }
  int64_t out() const { return out_; }
  int64_t rank() const { return r_; }
  float scaling() const { return scaling_; }
  // What a step keeps (x [B, T, in]): u = drop(x) A^T and du [B, T, r]; with dropout in
  // a training step, the dropped input xd and its mask (one byte per element: a quarter
  // of a 4-byte element) and dxd [B, T, in].
  static void plan_buffers(nn::BufferPlan& plan, const std::string& prefix, int64_t in, int64_t r,
                           float dropout, const nn::StepShape& s);

 private:
  int64_t in_, out_, r_;
  float scaling_, dropout_;
  Tensor xd_, u_, du_, dxd_;
  std::vector<uint8_t> keep_;  // dropout mask of the last training forward
};

// A linear layer LoRA may target, with its Hugging Face module name and shape.
struct LoraTarget {
  std::string module;  // "transformer.h.0.attn.c_attn", "score"
  std::string kind;    // c_attn, c_proj, c_fc, head
  int64_t in = 0, out = 0;
};

// The settings alone: InputError naming the field for r <= 0, alpha not positive,
// dropout outside [0, 1), no target. (lora_targets checks these and the model.)
void validate(const LoraConfig& lora);

// Every linear layer of a model with this config that the targets select (in model
// order); head_out is the classification head's output size (0: no head). InputError
// for an unknown target, a target that selects nothing, r <= 0 or r > max(in, out)
// (docs/finetune.md: a rank above min(in, out) is allowed, as the course does).
std::vector<LoraTarget> lora_targets(const GPTConfig& config, int64_t head_out,
                                     const LoraConfig& lora);
// Number of LoRA parameters, computed from the config alone: sum of r * (in + out).
int64_t lora_parameter_count(const GPTConfig& config, int64_t head_out, const LoraConfig& lora);

// The adapters attached to one model. Holds pointers into the model: it must outlive
// neither the model nor be used after the model's blocks are reallocated.
class LoraSet : public nn::AdapterSet {
 public:
  // Attaches an adapter to each selected linear layer of `body` (and `head`, may be null)
  // and initialises it (A Kaiming-uniform from rng, B zeros).
  LoraSet(GPT& body, nn::Linear* head, const LoraConfig& config, Rng& rng);
  // Attaches to exactly these modules (what a PEFT file holds), initialised the same way.
  LoraSet(GPT& body, nn::Linear* head, const LoraConfig& config,
          const std::vector<LoraTarget>& where, Rng& rng);
  ~LoraSet() override;  // detaches the adapters
  LoraSet(const LoraSet&) = delete;
  LoraSet& operator=(const LoraSet&) = delete;

  // Adapter tensors named "<module>.lora_A.weight" / ".lora_B.weight" (HF module names).
  ParameterList parameters() override;
  int64_t num_parameters();
  const LoraConfig& config() const { return config_; }
  // Folds every adapter into its base weight (W += s B A) and detaches them; the set
  // is empty afterwards.
  void merge();

  struct Attached {
    LoraTarget target;
    nn::Linear* linear;
    std::shared_ptr<LoraAdapter> adapter;
  };
  std::vector<Attached>& attached() { return attached_; }

 private:
  LoraConfig config_;
  std::vector<Attached> attached_;
};

// The model's parameters, then the adapters' (lora may be null): what a language model's
// optimizer and checkpoints cover when it carries adapters.
ParameterList with_adapters(GPT& model, LoraSet* lora);

// The linear layers of `body` (and the head) by Hugging Face module name (null if none).
nn::Linear* find_linear(GPT& body, nn::Linear* head, const std::string& module);
// The names of every linear layer LoRA can adapt, in model order.
std::vector<std::string> adaptable_modules(GPT& body, nn::Linear* head);
// The same, shortened for messages: "transformer.h.<0..N>.{attn.c_attn,...}[, score]".
std::string adaptable_modules_text(const GPT& body, const nn::Linear* head);

}  // namespace tinylm
