// tinylm generate --model SRC (--prompt TEXT | --prompt-ids 1,2,3) --max-new-tokens N
//   [--greedy] [--print-ids] [--logprobs N] ...: Hugging Face folders without a tokenizer
//   of their own and presets speak GPT-2's BPE (tokenizer/bpe_tokenizer.h, from --vocab-dir); runs
//   their own tokenizer.
#include <chrono>
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/decode_flags.h"
#include "generate/generate.h"
#include "open/open_model.h"
#include "serve/logprobs.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/token_id_list.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

// Wall time to the first token (the prompt's forward pass) and from there to the last
// (one decoding step per token), as llama.cpp prints its prompt and eval timings.
class GenerationClock {
 public:
  bool tick() {
    const auto now = std::chrono::steady_clock::now();
    if (tokens_++ == 0) first_ = now;
    last_ = now;
    return true;
  }
  void print(int64_t prompt_tokens) const {
    if (tokens_ == 0) return;
    const double prompt_s = seconds(start_, first_), decode_s = seconds(first_, last_);
    std::fprintf(stderr, "prompt: %lld tokens in %.1f ms (%.1f tokens/s)\n",
                 static_cast<long long>(prompt_tokens), 1e3 * prompt_s,
                 prompt_s > 0 ? static_cast<double>(prompt_tokens) / prompt_s : 0.0);
    std::fprintf(stderr, "decode: %lld tokens in %.1f ms (%.1f tokens/s)\n",
                 static_cast<long long>(tokens_ - 1), 1e3 * decode_s,
                 decode_s > 0 ? static_cast<double>(tokens_ - 1) / decode_s : 0.0);
  }

 private:
  static double seconds(std::chrono::steady_clock::time_point a,
                        std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), first_, last_;
  int64_t tokens_ = 0;
};

// The flags of `tinylm generate`.
struct GenerateArgs {
  std::string model_dir, prompt_ids, prompt_text, vocab_dir = default_gpt2_dir();
  std::string device = "cpu";
  GenerateOptions opts;
  DecodeFlags decode;
  uint64_t seed = 1337;
  int logprobs = 0;  // top alternatives printed per generated token (0: no logprobs lines)
  bool print_ids = false, timings = false;
};

constexpr int kMaxLogprobs = 20;  // as the OpenAI API's top_logprobs

void add_generate_flags(CLI::App& app, GenerateArgs& a) {
  app.add_option("--model", a.model_dir,
                 "a Hugging Face folder, a run folder, a checkpoint, an instruct run, a GGUF "
                 "file or a preset")
      ->required();
  auto* text_opt = app.add_option("--prompt", a.prompt_text, "prompt text (GPT-2 BPE)");
  app.add_option("--prompt-ids", a.prompt_ids, "prompt as comma-separated token ids")
      ->excludes(text_opt);
  app.add_option("--vocab-dir", a.vocab_dir,
                 "folder with encoder.json + vocab.bpe (Hugging Face folders and presets; a run "
                 "has its own tokenizer)")
      ->capture_default_str();
  app.add_option("--max-new-tokens", a.opts.max_new_tokens,
                 "tokens to generate; past the model's context, each step sees the last "
                 "block_size tokens (as nanoGPT crops)")
      ->capture_default_str();
  app.add_flag("--greedy", a.opts.sampling.greedy, "argmax at every step");
  app.add_option("--temperature", a.opts.sampling.temperature, "softmax temperature")
      ->capture_default_str();
  app.add_option("--top-k", a.opts.sampling.top_k, "keep the k most likely tokens (0: all)")
      ->capture_default_str();
  app.add_option("--top-p", a.opts.sampling.top_p, "nucleus sampling threshold")
      ->capture_default_str();
  app.add_option("--seed", a.seed, "random seed for sampling")->capture_default_str()->check(kSeed);
  app.add_flag("--print-ids", a.print_ids,
               "also print the generated ids, comma-separated, on one line");
  app.add_option("--logprobs", a.logprobs,
                 "after the output, one line per generated token: its log-probability under the "
                 "model (before temperature, top-k and top-p) and the N most likely tokens with "
                 "theirs, as the OpenAI API's logprobs")
      ->check(CLI::Range(0, kMaxLogprobs));
  app.add_flag("--timings", a.timings,
               "print the prompt's and the decoding's tokens/s to stderr (wall time; the "
               "first token's wait is the prompt's)");
  add_decode_flags(app, a.decode);
  add_device_option(app, a.device);
}

// The prompt's ids: --prompt encoded with the model's tokenizer, or --prompt-ids, each
// inside the model's vocabulary.
std::vector<int32_t> prompt_of(const GenerateArgs& a, const Tokenizer* tok, const GPT& model) {
  std::vector<int32_t> prompt;
  if (a.prompt_text.empty()) {
    prompt = parse_token_ids(a.prompt_ids, "--prompt-ids");
    require(!prompt.empty(), "--prompt-ids: no ids given");
  } else {
    require(tok != nullptr, "--prompt: this model has no tokenizer; give --prompt-ids");
    prompt = tok->encode(a.prompt_text);
  }
  const std::string flag = a.prompt_text.empty() ? "--prompt-ids" : "--prompt";
  for (int32_t id : prompt)
    require(id < model.config().vocab_size,
            flag + ": token id " + std::to_string(id) + " is outside the model's vocabulary (" +
                std::to_string(model.config().vocab_size) + " tokens)");
  return prompt;
}

// The prompt and its continuation as text when the tokenizer spells the model's ids (ids
// of a padded vocabulary past the tokenizer's add nothing, tokenizer.h), and the new ids
// on one line when asked (or when there is no such text).
void print_generated(const GenerateArgs& a, const Tokenizer* tok, const GPT& model,
                     const std::vector<int32_t>& out) {
  bool print_ids = a.print_ids;
  if (tok && tok->vocab_size() <= model.config().vocab_size)
    std::printf("%s%s\n", a.prompt_text.c_str(),
                decode_generated(*tok, out, /*after_text=*/!a.prompt_text.empty()).c_str());
  else
    print_ids = true;  // no tokenizer for this vocabulary: ids are the output
  if (!print_ids) return;
  for (size_t i = 0; i < out.size(); ++i) std::printf("%s%d", i ? "," : "", out[i]);
  std::printf("\n");
}

// One line per generated token: "logprobs: ID LOGPROB; top ID LOGPROB, ID LOGPROB, ...".
void print_logprobs(const std::vector<serve::ScoredToken>& steps, const std::vector<int32_t>& out) {
  for (size_t i = 0; i < steps.size(); ++i) {
    std::printf("logprobs: %d %.6f; top", out[i], steps[i].logprob);
    for (size_t k = 0; k < steps[i].top.size(); ++k)
      std::printf("%s %d %.6f", k ? "," : "", steps[i].top[k].id, steps[i].top[k].logprob);
    std::printf("\n");
  }
}

}  // namespace

int run_generate(int argc, char** argv) {
  CLI::App app{
      "Generate tokens from a GPT-2 style model: a Hugging Face folder "
      "(config.json + model.safetensors), a run, a checkpoint or a preset. Unlike "
      "sample, it goes on past <|endoftext|>.",
      "tinylm generate"};
  GenerateArgs a;
  add_generate_flags(app, a);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  validate(a.opts.sampling);
  require(a.opts.max_new_tokens >= 0 && a.opts.max_new_tokens <= kMaxNewTokens,
          "--max-new-tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  require(!a.prompt_text.empty() || !a.prompt_ids.empty(),
          "give --prompt TEXT or --prompt-ids IDS");
  OpenOptions open;
  open.gpt2_vocab_dir = a.vocab_dir;
  OpenedModel opened = tinylm::open_model(a.model_dir, open);
  GPT& model = opened.language_model("tinylm generate");
  opened.to(parse_device(a.device));
  const Tokenizer* tok = opened.tokenizer.get();
  const std::vector<int32_t> prompt = prompt_of(a, tok, model);
  a.opts.stop_id = -1;  // generation goes on past <|endoftext|>
  DecodeContext decoder(model, chosen_decode_weights(a.decode, opened));
  Rng rng(a.seed);
  GenerationClock clock;
  std::vector<serve::ScoredToken> steps;  // with --logprobs, one per generated token
  const int64_t V = model.config().vocab_size;
  const std::vector<int32_t> out =
      generate_steps(decoder, prompt, a.opts, rng, [&](int32_t id, const float* logits) {
        if (a.logprobs > 0) steps.push_back(serve::score_token(logits, V, id, a.logprobs));
        return clock.tick();
      });
  if (a.timings) clock.print(static_cast<int64_t>(prompt.size()));
  print_generated(a, tok, model, out);
  print_logprobs(steps, out);
  return 0;
}

}  // namespace tinylm::cli
