// The folder bpe-train writes: its tokenizer.json, read by tinylm's tokenizer.json reader
// (which reads as transformers.js does), gives the same ids as its encoder.json and
// vocab.bpe, for both pre-tokenisers, on texts mixing scripts, combining marks, whitespace
// runs, digits, contractions and <|endoftext|>; and decodes them to the same text.
#include "tokenizer/bpe_train_folder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "util/files.h"
#include "util/rng.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;

// The Verdict and the start of the Bengali corpus: Latin, Bengali with its marks, digits.
std::string small_corpus() {
  const std::string data = std::string(tinylm::source_dir()) + "/data/";
  std::string bangla = read_file(data + "bangla.txt");
  bangla.resize(bangla.find('\n', 20000));
  return read_file(data + "the-verdict.txt") + "<|endoftext|>" + bangla;
}

// A folder of this test's own (ctest runs the tests of this file in parallel processes).
std::string own_folder(const std::string& name) {
  return ::testing::TempDir() + "/tinylm-bpe-train-folder-" + name + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
         std::to_string(::getpid());
}

// A vocabulary of 600 tokens trained on small_corpus() into a fresh folder.
std::string trained_folder(Pretokenizer p) {
  const std::string dir = own_folder(pretokenizer_name(p));
  fs::remove_all(dir);
  write_bpe_train_folder(train_bpe(small_corpus(), {600, 2, p}), p, dir);
  return dir;
}

// A table (clang-format would put each string ending in \n on a line of its own).
// clang-format off
const std::vector<std::string> kFragments = {
    "the", " the", "Hello", " world", "I", "don't", "they're", " we'll", "'S", "'", "''",
    " ", "  ", "   ", "\n", "\n\n", "\t", " \n", "\n ", "\r\n", " \t ", "\u00a0", "\u3000",
    "\u2003", "\u2028", "\u000b", "\f", "\u200b", "\u180e", "0", "42", " 1234567", "3.14",
    "১২৩", "আমি", " বাংলায়", "গান", "ক্ষ", "র‌্যাব", "।", "cafe\u0301", "e\u0301\u0302",
    "\u0301", "αβγ", " Привет", "中文", "日本語", "😀", "👍🏽", "...", "—", " ?!", "<|",
    "<|endoftext|>", " <|endoftext|> ", "|>", "naïve", "Ⅻ", "½", "ﬁ"};
// clang-format on

// Every fragment alone and every pair of them, and 1,000 runs of 2 to 12 (seed 1).
std::vector<std::string> mixed_texts() {
  std::vector<std::string> out;
  for (const std::string& a : kFragments) {
    out.push_back(a);
    for (const std::string& b : kFragments) out.push_back(a + b);
  }
  Rng rng(1);
  for (int i = 0; i < 1000; ++i) {
    std::string t;
    for (uint64_t n = 2 + rng.below(11); n > 0; --n) t += kFragments[rng.below(kFragments.size())];
    out.push_back(t);
  }
  return out;
}

void expect_same_ids(Pretokenizer p, const std::vector<std::string>& cases) {
  const std::string dir = trained_folder(p);
  const BpeTokenizer bpe(dir, "bpe");
  const auto hf = open_hf_json_tokenizer(dir);
  ASSERT_EQ(hf->vocab_size(), bpe.vocab_size());
  ASSERT_EQ(hf->eot_id(), bpe.eot_id());
  size_t failed = 0;
  for (const std::string& text : cases) {
    const std::vector<int32_t> ids = bpe.encode(text);
    EXPECT_EQ(hf->encode(text), ids) << "text: " << nlohmann::json(text).dump();
    EXPECT_EQ(hf->encode(text, true), ids) << "text: " << nlohmann::json(text).dump();
    EXPECT_EQ(hf->decode(ids), bpe.decode(ids)) << "text: " << nlohmann::json(text).dump();
    failed += hf->encode(text) != ids;
    ASSERT_LT(failed, 10u) << "more than 10 texts differ";
  }
  fs::remove_all(dir);
}

TEST(BpeTrainFolder, Gpt2sTokenizerJsonGivesTheSameIds) {
  expect_same_ids(Pretokenizer::Gpt2, mixed_texts());
}

TEST(BpeTrainFolder, LettersMarksTokenizerJsonGivesTheSameIds) {
  std::vector<std::string> cases = mixed_texts();
  // Exact here: the pattern spells its whitespace out (hf_pretokenizer_json.h).
  for (const char* t : {"a\u0085b", "a \u0085 b", "\u0085\u0085x", "a\ufeffb", " \ufeff x"})
    cases.push_back(t);
  expect_same_ids(Pretokenizer::LettersMarks, cases);
}

// The one difference (hf_pretokenizer_json.h): gpt2's ByteLevel regex, read as
// transformers.js reads it, takes U+FEFF for a space, so " \uFEFF" (one piece for GPT-2,
// merged into one token here) is cut in two. letters-marks spells its spaces out.
TEST(BpeTrainFolder, Gpt2sByteLevelCutsUFEFFAsJavaScriptDoes) {
  std::string corpus;
  for (int i = 0; i < 50; ++i) corpus += "a \uFEFFb ";
  for (const Pretokenizer p : {Pretokenizer::Gpt2, Pretokenizer::LettersMarks}) {
    const std::string dir = own_folder("feff");
    write_bpe_train_folder(train_bpe(corpus, {270, 1, p}), p, dir);
    const std::vector<int32_t> ids = BpeTokenizer(dir, "bpe").encode("a \uFEFFb");
    if (p == Pretokenizer::Gpt2)
      EXPECT_NE(open_hf_json_tokenizer(dir)->encode("a \uFEFFb"), ids);
    else
      EXPECT_EQ(open_hf_json_tokenizer(dir)->encode("a \uFEFFb"), ids);
    fs::remove_all(dir);
  }
}

TEST(BpeTrainFolder, WritesHuggingFacesFilesBesideOpenAIs) {
  const std::string dir = trained_folder(Pretokenizer::LettersMarks);
  for (const char* f :
       {"encoder.json", "vocab.bpe", "pretokenizer.txt", "tokenizer.json", "tokenizer_config.json"})
    EXPECT_TRUE(file_exists(dir + "/" + f)) << f;
  const nlohmann::json t = nlohmann::json::parse(read_file(dir + "/tokenizer.json"));
  EXPECT_EQ(t["model"]["type"], "BPE");
  EXPECT_EQ(t["model"]["vocab"].size(), 600u);  // <|endoftext|> too, as in GPT-2's
  EXPECT_EQ(t["model"]["merges"].size(), 343u);
  EXPECT_FALSE(t["model"]["byte_fallback"].get<bool>());
  EXPECT_EQ(t["added_tokens"][0]["content"], "<|endoftext|>");
  EXPECT_EQ(t["added_tokens"][0]["id"], 599);
  EXPECT_TRUE(t["added_tokens"][0]["special"].get<bool>());
  EXPECT_EQ(t["pre_tokenizer"]["type"], "Sequence");
  EXPECT_EQ(t["pre_tokenizer"]["pretokenizers"][0]["type"], "Split");
  EXPECT_EQ(t["pre_tokenizer"]["pretokenizers"][1]["type"], "ByteLevel");
  EXPECT_FALSE(t["pre_tokenizer"]["pretokenizers"][1]["use_regex"].get<bool>());
  EXPECT_EQ(t["decoder"]["type"], "ByteLevel");
  const nlohmann::json c = nlohmann::json::parse(read_file(dir + "/tokenizer_config.json"));
  EXPECT_EQ(c["tokenizer_class"], "PreTrainedTokenizerFast");
  EXPECT_EQ(c["eos_token"], "<|endoftext|>");
  EXPECT_FALSE(c["clean_up_tokenization_spaces"].get<bool>());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm
