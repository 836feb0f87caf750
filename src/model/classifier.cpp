// SequenceClassifier: GPT body + pooling + score head (see classifier.h).
#include "model/classifier.h"

#include "backend/registry.h"
#include "nn/init.h"
#include "util/error.h"
#include "util/ignore_index.h"

namespace tinylm {

std::string ClassifierConfig::label(int64_t id) const {
  if (id >= 0 && id < static_cast<int64_t>(labels.size())) return labels[id];
  return "LABEL_" + std::to_string(id);
}

SequenceClassifier::SequenceClassifier(std::unique_ptr<GPT> body, const ClassifierConfig& config)
    : score(body->config().d_model, config.num_labels, config.head_bias),
      body_(std::move(body)),
      config_(config) {
  require(config.num_labels >= 2,
          "num_labels must be at least 2, got " + std::to_string(config.num_labels));
  require(config.labels.empty() || static_cast<int64_t>(config.labels.size()) == config.num_labels,
          "labels: " + std::to_string(config.labels.size()) + " names for " +
              std::to_string(config.num_labels) + " labels");
}

void SequenceClassifier::init_head(Rng& rng, float std) {
  score.init(rng, std);
}

Tensor SequenceClassifier::forward(const int32_t* ids, int64_t B, int64_t T,
                                   const nn::Context& ctx) {
  const int64_t C = body_->config().d_model;
  const Tensor hidden = body_->forward_hidden(ids, B, T, ctx);  // [B, T, C]
  ids_.assign(ids, ids + B * T);
  B_ = B, T_ = T;
  pooled_.ensure_shape({B, C});
  pool_forward(config_.pooling, hidden.data(), ids, config_.pad_token_id, pooled_.data(), B, T, C);
  logits_ = score.forward(pooled_, ctx);  // [B, num_labels]
  return logits_;
}

double SequenceClassifier::forward_loss(const int32_t* ids, const int32_t* labels, int64_t B,
                                        int64_t T, const nn::Context& ctx) {
  for (int64_t b = 0; b < B; ++b)
    require(labels[b] >= 0 && labels[b] < config_.num_labels, [&] {
      return "label " + std::to_string(labels[b]) + " of sequence " + std::to_string(b) +
             " is not in [0, " + std::to_string(config_.num_labels) + ")";
    });
  forward(ids, B, T, ctx);
  dlogits_.ensure_shape(logits_.shape());
  return on(logits_).cross_entropy(logits_.data(), labels, dlogits_.data(), B, config_.num_labels,
                                   kIgnoreIndex);
}

void SequenceClassifier::backward(float loss_scale) {
  require(dlogits_.defined(), "SequenceClassifier::backward before forward_loss");
  const int64_t B = B_, T = T_, C = body_->config().d_model;
  if (loss_scale != 1.0f)
    for (int64_t i = 0; i < dlogits_.numel(); ++i) dlogits_[i] *= loss_scale;
  const Tensor dpooled = score.backward(dlogits_);  // [B, C]
  if (!body_->body_trains()) return;                // only the head trains: stop here
  dhidden_.ensure_shape({B, T, C});
  pool_backward(config_.pooling, dpooled.data(), ids_.data(), config_.pad_token_id, dhidden_.data(),
                B, T, C);
  body_->backward_hidden(dhidden_);
}

void SequenceClassifier::zero_grad() {
  for (const auto& p : parameters())
    if (p.param->trainable()) p.param->grad.zero();
}

ParameterList SequenceClassifier::head_parameters() {
  ParameterList list;
  score.parameters(list, "score.");
  return list;
}

ParameterList SequenceClassifier::parameters() {
  ParameterList list = body_->parameters();
  for (const auto& p : head_parameters()) list.push_back(p);
  if (adapters_)
    for (const auto& p : adapters_->parameters()) list.push_back(p);
  return list;
}

void SequenceClassifier::attach_adapters(std::unique_ptr<nn::AdapterSet> adapters) {
  require(!adapters_, "adapters are already attached to the classifier");
  adapters_ = std::move(adapters);
}

}  // namespace tinylm
