// The pre-tokeniser choice (see bpe_pretokenizer_choice.h).
#include "tokenizer/bpe_pretokenizer_choice.h"

#include <filesystem>

#include "tokenizer/bpe_pretokenize_pcre.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

#define TINYLM_WS        \
  "\\t\\n\\x{0B}\\f\\r " \
  "\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
const char* const kLettersMarksPatternPcre =
    "'s|'t|'re|'ve|'m|'ll|'d| ?[\\p{L}\\p{M}]+| ?\\p{N}+| ?[^" TINYLM_WS
    "\\p{L}\\p{M}\\p{N}]+|[" TINYLM_WS "]+(?![^" TINYLM_WS "])|[" TINYLM_WS "]+";
#undef TINYLM_WS

Pretokenizer parse_pretokenizer(const std::string& name) {
  if (name == "gpt2") return Pretokenizer::Gpt2;
  if (name == "letters-marks") return Pretokenizer::LettersMarks;
  throw InputError("unknown pre-tokeniser '" + name + "' (gpt2, letters-marks)");
}

std::string pretokenizer_name(Pretokenizer p) {
  return p == Pretokenizer::Gpt2 ? "gpt2" : "letters-marks";
}

std::vector<std::string_view> letters_marks_pieces(std::string_view text) {
  static const PcreSplitter splitter(kLettersMarksPatternPcre);  // read-only once built
  return splitter.split(text);
}

Pretokenizer read_pretokenizer(const std::string& dir) {
  const std::string path = dir + "/pretokenizer.txt";
  if (!file_exists(path)) return Pretokenizer::Gpt2;
  std::string name = read_file(path);
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' '))
    name.pop_back();
  try {
    return parse_pretokenizer(name);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

void write_pretokenizer(const std::string& dir, Pretokenizer p) {
  if (p == Pretokenizer::Gpt2) {  // no file: OpenAI's two files alone mean gpt2
    std::filesystem::remove(dir + "/pretokenizer.txt");
    return;
  }
  write_file_atomic(dir + "/pretokenizer.txt", pretokenizer_name(p) + "\n");
}

}  // namespace tinylm
