// tinylm bpe-train end to end: the written folder is a tokenizer that tokenize, prepare
// and training configs accept, its tokenizer.json gives the same ids, and bad input is one
// message with exit code 2.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_test_util.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

TEST(BpeTrainCli, WritesAVocabularyThatTokenizeRoundTrips) {
  const std::string dir = fresh_dir("bpe-train");
  auto r = run_tinylm("bpe-train --corpus data/the-verdict.txt --vocab-size 400 --out " + dir + "/bpe");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("143 merges, vocabulary of 400 tokens"), std::string::npos) << r.output;

  // Encode then decode the corpus with the new vocabulary: the same bytes come back.
  const std::string vocab = " --tokenizer bpe --vocab-dir " + dir + "/bpe";
  auto ids = run_tinylm("tokenize" + vocab + " --input data/the-verdict.txt --ids");
  ASSERT_EQ(ids.code, 0) << ids.output;
  std::ofstream(dir + "/ids.txt") << ids.output;
  auto text = run_tinylm("tokenize" + vocab + " --decode --input " + dir + "/ids.txt");
  ASSERT_EQ(text.code, 0) << text.output;
  const std::string corpus = read_file(std::string(tinylm::source_dir()) + "/data/the-verdict.txt");
  EXPECT_EQ(text.output.substr(0, corpus.size()), corpus);

  // The tokenizer.json beside them (tokenize --tokenizer DIR reads it) gives the same ids.
  auto hf_ids =
      run_tinylm("tokenize --tokenizer " + dir + "/bpe --input data/the-verdict.txt --ids");
  ASSERT_EQ(hf_ids.code, 0) << hf_ids.output;
  EXPECT_EQ(hf_ids.output, ids.output);
  std::filesystem::remove_all(dir);
}

// The whole path for a new corpus: train a vocabulary, tokenise the corpus once, train a
// model on the token files, evaluate it and sample text from it.
TEST(BpeTrainCli, TrainedVocabularyPreparesDataThatTrainsAModel) {
  const std::string dir = fresh_dir("bpe-pipeline");
  ASSERT_EQ(run_tinylm("bpe-train --corpus data/the-verdict.txt --vocab-size 512 --out " + dir + "/bpe").code, 0);
  auto prep = run_tinylm("prepare --tokenizer " + dir + "/bpe --input data/the-verdict.txt --out " + dir + "/data");
  ASSERT_EQ(prep.code, 0) << prep.output;
  std::ofstream(dir + "/cfg.json") << R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": ")" << dir << R"(/data"},
  "train": {"batch_size": 4, "max_steps": 10, "warmup_steps": 2, "eval_interval": 5,
            "eval_iters": 2, "log_interval": 5, "checkpoint_interval": 5},
  "sample": {"max_new_tokens": 0}
})";
  auto train = run_tinylm("train --quiet --config " + dir + "/cfg.json --out " + dir + "/run");
  ASSERT_EQ(train.code, 0) << train.output;
  auto eval = run_tinylm("eval --run " + dir + "/run");
  EXPECT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find(dir + "/data (validation split)"), std::string::npos) << eval.output;
  auto sample = run_tinylm("sample --run " + dir + "/run --prompt 'I had' --max-new-tokens 5 --seed 1");
  EXPECT_EQ(sample.code, 0) << sample.output;
  EXPECT_EQ(sample.output.rfind("I had", 0), 0u) << sample.output;
  // A config naming another tokenizer than the folder's is refused.
  auto wrong = run_tinylm("train --config " + dir + "/cfg.json --out " + dir + "/run2 --set data.tokenizer=gpt2");
  EXPECT_EQ(wrong.code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("was prepared with the bpe tokenizer"), std::string::npos) << wrong.output;
  std::filesystem::remove_all(dir);
}

TEST(BpeTrainCli, BadInputIsExitCode2AndWritesNothing) {
  const std::string dir = fresh_dir("bpe-train-bad");
  std::ofstream(dir + "/latin1.txt") << "caf\xE9";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--corpus data/the-verdict.txt --vocab-size 100", "at least 257"},
           {"--corpus " + dir + "/missing.txt --vocab-size 300", "missing.txt"},
           {"--corpus " + dir + "/latin1.txt --vocab-size 300", "invalid UTF-8 at byte 3"},
       }) {
    auto r = run_tinylm("bpe-train " + args + " --out " + dir + "/out");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
