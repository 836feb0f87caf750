#include "train/evaluate.h"

#include <cmath>

#include "data/addition.h"
#include "data/eval_windows.h"
#include "generate/generate.h"
#include "util/error.h"

namespace tinylm {

TextEval evaluate_text(GPT& model, const Tokenizer& tok, const std::string& text, int64_t stride,
                       int64_t batch_size) {
  return evaluate_ids(model, tok.encode(text), stride, batch_size);
}

TextEval evaluate_ids(GPT& model, const std::vector<int32_t>& ids, int64_t stride,
                      int64_t batch_size) {
  const int64_t T = model.config().block_size;
  require(static_cast<int64_t>(ids.size()) >= T + 1,
          "the text is " + std::to_string(ids.size()) + " tokens; evaluation needs at least " +
              std::to_string(T + 1) + " (block_size + 1)");
  require(stride >= 1 && stride <= T, "--stride must be in [1, block_size]");
  EvalWindows windows(ids, T, stride);
  Batch batch;
  double total = 0;
  int64_t scored = 0;
  while (windows.next(batch_size, batch)) {
    const int64_t n = batch.supervised();
    if (n == 0) continue;
    total += model.forward_loss(batch.inputs.data(), batch.targets.data(), batch.B, batch.T) * n;
    scored += n;
  }
  TextEval e;
  e.tokens = scored;
  e.loss = total / static_cast<double>(scored);
  e.bpc = e.loss / std::log(2.0);
  e.perplexity = std::exp(e.loss);
  return e;
}

AdditionEval evaluate_addition(GPT& model, int64_t n) {
  require(n > 0 && n <= num_held_out_problems(),
          "--n must be in [1, " + std::to_string(num_held_out_problems()) + "]");
  require(model.config().vocab_size == 14 && model.config().block_size >= 12,
          "this model was not trained on the addition task (vocabulary of 14, context >= 12)");
  AdditionEval e;
  GenerateOptions opts;
  opts.max_new_tokens = kAdditionAnswerLen + 1;  // 4 digits and <EOS>
  opts.sampling.greedy = true;
  Rng rng(0);
  DecodeContext decoder(model);
  for (const AdditionProblem& p : held_out_problems(n)) {
    const std::vector<int32_t> answer = generate(decoder, addition_prompt(p), opts, rng);
    e.correct += is_correct_answer(p, answer);
    const std::string want = addition_answer(p);  // 4 digits, least significant first
    for (int64_t d = 0; d < kAdditionAnswerLen && d < static_cast<int64_t>(answer.size()); ++d)
      e.digits_correct += answer[d] == want[d] - '0';
    ++e.total;
  }
  return e;
}

}  // namespace tinylm
