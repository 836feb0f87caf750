// tinylm respond --run RUN | --model SRC --instruction "..." [--input "..."] [--max-new-tokens N]
#include <cstdio>
#include <optional>

#include "cli/cli_util.h"
#include "cli/decode_flags.h"
#include "cli/model_flags.h"
#include "finetune/respond.h"
#include "generate/generate.h"
#include "util/error.h"

namespace tinylm::cli {

// A response's length when the model is not an instruct run (the course's ch. 7: 256).
constexpr int64_t kDefaultResponseTokens = 256;

int run_respond(int argc, char** argv) {
  CLI::App app{
      "The response of an instruction fine-tuned run (tinylm finetune --task instruct) "
      "to one instruction: the Alpaca prompt, greedy decoding up to <|endoftext|>. Any "
      "other language model answers the same prompt (the course's ch. 7 before "
      "fine-tuning), but a model with its own chat template (tokenizer_config.json), "
      "fine-tuned or not, is asked in that template, the instruction (and input) as the "
      "user's message, as finetune trained it and serve renders it.",
      "tinylm respond"};
  ModelFlags source;
  DecodeFlags decode;
  InstructionEntry entry;
  std::optional<int64_t> max_new_tokens;
  add_model_flags(app, source);
  add_decode_flags(app, decode);
  app.add_option("--instruction", entry.instruction, "the instruction")->required();
  app.add_option("--input", entry.input, "the input (optional)");
  app.add_option("--max-new-tokens", max_new_tokens,
                 "at most this many tokens (default: an instruct run's "
                 "finetune.max_new_tokens, else " +
                     std::to_string(kDefaultResponseTokens) + ")");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  require(!entry.instruction.empty(), "--instruction is empty");
  require(!max_new_tokens || (*max_new_tokens >= 0 && *max_new_tokens <= kMaxNewTokens),
          "--max-new-tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  require(has_model(source), "pass --run RUN (an instruct run) or --model SRC");
  OpenedModel loaded = open_model(source);
  GPT& model = loaded.language_model("tinylm respond");
  const int64_t n = max_new_tokens           ? *max_new_tokens
                    : loaded.finetune_config ? loaded.finetune_config->finetune.max_new_tokens
                                             : kDefaultResponseTokens;
  const decode::DecodeWeights weights = chosen_decode_weights(decode, loaded);  // a GGUF's own
  // Asked as fine-tuning formats the entry: Alpaca's prompt, or the model's own chat
  // template (the instruction and input as the user's message), as `serve` renders it.
  const std::string response = finetune::respond(model, *loaded.tokenizer, entry, n, weights);
  std::printf("%s\n", response.c_str());
  return 0;
}

}  // namespace tinylm::cli
