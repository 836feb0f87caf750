#include "serve/serve.h"

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

#include "open/open_model.h"
#include "util/error.h"

namespace tinylm::serve {

namespace {

// SIGINT and SIGTERM blocked in this thread and every thread it starts afterwards, so
// that only sigwait() sees them.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// Waits up to `seconds` for the engine to go idle, then cancels what is left.
void drain(Engine& engine, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    const EngineStats s = engine.stats();
    if (s.busy == 0 && s.queued == 0) return;
    if (std::chrono::steady_clock::now() > deadline) return engine.cancel_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Ends the HTTP thread however serve() ends (stops the server, then joins the thread).
struct HttpThreadJoiner {
  std::unique_ptr<Server>& server;
  std::thread& thread;
  ~HttpThreadJoiner() {
    if (!thread.joinable()) return;
    server->stop();
    // When the model fails to load, the thread has only just started listening, and
    // httplib's stop can miss a listen that is just beginning: the process is about to
    // exit with the error, so a thread still there after 2 s is left to it, with the
    // server it uses (never freed under it).
    if (server->wait_stopped(std::chrono::seconds(2))) {
      thread.join();
    } else {
      thread.detach();
      (void)server.release();
    }
  }
};

// What /v1/models and the routes say about the model: its id (--alias, else the source's
// name), source, weights, tokenizer and chat template.
ServedModel served_model(const ServeOptions& options, const OpenedModel& loaded, GPT& model) {
  ServedModel served;
  served.id = options.alias.empty() ? default_model_id(options.source) : options.alias;
  served.source = loaded.title();
  served.path = loaded.source.path;
  served.model = &model;
  served.tokenizer = loaded.tokenizer.get();
  served.chat_template = chat_template_for(loaded);
  served.created = std::time(nullptr);
  return served;
}

}  // namespace

ChatTemplate chat_template_for(const OpenedModel& m) {
  if (m.tokenizer)
    if (std::optional<ChatTemplate> own = model_template(*m.tokenizer)) return *own;
  const bool instruct = m.finetune_config && m.finetune_config->task == "instruct";
  return instruct ? alpaca_template() : plain_template();
}

std::string default_model_id(const std::string& source) {
  std::filesystem::path p(source);
  while (!p.empty() && p.filename().empty()) p = p.parent_path();  // a trailing '/'
  return p.empty() ? source : p.filename().string();
}

std::unique_ptr<DecodeContext> prepare_for_serving(OpenedModel& loaded,
                                                   std::optional<decode::DecodeWeights> decode) {
  GPT& model = loaded.language_model("tinylm serve");
  if (loaded.lora) loaded.merge_adapters();
  return std::make_unique<DecodeContext>(model, decode.value_or(loaded.stored_decode_weights));
}

int serve(const ServeOptions& options) {
  const sigset_t stop_signals = block_stop_signals();
  ServerOptions server_options = options.server;
  server_options.http_threads = http_threads_for(options.engine);
  auto owned = std::make_unique<Server>(server_options);
  Server& server = *owned;
  const int port = server.bind();
  std::thread http([&server] { server.run(); });
  const HttpThreadJoiner joiner{owned, http};

  OpenOptions open;
  open.option = options.option;
  OpenedModel loaded = open_model(options.source, open);
  const std::unique_ptr<DecodeContext> decoder =
      prepare_for_serving(loaded, options.decode_weights);
  EngineOptions engine_options = options.engine;
  engine_options.threads = options.threads;
  Engine engine(*decoder, *loaded.tokenizer, engine_options);
  const ServedModel served = served_model(options, loaded, decoder->model());
  server.ready(served, engine);
  std::printf("tinylm serve: %s as '%s' on http://%s:%d (%lld slots, context %lld, %s template)\n",
              served.source.c_str(), served.id.c_str(), options.server.host.c_str(), port,
              static_cast<long long>(engine.parallel()), static_cast<long long>(engine.context()),
              served.chat_template.name.c_str());
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::printf("tinylm serve: %s, finishing the requests in flight (at most %d s)\n",
              signal == SIGTERM ? "SIGTERM" : "SIGINT", options.shutdown_wait_seconds);
  std::fflush(stdout);
  server.stop();  // no new connections; handlers in flight go on
  drain(engine, options.shutdown_wait_seconds);
  if (http.joinable()) http.join();
  engine.stop();
  return 0;
}

}  // namespace tinylm::serve
