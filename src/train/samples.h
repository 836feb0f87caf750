// Text a model writes during and after training, for the console and the run report.
//   sample_text:       the config's prompt continued with its sampling settings
//   addition_examples: held-out addition problems answered greedily, one line each:
//                      "123+456= 9750  right" (answer digits least significant first)
#pragma once
#include <cstdint>
#include <string>

#include "model/gpt.h"
#include "run/train_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

// The prompt followed by up to s.max_new_tokens tokens (stops at the tokenizer's
// end-of-text token). An empty prompt starts from id 0.
std::string sample_text(GPT& model, const Tokenizer& tok, const SampleSettings& s, uint64_t seed);

// The first n held-out problems (data/addition.h), one per line.
std::string addition_examples(GPT& model, int64_t n);

}  // namespace tinylm
