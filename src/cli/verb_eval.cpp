// tinylm eval --run RUN_DIR | --model SRC [--data FILE] [--task addition --n 1000]
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "data/corpus.h"
#include "data/dataset.h"
#include "train/evaluate.h"
#include "util/error.h"

namespace tinylm::cli {

int eval_finetune_run(OpenedModel& run, const std::string& data);

int run_eval(int argc, char** argv) {
  CLI::App app{
      "Evaluate a trained run: the mean loss over a whole text (default: the run's "
      "validation split) with bits per character or perplexity, or the exact-match "
      "accuracy on held-out addition problems. On a finetune run: val and test loss "
      "(instruct) or train, val and test accuracy (classify). On a Hugging Face "
      "folder or a preset: the loss over --data.",
      "tinylm eval"};
  std::string data, task;
  ModelFlags source;
  int64_t n = 1000, stride = 0, batch = 16;
  add_model_flags(app, source);
  app.add_option("--data", data, "text file to evaluate on (default: the run's validation split)");
  app.add_option("--stride", stride, "window stride in tokens (default: block_size)")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "windows per forward pass")->capture_default_str();
  app.add_option("--task", task, "'addition': accuracy on held-out problems");
  app.add_option("--n", n, "number of held-out addition problems")->capture_default_str();
  std::string device = "cpu";
  add_device_option(app, device);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  require(has_model(source), "pass --run RUN_DIR or --model SRC");
  OpenedModel loaded = open_model(source);
  if (loaded.finetune_config) {
    require(device == "cpu", "--device " + device + ": fine-tuning runs are evaluated on the CPU");
    return eval_finetune_run(loaded, data);
  }
  GPT& model = loaded.language_model("tinylm eval");
  loaded.to(parse_device(device));
  if (loaded.train_config)
    std::printf("checkpoint %s (step %lld)\n", loaded.checkpoint.c_str(),
                static_cast<long long>(loaded.step));
  else
    std::printf("model %s\n", loaded.title().c_str());
  if (task == "addition" || (task.empty() && loaded.is_addition())) {
    const AdditionEval e = evaluate_addition(model, n);
    std::printf("addition: %lld / %lld held-out problems exactly right: accuracy %.2f%%\n",
                static_cast<long long>(e.correct), static_cast<long long>(e.total),
                100.0 * e.accuracy());
    std::printf("answer digits: %lld / %lld right in their place: digit accuracy %.2f%%\n",
                static_cast<long long>(e.digits_correct), static_cast<long long>(4 * e.total),
                100.0 * e.digit_accuracy());
    return 0;
  }
  require(task.empty(), "--task: unknown task '" + task + "' (addition)");
  std::vector<int32_t> ids;
  std::string what;
  if (!data.empty()) {
    ids = loaded.tokenizer->encode(load_corpus(data));
    what = data;
  } else {
    // The run's validation split: the last val_fraction of its corpus, or val.bin of a
    // prepared folder.
    require(loaded.train_config.has_value(),
            loaded.title() + " has no validation split of its own: pass --data FILE");
    const DataConfig& d = loaded.train_config->data;
    ids = load_token_dataset(d.path, d.tokenizer, loaded.train_config->model.block_size,
                             d.val_fraction)
              .val;
    what = d.path + " (validation split)";
  }
  const int64_t T = model.config().block_size;
  const TextEval e = evaluate_ids(model, ids, stride ? stride : T, batch);
  std::printf("%s: %lld tokens, mean loss %.4f", what.c_str(), static_cast<long long>(e.tokens),
              e.loss);
  if (loaded.tokenizer->kind() == "char") std::printf(", %.4f bits per character", e.bpc);
  std::printf(", perplexity %.3f\n", e.perplexity);
  return 0;
}

}  // namespace tinylm::cli
