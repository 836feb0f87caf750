// libFuzzer target for the GPT-2 BPE tokenizer: encoding arbitrary bytes and parsing
// arbitrary vocabulary files. CMake builds it with g++ as a deterministic mutation loop
// that ctest runs (tests/common/mutation_fuzzer_main.cpp, seeds in
// tests/fuzz_seeds/fuzz_bpe). By hand with libFuzzer (clang 14; the build command is folded over four lines):
//
//   clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fopenmp
//     -Isrc -DTINYLM_SOURCE_DIR='"'$PWD'"' tests/tokenizer/fuzz_bpe.cpp
//     src/tokenizer/bpe_*.cpp src/util/utf8.cpp src/util/files.cpp src/util/json_read.cpp
//     src/util/source_dir.cpp -lpcre2-8 -o /tmp/fuzz_bpe
//   /tmp/fuzz_bpe -max_total_time=120 -max_len=4096
//
// (apt-get install clang-14 libclang-rt-14-dev if the fuzzer runtime is missing.)
// The first input byte picks the target:
//   even: the rest is text for encode / encode_ordinary / decode. Defined behaviour:
//         valid UTF-8 round-trips exactly; invalid UTF-8 throws InputError (never
//         crashes, never encodes part of it).
//   odd:  the rest is split at the first 0 byte into encoder.json and vocab.bpe
//         contents; parsing either succeeds or throws InputError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/bpe_vocab.h"
#include "util/error.h"
#include "util/utf8.h"

namespace {

const tinylm::BpeTokenizer& gpt2() {
  static const tinylm::BpeTokenizer tokenizer;
  return tokenizer;
}

void fuzz_encode(std::string_view text) {
  const bool valid = tinylm::utf8_first_invalid(text) == std::string_view::npos;
  try {
    const auto ids = gpt2().encode(text);
    if (!valid) std::abort();  // invalid UTF-8 must be rejected
    if (gpt2().decode(ids) != text) std::abort();
    const auto ordinary = gpt2().encode_ordinary(text);
    if (gpt2().decode_bytes(ordinary) != text) std::abort();
  } catch (const tinylm::InputError&) {
    if (valid) std::abort();  // valid text is always encodable
  }
  // Decoding any ids: in range -> lossy UTF-8, which must itself be valid UTF-8.
  std::vector<int32_t> ids;
  for (size_t i = 0; i + 1 < text.size(); i += 2)
    ids.push_back((static_cast<uint8_t>(text[i]) << 8 | static_cast<uint8_t>(text[i + 1])) % 50257);
  const std::string decoded = gpt2().decode(ids);
  if (tinylm::utf8_first_invalid(decoded) != std::string_view::npos) std::abort();
}

void fuzz_loader(std::string_view data) {
  const size_t cut = data.find('\0');
  const std::string_view encoder = data.substr(0, cut);
  const std::string_view merges = cut == data.npos ? std::string_view() : data.substr(cut + 1);
  try {
    const tinylm::BpeVocab vocab = tinylm::parse_bpe_vocab(encoder, merges);
    const tinylm::BpeTokenizer tok(vocab, "bpe", "fuzz");
    tok.decode(tok.encode_ordinary("fuzz the loader 123 \xC3\xA9"));
  } catch (const tinylm::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    fuzz_encode(rest);
  } else {
    fuzz_loader(rest);
  }
  return 0;
}
