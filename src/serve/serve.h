// `tinylm serve`: listen first (so /health answers 503 while loading), open the model
// (any source open/open_model.h knows; a LoRA run's adapters merged; classifiers refused),
// start the engine, print the URL, and serve until SIGINT or SIGTERM. Then stop
// accepting, let the requests in flight finish for up to shutdown_wait_seconds (the rest
// are cancelled), and return 0.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "open/open_model.h"
#include "serve/engine.h"
#include "serve/server.h"

namespace tinylm::serve {

struct ServeOptions {
  std::string source;              // the model
  std::string option = "--model";  // the flag that named it, for messages
  std::string alias;               // the model's id in the API ("": from the source)
  ServerOptions server;
  EngineOptions engine;
  int threads = 0;  // 0: all cores
  // The weights decode steps read (decode/decode_weights.h); nullopt: a GGUF file's own
  // precision, float32 for other sources.
  std::optional<decode::DecodeWeights> decode_weights;
  int shutdown_wait_seconds = 10;
};

int serve(const ServeOptions& options);

// What serve does to a model once opened: an instruct run's LoRA adapters folded in, and
// a decoding context on the language model (InputError for a classifier) with the decode
// weights chosen (decode; nullopt: a GGUF file's own precision).
std::unique_ptr<DecodeContext> prepare_for_serving(OpenedModel& loaded,
                                                   std::optional<decode::DecodeWeights> decode);

// An instruct fine-tuning run's Alpaca template, the plain one for every other model.
ChatTemplate chat_template_for(const OpenedModel& model);

// The id a source is served under without --alias: the last part of its path
// ("runs/shakespeare/" -> "shakespeare", "gpt2-124m" -> "gpt2-124m").
std::string default_model_id(const std::string& source);

}  // namespace tinylm::serve
