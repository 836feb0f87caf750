// Raschka chapter 2 on the-verdict.txt with GPT-2 BPE: the pairs, the first batch and the
// embedding shapes the book prints.
#include "course/data_walkthrough.h"

#include <gtest/gtest.h>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::course {
namespace {

std::string verdict() {
  return read_file(std::string(tinylm::source_dir()) + "/data/the-verdict.txt");
}

TEST(DataWalkthrough, VerdictPairsFromToken50) {
  const BpeTokenizer tok;
  const std::vector<int32_t> ids = tok.encode(verdict());
  EXPECT_EQ(ids.size(), 5145u);
  const auto pairs = context_target_pairs(tok, ids, 50, 4);
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0].context, (std::vector<int32_t>{290}));
  EXPECT_EQ(pairs[0].target, 4920);
  EXPECT_EQ(pairs[3].context, (std::vector<int32_t>{290, 4920, 2241, 287}));
  EXPECT_EQ(pairs[3].target, 257);
  EXPECT_EQ(pairs[0].context_text + " -> " + pairs[0].target_text, "and -> established");
  EXPECT_EQ(pairs[1].context_text + " -> " + pairs[1].target_text, "and established -> himself");
  EXPECT_EQ(pairs[2].target_text, "in");
  EXPECT_EQ(pairs[3].target_text, "a");
}

TEST(DataWalkthrough, VerdictFirstBatchAndEmbeddingShapes) {
  const BpeTokenizer tok;
  const std::vector<int32_t> ids = tok.encode(verdict());
  SlidingWindowOptions o;  // max_length 4, stride 4, batch 8, no shuffle
  const SlidingWindows w(ids, o);
  const Batch b = w.batch(0);
  EXPECT_EQ(std::vector<int32_t>(b.inputs.begin(), b.inputs.begin() + 8),
            (std::vector<int32_t>{40, 367, 2885, 1464, 1807, 3619, 402, 271}));
  EXPECT_EQ(std::vector<int32_t>(b.targets.begin(), b.targets.begin() + 4),
            (std::vector<int32_t>{367, 2885, 1464, 1807}));
  EXPECT_EQ(std::vector<int32_t>(b.inputs.end() - 4, b.inputs.end()),
            (std::vector<int32_t>{284, 3285, 326, 11}));
  const EmbeddingShapes s = embed_batch(b, tok.vocab_size(), 256, 123);
  EXPECT_EQ(s.token, (std::vector<int64_t>{8, 4, 256}));
  EXPECT_EQ(s.position, (std::vector<int64_t>{4, 256}));
  EXPECT_EQ(s.input, (std::vector<int64_t>{8, 4, 256}));
}

TEST(DataWalkthrough, PrintoutOnAnyTokenizer) {
  const std::string text = verdict();
  const CharTokenizer tok = CharTokenizer::from_corpus(text);
  DataWalkthroughOptions opt;
  opt.from = 0;
  opt.context = 3;
  opt.windows.batch_size = 2;
  opt.d_model = 16;
  const std::string out = data_walkthrough(tok, text, "verdict", opt);
  EXPECT_NE(out.find("I -> H"), std::string::npos) << out;  // "I HAD always": 'I', ' ', 'H'
  EXPECT_NE(out.find("-> [2, 4, 16]"), std::string::npos) << out;
  EXPECT_NE(out.find("20,479 characters"), std::string::npos) << out;
}

}  // namespace
}  // namespace tinylm::course
