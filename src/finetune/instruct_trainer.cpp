#include "finetune/instruct_trainer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "data/instruction_collate.h"
#include "data/instruction_data.h"
#include "train/base_model.h"
#include "finetune/instruct_run.h"
#include "finetune/lm_trainable.h"
#include "finetune/loop.h"
#include "lora/peft.h"
#include "finetune/respond.h"
#include "finetune/run_folder.h"
#include "finetune/trainable.h"
#include "report/text_table.h"
#include "tensor/threads.h"
#include "tokenizer/load.h"
#include "train/checkpoint.h"
#include "train/run_folder.h"
#include "train/run_log.h"
#include "train/run_report.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::finetune {

namespace {

std::string fixed4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// What report.html needs from a TrainConfig: the model, the data, the step count.
TrainConfig report_config(const FinetuneConfig& c, const GPTConfig& model, int64_t total) {
  TrainConfig t;
  t.model = model;
  t.data.path = c.data;
  t.train.max_steps = total;
  t.train.batch_size = c.finetune.batch_size;
  return t;
}

}  // namespace

int finetune_instruct(const FinetuneConfig& config_in, const FinetuneOptions& options) {
  FinetuneConfig c = config_in;
  c.validate();
  const FinetuneSettings& f = c.finetune;
  const TrainableSet trainable = TrainableSet::parse(f.trainable);  // InputError if malformed
  const std::string dir = options.out_dir;
  check_out_dir(dir, "instruct", options.resume);
  const std::string last = checkpoint_path(dir);
  CheckpointState resumed;
  if (options.resume) {
    resumed = read_checkpoint_state(last);
    require_same_settings(FinetuneConfig::from_saved(resumed.config, last), c, last);
  }

  set_num_threads(static_cast<int>(f.threads));
  BaseModel base = load_base_model(c.base, c.model, f.dropout, f.seed);
  GPT& model = *base.model;
  const Tokenizer& tok = *base.tokenizer;
  const int64_t block = model.config().block_size;
  const InstructionCollateOptions collate = collate_options(f, tok, block);
  const InstructionData data =
      load_instruction_data(c.data, tok, {f.train_fraction, f.test_fraction});
  const int64_t total = total_steps(f, data.train.size());

  Rng lora_rng(f.seed + 3);
  const std::unique_ptr<LoraSet> lora = set_lm_trainable(model, c, lora_rng);  // before `base` goes
  const ParameterList params = with_adapters(model, lora.get());
  const ParameterCounts counts = count_parameters(params);
  AdamW opt = make_optimizer(params, f);
  const nlohmann::json run_info = {{"model", model.config().to_json()}, {"base_kind", base.kind}};
  const nlohmann::json saved = saved_config(c, run_info);
  LoopState state = start_state(f, params, opt, options.resume ? last : "");

  // From here on, files are written, by this run only.
  const auto lock = open_run_folder(dir, saved, tok);
  RunLog log(dir + "/log.jsonl", options.resume ? state.step : -1);
  if (!options.quiet) {
    std::printf(
        "tinylm finetune --task instruct: %s parameters, %s trainable (%s), %s frozen (base: "
        "%s); %lld / %lld / %lld entries train / val / test, longest %lld tokens, cut at %lld, "
        "%lld steps (%lld epochs of %lld)%s\n",
        report::with_commas(counts.trainable + counts.frozen).c_str(),
        report::with_commas(counts.trainable).c_str(), trainable.to_string().c_str(),
        report::with_commas(counts.frozen).c_str(), base.kind.c_str(),
        static_cast<long long>(data.train.size()), static_cast<long long>(data.val.size()),
        static_cast<long long>(data.test.size()), static_cast<long long>(data.longest),
        static_cast<long long>(collate.allowed_max_length), static_cast<long long>(total),
        static_cast<long long>(f.epochs),
        static_cast<long long>(steps_per_epoch(data.train.size(), f.batch_size)),
        options.resume ? (", resuming at step " + std::to_string(state.step)).c_str() : "");
    std::fflush(stdout);
  }

  const TrainConfig report_c = report_config(c, model.config(), total);
  std::vector<std::pair<std::string, std::string>> samples;
  const std::vector<int32_t> report_input(
      data.train.encoded[0].ids.begin(),
      data.train.encoded[0].ids.begin() +
          std::min<int64_t>({32, block, static_cast<int64_t>(data.train.encoded[0].ids.size())}));
  const auto write_report = [&](int64_t step,
                                std::vector<std::pair<std::string, std::string>> extra) {
    write_run_report(model, tok, report_c, {dir, step, report_input, samples},
                     {saved.dump(2), std::move(extra)});
  };

  LoopTask task;
  task.train_size = data.train.size();
  task.params = params;
  task.zero_grad = [&] {
    for (const auto& p : params)
      if (p.param->trainable()) p.param->grad.zero();
  };
  task.train_batch = [&](const std::vector<int64_t>& idx, const nn::Context& ctx, int64_t* tokens) {
    const Batch b = collate_instructions(data.train.encoded, idx, collate);
    if (lora) lora->set_dropout_rng(ctx.training ? ctx.rng : nullptr);  // training only
    const double loss = model.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T, ctx);
    model.backward();
    if (lora) lora->set_dropout_rng(nullptr);
    *tokens = b.B * b.T;
    return loss;
  };
  task.evaluate = [&](int64_t) {
    const double train_loss =
        instruction_loss(model, data.train, collate, f.batch_size, f.eval_batches);
    const double val_loss =
        instruction_loss(model, data.val, collate, f.batch_size, f.eval_batches);
    return std::pair<nlohmann::json, std::string>{
        {{"train_loss", train_loss}, {"val_loss", val_loss}},
        "train loss " + fixed4(train_loss) + ", val loss " + fixed4(val_loss)};
  };
  task.after_eval = [&](int64_t step) { write_report(step, {}); };
  task.epoch_done = [&](int64_t step, int64_t epoch) {
    // The course prints a response to the first validation entry after each epoch.
    const InstructionEntry& e = data.val.size() > 0 ? data.val.entries[0] : data.train.entries[0];
    samples.insert(samples.begin(),
                   {"epoch " + std::to_string(epoch) + " (step " + report::with_commas(step) +
                        "), greedy: " + e.instruction,
                    respond(model, tok, e, std::min<int64_t>(f.max_new_tokens, 128))});
    if (samples.size() > 3) samples.resize(3);
  };
  task.save = [&](int64_t step) {
    CheckpointState s;
    s.step = step;
    s.config = saved;
    s.tokenizer = tok.to_json();
    s.dropout_rng = state.dropout_rng.state();
    save_checkpoint(last, params, &opt, s);
  };

  const int code = run_loop(f, task, opt, state, log, {options.quiet, options.stop_after});
  if (code != 0 || state.step < total) return code;

  // The finished run: losses over the whole val and test splits, then the responses.
  const double train_loss = instruction_loss(model, data.train, collate, f.batch_size, 0);
  const double val_loss = instruction_loss(model, data.val, collate, f.batch_size, 0);
  const double test_loss = instruction_loss(model, data.test, collate, f.batch_size, 0);
  const nlohmann::json results = {{"task", "instruct"},
                                  {"step", state.step},
                                  {"trainable", trainable.to_string()},
                                  {"trainable_parameters", counts.trainable},
                                  {"frozen_parameters", counts.frozen},
                                  {"train_loss", train_loss},
                                  {"val_loss", val_loss},
                                  {"test_loss", test_loss}};
  write_file_atomic(dir + "/results.json", results.dump(2) + "\n");
  if (!options.quiet)
    std::printf(
        "final: train loss %.4f, val loss %.4f, test loss %.4f (every entry of each split)\n",
        train_loss, val_loss, test_loss);
  if (f.write_responses) {
    const bool tty = ::isatty(::fileno(stdout)) != 0;  // a counter on a terminal only
    nlohmann::json responses = nlohmann::json::array();
    for (int64_t i = 0; i < data.test.size(); ++i) {
      nlohmann::json entry = data.test.entries[i].source;
      entry["model_response"] = respond(model, tok, data.test.entries[i], f.max_new_tokens);
      responses.push_back(entry);
      if (!options.quiet && tty) {
        std::printf("\rresponses: %lld / %lld", static_cast<long long>(i + 1),
                    static_cast<long long>(data.test.size()));
        std::fflush(stdout);
      }
    }
    if (!options.quiet && tty) std::printf("\n");
    write_file_atomic(dir + "/test-responses.json", responses.dump(2) + "\n");
    if (!options.quiet)
      std::printf("wrote %s/test-responses.json (%lld entries with model_response)\n", dir.c_str(),
                  static_cast<long long>(data.test.size()));
  }
  if (lora) {  // the adapters alone, in PEFT's layout (`tinylm lora merge` folds them in)
    save_peft_adapter(*lora, dir + "/adapter", {"CAUSAL_LM", c.base, nullptr});
    if (!options.quiet) std::printf("wrote %s/adapter (PEFT LoRA adapter)\n", dir.c_str());
  }
  write_report(state.step, {{"final train loss (all entries)", fixed4(train_loss)},
                            {"final val loss (all entries)", fixed4(val_loss)},
                            {"final test loss (all entries)", fixed4(test_loss)}});
  return 0;
}

}  // namespace tinylm::finetune
