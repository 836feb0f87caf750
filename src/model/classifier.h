// Sequence classification: a GPT body, a pooling of its final hidden states and a new
// head `score` [num_labels, d_model] (bias optional: the course's has one, transformers'
// has none), trained with cross-entropy on the pooled logits.
//   forward:  ids [B, T] -> hidden [B, T, C] -> pooled [B, C] -> logits [B, num_labels]
//   backward: d logits -> score (dW) -> pooling -> the body, down to its lowest trainable
//             block (nothing below the head when only the head trains)
// Parameter names: the body's ("h.0.attn.c_attn.weight", ...), "score.weight",
// "score.bias", then the LoRA adapters' ("transformer.h.0.attn.c_attn.lora_A.weight").
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/gpt.h"
#include "model/pooling.h"
#include "nn/linear_adapter.h"

namespace tinylm {

struct ClassifierConfig {
  int64_t num_labels = 2;
  bool head_bias = false;
  Pooling pooling = Pooling::Last;
  int32_t pad_token_id = 50256;
  std::vector<std::string> labels;  // id -> name; empty means LABEL_0, LABEL_1, ...
  // The length texts were cut and padded to in training (0: each text as it comes). It
  // changes which position is pooled, so it travels with the model: a folder written
  // from it (lora merge, export) must classify as the run did.
  int64_t max_length = 0;

  std::string label(int64_t id) const;
};

class SequenceClassifier {
 public:
  // The head starts at zeros: call init_head() for a random one.
  SequenceClassifier(std::unique_ptr<GPT> body, const ClassifierConfig& config);

  // Head weight normal(0, std) (transformers' init for `score`), bias zeros.
  void init_head(Rng& rng, float std = 0.02f);

  // ids [B, T] -> logits [B, num_labels] (the classifier's own buffer).
  Tensor forward(const int32_t* ids, int64_t B, int64_t T, const nn::Context& ctx = {});
  // forward, then the mean cross-entropy against labels [B] (ids in [0, num_labels)).
  double forward_loss(const int32_t* ids, const int32_t* labels, int64_t B, int64_t T,
                      const nn::Context& ctx = {});
  // Backpropagates the last forward_loss into the trainable parameters' gradients.
  void backward(float loss_scale = 1.0f);
  void zero_grad();

  // Everything: body, head, adapters (frozen ones included).
  ParameterList parameters();
  ParameterList head_parameters();

  // Fine-tuning adapters on the body and the head (LoRA: lora/classifier_lora.h attaches
  // them), owned from now on; their parameters follow the head's in parameters().
  // InputError when adapters are attached already.
  void attach_adapters(std::unique_ptr<nn::AdapterSet> adapters);
  nn::AdapterSet* adapters() { return adapters_.get(); }
  // Detaches and destroys the adapters (after they were merged into the weights).
  void drop_adapters() { adapters_.reset(); }

  // Pooling and pad id change nothing in the weights: they can be set at any time.
  void set_pooling(Pooling pooling, int32_t pad_token_id) {
    config_.pooling = pooling;
    config_.pad_token_id = pad_token_id;
  }

  GPT& body() { return *body_; }
  const ClassifierConfig& config() const { return config_; }

  nn::Linear score;  // [num_labels, C]

 private:
  std::unique_ptr<GPT> body_;
  ClassifierConfig config_;
  std::unique_ptr<nn::AdapterSet> adapters_;  // declared after body_: detached before the body goes
  std::vector<int32_t> ids_;
  int64_t B_ = 0, T_ = 0;
  Tensor pooled_, logits_, dlogits_, dhidden_;
};

}  // namespace tinylm
