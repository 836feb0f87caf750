// A classification fine-tuning run read back (`tinylm classify`, `tinylm eval`), and
// what is measured on a classifier: accuracy and the confusion matrix over a split,
// label probabilities of new texts.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/classification_dataset.h"
#include "model/classifier.h"
#include "run/checkpoint.h"
#include "run/finetune_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

// The data options of classify settings: format, columns, labels, balance, split, seed
// and padded length as `f` gives them (a saved run then sets the labels, length and pad
// id it learnt; a new run its context length).
ClassificationOptions classify_data_options(const FinetuneSettings& f);

// The classifier of a run: the GPT body (config.json's run.model), the head and, for
// trainable "lora", the adapters, as the run built them; no weights loaded.
// run_info: {"model": GPTConfig, "labels": [...], "pad_id", "max_length"}.
std::unique_ptr<SequenceClassifier> build_classifier(const FinetuneConfig& config,
                                                     const nlohmann::json& run_info, uint64_t seed);

struct ClassifyRun {
  FinetuneConfig config;
  nlohmann::json run_info;
  std::unique_ptr<SequenceClassifier> model;
  std::unique_ptr<Tokenizer> tokenizer;
  int64_t max_length = 0;  // T of training: new texts are cut / padded to it
  int32_t pad_id = 0;
  int64_t step = 0;
};

// RUN/last.safetensors with its config and tokenizer. InputError if RUN is not a
// finetune run of task classify (an instruct run names `tinylm respond`).
// Every InputError names the checkpoint.
ClassifyRun load_classify_run(const std::string& dir, const std::string& verb);
// The same from a checkpoint's state already read (path names it in messages).
ClassifyRun read_classify_run(const CheckpointState& state, const std::string& path);

struct Accuracy {
  int64_t correct = 0, total = 0;
  std::vector<std::vector<int64_t>> confusion;  // [true label][predicted label]
  double value() const { return total ? static_cast<double>(correct) / total : 0.0; }
};

// Predictions (argmax of the pooled logits) over the first max_batches batches of a
// split, in order (<= 0: every example).
Accuracy accuracy(SequenceClassifier& model, const ClassificationSet& set, int64_t batch_size,
                  int64_t max_batches);

// The mean over batches of the mean cross-entropy (the course's calc_loss_loader).
double classification_loss(SequenceClassifier& model, const ClassificationSet& set,
                           int64_t batch_size, int64_t max_batches);

// ids [T] -> the probability of each label (softmax of the logits) [num_labels].
std::vector<float> label_probabilities(SequenceClassifier& model, const std::vector<int32_t>& ids);

}  // namespace tinylm
