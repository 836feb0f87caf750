// The bodies of POST /v1/completions and /v1/chat/completions, read and checked: every
// field of the wrong type or out of range is one ApiError 400 naming it (`param`).
// Fields the server does not use are ignored, as OpenAI's and llama.cpp's servers do.
//   completions: prompt (a string, a list of strings, a list of token ids or a list of
//     such lists; "" means <|endoftext|>), max_tokens (default 16), temperature
//     (default 1, 0 = greedy, up to 2), top_p, top_k (an extension), seed, stop (a string
//     or up to 4), n (1..16), logit_bias, presence_penalty and frequency_penalty
//     (logit_adjust.h), echo, logprobs (0..5), stream, stream_options.include_usage,
//     ignore_eos (llama.cpp's extension: go on past <|endoftext|>, for benchmarks)
//   chat: messages (system / developer / user / assistant / tool; content a string or a
//     list of text parts; tool calls), tools and chat_template_kwargs (chat_request.h;
//     the calls in an answer at once: tool_call_parse.h)
//     rendered with the model's template (chat_template.h), max_tokens or
//     max_completion_tokens (default: the rest of the context), logprobs (bool) and
//     top_logprobs (0..20), and the same sampling fields
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/chat_template.h"
#include "serve/engine.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::serve {

struct CompletionParams {
  std::string model;                          // as asked ("" when absent)
  std::vector<std::vector<int32_t>> prompts;  // one per prompt (chat: one)
  GenerationRequest generation;  // every field but prompt and seed, shared by all choices
  bool seeded = false;           // a seed was given (generation.seed): choices repeat
  int64_t n = 1;                 // choices per prompt
  bool echo = false;             // completions: the prompt's text before the completion
  int logprobs = -1;             // -1: none; else alternatives per token
  bool stream = false, include_usage = false;
  // chat: tools were offered to the model's own template; an answer at once (not a
  // stream) that holds tool calls answers them as tool_calls (tool_call_parse.h)
  bool tools = false;
};

inline constexpr int64_t kMaxChoices = 16;

// body: the parsed request; context: positions per slot (prompt + max_tokens must fit).
CompletionParams parse_completion_request(const nlohmann::json& body, const Tokenizer& tok,
                                          int64_t context);
// The chat body in its text's key order (parse_ordered_body): the template sees tools
// and tool calls as sent (chat_request.h).
CompletionParams parse_chat_request(const nlohmann::ordered_json& body, const Tokenizer& tok,
                                    const ChatTemplate& chat_template, int64_t context);

// temperature (0..2, 0 = greedy), top_p (0..1], top_k (>= 0) of a request body.
SamplingOptions sampling_options(const nlohmann::json& body);
// body[key] as a string (ApiError 400 naming key otherwise).
std::string text_field(const nlohmann::json& body, const char* key);

// The parsed body of any POST route: ApiError 400 for malformed JSON (or too deep).
nlohmann::json parse_body(const std::string& body);
// The same in the text's key order.
nlohmann::ordered_json parse_ordered_body(const std::string& body);

// The seed of choice i: the request's seed for choice 0, a derived one for the others;
// a random one when the request has none.
uint64_t choice_seed(const CompletionParams& params, int64_t prompt_index, int64_t choice);

}  // namespace tinylm::serve
