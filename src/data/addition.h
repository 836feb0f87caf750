// The 3-digit addition task: a + b with a, b in [0, 999], learned by a tiny transformer
// (the course's 17,760-parameter model). Token ids are AdditionTokenizer's
// (tokenizer/addition_tokenizer.h): '0'..'9' = 0..9, '+' = 10, '=' = 11, <PAD> = 12,
// <EOS> = 13.
//
// A problem is a 13-token sequence: a in 3 digits (zero-padded, most significant first),
// '+', b likewise, '=', the sum in 4 digits LEAST significant first (zero-padded), <EOS>.
//
//   pos:   0 1 2 3 4 5 6 7 8 9 10 11 12
//   123+456:  1 2 3 + 4 5 6 = 9 7 5  0  <EOS>        text "123+456=9750"
//
// Training example: inputs = seq[0:12], targets = seq[1:13] (12 positions). Only the
// answer is supervised: positions 7..11, whose inputs are '=' and the answer digits and
// whose targets are the 4 answer digits and <EOS> (5 positions). Positions 0..6 (targets
// a's 2nd and 3rd digit, '+', b's three digits and '=') have target kIgnoreTarget (-100).
//
// Held-out problems: (a, b) is held out when splitmix64(1000*a + b) % 100 == 0 — a fixed
// hash, so about 1% of the 1,000,000 pairs (10,000 or so) are held out, the same in every
// run, and the training generator never produces one (it redraws).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/batch.h"
#include "util/rng.h"

namespace tinylm {

constexpr int64_t kAdditionSeqLen = 13;          // a + b = answer <EOS>
constexpr int64_t kAdditionBlockSize = 12;       // inputs / targets per example
constexpr int64_t kAdditionPromptLen = 8;        // "aaa+bbb=", what a model is given
constexpr int64_t kAdditionAnswerLen = 4;        // sum digits, least significant first
constexpr int64_t kAdditionFirstSupervised = 7;  // positions 7..11 carry a loss

struct AdditionProblem {
  int a = 0, b = 0;  // each in [0, 999]
  bool operator==(const AdditionProblem&) const = default;
};

// The 13 ids of a problem (see above). Throws InputError if a or b is outside [0, 999].
std::vector<int32_t> addition_sequence(AdditionProblem p);
// The first 8 ids, "aaa+bbb=": the prompt a model completes.
std::vector<int32_t> addition_prompt(AdditionProblem p);
// The 4 answer digits of the sum, least significant first: 579 -> "9750".
std::string addition_answer(AdditionProblem p);

// "123+456=9750" (with_answer) or "123+456=" — the text AdditionTokenizer encodes (the
// full sequence is that text plus "<EOS>").
std::string format_addition(AdditionProblem p, bool with_answer = true);
// Parses "ddd+ddd=" optionally followed by an answer of 4 digits and optionally <EOS>;
// the answer is not checked (see is_correct_answer). Throws InputError otherwise.
AdditionProblem parse_addition(std::string_view text);

// What position pos of a problem's sequence holds, as a trace labels it: "a 100s",
// "a 10s", "a 1s", "+", "b 100s", "b 10s", "b 1s", "=", then the answer digits "sum 1s"
// .. "sum 1000s" (least significant first); "" past the answer (or before position 0).
std::string addition_position_role(int64_t pos);

// True when `answer` is a + b: 4 digit ids, least significant first, optionally followed
// by <EOS>. Anything else (wrong digits, a non-digit, wrong length) is false.
bool is_correct_answer(AdditionProblem p, const std::vector<int32_t>& answer);
// The same for answer text: "9750" or "9750<EOS>".
bool is_correct_answer(AdditionProblem p, std::string_view answer);

bool is_held_out(AdditionProblem p);
// A uniformly random training problem (never held out).
AdditionProblem sample_training_problem(Rng& rng);
// B training examples: Batch{B, T = 12} with targets masked as described above, or
// (supervise_all, the course chapter's choice) every one of the 12 positions supervised.
Batch addition_training_batch(int64_t B, Rng& rng, bool supervise_all = false);
// The same layout for given problems (e.g. held-out ones, for evaluation loss).
Batch addition_batch(const std::vector<AdditionProblem>& problems, bool supervise_all = false);
// The first n held-out problems in a fixed scrambled order (sorted by their hash), so any
// n gives a spread of problems; the same every time. n must not exceed
// num_held_out_problems().
std::vector<AdditionProblem> held_out_problems(int64_t n);
int64_t num_held_out_problems();

}  // namespace tinylm
