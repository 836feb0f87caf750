#include "finetune/respond.h"

#include "data/instruction_chat.h"
#include "generate/generate.h"
#include "util/error.h"
#include "util/rng.h"

namespace tinylm::finetune {

namespace {

std::string trimmed(const std::string& s) {
  const char* space = " \t\r\n";
  const size_t first = s.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

}  // namespace

std::string respond(GPT& model, const Tokenizer& tokenizer, const InstructionEntry& entry,
                    int64_t max_new_tokens, decode::DecodeWeights weights) {
  return respond_to_prompt(model, tokenizer, InstructionFormat::of(tokenizer).prompt(entry),
                           max_new_tokens, weights);
}

std::string respond_to_prompt(GPT& model, const Tokenizer& tokenizer, const std::string& text,
                              int64_t max_new_tokens, decode::DecodeWeights weights) {
  const int32_t eot = tokenizer.eot_id();
  require(eot >= 0, "the tokenizer has no end-of-text token to stop at");
  const std::vector<int32_t> prompt = tokenizer.encode(text);
  GenerateOptions options;
  options.max_new_tokens = max_new_tokens;
  options.sampling.greedy = true;
  options.stop_id = eot;
  Rng rng(0);  // greedy: never drawn from
  DecodeContext decoder(model, weights);
  std::vector<int32_t> ids = generate(decoder, prompt, options, rng);
  if (!ids.empty() && ids.back() == eot) ids.pop_back();
  return trimmed(tokenizer.decode(ids));
}

}  // namespace tinylm::finetune
