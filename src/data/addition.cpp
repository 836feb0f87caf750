#include "data/addition.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenizer/addition_tokenizer.h"
#include "util/error.h"

namespace tinylm {

namespace {

using Tok = AdditionTokenizer;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t problem_hash(AdditionProblem p) {
  return splitmix64(1000ULL * p.a + p.b);
}

void check_operands(AdditionProblem p) {
  require(p.a >= 0 && p.a <= 999 && p.b >= 0 && p.b <= 999,
          "addition problem " + std::to_string(p.a) + "+" + std::to_string(p.b) +
              ": operands must be in [0, 999]");
}

// 3 digits, most significant first.
void append_operand(std::vector<int32_t>& ids, int x) {
  ids.push_back(x / 100);
  ids.push_back(x / 10 % 10);
  ids.push_back(x % 10);
}

std::vector<int32_t> answer_ids(AdditionProblem p) {
  std::vector<int32_t> ids;
  for (int s = p.a + p.b, i = 0; i < kAdditionAnswerLen; ++i, s /= 10) ids.push_back(s % 10);
  return ids;
}

}  // namespace

std::vector<int32_t> addition_prompt(AdditionProblem p) {
  check_operands(p);
  std::vector<int32_t> ids;
  ids.reserve(kAdditionSeqLen);
  append_operand(ids, p.a);
  ids.push_back(Tok::kPlus);
  append_operand(ids, p.b);
  ids.push_back(Tok::kEquals);
  return ids;
}

std::vector<int32_t> addition_sequence(AdditionProblem p) {
  std::vector<int32_t> ids = addition_prompt(p);
  for (int32_t d : answer_ids(p)) ids.push_back(d);
  ids.push_back(Tok::kEos);
  return ids;
}

std::string addition_answer(AdditionProblem p) {
  check_operands(p);
  return Tok().decode(answer_ids(p));
}

std::string addition_position_role(int64_t pos) {
  constexpr int64_t digits = (kAdditionPromptLen - 2) / 2;  // per operand
  static const char* const place[] = {"1s", "10s", "100s", "1000s"};
  if (pos < 0) return "";
  if (pos < digits) return std::string("a ") + place[digits - 1 - pos];
  if (pos == digits) return "+";
  if (pos < 2 * digits + 1) return std::string("b ") + place[2 * digits - pos];
  if (pos == 2 * digits + 1) return "=";
  const int64_t answer_digit = pos - kAdditionPromptLen;
  return answer_digit < kAdditionAnswerLen ? std::string("sum ") + place[answer_digit] : "";
}

std::string format_addition(AdditionProblem p, bool with_answer) {
  const std::vector<int32_t> seq = addition_sequence(p);
  const int64_t len = with_answer ? kAdditionPromptLen + kAdditionAnswerLen : kAdditionPromptLen;
  return Tok().decode(std::vector<int32_t>(seq.begin(), seq.begin() + len));
}

AdditionProblem parse_addition(std::string_view text) {
  const std::string bad = "not an addition problem \"" + std::string(text) +
                          "\" (expected ddd+ddd=, optionally followed by 4 answer digits)";
  std::vector<int32_t> ids;
  try {
    ids = Tok().encode(text);
  } catch (const InputError&) {
    throw InputError(bad);
  }
  const auto is_digit = [](int32_t id) { return id >= 0 && id <= 9; };
  const size_t n = ids.size();
  const bool shape_ok = n == kAdditionPromptLen || n == kAdditionPromptLen + kAdditionAnswerLen ||
                        (n == kAdditionSeqLen && ids.back() == Tok::kEos);
  require(shape_ok && ids[3] == Tok::kPlus && ids[7] == Tok::kEquals, bad);
  for (size_t i = 0; i < std::min<size_t>(n, kAdditionPromptLen + kAdditionAnswerLen); ++i) {
    if (i != 3 && i != 7) require(is_digit(ids[i]), bad);
  }
  return {ids[0] * 100 + ids[1] * 10 + ids[2], ids[4] * 100 + ids[5] * 10 + ids[6]};
}

bool is_correct_answer(AdditionProblem p, const std::vector<int32_t>& answer) {
  if (answer.size() != kAdditionAnswerLen &&
      !(answer.size() == kAdditionAnswerLen + 1 && answer.back() == Tok::kEos)) {
    return false;
  }
  return std::equal(answer.begin(), answer.begin() + kAdditionAnswerLen, answer_ids(p).begin());
}

bool is_correct_answer(AdditionProblem p, std::string_view answer) {
  try {
    return is_correct_answer(p, Tok().encode(answer));
  } catch (const InputError&) {
    return false;
  }
}

bool is_held_out(AdditionProblem p) {
  return problem_hash(p) % 100 == 0;
}

AdditionProblem sample_training_problem(Rng& rng) {
  for (;;) {
    const AdditionProblem p{static_cast<int>(rng.below(1000)), static_cast<int>(rng.below(1000))};
    if (!is_held_out(p)) return p;
  }
}

Batch addition_batch(const std::vector<AdditionProblem>& problems, bool supervise_all) {
  const int64_t first_supervised = supervise_all ? 0 : kAdditionFirstSupervised;
  const int64_t B = static_cast<int64_t>(problems.size()), T = kAdditionBlockSize;
  Batch batch{B, T, std::vector<int32_t>(B * T), std::vector<int32_t>(B * T)};
  for (int64_t r = 0; r < B; ++r) {
    const std::vector<int32_t> seq = addition_sequence(problems[r]);
    for (int64_t t = 0; t < T; ++t) {
      batch.inputs[r * T + t] = seq[t];
      batch.targets[r * T + t] = t < first_supervised ? kIgnoreTarget : seq[t + 1];
    }
  }
  return batch;
}

Batch addition_training_batch(int64_t B, Rng& rng, bool supervise_all) {
  require(B >= 1, "batch size must be at least 1");
  std::vector<AdditionProblem> problems(B);
  for (auto& p : problems) p = sample_training_problem(rng);
  return addition_batch(problems, supervise_all);
}

namespace {

// All held-out problems sorted by hash (splitmix64 is a bijection, so there are no ties).
// Computed once; read-only afterwards.
const std::vector<AdditionProblem>& all_held_out() {
  static const std::vector<AdditionProblem> problems = [] {
    std::vector<std::pair<uint64_t, AdditionProblem>> keyed;
    for (int a = 0; a < 1000; ++a) {
      for (int b = 0; b < 1000; ++b) {
        if (is_held_out({a, b})) keyed.push_back({problem_hash({a, b}), {a, b}});
      }
    }
    std::sort(keyed.begin(), keyed.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<AdditionProblem> out;
    for (const auto& [h, p] : keyed) out.push_back(p);
    return out;
  }();
  return problems;
}

}  // namespace

int64_t num_held_out_problems() {
  return static_cast<int64_t>(all_held_out().size());
}

std::vector<AdditionProblem> held_out_problems(int64_t n) {
  const std::vector<AdditionProblem>& all = all_held_out();
  require(n >= 0 && n <= static_cast<int64_t>(all.size()),
          "cannot take " + std::to_string(n) + " held-out addition problems: there are " +
              std::to_string(all.size()));
  return std::vector<AdditionProblem>(all.begin(), all.begin() + n);
}

}  // namespace tinylm
