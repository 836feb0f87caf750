// Evaluating a trained model.
//   evaluate_text: the mean loss over every token of a text, in windows of block_size with
//     the given stride (each target scored once; data/eval_windows.h), plus bits per
//     character (char tokenizer) or perplexity.
//   evaluate_addition: exact-match accuracy on n held-out addition problems, each answered
//     greedily (4 digits, least significant first, then <EOS>).
#pragma once
#include <string>

#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct TextEval {
  double loss = 0;     // mean cross-entropy per token (nats)
  int64_t tokens = 0;  // targets scored
  double bpc = 0;      // char tokenizer: loss / ln 2
  double perplexity = 0;
};

TextEval evaluate_ids(GPT& model, const std::vector<int32_t>& ids, int64_t stride,
                      int64_t batch_size = 16);
TextEval evaluate_text(GPT& model, const Tokenizer& tok, const std::string& text, int64_t stride,
                       int64_t batch_size = 16);

struct AdditionEval {
  int64_t correct = 0, total = 0;        // whole answers (4 digits and <EOS>) exactly right
  int64_t digits_correct = 0;            // answer digits right in their place (of 4 * total)
  double accuracy() const { return total ? static_cast<double>(correct) / total : 0; }
  double digit_accuracy() const {
    return total ? static_cast<double>(digits_correct) / (4.0 * static_cast<double>(total)) : 0;
  }
};

AdditionEval evaluate_addition(GPT& model, int64_t n);

}  // namespace tinylm
