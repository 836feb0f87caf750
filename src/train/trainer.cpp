#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "data/addition.h"
#include "generate/generate.h"
#include "lora/peft.h"
#include "model/gpt.h"
#include "report/device.h"
#include "report/flops.h"
#include "report/memory.h"
#include "report/text_table.h"
#include "tensor/threads.h"
#include "train/adamw.h"
#include "train/base_model.h"
#include "train/checkpoint.h"
#include "train/interrupt.h"
#include "train/layer_grad_norms.h"
#include "train/progress.h"
#include "train/resume_check.h"
#include "train/run_folder.h"
#include "train/run_log.h"
#include "train/run_report.h"
#include "train/samples.h"
#include "train/schedule.h"
#include "train/training_data.h"
#include "util/error.h"
#include "util/files.h"
#include "util/system_memory.h"

namespace tinylm {

namespace {

namespace fs = std::filesystem;

// Evaluation batches come from a generator derived from the seed and the step, so that
// evaluating never disturbs the training stream and a resumed run evaluates the same.
std::string report_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Rng eval_rng(uint64_t seed, int64_t step) { return Rng(seed * 0x9E3779B97F4A7C15ULL + step + 1); }

double estimate_loss(GPT& model, const TrainingData& data, const std::string& split,
                     const TrainConfig& c, int64_t step) {
  Rng rng = eval_rng(c.train.seed ^ (split == "val" ? 0x5555 : 0xAAAA), step);
  double total = 0;
  for (int64_t i = 0; i < c.train.eval_iters; ++i) {
    const Batch b = data.eval_batch(split, c.train.batch_size, c.model.block_size, rng);
    total += model.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T);
  }
  return total / static_cast<double>(c.train.eval_iters);
}

// Weight decay groups: matrices (LoRA's A and B too, as PEFT with torch.optim.AdamW), and
// embeddings unless decay_embeddings is false.
void set_decay_flags(const ParameterList& params, bool decay_embeddings) {
  for (auto& [name, p] : params) {
    const bool embedding = name == "wte.weight" || name == "wpe.weight";
    p->decay = p->value.ndim() >= 2 && (decay_embeddings || !embedding);
  }
}

// train.trainable "lora": adapters on lora.targets (A from rng, B zeros), every weight of
// the model frozen. nullptr for "all".
std::unique_ptr<LoraSet> attach_lora(GPT& model, const TrainConfig& c, Rng& rng) {
  if (c.train.trainable != "lora") return nullptr;
  auto lora = std::make_unique<LoraSet>(model, nullptr, c.lora, rng);
  for (const auto& p : model.parameters()) p.param->set_trainable(false);
  for (const auto& p : lora->parameters()) p.param->set_trainable(true);
  return lora;
}

}  // namespace

int train(const TrainConfig& config_in, const TrainOptions& options) {
  TrainConfig c = config_in;
  c.validate();
  require(!options.out_dir.empty(), "--out: empty folder name");
  const std::string dir = options.out_dir;
  const std::string last_path = dir + "/last.safetensors", best_path = dir + "/best.safetensors";

  // Only a folder tinylm made (or an empty one) is written into, by one run at a time.
  // An existing run folder is locked before its checkpoints are read.
  const RunFolderState folder = inspect_run_folder(dir);
  std::optional<RunFolderLock> lock;
  if (folder.is_run) lock.emplace(dir);

  // Nothing already saved is overwritten: a folder with a checkpoint needs --resume,
  // which continues from the newer of last.safetensors and best.safetensors.
  const SavedCheckpoints saved = find_checkpoints(dir);
  CheckpointState state;
  nlohmann::json saved_tokenizer;
  const bool resuming = options.resume;
  if (resuming) {
    require(!saved.newest().empty(),
            saved.any() ? "--resume: " + dir + " holds " + saved.describe() +
                              ", and none can be read"
                        : "--resume: " + dir + " holds no checkpoint yet (" +
                              (folder.exists ? "the run stopped before its first one"
                                             : "the folder does not exist") +
                              "); start the run again without --resume");
    state = read_checkpoint_state(saved.newest());
    saved_tokenizer = state.tokenizer;
    TrainConfig saved_config;
    try {
      saved_config = TrainConfig::from_json(state.config);
    } catch (const InputError& e) {
      throw InputError(saved.newest() + ": tinylm.config: " + e.what());
    }
    if (!c.train.init_from.empty())  // the shape the run started with, as for a new run
      c.model = config_from_base(c.model, saved_config.model, saved.newest());
    if (c.model.vocab_size == 0) c.model.vocab_size = saved_config.model.vocab_size;
    require(saved_config.model.to_json() == c.model.to_json(),
            saved.newest() + " was trained with a different model config (" +
                saved_config.model.to_json().dump() + ")");
    check_resume_settings(saved_config, c, state.step, saved.newest());
  } else {
    require(!saved.any(),
            dir + " already holds " + saved.describe() +
                ": pass --resume to continue it, or choose another --out");
  }

  set_num_threads(static_cast<int>(c.train.threads));
  // train.init_from: the base's shape, weights and tokenizer (read once, before step 1).
  std::optional<BaseModel> base;
  if (!c.train.init_from.empty() && !resuming) {
    // The weights are copied once, into `model` below (config_from_base sets the dropout).
    base = load_base_model(c.train.init_from, nlohmann::json::object(), -1.0, c.train.seed,
                           "train.init_from");
    c.model = config_from_base(c.model, base->model->config(),
                               "train.init_from (" + c.train.init_from + ")");
    saved_tokenizer = base->tokenizer->to_json();
  }
  TrainingData data(c, resuming || base ? &saved_tokenizer : nullptr);
  const int64_t vocab = data.tokenizer().vocab_size();
  if (c.model.vocab_size == 0) c.model.vocab_size = vocab;
  if (c.train.init_from.empty())
    require(c.model.vocab_size == vocab,
            "model.vocab_size is " + std::to_string(c.model.vocab_size) + " but the tokenizer has " +
                std::to_string(vocab) + " tokens (leave vocab_size out to take it from the data)");
  else  // a base may have more embeddings than ids (GPT-2 padded to 50304, as nanoGPT)
    require(vocab <= c.model.vocab_size,
            "train.init_from (" + c.train.init_from + ") has " +
                std::to_string(c.model.vocab_size) + " token embeddings but its tokenizer " +
                std::to_string(vocab) + " ids");
  if (data.is_addition())
    require(c.model.block_size >= 12, "model.block_size must be at least 12 for the addition task");
  c.model.validate();
  if (c.data.epochs > 0) c.train.max_steps = data.steps_for_epochs(c.data.epochs, c.train.grad_accum);
  // Everything the run will need later is checked now, before step 1: the sample prompt
  // (used at every evaluation) and the memory of a training step.
  if (!data.is_addition() && c.sample.max_new_tokens > 0) {
    try {
      data.tokenizer().encode(c.sample.prompt);
    } catch (const InputError& e) {
      throw InputError(std::string("sample.prompt: ") + e.what());
    }
  }
  const int64_t train_T =  // the addition task trains on fixed-length problems
      data.is_addition() ? std::min<int64_t>(c.model.block_size, kAdditionBlockSize)
                         : c.model.block_size;
  require_fits_in_memory(
      report::estimate_memory(c.model, c.train.batch_size, train_T).training_peak(),
      "training this model (batch_size " + std::to_string(c.train.batch_size) + ", block_size " +
          std::to_string(c.model.block_size) + ")");

  GPT model(c.model);
  if (base) {
    copy_base_weights(*base->model, model);
    base.reset();  // the base's memory is not needed any more
  } else {
    Rng init_rng(c.train.seed);
    model.init(init_rng);
  }
  Rng lora_rng(c.train.seed + 3);
  const std::unique_ptr<LoraSet> lora = attach_lora(model, c, lora_rng);
  const ParameterList params = with_adapters(model, lora.get());
  const ParameterCounts counts = count_parameters(params);
  set_decay_flags(params, c.train.decay_embeddings);
  AdamW opt(params,
            AdamWConfig{static_cast<float>(c.train.lr), static_cast<float>(c.train.beta1),
                        static_cast<float>(c.train.beta2), static_cast<float>(c.train.eps),
                        static_cast<float>(c.train.weight_decay)});
  Rng batch_rng(c.train.seed + 1), dropout_rng(c.train.seed + 2);
  int64_t step = 0;
  double best_val = 1e30, last_val = 1e30;
  if (resuming) {
    state = load_checkpoint(saved.newest(), params, &opt);
    step = state.step;
    batch_rng.set_state(state.batch_rng);
    dropout_rng.set_state(state.dropout_rng);
    best_val = state.best_val_loss;
    last_val = state.val_loss;
  }

  if (!lock) lock.emplace(dir);  // creates the folder and its marker
  write_file_atomic(dir + "/config.json", c.to_json().dump(2) + "\n");
  write_file_atomic(dir + "/tokenizer.json", data.tokenizer().to_json().dump() + "\n");
  RunLog log(dir + "/log.jsonl", resuming ? step : -1);

  // Writes a checkpoint; false (nothing written) when a weight or moment is not finite.
  std::string non_finite;
  const auto save = [&](const std::string& path) {
    non_finite = first_non_finite(params, opt);
    if (!non_finite.empty()) return false;
    CheckpointState s;
    s.step = step;
    s.config = c.to_json();
    s.tokenizer = data.tokenizer().to_json();
    s.batch_rng = batch_rng.state();
    s.dropout_rng = dropout_rng.state();
    s.best_val_loss = best_val;
    s.val_loss = last_val;
    save_checkpoint(path, params, &opt, s);
    // The adapters alone, in PEFT's layout, beside the checkpoint (`tinylm lora merge`
    // folds them into the base; PeftModel.from_pretrained loads them).
    if (lora && path == last_path)
      save_peft_adapter(*lora, dir + "/adapter", {"CAUSAL_LM", c.train.init_from, nullptr});
    return true;
  };
  // What a stopped run leaves behind, for its last message.
  const auto what_is_saved = [&] {
    const SavedCheckpoints now = find_checkpoints(dir);
    return now.newest().empty() ? std::string("No checkpoint was written.")
                                : "The last good checkpoint is " + now.newest() + " (" +
                                      now.describe() + "); continue with --resume.";
  };

  const LrSchedule schedule{c.train.lr, c.train.min_lr, c.train.warmup_steps,
                            c.train.lr_decay_steps < 0 ? c.train.max_steps : c.train.lr_decay_steps};
  Progress progress(c.train.max_steps, options.quiet);
  if (!options.quiet) {
    char buf[512];
    std::string targets;
    for (const auto& t : c.lora.targets) targets += (targets.empty() ? "" : ",") + t;
    const std::string trained =
        lora ? " (" + report::with_commas(counts.trainable) + " trainable: LoRA r " +
                   std::to_string(c.lora.r) + " on " + std::to_string(lora->attached().size()) +
                   " layers, " + targets + "; " + report::with_commas(counts.frozen) + " frozen)"
             : "";
    const std::string from = c.train.init_from.empty() ? "" : ", from " + c.train.init_from;
    std::snprintf(buf, sizeof buf,
                  "tinylm train: %s parameters%s%s, vocab %lld (%s), %s tokens train / %s val, "
                  "%d threads%s",
                  report::with_commas(counts.trainable + counts.frozen).c_str(), trained.c_str(),
                  from.c_str(), static_cast<long long>(vocab), data.tokenizer().kind().c_str(),
                  data.is_addition() ? "generated" : std::to_string(data.train_tokens()).c_str(),
                  data.is_addition() ? "held-out" : std::to_string(data.val_tokens()).c_str(),
                  num_threads(), resuming ? (", resuming at step " + std::to_string(step)).c_str() : "");
    progress.line(buf);
  }

  const std::vector<int32_t> report_input =
      data.fixed_input(std::min<int64_t>(c.model.block_size, 32));
  std::vector<std::pair<std::string, std::string>> samples;  // for report.html, newest first

  install_interrupt_handler();
  const int64_t tokens_per_step = c.train.batch_size * c.model.block_size * c.train.grad_accum;
  // MFU, as nanoGPT and llm.c report it: the model's FLOPs per step (3 x the forward
  // matrix products, report/flops.h) per second, over this machine's measured sgemm peak.
  const double flops_per_step =
      static_cast<double>(report::estimate_flops(c.model, c.train.batch_size, c.model.block_size)
                              .train_per_step) *
      static_cast<double>(c.train.grad_accum);
  const double peak_flops = report::probe_cpu().fp32_flops;
  const nn::Context train_ctx{true, &dropout_rng};
  int exit_code = 0;
  if (!resuming) {
    // Step 0, as nanoGPT: the untrained model's loss, about ln(vocab) (uniform guesses).
    const double train0 = estimate_loss(model, data, "train", c, 0);
    const double val0 = estimate_loss(model, data, "val", c, 0);
    nlohmann::json entry = {{"step", 0}, {"train_loss", train0}, {"val_loss", val0}};
    entry["train_" + data.metric_name()] = data.metric(train0);
    entry["val_" + data.metric_name()] = data.metric(val0);
    log.write(entry);
    char buf[200];
    std::snprintf(buf, sizeof buf, "step 0: train loss %.4f, val loss %.4f (ln %lld = %.4f)",
                  train0, val0, static_cast<long long>(vocab), std::log(static_cast<double>(vocab)));
    progress.line(buf);
  }
  auto window_start = std::chrono::steady_clock::now();
  int64_t window_steps = 0;
  while (step < c.train.max_steps) {
    const double lr = schedule.at(step);
    for (const auto& p : params)
      if (p.param->trainable()) p.param->grad.zero();
    double loss = 0;
    if (lora) lora->set_dropout_rng(&dropout_rng);  // adapter dropout in training only
    for (int64_t micro = 0; micro < c.train.grad_accum; ++micro) {
      const Batch b = data.train_batch(c.train.batch_size, c.model.block_size, batch_rng,
                                       step * c.train.grad_accum + micro);
      loss += model.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T, train_ctx) /
              static_cast<double>(c.train.grad_accum);
      model.backward(1.0f / static_cast<float>(c.train.grad_accum));
    }
    if (lora) lora->set_dropout_rng(nullptr);
    if (!std::isfinite(loss)) {
      progress.finish();
      std::fprintf(stderr, "tinylm train: the loss became %s at step %lld; stopping. %s\n",
                   std::isnan(loss) ? "NaN" : "infinite", static_cast<long long>(step + 1),
                   what_is_saved().c_str());
      exit_code = 1;
      break;
    }
    const bool log_step = (step + 1) % c.train.log_interval == 0 || step + 1 == c.train.max_steps;
    const std::vector<double> block_norms =
        log_step ? layer_grad_norms(params, c.model.n_layer) : std::vector<double>{};
    const double grad_norm = c.train.grad_clip > 0
                                 ? clip_gradients(params, c.train.grad_clip)
                                 : clip_gradients(params, 1e30);
    opt.step(static_cast<float>(lr));
    ++step;
    ++window_steps;

    if (step % c.train.log_interval == 0 || step == c.train.max_steps) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start).count();
      const double tps = window_steps * tokens_per_step / std::max(secs, 1e-9);
      const double mfu = tps / static_cast<double>(tokens_per_step) * flops_per_step / peak_flops;
      progress.step(step - 1, loss, lr, tps, mfu);
      log.write({{"step", step}, {"loss", loss}, {"lr", lr}, {"grad_norm", grad_norm},
                 {"grad_norm_layers", block_norms}, {"tokens_per_s", tps}, {"mfu", mfu}});
      window_start = std::chrono::steady_clock::now();
      window_steps = 0;
    }
    if (step % c.train.eval_interval == 0 || step == c.train.max_steps) {
      const double train_loss = estimate_loss(model, data, "train", c, step);
      last_val = estimate_loss(model, data, "val", c, step);
      const std::string m = data.metric_name();
      nlohmann::json entry = {{"step", step}, {"train_loss", train_loss}, {"val_loss", last_val}};
      entry["train_" + m] = data.metric(train_loss);
      entry["val_" + m] = data.metric(last_val);
      log.write(entry);
      char buf[200];
      std::snprintf(buf, sizeof buf, "step %lld: train loss %.4f, val loss %.4f (val %s %.4f)",
                    static_cast<long long>(step), train_loss, last_val, m.c_str(),
                    data.metric(last_val));
      progress.line(buf);
      if (last_val < best_val) {
        best_val = last_val;
        if (!save(best_path)) break;  // reported below
      }
      // report.html: newest samples first, then the figures (no effect on training:
      // its own generator, inference-mode forward passes).
      const std::string caption = "step " + report::with_commas(step);
      if (data.is_addition()) {
        samples.insert(samples.begin(), {caption + ": held-out problems, greedy",
                                         addition_examples(model, 8)});
      } else if (c.sample.max_new_tokens > 0) {
        SampleSettings s = c.sample;
        s.max_new_tokens = std::min<int64_t>(s.max_new_tokens, 300);
        samples.insert(samples.begin(),
                       {caption + " (temperature " + report_number(s.temperature) + ", top-k " +
                            std::to_string(s.top_k) + ")",
                        sample_text(model, data.tokenizer(), s, c.train.seed + step)});
      }
      if (samples.size() > 3) samples.resize(3);
      write_run_report(model, data.tokenizer(), c, {dir, step, report_input, samples});
    }
    const bool interrupted = interrupt_requested();
    const bool stop_here = options.stop_after >= 0 && step >= options.stop_after;
    if (step % c.train.checkpoint_interval == 0 || step == c.train.max_steps || interrupted ||
        stop_here) {
      if (!save(last_path)) break;  // reported below
    }
    if (interrupted) {
      progress.line("interrupted at step " + std::to_string(step) + ": checkpoint saved to " +
                    last_path + " (continue with --resume)");
      exit_code = 130;
      break;
    }
    if (stop_here) break;
  }
  restore_default_interrupt();
  progress.finish();
  if (!non_finite.empty()) {
    std::fprintf(stderr,
                 "tinylm train: %s is not finite at step %lld (the learning rate is too high?); "
                 "stopping without writing a checkpoint. %s\n",
                 non_finite.c_str(), static_cast<long long>(step), what_is_saved().c_str());
    exit_code = 1;
  }

  if (exit_code == 0 && step == c.train.max_steps && c.sample.max_new_tokens > 0 && !options.quiet) {
    std::printf("--- sample (temperature %.2f, top-k %lld) ---\n%s\n---\n", c.sample.temperature,
                static_cast<long long>(c.sample.top_k),
                sample_text(model, data.tokenizer(), c.sample, c.train.seed).c_str());
  }
  return exit_code;
}

}  // namespace tinylm
