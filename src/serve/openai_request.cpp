#include "serve/openai_request.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "serve/api_error.h"
#include "serve/chat_request.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm::serve {

namespace {

using nlohmann::json;

// The value of key, or nullptr when absent or null (OpenAI treats null as absent).
const json* field(const json& body, const char* key) {
  const auto it = body.find(key);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number(const json& body, const char* key, double fallback, double lo, double hi) {
  const json* v = field(body, key);
  if (!v) return fallback;
  if (!v->is_number()) throw bad_field(key, std::string("'") + key + "' must be a number");
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw bad_field(key, std::string("'") + key + "' must be between " + json(lo).dump() + " and " +
                             json(hi).dump());
  return x;
}

int64_t integer(const json& body, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  const json* v = field(body, key);
  if (!v) return fallback;
  if (!v->is_number_integer())
    throw bad_field(key, std::string("'") + key + "' must be an integer");
  // JSON's non-negative integers are unsigned here (they may not fit int64_t).
  const bool in_range = v->is_number_unsigned()
                            ? v->get<uint64_t>() <= static_cast<uint64_t>(hi) &&
                                  (lo <= 0 || v->get<uint64_t>() >= static_cast<uint64_t>(lo))
                            : v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
  if (!in_range)
    throw bad_field(key, std::string("'") + key + "' must be between " + std::to_string(lo) +
                             " and " + std::to_string(hi));
  return v->get<int64_t>();
}

bool boolean(const json& body, const char* key, bool fallback) {
  const json* v = field(body, key);
  if (!v) return fallback;
  if (!v->is_boolean()) throw bad_field(key, std::string("'") + key + "' must be true or false");
  return v->get<bool>();
}

std::vector<std::string> stop_texts(const json& body) {
  const json* v = field(body, "stop");
  if (!v) return {};
  if (v->is_string()) return {v->get<std::string>()};
  if (!v->is_array() || v->size() > 4)
    throw bad_field("stop", "'stop' must be a string or a list of up to 4 strings");
  std::vector<std::string> stops;
  for (const json& s : *v) {
    if (!s.is_string()) throw bad_field("stop", "'stop' must hold strings");
    stops.push_back(s.get<std::string>());
  }
  return stops;
}

std::vector<int32_t> encode(const Tokenizer& tok, const std::string& text, const char* param) {
  try {
    return tok.encode(text);
  } catch (const InputError& e) {
    throw bad_field(param, std::string("'") + param + "' cannot be tokenized: " + e.what());
  }
}

// "" becomes <|endoftext|> (what GPT-2 models are conditioned on at the start of a text).
std::vector<int32_t> prompt_ids(const Tokenizer& tok, const std::string& text) {
  if (!text.empty()) return encode(tok, text, "prompt");
  if (tok.eot_id() < 0)
    throw bad_field("prompt",
                    "'prompt' is empty, and this model has no <|endoftext|> to start from");
  return {tok.eot_id()};
}

std::vector<int32_t> id_list(const json& ids) {
  std::vector<int32_t> out;
  for (const json& id : ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        id.get<int64_t>() > std::numeric_limits<int32_t>::max())
      throw bad_field("prompt", "'prompt' token ids must be non-negative integers");
    out.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  if (out.empty()) throw bad_field("prompt", "'prompt' holds an empty list of token ids");
  return out;
}

std::vector<std::vector<int32_t>> prompts(const json& body, const Tokenizer& tok) {
  const json* p = field(body, "prompt");
  if (!p) throw bad_field("prompt", "'prompt' is required");
  if (p->is_string()) return {prompt_ids(tok, p->get<std::string>())};
  const auto bad = [] {
    return bad_field("prompt",
                     "'prompt' must be a string, a list of strings, a list of token ids or a "
                     "list of lists of token ids");
  };
  if (!p->is_array() || p->empty()) throw bad();
  if ((*p)[0].is_number()) return {id_list(*p)};
  std::vector<std::vector<int32_t>> out;
  for (const json& one : *p) {
    if (one.is_string())
      out.push_back(prompt_ids(tok, one.get<std::string>()));
    else if (one.is_array())
      out.push_back(id_list(one));
    else
      throw bad();
  }
  if (out.size() > static_cast<size_t>(kMaxChoices))
    throw bad_field("prompt", "at most " + std::to_string(kMaxChoices) + " prompts per request");
  return out;
}

// logit_bias {"token id": bias in [-100, 100]}, presence_penalty and frequency_penalty
// (each in [-2, 2]), as OpenAI checks them.
LogitAdjustments logit_adjustments(const json& body, int64_t vocab_size) {
  LogitAdjustments a;
  if (const json* bias = field(body, "logit_bias")) {
    if (!bias->is_object())
      throw bad_field("logit_bias", "'logit_bias' must map token ids to numbers");
    for (const auto& [key, value] : bias->items()) {
      char* end = nullptr;
      const long long id = std::strtoll(key.c_str(), &end, 10);
      if (key.empty() || *end != '\0' || id < 0 || id >= vocab_size)
        throw bad_field("logit_bias", "'logit_bias' key '" + key + "' is not a token id in [0, " +
                                          std::to_string(vocab_size) + ")");
      if (!value.is_number() || value.get<double>() < -100 || value.get<double>() > 100)
        throw bad_field("logit_bias", "'logit_bias' values must be numbers from -100 to 100");
      a.bias.emplace_back(static_cast<int32_t>(id), value.get<float>());
    }
  }
  a.presence_penalty = static_cast<float>(number(body, "presence_penalty", 0.0, -2.0, 2.0));
  a.frequency_penalty = static_cast<float>(number(body, "frequency_penalty", 0.0, -2.0, 2.0));
  return a;
}

// What completions and chat share: model, sampling, logit changes, stop, seed, n, stream.
CompletionParams common(const json& body, const Tokenizer& tok) {
  if (!body.is_object()) throw ApiError(400, "the request body must be a JSON object");
  CompletionParams p;
  if (const json* m = field(body, "model")) {
    if (!m->is_string()) throw bad_field("model", "'model' must be a string");
    p.model = m->get<std::string>();
  }
  p.generation.sampling = sampling_options(body);
  p.generation.adjust = logit_adjustments(body, tok.vocab_size());
  p.generation.stop = stop_texts(body);
  if (field(body, "seed")) {
    p.seeded = true;
    p.generation.seed = static_cast<uint64_t>(integer(
        body, "seed", 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  }
  p.n = integer(body, "n", 1, 1, kMaxChoices);
  p.generation.stop_at_eot = !boolean(body, "ignore_eos", false);
  p.stream = boolean(body, "stream", false);
  if (const json* o = field(body, "stream_options")) {
    if (!o->is_object()) throw bad_field("stream_options", "'stream_options' must be an object");
    if (!p.stream)
      throw bad_field("stream_options", "'stream_options' is only allowed when 'stream' is true");
    p.include_usage = boolean(*o, "include_usage", false);
  }
  return p;
}

// Any count of tokens past the context is refused by check_length, with OpenAI's code.
constexpr int64_t kMostTokens = std::numeric_limits<int32_t>::max();

// what: "prompt" or "messages", the field to blame when the prompt alone is too long.
void check_length(const CompletionParams& p, int64_t context, const char* what) {
  for (const auto& prompt : p.prompts) {
    const int64_t n = static_cast<int64_t>(prompt.size());
    const char* param = n > context ? what : "max_tokens";
    if (n + p.generation.max_tokens > context)
      throw ApiError(400,
                     "This model's maximum context length is " + std::to_string(context) +
                         " tokens. However, you requested " +
                         std::to_string(n + p.generation.max_tokens) + " tokens (" +
                         std::to_string(n) + " in the " + what + ", " +
                         std::to_string(p.generation.max_tokens) +
                         " in the completion). Please reduce the length of the " + what +
                         " or the completion.",
                     "invalid_request_error", param, "context_length_exceeded");
  }
}

}  // namespace

SamplingOptions sampling_options(const json& body) {
  SamplingOptions s;
  s.temperature = static_cast<float>(number(body, "temperature", 1.0, 0.0, 2.0));
  s.greedy = s.temperature == 0.0f;
  if (s.greedy) s.temperature = 1.0f;
  s.top_p = static_cast<float>(number(body, "top_p", 1.0, 0.0, 1.0));  // 0: the top token
  s.top_k = integer(body, "top_k", 0, 0, std::numeric_limits<int32_t>::max());
  return s;
}

std::string text_field(const json& body, const char* key) {
  const json* v = body.is_object() ? field(body, key) : nullptr;
  if (!v || !v->is_string()) throw bad_field(key, std::string("'") + key + "' must be a string");
  return v->get<std::string>();
}

json parse_body(const std::string& body) {
  try {
    return parse_json(body, "request body");
  } catch (const InputError& e) {
    throw ApiError(400, e.what());
  }
}

nlohmann::ordered_json parse_ordered_body(const std::string& body) {
  (void)parse_body(body);  // malformed, too deep or a key twice: 400
  return nlohmann::ordered_json::parse(body);
}

CompletionParams parse_completion_request(const json& body, const Tokenizer& tok, int64_t context) {
  CompletionParams p = common(body, tok);
  p.prompts = prompts(body, tok);
  p.generation.max_tokens = integer(body, "max_tokens", 16, 0, kMostTokens);
  p.echo = boolean(body, "echo", false);
  p.logprobs = static_cast<int>(integer(body, "logprobs", -1, 0, 5));
  p.generation.top_logprobs = p.logprobs;
  p.generation.after_text = true;  // a completion continues its prompt's text
  check_length(p, context, "prompt");
  return p;
}

CompletionParams parse_chat_request(const nlohmann::ordered_json& ordered, const Tokenizer& tok,
                                    const ChatTemplate& chat_template, int64_t context) {
  const json body(ordered);
  CompletionParams p = common(body, tok);
  const ChatConversation conversation = chat_conversation(ordered);
  const std::string prompt = chat_template.render_conversation(conversation);
  p.tools =
      chat_template.name == "model" && conversation.tools.is_array() && !conversation.tools.empty();
  p.prompts = {encode(tok, prompt, "messages")};
  const int64_t rest = std::max<int64_t>(0, context - static_cast<int64_t>(p.prompts[0].size()));
  const char* key = field(body, "max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  p.generation.max_tokens = integer(body, key, rest, 0, kMostTokens);
  if (boolean(body, "logprobs", false))
    p.logprobs = static_cast<int>(integer(body, "top_logprobs", 0, 0, 20));
  else if (field(body, "top_logprobs"))
    throw bad_field("top_logprobs", "'top_logprobs' needs 'logprobs': true");
  p.generation.top_logprobs = p.logprobs;
  for (const std::string& s : chat_template.stops()) p.generation.stop.push_back(s);
  check_length(p, context, "messages");
  return p;
}

uint64_t choice_seed(const CompletionParams& params, int64_t prompt_index, int64_t choice) {
  if (!params.seeded) return std::random_device{}() * 0x100000001ull + std::random_device{}();
  const uint64_t k = static_cast<uint64_t>(prompt_index * kMaxChoices + choice);
  if (k == 0) return params.generation.seed;
  uint64_t z = params.generation.seed + 0x9E3779B97F4A7C15ull * k;  // SplitMix64 step
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace tinylm::serve
