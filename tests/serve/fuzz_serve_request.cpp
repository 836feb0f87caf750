// Fuzz target for the server's request parsing (serve/openai_request.h): the bodies of
// /v1/completions and /v1/chat/completions and the sampling fields of /tinylm/next-token,
// read with the GPT-2 tokenizer (or a char vocabulary, which cannot encode everything).
// CMake builds it with g++ as a deterministic mutation loop that ctest runs
// (tests/common/mutation_fuzzer_main.cpp, seeds in tests/fuzz_seeds/fuzz_serve_request).
// By hand with libFuzzer (one line, folded; run it as the script says):
//
//   tests/common/build_libfuzzer.sh fuzz_serve_request src/serve/openai_request.cpp
//     src/serve/chat_template.cpp src/util/json_read.cpp
//
// Property checked: for any bytes, parsing either returns a request the engine can take
// (prompts of 1+ ids, max_tokens within the context, n and logprobs in range, a finite
// temperature) or throws ApiError with a 4xx status; anything else (a crash, a sanitizer
// report, another exception, a huge allocation) is a bug.
//
// The first byte picks what the rest is:
//   byte % 3        a completions body, a chat body, the sampling fields alone
//   byte / 3 % 2    the GPT-2 tokenizer, a char vocabulary of a few letters
//   byte / 6 % 2    the alpaca template, the plain one
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/api_error.h"
#include "serve/openai_request.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"

namespace {

using namespace tinylm;
using namespace tinylm::serve;

constexpr int64_t kContext = 64;

const Tokenizer& tokenizer(bool gpt2) {
  static const BpeTokenizer bpe;
  static const CharTokenizer chars = CharTokenizer::from_corpus("abc xyz");
  return gpt2 ? static_cast<const Tokenizer&>(bpe) : chars;
}

void check(const CompletionParams& p) {
  if (p.prompts.empty() || p.n < 1 || p.n > kMaxChoices) std::abort();
  for (const auto& prompt : p.prompts)
    if (prompt.empty() || static_cast<int64_t>(prompt.size()) + p.generation.max_tokens > kContext)
      std::abort();
  const SamplingOptions& s = p.generation.sampling;
  if (!std::isfinite(s.temperature) || s.temperature <= 0 || s.top_k < 0 || !(s.top_p >= 0) ||
      s.top_p > 1 || p.generation.max_tokens < 0 || p.logprobs < -1 || p.logprobs > 20)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned byte = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Tokenizer& tok = tokenizer(byte / 3 % 2 == 0);
  const ChatTemplate chat = byte / 6 % 2 == 0 ? alpaca_template() : plain_template();
  try {
    const nlohmann::json body = parse_body(text);
    switch (byte % 3) {
      case 0:
        check(parse_completion_request(body, tok, kContext));
        break;
      case 1:
        check(parse_chat_request(parse_ordered_body(text), tok, chat, kContext));
        break;
      default:
        if (body.is_object()) sampling_options(body);
        break;
    }
  } catch (const ApiError& e) {
    if (e.status < 400 || e.status >= 500) std::abort();
  }
  return 0;
}
