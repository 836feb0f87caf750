// tinylm finetune --task classify, classify and eval on a tiny GPT and a labelled file
// written here; a classify run given to respond (and an instruct run to classify) and
// bad data exit 2 and write nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

std::string settings_file(const std::string& dir, const nlohmann::json& settings) {
  const std::string path = dir + "/settings.json";
  write_file_atomic(path, settings.dump(2));
  return path;
}

TEST(FinetuneClassifyCli, TrainsClassifiesAndEvaluates) {
  const std::string tmp = fresh_dir("ft-classify-cli");
  const std::string data = write_spam_file(tmp + "/spam.tsv", 45);
  const std::string run = tmp + "/run";
  const RunResult r = run_tinylm(
      "finetune --task classify --base gpt2-124m --data " + data + " --out " + run + " --config " +
      settings_file(tmp, tiny_classify_settings()) + " --set finetune.pooling=mean");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("accuracy before training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("accuracy after training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("confusion"), std::string::npos) << r.output;
  EXPECT_TRUE(file_exists(run + "/hf/config.json"));

  RunResult c = run_tinylm("classify --run " + run +
                           " --text 'claim your free prize now' --text 'see you at lunch'");
  ASSERT_EQ(c.code, 0) << c.output;
  // two lines: label TAB probability TAB text
  EXPECT_EQ(std::count(c.output.begin(), c.output.end(), '\n'), 2) << c.output;
  EXPECT_TRUE(c.output.rfind("ham\t", 0) == 0 || c.output.rfind("spam\t", 0) == 0) << c.output;
  // Every text is checked before any is classified: a bad second one prints no line.
  c = run_tinylm("classify --run " + run + " --text 'see you at lunch' --text ''");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("an empty text"), std::string::npos) << c.output;
  EXPECT_EQ(c.output.find("see you at lunch"), std::string::npos) << c.output;
  write_file_atomic(tmp + "/texts.txt", "win a car\nthanks for the notes\nurgent call now\n");
  c = run_tinylm("classify --run " + run + " --input " + tmp + "/texts.txt");
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_EQ(std::count(c.output.begin(), c.output.end(), '\n'), 3) << c.output;
  // A folder as --input, and a column index past any integer,
  // exit 2 naming them.
  c = run_tinylm("classify --run " + run + " --input " + tmp);
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find(tmp + " is a folder, not a file"), std::string::npos) << c.output;
  c = run_tinylm("classify --run " + run + " --input " + tmp +
                 "/texts.txt --text-column 99999999999999999999");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("text column index must be in [0, 2147483647]"), std::string::npos)
      << c.output;

  const RunResult e = run_tinylm("eval --run " + run);
  ASSERT_EQ(e.code, 0) << e.output;
  for (const char* s : {"train accuracy", "val accuracy", "test accuracy"})
    EXPECT_NE(e.output.find(s), std::string::npos) << e.output;

  // The wrong verb for the task: exit 2, naming the right one.
  const RunResult wrong = run_tinylm("respond --run " + run + " --instruction hi");
  EXPECT_EQ(wrong.code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("tinylm classify"), std::string::npos) << wrong.output;
  fs::remove_all(tmp);
}

TEST(FinetuneClassifyCli, AnInstructRunIsNotAClassifier) {
  const std::string tmp = fresh_dir("ft-classify-wrong");
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  nlohmann::json s = tiny_instruct_settings();
  s["finetune"]["max_steps"] = 1;
  s["finetune"]["write_responses"] = false;
  const RunResult r =
      run_tinylm("finetune --task instruct --base gpt2-124m --data " + data + " --out " + tmp +
                 "/run --quiet --config " + settings_file(tmp, s));
  ASSERT_EQ(r.code, 0) << r.output;
  const RunResult c = run_tinylm("classify --run " + tmp + "/run --text hello");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("tinylm respond"), std::string::npos) << c.output;
  // and a classify finetune into the instruct run's folder is refused, the run kept
  const std::string before = read_file(tmp + "/run/last.safetensors");
  const RunResult into =
      run_tinylm("finetune --task classify --base gpt2-124m --data " +
                 write_spam_file(tmp + "/spam.tsv", 30) + " --out " + tmp + "/run");
  EXPECT_EQ(into.code, 2) << into.output;
  EXPECT_EQ(read_file(tmp + "/run/last.safetensors"), before);
  fs::remove_all(tmp);
}

TEST(FinetuneClassifyCli, BadDataExitsTwo) {
  const std::string tmp = fresh_dir("ft-classify-bad");
  const std::string cfg = settings_file(tmp, tiny_classify_settings());
  const auto finetune = [&](const std::string& data, const std::string& extra = "") {
    return run_tinylm("finetune --task classify --base gpt2-124m --config " + cfg + " --data " +
                      data + " --out " + tmp + "/run " + extra);
  };
  write_file_atomic(tmp + "/no-text.csv", "label,body\nham,hello\nspam,win\n");
  RunResult r = finetune(tmp + "/no-text.csv", "--set finetune.text_column=text");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("text"), std::string::npos) << r.output;
  write_file_atomic(tmp + "/no-label.jsonl", "{\"text\": \"hello\"}\n");
  r = finetune(tmp + "/no-label.jsonl");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("label"), std::string::npos) << r.output;
  write_file_atomic(tmp + "/unknown.tsv", "ham\thello\nspam\twin\nmaybe\tperhaps\n");
  r = finetune(tmp + "/unknown.tsv", "--set finetune.labels=ham,spam");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("maybe"), std::string::npos) << r.output;
  write_file_atomic(tmp + "/empty.tsv", "ham\thello\nspam\t\n");
  r = finetune(tmp + "/empty.tsv");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("empty text"), std::string::npos) << r.output;
  // A folder, and a key given twice in a JSONL line.
  fs::create_directories(tmp + "/folder");
  r = finetune(tmp + "/folder");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(tmp + "/folder is a folder, not a file"), std::string::npos) << r.output;
  write_file_atomic(tmp + "/twice.jsonl",
                    "{\"text\": \"hi\", \"label\": \"ham\"}\n"
                    "{\"text\": \"win\", \"label\": \"ham\", \"label\": \"spam\"}\n");
  r = finetune(tmp + "/twice.jsonl");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(tmp + "/twice.jsonl:2: duplicate key \"label\""), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp + "/run"));
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tinylm::testing
