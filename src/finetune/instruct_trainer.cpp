#include "finetune/instruct_trainer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "backend/registry.h"
#include "data/instruction_chat.h"
#include "data/instruction_collate.h"
#include "data/instruction_data.h"
#include "finetune/epoch_task.h"
#include "finetune/finetune_plan.h"
#include "finetune/finetune_report.h"
#include "finetune/respond.h"
#include "lora/peft.h"
#include "open/instruct_run.h"
#include "report/text_table.h"
#include "run/finetune_run_folder.h"
#include "run/lm_trainable.h"
#include "train/loop.h"
#include "train/run_report.h"
#include "train/run_session.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::finetune {

namespace {

// A split whose every response is cut or masked has no loss: said so, not printed as 0.
constexpr const char* kNoTargets = "(no supervised targets)";

std::string loss_text(const std::optional<double>& loss) {
  return loss ? report::fixed(*loss, 4) : kNoTargets;
}

// Exit 2 before training when no training entry keeps a target: every step would
// train on nothing and report a loss of 0.
void require_supervised_targets(const InstructionData& data,
                                const InstructionCollateOptions& collate) {
  require(has_supervised_target(data.train, collate),
          "no training entry keeps a response token to learn from: every response is cut "
          "at finetune.allowed_max_length (" +
              std::to_string(collate.allowed_max_length) + " tokens)" +
              (collate.mask_prompt ? " after its masked prompt" : "") +
              "; raise finetune.allowed_max_length" +
              (collate.mask_prompt ? " or set finetune.mask_prompt false" : ""));
}

void print_header(const FinetuneConfig& c, const InstructionData& data,
                  const InstructionCollateOptions& collate, const std::string& base_kind,
                  int64_t total, const RunSession& session, const Tokenizer& tokenizer) {
  const FinetuneSettings& f = c.finetune;
  const ParameterCounts counts = count_parameters(session.params());
  std::printf(
      "tinylm finetune --task instruct: %s parameters, %s trainable (%s), %s frozen (base: "
      "%s); %lld / %lld / %lld entries train / val / test, longest %lld tokens, cut at %lld, "
      "%lld steps (%lld epochs of %lld)%s\n",
      report::with_commas(counts.trainable + counts.frozen).c_str(),
      report::with_commas(counts.trainable).c_str(),
      TrainableSet::parse(f.trainable).to_string().c_str(),
      report::with_commas(counts.frozen).c_str(), base_kind.c_str(),
      static_cast<long long>(data.train.size()), static_cast<long long>(data.val.size()),
      static_cast<long long>(data.test.size()), static_cast<long long>(data.longest),
      static_cast<long long>(collate.allowed_max_length), static_cast<long long>(total),
      static_cast<long long>(f.epochs),
      static_cast<long long>(steps_per_epoch(data.train.size(), f.batch_size)),
      session.resumed() ? (", resuming at step " + std::to_string(session.step)).c_str() : "");
  std::printf("entries formatted in %s (data/instruction_chat.h)\n",
              InstructionFormat::of(tokenizer).name().c_str());
  std::fflush(stdout);
}

// Instruction tuning on the one loop: the language-model loss of the course's collate;
// after each epoch a greedy response to the first validation entry (report.html).
class InstructTask : public EpochTask {
 public:
  InstructTask(GPT& model, const InstructionData& data, const InstructionCollateOptions& collate,
               const FinetuneConfig& c, RunSession& session, const Tokenizer& tok, LoraSet* lora,
               std::string config_text)
      : EpochTask(data.train.size(), c.finetune),
        model_(model),
        data_(data),
        collate_(collate),
        session_(session),
        tok_(tok),
        lora_(lora) {
    report_settings_ =
        report_settings(c, total_steps(c.finetune, data.train.size()), std::move(config_text));
    const std::vector<int32_t>& first = data.train.encoded[0].ids;
    report_input_ =
        report_input(first.data(), static_cast<int64_t>(first.size()), model.config().block_size);
  }

  void write_report(int64_t step, std::vector<std::pair<std::string, std::string>> extra) {
    write_run_report(model_, tok_, report_settings_,
                     {session_.dir(), step, report_input_, samples_}, extra);
  }
  void after_eval(int64_t step) override { write_report(step, {}); }

 protected:
  MicroStep train_batch(const std::vector<int64_t>& idx, float scale,
                        const nn::Context& ctx) override {
    const Batch b =
        collate_instructions(data_.train.encoded, idx, collate_).rows(ctx.first_row, ctx.rows);
    const double loss = model_.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T, ctx);
    model_.backward(scale);
    return {loss, b.B * b.T};
  }
  std::pair<nlohmann::json, std::string> losses() override {
    nlohmann::json fields = nlohmann::json::object();
    const std::optional<double> train =
        supervised_instruction_loss(model_, data_.train, collate_, f_.batch_size, f_.eval_batches);
    if (train) fields["train_loss"] = *train;
    std::string line = "train loss " + loss_text(train);
    if (data_.val.size() == 0) return {fields, line + " (no validation split)"};
    const std::optional<double> val =
        supervised_instruction_loss(model_, data_.val, collate_, f_.batch_size, f_.eval_batches);
    if (val) fields["val_loss"] = *val;
    return {fields, line + ", val loss " + loss_text(val)};
  }
  // The course prints a response to the first validation entry after each epoch.
  void epoch_done(int64_t step, int64_t epoch) override {
    const InstructionEntry& e =
        data_.val.size() > 0 ? data_.val.entries[0] : data_.train.entries[0];
    samples_.insert(samples_.begin(),
                    {"epoch " + std::to_string(epoch) + " (step " + report::with_commas(step) +
                         "), greedy: " + e.instruction,
                     respond(model_, tok_, e, std::min<int64_t>(f_.max_new_tokens, 128))});
    if (samples_.size() > 3) samples_.resize(3);
  }

 private:
  GPT& model_;
  const InstructionData& data_;
  const InstructionCollateOptions& collate_;
  RunSession& session_;
  const Tokenizer& tok_;
  LoraSet* lora_;
  RunReportSettings report_settings_;
  std::vector<int32_t> report_input_;
  std::vector<std::pair<std::string, std::string>> samples_;
};

// Greedy responses to the test split: RUN/test-responses.json (each entry as read, plus
// "model_response"), with a counter on a terminal.
void write_test_responses(GPT& model, const Tokenizer& tok, const InstructionData& data,
                          const FinetuneSettings& f, const std::string& dir, bool quiet) {
  const bool tty = ::isatty(::fileno(stdout)) != 0;
  nlohmann::json responses = nlohmann::json::array();
  for (int64_t i = 0; i < data.test.size(); ++i) {
    nlohmann::json entry = data.test.entries[i].source;
    entry["model_response"] = respond(model, tok, data.test.entries[i], f.max_new_tokens);
    responses.push_back(entry);
    if (!quiet && tty) {
      std::printf("\rresponses: %lld / %lld", static_cast<long long>(i + 1),
                  static_cast<long long>(data.test.size()));
      std::fflush(stdout);
    }
  }
  if (!quiet && tty) std::printf("\n");
  write_file_atomic(dir + "/test-responses.json", responses.dump(2) + "\n");
  if (!quiet)
    std::printf("wrote %s/test-responses.json (%lld entries with model_response)\n", dir.c_str(),
                static_cast<long long>(data.test.size()));
}

// The finished run: losses over the whole train, val and test splits (results.json), the
// test responses, the adapter (under lora), report.html.
void finish(GPT& model, const Tokenizer& tok, const InstructionData& data,
            const InstructionCollateOptions& collate, const FinetuneConfig& c,
            const RunSession& session, InstructTask& task, LoraSet* lora, bool quiet) {
  const FinetuneSettings& f = c.finetune;
  const std::string& dir = session.dir();
  const ParameterCounts counts = count_parameters(session.params());
  nlohmann::json results = {{"task", "instruct"},
                            {"step", session.step},
                            {"trainable", TrainableSet::parse(f.trainable).to_string()},
                            {"trainable_parameters", counts.trainable},
                            {"frozen_parameters", counts.frozen}};
  // The loss over every entry of each split; an empty split, or one without supervised
  // targets, is said so, with no number.
  std::vector<std::pair<std::string, std::string>> finals;
  std::string line;
  for (const auto& [name, set] :
       {std::pair<std::string, const InstructionSet*>{"train", &data.train},
        {"val", &data.val},
        {"test", &data.test}}) {
    std::string text = "(no " + (name == "val" ? std::string("validation") : name) + " split)";
    if (set->size() > 0) {
      const std::optional<double> loss =
          supervised_instruction_loss(model, *set, collate, f.batch_size, 0);
      if (loss) results[name + "_loss"] = *loss;
      text = loss_text(loss);
    }
    line += (line.empty() ? "" : ", ") + name + " loss " + text;
    finals.emplace_back("final " + name + " loss (all entries)", text);
  }
  write_file_atomic(dir + "/results.json", results.dump(2) + "\n");
  if (!quiet) std::printf("final: %s (every entry of each split)\n", line.c_str());
  if (f.write_responses) write_test_responses(model, tok, data, f, dir, quiet);
  if (lora) {  // the adapters alone, in PEFT's layout (`tinylm lora merge` folds them in)
    save_peft_adapter(*lora, dir + "/adapter", {"CAUSAL_LM", c.base, nullptr});
    if (!quiet) std::printf("wrote %s/adapter (PEFT LoRA adapter)\n", dir.c_str());
  }
  task.write_report(session.step, finals);
}

}  // namespace

int finetune_instruct(const FinetuneConfig& config, const FinetuneOptions& options) {
  FinetunePlan plan = plan_finetune_run(config, options);
  const FinetuneConfig& c = plan.config;
  const FinetuneSettings& f = c.finetune;
  const std::unique_ptr<GPT> model =
      plan.base ? std::move(plan.base) : std::make_unique<GPT>(plan.model_config);
  const Tokenizer& tok = *plan.tokenizer;
  const InstructionCollateOptions collate = collate_options(f, tok, plan.model_config.block_size);
  const InstructionData data =
      load_instruction_data(c.data, tok, {f.train_fraction, f.test_fraction});
  require_supervised_targets(data, collate);
  const int64_t total = total_steps(f, data.train.size());
  require_step_fits(plan.model_config, f.batch_size,
                    std::min<int64_t>(collate.allowed_max_length, data.longest + 1));

  Rng lora_rng(f.seed + 3);
  const Trainables trained = set_lm_trainable(*model, c, lora_rng);
  if (options.device != Device::kCpu) {  // before the optimizer makes its moments
    require(!trained.lora, "--device " + std::string(device_name(options.device)) +
                               ": LoRA fine-tuning runs on the CPU for now (its adapters' "
                               "dropout is drawn on the host)");
    require_device(options.device);
    model->to(options.device);
  }
  set_decay(trained.params, {f.decay_all, true});
  RunSession session(std::move(plan.folder), trained.params, adamw_config(f), f.seed);
  const nlohmann::json saved =
      saved_config(c, {{"model", plan.model_config.to_json()}, {"base_kind", plan.base_kind}});
  session.begin(saved, tok);
  if (!options.quiet) print_header(c, data, collate, plan.base_kind, total, session, tok);
  use_precision(options);

  InstructTask task(*model, data, collate, c, session, tok, trained.lora.get(), saved.dump(2));
  LoopSettings loop = finetune_loop_settings(c, total, options.quiet, options.stop_after);
  if (const Backend& b = backend_for(options.device); b.peak_flops)
    loop.peak_flops = b.peak_flops();
  const int code = run_training_loop(task, session, loop);
  if (code == 0 && session.step >= total && session.writes())
    finish(*model, tok, data, collate, c, session, task, trained.lora.get(), options.quiet);
  return code;
}

}  // namespace tinylm::finetune
