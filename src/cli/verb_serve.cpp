// tinylm serve --run DIR | --model SRC | --preset NAME [--host 127.0.0.1] [--port 8080]
//   [--parallel N] [--ctx N] [--threads N] [--api-key KEY | --api-key-file F]
//   [--alias NAME] [--cors-origin ORIGIN]: an OpenAI-compatible server (serve/serve.h).
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/decode_flags.h"
#include "cli/model_flags.h"
#include "ops/matmul.h"
#include "serve/serve.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

namespace {

// The key in a file (its first line), so that it is not in the process list.
std::string read_key_file(const std::string& path) {
  std::string key = read_file(path);
  key = key.substr(0, key.find_first_of("\r\n"));
  require(!key.empty(), "--api-key-file " + path + ": the file is empty");
  return key;
}

}  // namespace

int run_serve(int argc, char** argv) {
  CLI::App app{
      "Serve a model over HTTP with the OpenAI API (/v1/completions, /v1/chat/completions, "
      "/v1/models), llama.cpp's /tokenize and /detokenize, /health, /props and /metrics. "
      "Requests are decoded together in --parallel slots (continuous batching). "
      "docs/serve.md has the details.",
      "tinylm serve"};
  ModelFlags source;
  std::string preset, key_file;
  serve::ServeOptions o;
  add_model_flags(app, source);
  app.add_option("--preset", preset, "a preset's shape with random weights (gpt2-124m ...)");
  app.add_option("--host", o.server.host, "the address to listen on")->capture_default_str();
  app.add_option("--port", o.server.port, "the port (0: any free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_option("--parallel", o.engine.parallel,
                 "slots: requests decoded together, each with its own KV cache")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, ops::kRowInvariantMaxRows));
  app.add_option("--ctx", o.engine.context,
                 "positions per slot: prompt + max_tokens (0: the model's context)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", o.threads, "threads for the model (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  auto* key = app.add_option("--api-key", o.server.api_key,
                             "require 'Authorization: Bearer KEY' (but on /health, /v1/models)");
  app.add_option("--api-key-file", key_file, "the same, with the key read from a file")
      ->excludes(key);
  app.add_option("--alias", o.alias, "the model's id in the API (default: the source's name)");
  app.add_option("--cors-origin", o.server.cors_origin,
                 "answer browsers from this origin (or *) with CORS headers");
  app.add_option("--timeout", o.server.request_timeout_seconds,
                 "seconds a request may run; then it is cancelled (HTTP 504, or an error "
                 "event in a stream)")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  DecodeFlags decode;
  add_decode_flags(app, decode);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  o.decode_weights = asked_decode_weights(decode);

  const int sources = !source.run.empty() + !source.model.empty() + !preset.empty();
  require(sources == 1, "pass one of --run DIR, --model SRC or --preset NAME");
  o.source = !source.run.empty() ? source.run : !source.model.empty() ? source.model : preset;
  o.option = !source.run.empty() ? "--run" : !source.model.empty() ? "--model" : "--preset";
  if (!key_file.empty()) o.server.api_key = read_key_file(key_file);
  return serve::serve(o);
}

}  // namespace tinylm::cli
