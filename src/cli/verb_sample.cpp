// tinylm sample --run RUN_DIR | --checkpoint FILE | --model SRC --prompt TEXT --max-new-tokens N
// ...
#include <cstdio>
#include <string>

#include "cli/cli_util.h"
#include "cli/decode_flags.h"
#include "cli/model_flags.h"
#include "generate/generate.h"
#include "generate/stop_text_stream.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

namespace {

void show(const std::string& text) {
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int run_sample(int argc, char** argv) {
  CLI::App app{
      "Generate text from a trained run (or any language model: a Hugging Face "
      "GPT-2 folder, an instruct run, a preset), streaming it as it is produced.",
      "tinylm sample"};
  std::string checkpoint, prompt = "\n", stop;
  ModelFlags source;
  GenerateOptions opts;
  opts.max_new_tokens = 200;
  uint64_t seed = 1337;
  bool no_cache = false;
  add_model_flags(app, source);
  app.get_option("--run")->description(
      "run folder (uses best.safetensors, else last), or any model (see --model)");
  app.get_option("--model")->description(std::string("the model: ") + kModelSourceHelp);
  app.add_option("--checkpoint", checkpoint, "a checkpoint file")
      ->excludes("--run")
      ->excludes("--model");
  app.add_option("--prompt", prompt, "text to continue")->capture_default_str();
  app.add_option("--max-new-tokens", opts.max_new_tokens, "tokens to generate")
      ->capture_default_str();
  app.add_option("--temperature", opts.sampling.temperature, "softmax temperature")
      ->capture_default_str();
  app.add_option("--top-k", opts.sampling.top_k, "keep the k most likely tokens (0: all)")
      ->capture_default_str();
  app.add_option("--top-p", opts.sampling.top_p,
                 "nucleus sampling: keep the top tokens up to this probability")
      ->capture_default_str();
  app.add_flag("--greedy", opts.sampling.greedy, "always take the most likely token");
  app.add_option("--seed", seed, "random seed")->capture_default_str()->check(kSeed);
  app.add_option("--stop", stop, "stop when this text is generated (it is not printed)");
  app.add_flag("--no-cache", no_cache, "recompute the whole context at every step (no KV cache)");
  DecodeFlags decode;
  add_decode_flags(app, decode);
  std::string device = "cpu";
  add_device_option(app, device);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(checkpoint.empty() || file_exists(checkpoint),
          "--checkpoint " + checkpoint + ": no such file");
  if (!checkpoint.empty()) source.run = checkpoint;
  require(has_model(source), "give --run RUN_DIR, --checkpoint FILE or --model SRC");
  require(opts.max_new_tokens >= 0 && opts.max_new_tokens <= kMaxNewTokens,
          "--max-new-tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  validate(opts.sampling);
  opts.use_cache = !no_cache;

  OpenedModel opened = open_model(source);
  GPT& model = opened.language_model("tinylm sample");
  opened.to(parse_device(device));
  const Tokenizer& tokenizer = *opened.tokenizer;
  model.set_decode_weights(chosen_decode_weights(decode, opened));
  std::vector<int32_t> ids = tokenizer.encode(prompt);
  require(!ids.empty(), "--prompt is empty after tokenization");
  opts.stop_id = tokenizer.eot_id();
  std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  StopTextStream stream(tokenizer, stop);
  Rng rng(seed);
  generate(model, ids, opts, rng, [&](int32_t id) {
    if (id == opts.stop_id) return true;  // end of text: not printed
    show(stream.add(id));
    return !stream.stopped();
  });
  show(stream.finish());
  std::printf("\n");
  return 0;
}

}  // namespace tinylm::cli
