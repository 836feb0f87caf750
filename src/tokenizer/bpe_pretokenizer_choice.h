// Which pre-tokeniser cuts text into pieces before BPE (for bpe-train and the encoder):
//   gpt2           GPT-2's pattern, exactly (bpe_pretokenize.h): ... ?\p{L}+ ... . A
//                  combining mark (\p{M}: Bengali vowel signs, virama, accents written
//                  as separate code points) is not a letter, so it ends a word piece:
//                  "বাংলা" splits at every vowel sign and merges can never cross them.
//   letters-marks  the same pattern with marks joined to letters, as OpenAI's later
//                  encodings do: ... ?[\p{L}\p{M}]+ ... ?[^\s\p{L}\p{M}\p{N}]+ ...
//                  (PCRE2, bpe_pretokenize_pcre.h). On text without marks it cuts
//                  exactly as gpt2 does.
// A vocabulary folder trained with letters-marks holds pretokenizer.txt naming it, so
// BpeTokenizer(dir) encodes with the pre-tokeniser it was trained with; without that
// file a folder is gpt2 (OpenAI's files, tiktoken-exact).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_pretokenize.h"

namespace tinylm {

enum class Pretokenizer { Gpt2, LettersMarks };

// "gpt2" | "letters-marks"; InputError naming anything else.
Pretokenizer parse_pretokenizer(const std::string& name);
std::string pretokenizer_name(Pretokenizer p);

// The letters-marks pattern for PCRE2.
extern const char* const kLettersMarksPatternPcre;

// The pieces of text under the letters-marks pattern (views into text).
std::vector<std::string_view> letters_marks_pieces(std::string_view text);

template <class Emit>
void split_pieces(Pretokenizer p, std::string_view text, Emit&& emit) {
  if (p == Pretokenizer::Gpt2) {
    gpt2_split(text, emit);
    return;
  }
  for (std::string_view piece : letters_marks_pieces(text)) emit(piece);
}

// The pre-tokeniser a vocabulary folder names (dir/pretokenizer.txt), gpt2 if none.
Pretokenizer read_pretokenizer(const std::string& dir);
// Writes dir/pretokenizer.txt for letters-marks; for gpt2 removes it (a gpt2 folder is
// OpenAI's two files alone).
void write_pretokenizer(const std::string& dir, Pretokenizer p);

}  // namespace tinylm
