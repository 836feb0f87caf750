// tokenizer_from_json / tokenizer_for_corpus (tokenizer/load.h): every kind round-trips.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "data/test_util.h"
#include "tokenizer/load.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::repo_path;

TEST(TokenizerLoad, CharAndWordRoundTripThroughJson) {
  const std::string text = load_corpus(repo_path("data/the-verdict.txt"));
  for (const char* kind : {"char", "word", "addition"}) {
    const auto tok = tokenizer_for_corpus(kind, text);
    EXPECT_EQ(tok->kind(), kind);
    const auto back = tokenizer_from_json(nlohmann::json::parse(tok->to_json().dump()));
    EXPECT_EQ(back->kind(), kind);
    EXPECT_EQ(back->vocab_size(), tok->vocab_size());
    EXPECT_EQ(back->eot_id(), tok->eot_id());
    if (std::string(kind) != "addition") {
      EXPECT_EQ(back->encode(text), tok->encode(text));
    }
  }
}

TEST(TokenizerLoad, UnknownKindIsInputError) {
  EXPECT_NE(input_error([] {
              tokenizer_from_json({{"kind", "sentencepiece"}});
            }).find("unknown kind \"sentencepiece\""),
            std::string::npos);
  EXPECT_THROW(tokenizer_from_json({{"chars", "ab"}}), InputError);
  EXPECT_THROW(tokenizer_from_json({{"kind", 3}}), InputError);
  EXPECT_THROW(tokenizer_for_corpus("bytes", "abc"), InputError);
}

}  // namespace
}  // namespace tinylm
