#include "serve/completion_routes.h"

#include <httplib.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

#include "serve/api_error.h"
#include "serve/connection.h"
#include "serve/openai_request.h"
#include "serve/tool_call_parse.h"
#include "tokenizer/stream_decoder.h"
#include "util/error.h"

namespace tinylm::serve {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string random_id(const char* prefix) {
  static const char* hex = "0123456789abcdef";
  std::random_device rd;
  std::string id = prefix;
  for (int i = 0; i < 24; ++i) id += hex[rd() % 16];
  return id;
}

// One choice of the answer as it is being generated.
struct Choice {
  std::shared_ptr<Job> job;
  int64_t index = 0, prompt = 0;
  std::string text;
  std::vector<GenerationEvent> tokens;  // kept for logprobs (an echoed prompt's first)
  size_t echoed = 0;                    // prompt tokens at the start of tokens
  mutable size_t offset_index = 0, offset_bytes = 0;  // text_offset of tokens[offset_index]
  GenerationEvent last;                               // the final event
  bool done = false, role_sent = false;
};

struct Answer {
  Api api;
  const ServedModel& model;
  CompletionParams params;
  std::vector<Choice> choices;
  std::string id;
  int64_t created = std::time(nullptr);
  Clock::time_point deadline = {};  // set once the request is parsed

  void cancel() {
    for (Choice& c : choices)
      if (c.job) c.job->cancel();
  }
  std::string object() const {
    if (api == Api::kChat) return params.stream ? "chat.completion.chunk" : "chat.completion";
    return "text_completion";
  }
  json head() const {
    return {{"id", id}, {"object", object()}, {"created", created}, {"model", model.id}};
  }
  json usage() const;
  json logprobs(const Choice& c, size_t from, size_t to) const;
  json choice_json(const Choice& c) const;
  // The next event of c (false: none yet); ApiError 504 past the deadline.
  bool poll(Choice& c, GenerationEvent& e, std::chrono::milliseconds wait);
};

json Answer::usage() const {
  int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const auto& p : params.prompts) prompt_tokens += static_cast<int64_t>(p.size());
  for (const Choice& c : choices) completion_tokens += c.last.completion_tokens;
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

// The log-probabilities of tokens [from, to) of c: the legacy shape for completions
// (tokens, token_logprobs, top_logprobs, text_offset), the chat shape otherwise.
json Answer::logprobs(const Choice& c, size_t from, size_t to) const {
  if (params.logprobs < 0) return nullptr;
  const Tokenizer& tok = *model.tokenizer;
  const auto piece = [&](int32_t id) { return tok.generated_piece(id, false); };
  if (api == Api::kChat) {
    json content = json::array();
    for (size_t i = from; i < to; ++i) {
      const GenerationEvent& e = c.tokens[i];
      json top = json::array();
      for (const TokenLogprob& t : e.top)
        top.push_back(
            {{"token", piece(t.id)}, {"logprob", t.logprob}, {"bytes", byte_list(piece(t.id))}});
      content.push_back({{"token", piece(e.token)},
                         {"logprob", e.logprob},
                         {"bytes", byte_list(piece(e.token))},
                         {"top_logprobs", top}});
    }
    return {{"content", content}};
  }
  json tokens = json::array(), token_logprobs = json::array(), top = json::array(),
       offsets = json::array();
  // Byte offsets continue from the last call (a stream asks token by token).
  size_t i = 0, offset = 0;
  if (from >= c.offset_index) i = c.offset_index, offset = c.offset_bytes;
  for (; i < to; ++i) {
    const GenerationEvent& e = c.tokens[i];
    if (i >= from) {
      tokens.push_back(piece(e.token));
      json alternatives = json::object();
      for (const TokenLogprob& t : e.top) alternatives[piece(t.id)] = t.logprob;
      const bool scored = !std::isnan(e.logprob);  // an echoed prompt's first token is not
      // As OpenAI's legacy completions: the chosen token is always among the alternatives
      // (up to logprobs + 1 of them).
      if (scored) alternatives[piece(e.token)] = e.logprob;
      token_logprobs.push_back(scored ? json(e.logprob) : json(nullptr));
      top.push_back(scored ? alternatives : json(nullptr));
      offsets.push_back(offset);
    }
    offset += piece(e.token).size();
  }
  c.offset_index = to;
  c.offset_bytes = offset;
  return {{"tokens", tokens},
          {"token_logprobs", token_logprobs},
          {"top_logprobs", top},
          {"text_offset", offsets}};
}

json Answer::choice_json(const Choice& c) const {
  json j = {{"index", c.index},
            {"logprobs", logprobs(c, 0, c.tokens.size())},
            {"finish_reason", c.last.finish_reason}};
  if (api != Api::kChat) {
    j["text"] = c.text;
    return j;
  }
  j["message"] = assistant_message(c.text, params.tools, [] { return random_id("call_"); });
  if (j["message"].contains("tool_calls") && c.last.finish_reason == "stop")
    j["finish_reason"] = "tool_calls";
  return j;
}

bool Answer::poll(Choice& c, GenerationEvent& e, std::chrono::milliseconds wait) {
  if (Clock::now() > deadline) {
    cancel();
    throw ApiError(504, "the request took longer than the server's limit and was cancelled",
                   "timeout_error");
  }
  return c.job->next(e, wait);
}

// The prompt's own tokens scored, for echo with logprobs: the first has no
// log-probability (NaN here, null in the answer, as OpenAI gives), each other one is
// scored given the tokens before it (one forward on the engine's thread).
std::vector<GenerationEvent> score_prompt(Engine& engine, const std::vector<int32_t>& prompt,
                                          int top) {
  std::vector<GenerationEvent> out(prompt.size());
  engine.run_exclusive([&](GPT& gpt) {
    const int64_t T = static_cast<int64_t>(prompt.size()), V = gpt.config().vocab_size;
    const Tensor logits = gpt.forward(prompt.data(), 1, T).to(Device::kCpu);
    for (int64_t t = 0; t < T; ++t) {
      out[t].token = prompt[t];
      out[t].logprob = std::nanf("");
      if (t == 0) continue;
      ScoredToken s = score_token(logits.data() + (t - 1) * V, V, prompt[t], top);
      out[t].logprob = s.logprob;
      out[t].top = std::move(s.top);
    }
  });
  return out;
}

// Prompt p's request for its choice k.
GenerationRequest request_for(const Answer& a, size_t p, int64_t k) {
  GenerationRequest r = a.params.generation;
  r.prompt = a.params.prompts[p];
  r.seed = choice_seed(a.params, static_cast<int64_t>(p), k);
  return r;
}

// ApiError 400 naming the prompt when the engine would refuse prompt p (its ids, its
// length).
void check_prompt(const Answer& a, const Engine& engine, size_t p) {
  try {
    engine.check(request_for(a, p, 0));
  } catch (const InputError& e) {
    throw ApiError(400, e.what(), "invalid_request_error", "prompt");
  }
}

// Queues one job per prompt and choice, each prompt scored first when echoed with
// logprobs (ApiError 503 when the queue is full).
void queue_choices(Answer& a, Engine& engine) {
  for (size_t p = 0; p < a.params.prompts.size(); ++p) {
    std::vector<GenerationEvent> scored_prompt;
    if (a.params.echo && a.params.logprobs >= 0)
      scored_prompt = score_prompt(engine, a.params.prompts[p], a.params.logprobs);
    for (int64_t k = 0; k < a.params.n; ++k) {
      Choice c;
      c.index = static_cast<int64_t>(p) * a.params.n + k;
      c.prompt = static_cast<int64_t>(p);
      c.job = engine.submit(request_for(a, p, k));
      if (!c.job)
        throw ApiError(503, "the server is busy: every slot is taken and the queue is full",
                       "server_error", "", "server_busy");
      if (a.params.echo)
        c.text = decode_generated(*a.model.tokenizer, a.params.prompts[p], /*after_text=*/false);
      c.echoed = scored_prompt.size();
      c.tokens = scored_prompt;
      a.choices.push_back(std::move(c));
    }
  }
}

// Every prompt checked before any job is queued; a request refused part-way cancels the
// jobs it queued, so no slot works for an answer nobody reads.
void submit(Answer& a, Engine& engine) {
  const int64_t jobs = static_cast<int64_t>(a.params.prompts.size()) * a.params.n;
  if (jobs > engine.queue_limit())  // could never be queued at once: not worth a retry
    throw ApiError(400,
                   "this request asks for " + std::to_string(jobs) +
                       " generations (prompts x n); this server queues at most " +
                       std::to_string(engine.queue_limit()),
                   "invalid_request_error", "n");
  for (size_t p = 0; p < a.params.prompts.size(); ++p) check_prompt(a, engine, p);
  try {
    queue_choices(a, engine);
  } catch (...) {
    a.cancel();
    throw;
  }
}

void record(Choice& c, GenerationEvent& e) {
  c.text += e.text;
  if (e.done) {
    c.done = true;
    c.last = std::move(e);
  } else {
    c.tokens.push_back(std::move(e));
  }
}

// Waits for every choice, then answers; a client that hangs up meanwhile cancels them.
void answer_at_once(Answer& a, const httplib::Request& req, httplib::Response& res) {
  constexpr auto kLookEvery = std::chrono::milliseconds(100);
  const int socket = connection_socket(req);
  Clock::time_point looked = Clock::now();
  for (Choice& c : a.choices) {
    GenerationEvent e;
    while (!c.done) {
      if (a.poll(c, e, kLookEvery)) record(c, e);
      if (Clock::now() - looked < kLookEvery) continue;
      looked = Clock::now();
      if (client_gone(socket, req)) {
        a.cancel();
        return;  // nobody to answer
      }
    }
  }
  json body = a.head();
  body["choices"] = json::array();
  for (const Choice& c : a.choices) body["choices"].push_back(a.choice_json(c));
  body["usage"] = a.usage();
  send_json(res, body);
}

// The chunk(s) one event of c makes ("" when there is nothing to send).
std::string chunks(Answer& a, Choice& c, const GenerationEvent& e) {
  std::string out;
  const auto send = [&](json choice) {
    json chunk = a.head();
    chunk["choices"] = json::array({std::move(choice)});
    out += "data: " + json_text(chunk) + "\n\n";
  };
  const bool chat = a.api == Api::kChat;
  if (chat && !c.role_sent) {
    c.role_sent = true;
    send({{"index", c.index},
          {"delta", {{"role", "assistant"}, {"content", ""}}},
          {"logprobs", nullptr},
          {"finish_reason", nullptr}});
  }
  const bool has_token = !e.done;
  if (!e.text.empty() || (has_token && a.params.logprobs >= 0) || e.done) {
    const size_t n = c.tokens.size();
    json lp = has_token ? a.logprobs(c, n - 1, n) : json(nullptr);
    json finish = e.done ? json(e.finish_reason) : json(nullptr);
    json choice = {{"index", c.index}, {"logprobs", lp}, {"finish_reason", finish}};
    if (chat)
      choice["delta"] = e.text.empty() && e.done ? json::object() : json{{"content", e.text}};
    else
      choice["text"] = e.text;
    send(std::move(choice));
  }
  return out;
}

void answer_as_stream(std::shared_ptr<Answer> a, httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [a](size_t, httplib::DataSink& sink) {
        const auto write = [&](const std::string& s) {
          if (s.empty() || sink.write(s.data(), s.size())) return true;
          a->cancel();  // the client went away: free the slots
          return false;
        };
        if (a->params.echo)  // the prompt's text first (completions only)
          for (Choice& c : a->choices) {
            json chunk = a->head();
            chunk["choices"] = json::array({{{"index", c.index},
                                             {"text", c.text},
                                             {"logprobs", a->logprobs(c, 0, c.echoed)},
                                             {"finish_reason", nullptr}}});
            if (!write("data: " + json_text(chunk) + "\n\n")) return false;
          }
        try {
          for (size_t done = 0; done < a->choices.size();) {
            for (Choice& c : a->choices) {
              GenerationEvent e;
              if (c.done || !a->poll(c, e, std::chrono::milliseconds(20))) continue;
              record(c, e);
              if (!write(chunks(*a, c, c.done ? c.last : c.tokens.back()))) return false;
              if (c.done) ++done;
            }
          }
        } catch (const ApiError& e) {
          write("data: " + json_text(e.body()) + "\n\n");
          sink.done();
          return true;
        }
        if (a->params.include_usage) {
          json chunk = a->head();
          chunk["choices"] = json::array();
          chunk["usage"] = a->usage();
          if (!write("data: " + json_text(chunk) + "\n\n")) return false;
        }
        if (!write("data: [DONE]\n\n")) return false;
        sink.done();
        return true;
      },
      [a](bool success) {
        if (!success) a->cancel();
      });
}

}  // namespace

void answer_completion(Api api, const ServedModel& model, Engine& engine,
                       const httplib::Request& req, httplib::Response& res, int timeout_seconds) {
  auto a = std::make_shared<Answer>(Answer{
      api,
      model,
      api == Api::kChat
          ? parse_chat_request(parse_ordered_body(req.body), *model.tokenizer, model.chat_template,
                               engine.context())
          : parse_completion_request(parse_body(req.body), *model.tokenizer, engine.context()),
      {},
      random_id(api == Api::kChat ? "chatcmpl-" : "cmpl-")});
  if (!a->params.model.empty() && a->params.model != model.id)
    throw ApiError(
        400,
        "The model '" + a->params.model + "' does not exist (this server has '" + model.id + "')",
        "invalid_request_error", "model", "model_not_found");
  a->deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  submit(*a, engine);
  if (a->params.stream)
    answer_as_stream(a, res);
  else
    answer_at_once(*a, req, res);
}

}  // namespace tinylm::serve
