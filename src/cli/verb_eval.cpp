// tinylm eval --run RUN_DIR | --model SRC [--data FILE] [--task addition --n 1000]
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "data/corpus.h"
#include "data/dataset.h"
#include "train/evaluate.h"
#include "util/error.h"

namespace tinylm::cli {

int eval_finetune_run(OpenedModel& run, const std::string& data);

namespace {

// The flags of `tinylm eval`.
struct EvalArgs {
  std::string data, task, device = "cpu";
  ModelFlags source;
  int64_t n = 1000, stride = 0, batch = 16;  // stride 0: block_size
};

void add_eval_flags(CLI::App& app, EvalArgs& a) {
  add_model_flags(app, a.source);
  app.add_option("--data", a.data,
                 "text file to evaluate on (default: the run's validation split)");
  app.add_option("--stride", a.stride, "window stride in tokens (default: block_size)")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", a.batch, "windows per forward pass")->capture_default_str();
  app.add_option("--task", a.task, "'addition': accuracy on held-out problems");
  app.add_option("--n", a.n, "number of held-out addition problems")->capture_default_str();
  add_device_option(app, a.device);
}

// A flag the chosen evaluation would ignore is refused (exit 2), naming it.
void refuse_flags_that_do_not_apply(const CLI::App& app, bool addition, bool finetune) {
  if (finetune) {
    const std::string extra = given_flags(app, {"--stride", "--batch", "--task", "--n"});
    require(extra.empty(), extra + ": not for a fine-tuning run (its val and test splits)");
  } else if (addition) {
    const std::string extra = given_flags(app, {"--data", "--stride", "--batch"});
    require(extra.empty(), extra + ": the addition task scores held-out problems, not a text");
  } else {
    require(app.count("--n") == 0, "--n applies only to --task addition");
  }
}

// Exact-match and digit accuracy on n held-out addition problems.
int eval_addition(GPT& model, int64_t n) {
  const AdditionEval e = evaluate_addition(model, n);
  std::printf("addition: %lld / %lld held-out problems exactly right: accuracy %.2f%%\n",
              static_cast<long long>(e.correct), static_cast<long long>(e.total),
              100.0 * e.accuracy());
  std::printf("answer digits: %lld / %lld right in their place: digit accuracy %.2f%%\n",
              static_cast<long long>(e.digits_correct), static_cast<long long>(4 * e.total),
              100.0 * e.digit_accuracy());
  return 0;
}

// The ids to evaluate and their name: --data through the model's tokenizer, else the
// run's validation split (the last val_fraction of its corpus, or val.bin of a prepared
// folder).
std::pair<std::vector<int32_t>, std::string> eval_text(const OpenedModel& loaded,
                                                       const std::string& data) {
  if (!data.empty()) return {loaded.tokenizer->encode(load_corpus(data)), data};
  require(loaded.train_config.has_value(),
          loaded.title() + " has no validation split of its own: pass --data FILE");
  const DataConfig& d = loaded.train_config->data;
  return {
      load_token_dataset(d.path, d.tokenizer, loaded.train_config->model.block_size, d.val_fraction)
          .val,
      d.path + " (validation split)"};
}

// Mean loss over the text in windows of block_size, with bits per character (char
// tokenizers) and perplexity.
int eval_loss(GPT& model, const OpenedModel& loaded, const EvalArgs& a) {
  const auto [ids, what] = eval_text(loaded, a.data);
  const int64_t T = model.config().block_size;
  const TextEval e = evaluate_ids(model, ids, a.stride ? a.stride : T, a.batch);
  std::printf("%s: %lld tokens, mean loss %.4f", what.c_str(), static_cast<long long>(e.tokens),
              e.loss);
  if (loaded.tokenizer->kind() == "char") std::printf(", %.4f bits per character", e.bpc);
  std::printf(", perplexity %.3f\n", e.perplexity);
  return 0;
}

}  // namespace

int run_eval(int argc, char** argv) {
  CLI::App app{
      "Evaluate a trained run: the mean loss over a whole text (default: the run's "
      "validation split) with bits per character or perplexity, or the exact-match "
      "accuracy on held-out addition problems. On a finetune run: val and test loss "
      "(instruct) or train, val and test accuracy (classify). On a Hugging Face "
      "folder or a preset: the loss over --data.",
      "tinylm eval"};
  EvalArgs a;
  add_eval_flags(app, a);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(has_model(a.source), "pass --run RUN_DIR or --model SRC");
  OpenedModel loaded = open_model(a.source);
  const bool addition = a.task == "addition" || (a.task.empty() && loaded.is_addition());
  refuse_flags_that_do_not_apply(app, addition, loaded.finetune_config.has_value());
  if (loaded.finetune_config) {
    require(a.device == "cpu",
            "--device " + a.device + ": fine-tuning runs are evaluated on the CPU");
    return eval_finetune_run(loaded, a.data);
  }
  GPT& model = loaded.language_model("tinylm eval");
  loaded.to(parse_device(a.device));
  if (loaded.train_config)
    std::printf("checkpoint %s (step %lld)\n", loaded.checkpoint.c_str(),
                static_cast<long long>(loaded.step));
  else
    std::printf("model %s\n", loaded.title().c_str());
  if (addition) return eval_addition(model, a.n);
  require(a.task.empty(), "--task: unknown task '" + a.task + "' (addition)");
  return eval_loss(model, loaded, a);
}

}  // namespace tinylm::cli
