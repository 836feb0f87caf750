// `tinylm finetune --task classify`: a GPT body + a classification head (Raschka ch. 6).
//   base (base_model.h) + labelled texts (data/classification_dataset.h: labels, balance,
//   70/10/20 split, padding to the longest training text)
//   -> SequenceClassifier (classifier.h) with finetune.pooling, a new head, LoRA adapters
//      when finetune.trainable is "lora", and the trainable set (run/trainable.h)
//   -> accuracy on train / val / test before training
//   -> the one loop (train/loop.h, finetune/epoch_task.h): cross-entropy of the pooled logits;
//   every eval_interval
//      the train and val loss over eval_batches batches; after each epoch the train and
//      val accuracy (log.jsonl "train_accuracy" / "val_accuracy": report.html's panel)
//   -> accuracy on the three splits after training, the test confusion matrix
//      (results.json and the output), and the model as a Hugging Face
//      GPT2ForSequenceClassification folder in RUN/hf (adapters merged; under lora the
//      adapter alone also goes to RUN/adapter in PEFT's layout)
#pragma once
#include "finetune/instruct_trainer.h"
#include "run/finetune_config.h"

namespace tinylm::finetune {

// Exit codes as train(): 0, 130 (interrupted, checkpoint saved), 1 (NaN loss).
// Bad settings, data or base: InputError before anything is written.
int finetune_classify(const FinetuneConfig& config, const FinetuneOptions& options);

}  // namespace tinylm::finetune
