#include "serve/engine.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "generate/stop_text_stream.h"
#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/error.h"

namespace tinylm::serve {

namespace {

using Clock = std::chrono::steady_clock;

GenerationEvent aborted() {
  GenerationEvent e;
  e.done = true;
  e.finish_reason = "abort";
  return e;
}

}  // namespace

bool Job::next(GenerationEvent& event, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return false;
  event = std::move(events_.front());
  events_.pop_front();
  return true;
}

void Job::push(GenerationEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  ready_.notify_all();
}

struct Engine::Slot {
  explicit Slot(const GPTConfig& config, Device device) : cache(config, device) {}
  std::shared_ptr<Job> job;  // null: free
  GenerationRequest request;
  KVCache cache;
  Rng rng;
  std::optional<StopTextStream> stream;
  int32_t next = -1;  // the token to feed at the next step
  int64_t generated = 0;
  std::unordered_map<int32_t, int64_t> counts;  // generated tokens (for the penalties)
  std::vector<float> adjusted;                  // [V] the logits after request.adjust
  Clock::time_point started;
  double first_token_seconds = 0.0;
};

Engine::Engine(DecodeContext& decoder, const Tokenizer& tokenizer, EngineOptions options)
    : decoder_(decoder),
      model_(decoder.model()),
      tokenizer_(tokenizer),
      context_(options.context > 0 ? options.context : model_.config().block_size),
      queue_limit_(options.queue_limit) {
  require(options.parallel >= 1 && options.parallel <= ops::kRowInvariantMaxRows,
          "--parallel must be in [1, " + std::to_string(ops::kRowInvariantMaxRows) + "]");
  require(context_ <= model_.config().block_size,
          "--ctx " + std::to_string(context_) + " exceeds the model's context (block_size " +
              std::to_string(model_.config().block_size) + ")");
  for (int64_t i = 0; i < options.parallel; ++i)
    slots_.push_back(std::make_unique<Slot>(model_.config(), model_.device()));
  stats_.slots = options.parallel;
  thread_ = std::thread([this, threads = options.threads] {
    if (threads > 0) set_num_threads(threads);  // OpenMP's count is per thread
    loop();
  });
}

void Engine::check(const GenerationRequest& r) const {
  const int64_t V = model_.config().vocab_size, n = static_cast<int64_t>(r.prompt.size());
  require(n >= 1, "the prompt is empty: it needs at least one token");
  for (int32_t id : r.prompt)
    require(id >= 0 && id < V, "prompt token id " + std::to_string(id) +
                                   " is outside the model's vocabulary (" + std::to_string(V) +
                                   " tokens)");
  require(r.max_tokens >= 0 && n + r.max_tokens <= context_,
          "this model's context is " + std::to_string(context_) + " tokens, but " +
              std::to_string(n + r.max_tokens) + " were asked for (" + std::to_string(n) +
              " in the prompt, " + std::to_string(r.max_tokens) + " to generate)");
  if (!r.sampling.greedy) validate(r.sampling);
}

Engine::~Engine() {
  stop();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<Job> Engine::submit(GenerationRequest request) {
  check(request);
  auto job = std::make_shared<Job>();
  {
    std::lock_guard lock(mutex_);
    if (static_cast<int64_t>(queue_.size()) >= queue_limit_) drop_cancelled_queued();
    if (stopping_ || static_cast<int64_t>(queue_.size()) >= queue_limit_) return nullptr;
    queue_.emplace_back(job, std::move(request));
    stats_.queued = static_cast<int64_t>(queue_.size());
  }
  wake_.notify_all();
  return job;
}

void Engine::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void Engine::cancel_all() {
  std::lock_guard lock(mutex_);
  for (auto& [job, request] : queue_) job->cancel();
  for (auto& slot : slots_)
    if (slot->job) slot->job->cancel();  // read by the loop at its next step
}

EngineStats Engine::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Engine::run_exclusive(const std::function<void(GPT&)>& task) {
  std::packaged_task<void()> work([&] { task(model_); });
  std::future<void> done = work.get_future();
  {
    std::lock_guard lock(mutex_);
    require(!stopping_, "the server is shutting down");
    tasks_.push_back(std::move(work));
  }
  wake_.notify_all();
  done.get();
}

void Engine::run_tasks() {
  for (;;) {
    std::packaged_task<void()> task;
    {
      std::lock_guard lock(mutex_);
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void Engine::loop() {
  for (;;) {
    run_tasks();
    admit();
    drop_cancelled();
    const bool busy = std::any_of(slots_.begin(), slots_.end(), [](auto& s) { return s->job; });
    if (busy) {
      decode_step();
      continue;
    }
    std::unique_lock lock(mutex_);
    if (stopping_ && queue_.empty() && tasks_.empty()) return;
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || !tasks_.empty(); });
  }
}

void Engine::admit() {
  for (auto& slot : slots_) {
    if (slot->job) continue;
    std::shared_ptr<Job> job;
    GenerationRequest request;
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty()) return;
      job = std::move(queue_.front().first);
      request = std::move(queue_.front().second);
      queue_.pop_front();
      stats_.queued = static_cast<int64_t>(queue_.size());
      if (job->cancelled()) {
        ++stats_.cancelled;
        job->push(aborted());
        continue;
      }
      ++stats_.busy;
    }
    start(*slot, std::move(job), std::move(request));
  }
}

void Engine::start(Slot& slot, std::shared_ptr<Job> job, GenerationRequest request) {
  slot.job = std::move(job);
  slot.request = std::move(request);
  slot.rng.seed_with(slot.request.seed);
  slot.stream.emplace(tokenizer_, slot.request.stop, slot.request.after_text);
  slot.generated = 0;
  slot.counts.clear();
  slot.started = Clock::now();
  slot.cache.clear();
  if (slot.request.max_tokens == 0) return finish(slot, "length", "");
  const auto& prompt = slot.request.prompt;
  const Tensor logits =
      decoder_.forward(prompt.data(), static_cast<int64_t>(prompt.size()), slot.cache);
  emit(slot, logits.data());
}

void Engine::decode_step() {
  const Clock::time_point begin = Clock::now();
  step_ids_.clear();
  step_counts_.clear();
  step_caches_.clear();
  step_slots_.clear();
  for (auto& slot : slots_) {
    if (!slot->job) continue;
    step_ids_.push_back(slot->next);
    step_counts_.push_back(1);
    step_caches_.push_back(&slot->cache);
    step_slots_.push_back(slot.get());
  }
  const Tensor logits = decoder_.forward(step_ids_.data(), step_counts_, step_caches_);
  const int64_t V = model_.config().vocab_size;
  for (size_t i = 0; i < step_slots_.size(); ++i) emit(*step_slots_[i], logits.data() + i * V);
  std::lock_guard lock(mutex_);
  ++stats_.decode_steps;
  stats_.decode_seconds += std::chrono::duration<double>(Clock::now() - begin).count();
}

void Engine::emit(Slot& slot, const float* logits) {
  const GenerationRequest& r = slot.request;
  const int64_t V = model_.config().vocab_size;
  GenerationEvent event;
  const float* choose_from = logits;
  if (r.adjust.any()) {
    slot.adjusted.assign(logits, logits + V);
    adjust_logits(slot.adjusted.data(), V, r.adjust, slot.counts);
    choose_from = slot.adjusted.data();
  }
  event.token = r.sampling.greedy ? argmax(choose_from, V)
                                  : sample_next(choose_from, V, r.sampling, slot.rng);
  if (r.adjust.presence_penalty != 0 || r.adjust.frequency_penalty != 0)
    ++slot.counts[event.token];  // only the penalties read the counts
  if (r.top_logprobs >= 0) {
    ScoredToken scored = score_token(logits, V, event.token, r.top_logprobs);
    event.logprob = scored.logprob;
    event.top = std::move(scored.top);
  }
  if (++slot.generated == 1)
    slot.first_token_seconds = std::chrono::duration<double>(Clock::now() - slot.started).count();
  const bool end_of_text = r.stop_at_eot && event.token == tokenizer_.eot_id();
  if (!end_of_text) event.text = slot.stream->add(event.token);
  const bool stopped = end_of_text || slot.stream->stopped();
  const bool full = slot.generated >= r.max_tokens || slot.cache.pos >= context_;
  slot.next = event.token;
  slot.job->push(std::move(event));
  // The text still held back (a possible start of a stop text, an unfinished character)
  // ends the text at <|endoftext|> or the length limit; after a stop text there is none.
  if (stopped) return finish(slot, "stop", slot.stream->finish());
  if (full) return finish(slot, "length", slot.stream->finish());
}

void Engine::finish(Slot& slot, const std::string& reason, std::string text) {
  GenerationEvent last;
  last.done = true;
  last.text = std::move(text);
  last.finish_reason = reason;
  last.prompt_tokens = static_cast<int64_t>(slot.request.prompt.size());
  last.completion_tokens = slot.generated;
  last.seconds_to_first_token = slot.first_token_seconds;
  {
    std::lock_guard lock(mutex_);
    --stats_.busy;
    ++stats_.requests_done;
    stats_.prompt_tokens += last.prompt_tokens;
    stats_.generated_tokens += slot.generated;
    stats_.first_token_seconds_sum += slot.first_token_seconds;
  }
  slot.job->push(std::move(last));
  slot.job.reset();
}

void Engine::drop_cancelled_queued() {
  const auto gone = [&](const auto& queued) {
    if (!queued.first->cancelled()) return false;
    ++stats_.cancelled;
    queued.first->push(aborted());
    return true;
  };
  queue_.erase(std::remove_if(queue_.begin(), queue_.end(), gone), queue_.end());
  stats_.queued = static_cast<int64_t>(queue_.size());
}

void Engine::drop_cancelled() {
  for (auto& slot : slots_) {
    if (!slot->job || !slot->job->cancelled()) continue;
    GenerationEvent last = aborted();
    last.prompt_tokens = static_cast<int64_t>(slot->request.prompt.size());
    last.completion_tokens = slot->generated;
    slot->job->push(std::move(last));
    slot->job.reset();
    std::lock_guard lock(mutex_);
    --stats_.busy;
    ++stats_.cancelled;
  }
}

}  // namespace tinylm::serve
