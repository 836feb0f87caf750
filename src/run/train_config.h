// A training run's configuration: the JSON file given to `tinylm train --config`, with
// five sections. Every field has a default except model.block_size/n_layer/n_head/
// d_model and data.path (or data.task); unknown or ill-typed fields are rejected with
// their dotted name ("train.lr must be a number").
//   {
//     "model":  { GPTConfig fields (model/config.h); vocab_size comes from the tokenizer },
//     "data":   { "path": "data/tinyshakespeare.txt", "tokenizer": "char", "val_fraction": 0.1 }
//               (or "path": a folder from `tinylm prepare`: train.bin, val.bin, meta.json)
//               or { "task": "addition" },
//     "train":  { "batch_size", "max_steps", "lr", "min_lr", "warmup_steps", "lr_decay_steps",
//                 "beta1", "beta2", "eps", "weight_decay", "decay_embeddings", "grad_clip",
//                 "grad_accum", "global_batch", "eval_interval", "eval_iters", "log_interval",
//                 "checkpoint_interval", "seed", "threads", "init_from", "trainable" },
//     "sample": { "prompt", "max_new_tokens", "temperature", "top_k", "top_p", "count" },
//     "lora":   { "r", "alpha", "targets", "dropout" }   (used with train.trainable "lora";
//               a "lora" section without train.trainable sets it to "lora"),
//     "dist":   { "reduce": "sum" | "ordered", "check_replicas" }  (docs/distributed.md)
//   }
// and "kind": "train", which the saved RUN/config.json and checkpoints carry (how a folder
// is told to be a train run: run/run_folder.h); a config may have it, with that value only.
// With train.init_from (a Hugging Face GPT-2 folder, a tinylm run folder or checkpoint, or
// a preset name: open/base_model.h) the model's shape, its weights and the tokenizer come
// from there, as nanoGPT's init_from="gpt2"; "model" may then set only dropout,
// attn_dropout and a smaller block_size (learned positions cropped, as nanoGPT's
// crop_block_size), and data.tokenizer may only name the base's own.
// `--set train.lr=3e-4` overrides one field; the value is read as JSON when it parses
// (numbers, true/false, quoted strings) and as a plain string otherwise.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "generate/generate.h"
#include "lora/lora.h"
#include "model/config.h"
#include "run/dist_settings.h"
#include "run/shared_settings.h"

namespace tinylm {

struct DataConfig {
  std::string path;           // the corpus (UTF-8 text), or a folder written by `tinylm prepare`
  std::string tokenizer;      // char (default) | word | gpt2 | a folder with encoder.json +
                              // vocab.bpe; a prepared folder brings its own (meta.json)
  double val_fraction = 0.1;  // the last fraction of the corpus is the validation split
  std::string task;           // "addition": generated problems instead of a corpus
  // How training batches are cut from the train split (data/sliding_windows.h):
  // "random" windows (nanoGPT, the default) or "sliding" windows (Raschka ch. 2:
  // max_length = model.block_size, stride, shuffle, drop_last, epochs).
  std::string windows = "random";
  int64_t stride = 0;              // sliding: distance between windows; 0 = model.block_size
  bool shuffle = true;             // sliding: a new window order each epoch
  bool drop_last = true;           // sliding: drop an epoch's last, smaller batch
  int64_t epochs = 0;              // sliding: > 0 sets train.max_steps to this many epochs
  std::string loss_on = "answer";  // addition: "answer" (positions 7..11) or "all" 12
};

// The "train" section: the shared optimizer and loop fields (run/shared_settings.h) with
// nanoGPT's defaults, and those of `tinylm train` alone.
struct TrainSettings : OptimizerSettings, LoopCounts {
  TrainSettings()
      : OptimizerSettings{.lr = 1e-3,
                          .min_lr = 1e-4,
                          .warmup_steps = 100,
                          .beta1 = 0.9,
                          .beta2 = 0.99,
                          .eps = 1e-8,
                          .weight_decay = 0.1,
                          .grad_clip = 1.0},
        LoopCounts{.batch_size = 12,
                   .max_steps = 2000,
                   .eval_interval = 250,
                   .log_interval = 10,
                   .checkpoint_interval = 500,
                   .seed = 1337,
                   .threads = 0} {}
  int64_t lr_decay_steps = -1;   // -1: max_steps
  bool decay_embeddings = true;  // weight decay on wte / wpe (biases and norms: never)
  // Micro-batches of batch_size sequences per optimizer step, over all data-parallel
  // ranks: global_batch / batch_size (each of W ranks accumulates grad_accum / W).
  int64_t grad_accum = 1;
  // Sequences per optimizer step (0: batch_size * grad_accum). Set, it decides grad_accum.
  int64_t global_batch = 0;
  int64_t eval_iters = 20;
  std::string init_from;          // "" (random init, the default) or where weights come from
  std::string trainable = "all";  // "all", or "lora": adapters only, every base weight frozen
};

struct SampleSettings {
  std::string prompt = "\n";
  int64_t max_new_tokens = 200;
  double temperature = 0.8;
  int64_t top_k = 200;
  double top_p = 1.0;
};

struct TrainConfig {
  GPTConfig model;
  DataConfig data;
  TrainSettings train;
  SampleSettings sample;
  LoraConfig lora = default_lora();  // PEFT-style adapters (lora/lora.h), with trainable "lora"
  DistSettings dist;

  nlohmann::json to_json() const;
  static TrainConfig from_json(const nlohmann::json& j);
  // Checks the fields that do not depend on the data (model checked once vocab is known).
  void validate() const;
};

// Applies "a.b.c=value" to a JSON object, creating objects along the path.
void apply_override(nlohmann::json& j, const std::string& assignment);

// Reads a config file (+ overrides) into JSON; InputError for unreadable / malformed.
nlohmann::json load_config_json(const std::string& path, const std::vector<std::string>& sets);

}  // namespace tinylm
