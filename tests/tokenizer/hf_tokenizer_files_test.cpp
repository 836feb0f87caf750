// A model folder's tokenizer files: GPT-2's as Hugging Face's files (vocab.json and
// merges.txt are GPT-2's encoder.json and vocab.bpe; tokenizer.json holds the same
// vocabulary and merges), and for any other vocabulary tinylm_tokenizer.json, which reads
// back to a tokenizer giving the same ids (a char vocabulary has no Hugging Face files).
#include "tokenizer/hf_tokenizer_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenizer/bpe_train.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/folder_tokenizer_files.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/load.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;

// A new empty folder under the test's temp folder.
std::string fresh_folder(const std::string& tag) {
  const std::string dir = ::testing::TempDir() + "/tinylm-tokenizer-files-" + tag;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The tokenizer tinylm reads the folder back with, when it stored one.
std::unique_ptr<Tokenizer> stored_tokenizer(const std::string& dir) {
  return tokenizer_from_json(read_json_file(dir + "/" + kTinylmTokenizerFile));
}

TEST(HfTokenizerFiles, Gpt2sAreItsOwnFiles) {
  const BpeTokenizer gpt2;
  const std::string out = fresh_folder("gpt2");
  write_hf_tokenizer_files(gpt2, 1024, out);
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/vocab.json")),
            nlohmann::json::parse(read_file(default_gpt2_dir() + "/encoder.json")));
  EXPECT_EQ(read_file(out + "/merges.txt"), read_file(default_gpt2_dir() + "/vocab.bpe"));
  const nlohmann::json t = read_json_file(out + "/tokenizer.json");
  EXPECT_EQ(t["model"]["type"], "BPE");
  EXPECT_EQ(t["model"]["vocab"].size(), 50257u);
  EXPECT_EQ(t["model"]["vocab"]["Hello"], 15496);
  EXPECT_EQ(t["model"]["merges"].size(), 50000u);
  EXPECT_EQ(t["model"]["merges"][0], "Ġ t");
  EXPECT_EQ(t["pre_tokenizer"]["type"], "ByteLevel");
  EXPECT_EQ(t["added_tokens"][0]["content"], "<|endoftext|>");
  EXPECT_EQ(t["added_tokens"][0]["id"], 50256);
  const nlohmann::json c = read_json_file(out + "/tokenizer_config.json");
  EXPECT_EQ(c["eos_token"], "<|endoftext|>");
  EXPECT_EQ(c["model_max_length"], 1024);
  EXPECT_EQ(c["tokenizer_class"], "GPT2Tokenizer");
  fs::remove_all(out);
}

// GPT-2's own vocabulary is what tinylm reads a folder with anyway: no tinylm file.
TEST(FolderTokenizerFiles, Gpt2sAreTheHuggingFaceFilesOnly) {
  const std::string out = fresh_folder("folder-gpt2");
  EXPECT_TRUE(write_folder_tokenizer_files(BpeTokenizer(), 64, out));
  EXPECT_TRUE(file_exists(out + "/tokenizer.json"));
  EXPECT_FALSE(file_exists(out + "/" + kTinylmTokenizerFile));
  fs::remove_all(out);
}

TEST(FolderTokenizerFiles, ATrainedBpeVocabularyHasBothAndReadsBack) {
  const BpeTrainResult r = train_bpe("the cat sat on the mat, the cat ate", {270, 1});
  const BpeTokenizer trained = BpeTokenizer::from_texts(bpe_encoder_json(r), bpe_merges_text(r),
                                                        "bpe", "trained", Pretokenizer::Gpt2);
  const std::string out = fresh_folder("folder-bpe");
  EXPECT_TRUE(write_folder_tokenizer_files(trained, 64, out));
  EXPECT_EQ(read_json_file(out + "/vocab.json").size(), static_cast<size_t>(trained.vocab_size()));
  EXPECT_EQ(read_json_file(out + "/tokenizer_config.json")["model_max_length"], 64);
  const std::string text = "the mat sat on a cat";
  EXPECT_EQ(stored_tokenizer(out)->encode(text), trained.encode(text));
  EXPECT_NE(trained.encode(text), BpeTokenizer().encode(text));  // not GPT-2's ids
  fs::remove_all(out);
}

// The letters-marks pre-tokeniser goes into tokenizer.json as a Split before ByteLevel
// (hf_pretokenizer_json.h), which tinylm's reader reads back to the same ids; its config
// names the fast tokenizer alone (GPT-2's slow one cuts text as GPT-2 does).
TEST(FolderTokenizerFiles, LettersMarksIsWrittenAsASplitBeforeByteLevel) {
  const BpeTrainResult r =
      train_bpe("the cat sat on the mat, café বাংলায়", {280, 1, Pretokenizer::LettersMarks});
  const BpeTokenizer trained = BpeTokenizer::from_texts(
      bpe_encoder_json(r), bpe_merges_text(r), "bpe", "trained", Pretokenizer::LettersMarks);
  const std::string out = fresh_folder("folder-letters-marks");
  EXPECT_TRUE(write_folder_tokenizer_files(trained, 64, out));
  const nlohmann::json t = read_json_file(out + "/tokenizer.json");
  EXPECT_EQ(t["pre_tokenizer"]["pretokenizers"][0]["type"], "Split");
  EXPECT_EQ(read_json_file(out + "/tokenizer_config.json")["tokenizer_class"],
            "PreTrainedTokenizerFast");
  const std::string text = "the mat sat on a cafe\u0301, বাংলায় 12";
  EXPECT_EQ(open_hf_json_tokenizer(out)->encode(text), trained.encode(text));
  fs::remove_all(out);
}

TEST(FolderTokenizerFiles, ACharVocabularyHasOnlyTinylmsFile) {
  const CharTokenizer chars = CharTokenizer::from_corpus("hello world");
  const std::string out = fresh_folder("folder-char");
  EXPECT_FALSE(write_folder_tokenizer_files(chars, 64, out));
  EXPECT_FALSE(file_exists(out + "/tokenizer.json"));
  const auto back = stored_tokenizer(out);
  EXPECT_EQ(back->kind(), "char");
  EXPECT_EQ(back->encode("low world"), chars.encode("low world"));
  fs::remove_all(out);
}

}  // namespace
}  // namespace tinylm
