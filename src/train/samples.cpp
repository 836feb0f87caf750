#include "train/samples.h"

#include <nlohmann/json.hpp>

#include "data/addition.h"
#include "generate/generate.h"
#include "tokenizer/addition_tokenizer.h"
#include "tokenizer/stream_decoder.h"

namespace tinylm {

std::string sample_text(GPT& model, const Tokenizer& tok, const SampleSettings& s, uint64_t seed) {
  GenerateOptions opts;
  opts.max_new_tokens = s.max_new_tokens;
  opts.sampling.temperature = static_cast<float>(s.temperature);
  opts.sampling.top_k = s.top_k;
  opts.sampling.top_p = static_cast<float>(s.top_p);
  opts.stop_id = tok.eot_id();
  Rng rng(seed);
  std::vector<int32_t> prompt = tok.encode(s.prompt);
  if (prompt.empty()) prompt.push_back(0);
  const std::vector<int32_t> out = generate(model, prompt, opts, rng);
  return s.prompt + decode_generated(tok, out, /*after_text=*/!s.prompt.empty());
}

std::string addition_examples(GPT& model, int64_t n) {
  const AdditionTokenizer tok;
  GenerateOptions opts;
  opts.max_new_tokens = kAdditionAnswerLen + 1;  // 4 digits and <EOS>
  opts.sampling.greedy = true;
  Rng rng(0);
  std::string out;
  DecodeContext decoder(model);
  for (const AdditionProblem& p : held_out_problems(n)) {
    const std::vector<int32_t> answer = generate(decoder, addition_prompt(p), opts, rng);
    out += format_addition(p, false) + " " + tok.decode(answer) +
           (is_correct_answer(p, answer) ? "  right" : "  wrong (" + addition_answer(p) + ")") +
           "\n";
  }
  return out;
}

}  // namespace tinylm
