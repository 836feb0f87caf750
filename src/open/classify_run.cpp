#include "open/classify_run.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <numeric>

#include "lora/classifier_lora.h"
#include "run/checkpoint.h"
#include "run/finetune_run_folder.h"
#include "run/lm_trainable.h"
#include "run/trainable.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm {

std::unique_ptr<SequenceClassifier> build_classifier(const FinetuneConfig& config,
                                                     const nlohmann::json& run_info,
                                                     uint64_t seed) {
  require(run_info.contains("model") && run_info.contains("labels") && run_info.contains("pad_id"),
          "tinylm.config has no run.model / run.labels / run.pad_id");
  auto body = std::make_unique<GPT>(GPTConfig::from_json(run_info["model"], "run.model."));
  ClassifierConfig cc;
  const JsonField info(run_info, "tinylm.config", "run");  // checked, named reads
  cc.labels = info["labels"].strings();
  cc.num_labels = static_cast<int64_t>(cc.labels.size());
  cc.head_bias = config.finetune.head_bias;
  cc.pooling = parse_pooling(config.finetune.pooling);
  cc.pad_token_id = static_cast<int32_t>(info["pad_id"].integer(0, INT32_MAX));
  cc.max_length = info.has("max_length") ? info["max_length"].integer(0, INT32_MAX) : 0;
  auto model = std::make_unique<SequenceClassifier>(std::move(body), cc);
  Rng rng(seed);
  model->init_head(rng);
  const TrainableSet set = TrainableSet::parse(config.finetune.trainable);
  if (set.kind == TrainableKind::Lora) {
    attach_lora(*model, config.lora, rng);
  }
  apply_trainable(*model, set);
  return model;
}

ClassificationOptions classify_data_options(const FinetuneSettings& f) {
  ClassificationOptions o;
  o.format = {f.format, f.label_column, f.text_column, f.header};
  o.labels = f.labels;
  o.balance = f.balance;
  o.train_fraction = f.train_fraction;
  o.val_fraction = f.val_fraction;
  o.seed = f.seed;
  o.max_length = f.max_length;
  return o;
}

ClassifyRun load_classify_run(const std::string& dir, const std::string& verb) {
  require_finetune_run(dir, "classify", verb);
  const std::string path = checkpoint_path(dir);
  const CheckpointState state = read_checkpoint_state(path);
  return naming_checkpoint(path, [&] { return read_classify_run(state, path); });
}

ClassifyRun read_classify_run(const CheckpointState& state, const std::string& path) {
  ClassifyRun run;
  run.config = FinetuneConfig::from_saved(state.config, path);
  require(state.config.contains("run"), path + ": no run information in the checkpoint");
  run.run_info = state.config["run"];
  run.model = build_classifier(run.config, run.run_info, run.config.finetune.seed);
  load_checkpoint(path, run.model->parameters(), nullptr);
  run.tokenizer = tokenizer_from_json(state.tokenizer);
  const JsonField info(run.run_info, path, "run");
  run.max_length = run.model->config().max_length;
  run.pad_id = static_cast<int32_t>(info["pad_id"].integer(0, INT32_MAX));
  run.step = state.step;
  return run;
}

namespace {

// Batches of a split in order: [first, first + batch_size) ...
template <class F>
int64_t for_each_batch(const ClassificationSet& set, int64_t batch_size, int64_t max_batches, F f) {
  const int64_t n = set.size();
  const int64_t batches = (n + batch_size - 1) / batch_size;
  const int64_t used = max_batches > 0 ? std::min(batches, max_batches) : batches;
  for (int64_t b = 0; b < used; ++b) {
    std::vector<int64_t> idx(std::min(batch_size, n - b * batch_size));
    std::iota(idx.begin(), idx.end(), b * batch_size);
    f(make_classification_batch(set, idx));
  }
  return used;
}

}  // namespace

Accuracy accuracy(SequenceClassifier& model, const ClassificationSet& set, int64_t batch_size,
                  int64_t max_batches) {
  const int64_t L = model.config().num_labels;
  Accuracy a;
  a.confusion.assign(L, std::vector<int64_t>(L, 0));
  for_each_batch(set, batch_size, max_batches, [&](const ClassificationBatch& b) {
    const Tensor logits = model.forward(b.ids.data(), b.B, b.T);  // [B, L]
    for (int64_t i = 0; i < b.B; ++i) {
      const float* row = logits.data() + i * L;
      const auto predicted = static_cast<int64_t>(std::max_element(row, row + L) - row);
      a.confusion[b.labels[i]][predicted] += 1;
      a.correct += predicted == b.labels[i];
      a.total += 1;
    }
  });
  return a;
}

double classification_loss(SequenceClassifier& model, const ClassificationSet& set,
                           int64_t batch_size, int64_t max_batches) {
  double total = 0;
  const int64_t used =
      for_each_batch(set, batch_size, max_batches, [&](const ClassificationBatch& b) {
        total += model.forward_loss(b.ids.data(), b.labels.data(), b.B, b.T);
      });
  return used ? total / static_cast<double>(used) : 0.0;
}

std::vector<float> label_probabilities(SequenceClassifier& model, const std::vector<int32_t>& ids) {
  const Tensor logits = model.forward(ids.data(), 1, static_cast<int64_t>(ids.size()));
  const int64_t L = model.config().num_labels;
  std::vector<float> p(logits.data(), logits.data() + L);
  const float top = *std::max_element(p.begin(), p.end());
  double sum = 0;
  for (float& v : p) sum += (v = std::exp(v - top));
  for (float& v : p) v = static_cast<float>(v / sum);
  return p;
}

}  // namespace tinylm
