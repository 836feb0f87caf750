// The inference loop of `tinylm serve`. One thread owns the model and --parallel slots,
// each with its own KV cache; HTTP threads only queue requests and read their events.
// Between decoding steps the loop prefills waiting prompts into free slots (one forward
// per prompt), then advances every busy slot by one token in one batched forward
// (DecodeContext::forward over all slots: each weight is read once per step for all of
// them): continuous batching. Every request samples with its own generator, and a
// batched row is bit for bit that row alone (ops/matmul.h, kRowInvariantMaxRows), so a
// request gets the same tokens whatever else the server is doing.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "decode/decode_context.h"
#include "generate/sampling.h"
#include "serve/logit_adjust.h"
#include "serve/logprobs.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::serve {

struct GenerationRequest {
  std::vector<int32_t> prompt;  // at least one id; prompt + max_tokens within the context
  int64_t max_tokens = 16;
  SamplingOptions sampling;  // greedy for temperature 0
  uint64_t seed = 0;
  std::vector<std::string> stop;  // stop texts: the text ends before the first one
  bool stop_at_eot = true;        // <|endoftext|> ends the text (and is not in it)
  bool after_text = false;        // the text continues the prompt's (completions, not chat)
  int top_logprobs = -1;          // -1: none; k >= 0: the chosen token's and k others
  LogitAdjustments adjust;        // logit_bias, presence and frequency penalties
};

// One per generated token, then one final event (done). Log-probabilities are the
// model's own (log-softmax of the logits, before temperature, top-k and top-p).
struct GenerationEvent {
  std::string text;    // text that is safe to show now (may be empty)
  int32_t token = -1;  // the token chosen (-1 in the final event)
  float logprob = 0.0f;
  std::vector<TokenLogprob> top;  // the most likely tokens, when asked
  bool done = false;
  // final event: "stop" (a stop text or <|endoftext|>), "length" (max_tokens or the
  // context), "abort" (cancelled: the client went away, a timeout, a shutdown)
  std::string finish_reason;
  int64_t prompt_tokens = 0, completion_tokens = 0;  // final event
  double seconds_to_first_token = 0.0;               // final event
};

// A queued or running request, shared by the loop (which pushes events) and the HTTP
// thread (which reads them, and cancels when its client goes away).
class Job {
 public:
  // The next event; false if none came within timeout.
  bool next(GenerationEvent& event, std::chrono::milliseconds timeout);
  // Frees the slot at the next step (and drops the request if still queued); the final
  // event says "abort".
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  friend class Engine;
  void push(GenerationEvent event);
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<GenerationEvent> events_;
  std::atomic<bool> cancelled_{false};
};

struct EngineOptions {
  int64_t parallel = 4;      // slots (sequences decoded together), 1..kRowInvariantMaxRows
  int64_t context = 0;       // positions per slot (0: the model's block_size)
  int64_t queue_limit = 64;  // requests waiting for a slot; beyond it, submit refuses
  int threads = 0;           // the loop's threads for the model (0: all cores)
};

struct EngineStats {
  int64_t slots = 0, busy = 0, queued = 0;
  int64_t requests_done = 0, prompt_tokens = 0, generated_tokens = 0, cancelled = 0;
  int64_t decode_steps = 0;
  double first_token_seconds_sum = 0.0;  // over requests_done
  double decode_seconds = 0.0;           // the loop's time in decoding steps
};

class Engine {
 public:
  // The decoding context (and its model) and the tokenizer must outlive the engine; only
  // the loop uses them.
  Engine(DecodeContext& decoder, const Tokenizer& tokenizer, EngineOptions options);
  ~Engine();  // stop(), then joins the loop
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request; nullptr when the queue is full or the engine stops (the caller
  // answers 503). InputError for a request it cannot run: an empty prompt, ids outside
  // the vocabulary, prompt + max_tokens beyond the context, bad sampling settings.
  std::shared_ptr<Job> submit(GenerationRequest request);
  // The InputError submit would throw for request, if any (nothing is queued).
  void check(const GenerationRequest& request) const;
  // Runs task(model) on the loop's thread between two steps (the model is the loop's
  // alone) and waits for it: the teaching routes read distributions and attention this
  // way. Exceptions reach the caller.
  void run_exclusive(const std::function<void(GPT&)>& task);
  // Finishes what is running and queued, then ends the loop (requests submitted later
  // are refused). Returns at once; the destructor waits.
  void stop();
  // Cancels everything still running or queued (the bounded wait of a shutdown is over).
  void cancel_all();
  EngineStats stats() const;
  int64_t context() const { return context_; }
  int64_t parallel() const { return static_cast<int64_t>(slots_.size()); }
  int64_t queue_limit() const { return queue_limit_; }

 private:
  struct Slot;
  void loop();
  void admit();        // prefills queued requests into free slots
  void decode_step();  // one token for every busy slot
  void start(Slot& slot, std::shared_ptr<Job> job, GenerationRequest request);
  void emit(Slot& slot, const float* logits);  // chooses, sends, finishes if done
  void finish(Slot& slot, const std::string& reason, std::string text);
  void drop_cancelled();
  void drop_cancelled_queued();  // with mutex_ held
  void run_tasks();

  DecodeContext& decoder_;
  GPT& model_;  // decoder_'s
  const Tokenizer& tokenizer_;
  int64_t context_;
  int64_t queue_limit_;
  std::vector<std::unique_ptr<Slot>> slots_;

  mutable std::mutex mutex_;  // guards queue_, stopping_, stats_
  std::condition_variable wake_;
  std::deque<std::pair<std::shared_ptr<Job>, GenerationRequest>> queue_;
  std::deque<std::packaged_task<void()>> tasks_;  // run_exclusive's
  bool stopping_ = false;
  EngineStats stats_;
  std::thread thread_;
  // The loop's buffers for one decoding step (kept from step to step).
  std::vector<int32_t> step_ids_;
  std::vector<int64_t> step_counts_;
  std::vector<KVCache*> step_caches_;
  std::vector<Slot*> step_slots_;
};

}  // namespace tinylm::serve
