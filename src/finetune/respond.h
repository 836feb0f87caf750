// The response of an instruction-tuned model to one entry: greedy decoding (KV cache) of
// the prompt fine-tuning trained it on (InstructionFormat::prompt, data/instruction_chat.h):
// alpaca_prompt(entry) + "\n\n### Response:\n", or, for a tokenizer with a chat template,
// the template's prompt for the entry as the user's message (what `serve` renders for
// that one message); up to max_new_tokens, stopping at the tokenizer's end of text
// (<|endoftext|>, or a tokenizer.json's eos_token; not included), decoded and trimmed of
// surrounding whitespace.
// Feeding the response header (rather than letting the model write it, as the course's
// generate-then-strip does) keeps a weak model's answer from depending on whether it
// reproduces the header. The steps read `weights` (decode/decode_weights.h; float32 by
// default).
#pragma once
#include <cstdint>
#include <string>

#include "data/instruction_data.h"
#include "decode/decode_weights.h"
#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::finetune {

std::string respond(GPT& model, const Tokenizer& tokenizer, const InstructionEntry& entry,
                    int64_t max_new_tokens,
                    decode::DecodeWeights weights = decode::DecodeWeights::kF32);

// The same greedy answer to a prompt already rendered (a model's own chat template with
// the generation prompt opened), stopping at the tokenizer's end of text (a tokenizer.json's
// eos_token: <|im_end|>, <|eot_id|> ...).
std::string respond_to_prompt(GPT& model, const Tokenizer& tokenizer, const std::string& prompt,
                              int64_t max_new_tokens,
                              decode::DecodeWeights weights = decode::DecodeWeights::kF32);

}  // namespace tinylm::finetune
