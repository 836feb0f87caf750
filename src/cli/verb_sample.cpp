// tinylm sample --run RUN_DIR | --checkpoint FILE --prompt TEXT --max-new-tokens N ...
#include <cstdio>
#include <string>

#include "cli/cli_util.h"
#include "generate/generate.h"
#include "train/run_model.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

// Prints generated text as it grows, holding back what might still change: an
// unfinished UTF-8 character (decoded as U+FFFD) and a possible start of the stop text.
class Streamer {
 public:
  Streamer(const Tokenizer& tok, std::string stop) : tok_(tok), stop_(std::move(stop)) {}

  // Returns false once the stop text has appeared (everything before it is printed).
  bool add(int32_t id) {
    ids_.push_back(id);
    const std::string text = tok_.decode(ids_);
    if (!stop_.empty()) {
      const size_t at = text.find(stop_, printed_ > stop_.size() ? printed_ - stop_.size() : 0);
      if (at != std::string::npos) {
        emit(text, at);
        return false;
      }
    }
    size_t ready = text.size();
    static const std::string kReplacement = "\xEF\xBF\xBD";
    if (ready >= 3 && text.compare(ready - 3, 3, kReplacement) == 0) ready -= 3;
    if (!stop_.empty()) ready = ready >= stop_.size() - 1 ? ready - (stop_.size() - 1) : 0;
    emit(text, ready);
    return true;
  }
  void finish() { emit(tok_.decode(ids_), std::string::npos); }

 private:
  void emit(const std::string& text, size_t upto) {
    upto = std::min(upto, text.size());
    if (upto > printed_) {
      std::fwrite(text.data() + printed_, 1, upto - printed_, stdout);
      std::fflush(stdout);
      printed_ = upto;
    }
  }
  const Tokenizer& tok_;
  std::string stop_;
  std::vector<int32_t> ids_;
  size_t printed_ = 0;
};

}  // namespace

int run_sample(int argc, char** argv) {
  CLI::App app{"Generate text from a trained run, streaming it as it is produced.",
               "tinylm sample"};
  std::string run, checkpoint, prompt = "\n", stop;
  GenerateOptions opts;
  opts.max_new_tokens = 200;
  uint64_t seed = 1337;
  bool no_cache = false;
  auto* run_opt = app.add_option("--run", run, "run folder (uses best.safetensors, else last)");
  app.add_option("--checkpoint", checkpoint, "a checkpoint file")->excludes(run_opt);
  app.add_option("--prompt", prompt, "text to continue")->capture_default_str();
  app.add_option("--max-new-tokens", opts.max_new_tokens, "tokens to generate")->capture_default_str();
  app.add_option("--temperature", opts.sampling.temperature, "softmax temperature")->capture_default_str();
  app.add_option("--top-k", opts.sampling.top_k, "keep the k most likely tokens (0: all)")->capture_default_str();
  app.add_option("--top-p", opts.sampling.top_p, "nucleus sampling: keep the top tokens up to this probability")->capture_default_str();
  app.add_flag("--greedy", opts.sampling.greedy, "always take the most likely token");
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--stop", stop, "stop when this text is generated (it is not printed)");
  app.add_flag("--no-cache", no_cache, "recompute the whole context at every step (no KV cache)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(!run.empty() || !checkpoint.empty(), "give --run RUN_DIR or --checkpoint FILE");
  require(opts.max_new_tokens >= 0, "--max-new-tokens must be >= 0");
  validate(opts.sampling);
  opts.use_cache = !no_cache;

  LoadedRun loaded = load_run(run.empty() ? checkpoint : run);
  std::vector<int32_t> ids = loaded.tokenizer->encode(prompt);
  require(!ids.empty(), "--prompt is empty after tokenization");
  opts.stop_id = loaded.tokenizer->eot_id();
  std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  Streamer streamer(*loaded.tokenizer, stop);
  Rng rng(seed);
  bool stopped = false;
  generate(*loaded.model, ids, opts, rng, [&](int32_t id) {
    if (id == opts.stop_id) return true;  // end of text: not printed
    stopped = !streamer.add(id);
    return !stopped;
  });
  if (!stopped) streamer.finish();
  std::printf("\n");
  return 0;
}

}  // namespace tinylm::cli
