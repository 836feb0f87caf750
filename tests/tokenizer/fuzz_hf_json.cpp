// libFuzzer target for the tokenizer.json reader: encoding arbitrary bytes with a
// SentencePiece-style and a byte-level tokenizer, and reading arbitrary tokenizer.json
// text. CMake builds it with g++ as a deterministic mutation loop that ctest runs
// (tests/common/mutation_fuzzer_main.cpp, seeds in tests/fuzz_seeds/fuzz_hf_json); by
// hand with libFuzzer as tests/tokenizer/fuzz_bpe.cpp says, with src/tokenizer/hf_json_*.cpp.
// The first input byte picks the target:
//   even: the rest is text. Valid UTF-8 encodes (both tokenizers have every byte) and
//         decodes back: as its NFC for the byte-level one (which normalizes to NFC), with
//         "\u2581" read as a space for the SentencePiece one; the ids stream to the same
//         text; invalid UTF-8 throws InputError. Any ids in range decode to valid UTF-8.
//   odd:  the rest is a tokenizer.json: reading it succeeds or throws InputError, and a
//         tokenizer read encodes and decodes a fixed text or throws InputError.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tokenizer/bpe_vocab.h"
#include "tokenizer/hf_json_fields.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/hf_json_unicode.h"
#include "tokenizer/stream_decoder.h"
#include "util/error.h"
#include "util/utf8.h"

namespace {

// Every byte as <0xNN> (SentencePiece) or as itself (byte-level), a few merges, and
// added tokens.
std::string fuzz_tokenizer_json(bool byte_level) {
  nlohmann::json vocab = nlohmann::json::object();
  int id = 0;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[byte_level ? tinylm::bytes_to_token_text(std::string(1, static_cast<char>(b)))
                     : std::string(name)] = id++;
  }
  const std::string space = byte_level ? "\u0120" : "\u2581";
  for (const std::string& t :
       std::vector<std::string>{space, "a", "b", space + "a", "ab", space + "ab"}) {
    if (!vocab.contains(t)) vocab[t] = id++;
  }
  const nlohmann::json merges = {space + " a", "a b", space + "a b"};
  nlohmann::json j = {
      {"added_tokens",
       {{{"id", id}, {"content", "<s>"}, {"special", true}},
        {{"id", id + 1}, {"content", "<tool>"}, {"special", false}, {"rstrip", true}}}},
      {"model",
       {{"type", "BPE"}, {"byte_fallback", !byte_level}, {"vocab", vocab}, {"merges", merges}}}};
  if (byte_level) {
    j["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Digits"}, {"individual_digits", true}},
          {{"type", "Split"},
           {"pattern",
            {{"Regex", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|\\p{L}+|\\p{N}{1,3}|\\s+(?!\\S)|\\s+|."}}},
           {"behavior", "Isolated"}},
          {{"type", "ByteLevel"}, {"use_regex", false}}}}};
    j["normalizer"] = {{"type", "NFC"}};
    j["decoder"] = {{"type", "ByteLevel"}};
  } else {
    j["normalizer"] = {
        {"type", "Sequence"},
        {"normalizers",
         {{{"type", "Prepend"}, {"prepend", "\u2581"}},
          {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}};
    j["decoder"] = {{"type", "Sequence"},
                    {"decoders",
                     {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                      {{"type", "ByteFallback"}},
                      {{"type", "Fuse"}},
                      {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  }
  return j.dump();
}

const tinylm::HfJsonTokenizer& fuzz_tok(bool byte_level) {
  static const tinylm::HfJsonTokenizer spm(fuzz_tokenizer_json(false), nullptr, "spm.json");
  static const tinylm::HfJsonTokenizer bytes(fuzz_tokenizer_json(true), nullptr, "bytes.json");
  return byte_level ? bytes : spm;
}

// Encodes text with one tokenizer; checks what decoding gives back (texts holding an
// added token are not compared: <tool> eats the whitespace after it, and each stretch
// between added tokens gets its own prepended "\u2581").
void fuzz_one(bool byte_level, std::string_view text) {
  const tinylm::HfJsonTokenizer& tok = fuzz_tok(byte_level);
  const bool valid = tinylm::utf8_first_invalid(text) == std::string_view::npos;
  std::vector<int32_t> ids;
  try {
    ids = tok.encode(text, true);
    if (!valid) std::abort();  // invalid UTF-8 must be rejected
  } catch (const tinylm::InputError&) {
    if (valid) std::abort();  // every byte is a token: valid text always encodes
    return;
  }
  const std::string decoded = tok.decode(ids);
  if (tinylm::decode_generated(tok, ids, false) != decoded) std::abort();
  if (text.find("<s>") != std::string_view::npos || text.find("<tool>") != std::string_view::npos)
    return;
  const std::string expected =
      byte_level ? tinylm::nfc(text) : tinylm::hf_json::replace_all(text, "\u2581", " ");
  if (decoded != expected) std::abort();
}

void fuzz_encode(std::string_view text) {
  fuzz_one(false, text);
  fuzz_one(true, text);
  // Decoding any ids in range gives valid UTF-8.
  std::vector<int32_t> ids;
  const int64_t n = fuzz_tok(true).vocab_size();
  for (size_t i = 0; i + 1 < text.size(); i += 2)
    ids.push_back((static_cast<uint8_t>(text[i]) << 8 | static_cast<uint8_t>(text[i + 1])) % n);
  for (const bool byte_level : {false, true})
    if (tinylm::utf8_first_invalid(fuzz_tok(byte_level).decode(ids)) != std::string_view::npos)
      std::abort();
}

void fuzz_reader(std::string_view json) {
  try {
    const tinylm::HfJsonTokenizer tok{std::string(json), nullptr, "fuzz.json"};
    tok.decode(tok.encode("fuzz the reader 123 \xC3\xA9 <s>", true), true);
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
    fuzz_reader(rest);
  }
  return 0;
}
