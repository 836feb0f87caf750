#include "serve/teaching_routes.h"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "report/attention_maps.h"
#include "serve/api_error.h"
#include "serve/logprobs.h"
#include "serve/openai_request.h"
#include "util/error.h"

namespace tinylm::serve {

namespace {

using nlohmann::json;

constexpr int64_t kMaxTeachingTokens = 256;

// The prompt's ids (ApiError 400 when empty, untokenizable or longer than allowed).
std::vector<int32_t> prompt_ids(const ServedModel& model, const json& body, int64_t limit) {
  const std::string text = text_field(body, "prompt");
  std::vector<int32_t> ids;
  try {
    ids = model.tokenizer->encode(text);
  } catch (const InputError& e) {
    throw bad_field("prompt", std::string("'prompt' cannot be tokenized: ") + e.what());
  }
  if (ids.empty()) throw bad_field("prompt", "'prompt' is empty");
  if (static_cast<int64_t>(ids.size()) > limit)
    throw bad_field("prompt", "'prompt' is " + std::to_string(ids.size()) + " tokens; at most " +
                                  std::to_string(limit) + " here");
  return ids;
}

json token(const Tokenizer& tok, int32_t id) {
  return {{"id", id}, {"text", tok.generated_piece(id, false)}};
}

// The `top` most likely tokens of softmax(logits), with their probabilities.
json model_distribution(const Tokenizer& tok, const std::vector<float>& logits, int64_t top) {
  const ScoredToken s =
      score_token(logits.data(), static_cast<int64_t>(logits.size()), 0, static_cast<int>(top));
  json out = json::array();
  for (const TokenLogprob& t : s.top) {
    json entry = token(tok, t.id);
    entry["prob"] = std::exp(static_cast<double>(t.logprob));
    out.push_back(entry);
  }
  return out;
}

}  // namespace

void answer_next_token(const ServedModel& model, Engine& engine, const httplib::Request& req,
                       httplib::Response& res) {
  const json body = parse_body(req.body);
  const std::vector<int32_t> ids = prompt_ids(model, body, engine.context());
  const SamplingOptions sampling = sampling_options(body);
  const json* top_field = body.contains("top") ? &body["top"] : nullptr;
  if (top_field && (!top_field->is_number_integer() || top_field->get<int64_t>() < 1 ||
                    top_field->get<int64_t>() > 100))
    throw bad_field("top", "'top' must be an integer between 1 and 100");
  const int64_t top = top_field ? top_field->get<int64_t>() : 20;
  std::vector<float> logits;
  engine.run_exclusive([&](GPT& gpt) {
    const int64_t T = static_cast<int64_t>(ids.size()), V = gpt.config().vocab_size;
    const Tensor all = gpt.forward(ids.data(), 1, T).to(Device::kCpu);
    logits.assign(all.data() + (T - 1) * V, all.data() + T * V);
  });
  const Tokenizer& tok = *model.tokenizer;
  const SamplingCandidates c =
      sampling_candidates(logits.data(), static_cast<int64_t>(logits.size()), sampling);
  // The `top` most likely candidates (they come unsorted when no filter applies).
  std::vector<size_t> order(c.ids.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const size_t shown = std::min(order.size(), static_cast<size_t>(top));
  std::partial_sort(order.begin(), order.begin() + shown, order.end(), [&](size_t a, size_t b) {
    return c.weights[a] > c.weights[b] || (c.weights[a] == c.weights[b] && c.ids[a] < c.ids[b]);
  });
  json after = json::array();
  for (size_t i = 0; i < shown; ++i) {
    json t = token(tok, c.ids[order[i]]);
    t["prob"] = c.weights[order[i]] / c.total;
    after.push_back(t);
  }
  json prompt = json::array();
  for (int32_t id : ids) prompt.push_back(token(tok, id));
  send_json(res, {{"tokens", prompt},
                  {"before", model_distribution(tok, logits, top)},
                  {"after", after},
                  {"candidates", c.ids.size()}});
}

void answer_attention(const ServedModel& model, Engine& engine, const httplib::Request& req,
                      httplib::Response& res) {
  const json body = parse_body(req.body);
  const std::vector<int32_t> ids =
      prompt_ids(model, body, std::min(engine.context(), kMaxTeachingTokens));
  std::vector<Tensor> maps;  // [1, H, T, T] per layer
  engine.run_exclusive([&](GPT& gpt) {
    maps = report::attention_maps(gpt, ids);
    for (Tensor& m : maps) m = m.to(Device::kCpu);
  });
  const int64_t T = static_cast<int64_t>(ids.size()), H = model.model->config().n_head;
  json layers = json::array();
  for (const Tensor& m : maps) {
    json heads = json::array();
    for (int64_t h = 0; h < H; ++h) {
      json rows = json::array();
      for (int64_t q = 0; q < T; ++q) {
        const float* row = m.data() + (h * T + q) * T;
        rows.push_back(std::vector<float>(row, row + T));
      }
      heads.push_back(rows);
    }
    layers.push_back(heads);
  }
  json tokens = json::array();
  for (int32_t id : ids) tokens.push_back(model.tokenizer->decode_piece(id, false));
  send_json(res,
            {{"tokens", tokens}, {"layers", maps.size()}, {"heads", H}, {"attention", layers}});
}

}  // namespace tinylm::serve
