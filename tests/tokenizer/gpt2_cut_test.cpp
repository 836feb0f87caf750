// GPT-2's BPE cut to fewer ids (tokenizer/gpt2_cut.h): the full cut is GPT-2 itself, a
// smaller one keeps GPT-2's ids below the cut and round-trips every text.
#include "tokenizer/gpt2_cut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenizer/load.h"
#include "util/error.h"

namespace tinylm {
namespace {

const char* kText =
    "First Citizen:\nBefore we proceed any further, hear me speak. 12345 naïve café 日本語 "
    "🙂\n";

TEST(Gpt2Cut, TheWholeVocabularyIsGpt2) {
  const BpeTokenizer gpt2;
  const BpeTokenizer cut = gpt2_tokenizer_cut_to(gpt2.vocab_size());
  EXPECT_EQ(cut.encode(kText), gpt2.encode(kText));
  EXPECT_EQ(cut.eot_id(), 50256);
}

TEST(Gpt2Cut, ASmallerVocabularyKeepsTheIdsBelowTheCut) {
  const BpeTokenizer gpt2;
  const BpeTokenizer cut = gpt2_tokenizer_cut_to(49152);
  EXPECT_EQ(cut.vocab_size(), 49152);
  EXPECT_EQ(cut.eot_id(), 49151);
  const std::vector<int32_t> ids = cut.encode(kText);
  EXPECT_EQ(cut.decode(ids), kText);
  EXPECT_LT(*std::max_element(ids.begin(), ids.end()), 49151);
  for (int32_t id : gpt2.encode("the cat sat on the mat"))  // common words: early merges
    EXPECT_LT(id, 49151);
  EXPECT_EQ(cut.encode("the cat sat on the mat"), gpt2.encode("the cat sat on the mat"));
  EXPECT_EQ(cut.encode("<|endoftext|>"), std::vector<int32_t>{49151});
}

TEST(Gpt2Cut, ItsJsonRebuildsIt) {
  const BpeTokenizer cut = gpt2_tokenizer_cut_to(1000);
  const auto back = tokenizer_from_json(cut.to_json());
  EXPECT_EQ(back->vocab_size(), 1000);
  EXPECT_EQ(back->encode(kText), cut.encode(kText));
}

TEST(Gpt2Cut, OutOfRangeSizesAreRefused) {
  EXPECT_THROW(gpt2_tokenizer_cut_to(256), InputError);
  EXPECT_THROW(gpt2_tokenizer_cut_to(50258), InputError);
}

}  // namespace
}  // namespace tinylm
