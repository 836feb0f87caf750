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

// The flags of `tinylm sample`.
struct SampleArgs {
  std::string checkpoint, prompt = "\n", stop, device = "cpu";
  ModelFlags source;
  GenerateOptions opts;
  DecodeFlags decode;
  uint64_t seed = 1337;
  bool no_cache = false;
  bool default_prompt = true;  // no --prompt given: nanoGPT's "\n"
  SampleArgs() { opts.max_new_tokens = 200; }
};

void add_sample_flags(CLI::App& app, SampleArgs& a) {
  add_model_flags(app, a.source);
  app.get_option("--run")->description(
      "run folder (uses best.safetensors, else last), or any model (see --model)");
  app.get_option("--model")->description(std::string("the model: ") + kModelSourceHelp);
  app.add_option("--checkpoint", a.checkpoint, "a checkpoint file")
      ->excludes("--run")
      ->excludes("--model");
  app.add_option("--prompt", a.prompt, "text to continue")->capture_default_str();
  app.add_option("--max-new-tokens", a.opts.max_new_tokens,
                 "tokens to generate; past the model's context, each step sees the last "
                 "block_size tokens (as nanoGPT crops)")
      ->capture_default_str();
  app.add_option("--temperature", a.opts.sampling.temperature, "softmax temperature")
      ->capture_default_str();
  app.add_option("--top-k", a.opts.sampling.top_k, "keep the k most likely tokens (0: all)")
      ->capture_default_str();
  app.add_option("--top-p", a.opts.sampling.top_p,
                 "nucleus sampling: keep the top tokens up to this probability")
      ->capture_default_str();
  app.add_flag("--greedy", a.opts.sampling.greedy, "always take the most likely token");
  app.add_option("--seed", a.seed, "random seed")->capture_default_str()->check(kSeed);
  app.add_option("--stop", a.stop, "stop when this text is generated (it is not printed)");
  app.add_flag("--no-cache", a.no_cache,
               "recompute the whole context at every step (no KV cache), with the float32 "
               "weights (a GGUF file's read back as float32): it has no decode steps for "
               "--f16, --bf16 or --q8");
  add_decode_flags(app, a.decode);
  add_device_option(app, a.device);
}

// The flags' checks; --checkpoint becomes the model source.
void check_sample_args(SampleArgs& a) {
  require(a.checkpoint.empty() || file_exists(a.checkpoint),
          "--checkpoint " + a.checkpoint + ": no such file");
  if (!a.checkpoint.empty()) a.source.run = a.checkpoint;
  require(has_model(a.source), "give --run RUN_DIR, --checkpoint FILE or --model SRC");
  require(a.opts.max_new_tokens >= 0 && a.opts.max_new_tokens <= kMaxNewTokens,
          "--max-new-tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  validate(a.opts.sampling);
  require(!a.no_cache || !asked_decode_weights(a.decode),
          "--no-cache recomputes every step with the float32 weights: it takes no --f16, "
          "--bf16 or --q8 (those set what the cache's decode steps read)");
  a.opts.use_cache = !a.no_cache;
}

// The prompt's ids; with no --prompt, a vocabulary that cannot spell the default "\n"
// (a char model of text without newlines, the addition task) asks for one.
std::vector<int32_t> prompt_ids(const Tokenizer& tokenizer, const SampleArgs& a) {
  const std::string ask =
      "no --prompt given, and this model's vocabulary cannot spell the "
      "default \"\\n\": give --prompt TEXT";
  std::vector<int32_t> ids;
  try {
    ids = tokenizer.encode(a.prompt);
  } catch (const InputError&) {
    if (a.default_prompt) throw InputError(ask);
    throw;
  }
  require(!ids.empty(), a.default_prompt ? ask : "--prompt is empty after tokenization");
  return ids;
}

}  // namespace

int run_sample(int argc, char** argv) {
  CLI::App app{
      "Generate text from a trained run (or any language model: a Hugging Face "
      "folder, an instruct run, a preset), streaming it as it is produced.",
      "tinylm sample"};
  SampleArgs a;
  add_sample_flags(app, a);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  a.default_prompt = app.count("--prompt") == 0;
  check_sample_args(a);

  OpenedModel opened = open_model(a.source);
  GPT& model = opened.language_model("tinylm sample");
  opened.to(parse_device(a.device));
  const Tokenizer& tokenizer = *opened.tokenizer;
  DecodeContext decoder(model, chosen_decode_weights(a.decode, opened));
  std::vector<int32_t> ids = prompt_ids(tokenizer, a);
  check_prompt(model, ids);  // before the prompt is shown
  GenerateOptions opts = a.opts;
  opts.stop_id = tokenizer.eot_id();
  std::fwrite(a.prompt.data(), 1, a.prompt.size(), stdout);
  StopTextStream stream(tokenizer, a.stop, /*after_text=*/true);
  Rng rng(a.seed);
  generate(decoder, ids, opts, rng, [&](int32_t id) {
    if (id == opts.stop_id) return true;  // end of text: not printed
    show(stream.add(id));
    return !stream.stopped();
  });
  show(stream.finish());
  std::printf("\n");
  return 0;
}

}  // namespace tinylm::cli
