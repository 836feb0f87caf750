// `tinylm tokenize --tokenizer PATH` with a Hugging Face tokenizer.json: ids, BOS with
// --add-special-tokens, --decode with and without special tokens, --check, and the
// refusals (a missing file, a file with an unknown component: exit 2 naming it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

// A SentencePiece-style BPE in Llama 2's shape, with a tokenizer_config.json.
constexpr const char* kHfCliTokenizer = R"({
  "added_tokens": [
    {"id": 0, "content": "<unk>", "special": true},
    {"id": 1, "content": "<s>", "special": true},
    {"id": 2, "content": "</s>", "special": true}],
  "normalizer": {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "\u2581"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
    "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "\u2581": 3, "h": 4, "i": 5, "\u2581h": 6, "\u2581hi": 7},
    "merges": ["\u2581 h", ["\u2581h", "i"]]}
})";

struct HfCliFolder {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tinylm-hf-cli-" + std::to_string(::getpid()));
  HfCliFolder() {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "tokenizer.json") << kHfCliTokenizer;
    std::ofstream(dir / "tokenizer_config.json")
        << R"({"add_bos_token": true, "bos_token": "<s>"})";
  }
  ~HfCliFolder() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

TEST(HfJsonCli, EncodesDecodesAndChecks) {
  const HfCliFolder f;
  const std::string in = f.write("in.txt", "hi hi");
  RunResult r = run_tinylm("tokenize --tokenizer " + f.dir.string() + " --input " + in);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "7 7\n");
  r = run_tinylm("tokenize --tokenizer " + (f.dir / "tokenizer.json").string() +
                 " --add-special-tokens --input " + in);
  EXPECT_EQ(r.output, "1 7 7\n");
  const std::string ids = f.write("ids.txt", "1 7 7 2");
  r = run_tinylm("tokenize --tokenizer " + f.dir.string() + " --decode --input " + ids);
  EXPECT_EQ(r.output, "<s> hi hi</s>");
  r = run_tinylm("tokenize --tokenizer " + f.dir.string() +
                 " --decode --skip-special-tokens --input " + ids);
  EXPECT_EQ(r.output, "hi hi");
  const std::string cases = f.write(
      "cases.jsonl",
      R"({"text": "hi hi", "ids": [7, 7], "ids_special": [1, 7, 7], "decoded": "<s> hi hi"})"
      "\n"
      R"({"text": "hi", "ids": [6, 5]})"
      "\n");
  r = run_tinylm("tokenize --tokenizer " + f.dir.string() + " --check " + cases);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("mismatch at " + cases + ":2 (ids)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 passed, 1 failed"), std::string::npos) << r.output;
}

// --chat: the folder's chat template over a conversation file, as text or as ids (the
// template's <s> and </s> parsed as the special tokens they are, no BOS added twice).
TEST(HfJsonCli, ChatRendersTheFoldersTemplate) {
  const HfCliFolder f;
  f.write(
      "tokenizer_config.json",
      R"({"add_bos_token": true, "bos_token": "<s>", "eos_token": "</s>", "chat_template": )"
      R"("{{ bos_token }}{% for m in messages %}{{ m.content }}{% if m.role == 'assistant' )"
      R"(%}{{ eos_token }}{% endif %}{% endfor %}{% if add_generation_prompt %} {% endif %}"})");
  const std::string chat =
      f.write("chat.json",
              R"([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi"}])");
  RunResult r = run_tinylm("tokenize --tokenizer " + f.dir.string() + " --chat " + chat +
                           " --add-generation-prompt --text");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "<s>hihi</s> ");
  r = run_tinylm("tokenize --tokenizer " + f.dir.string() + " --chat " + chat);
  EXPECT_EQ(r.output, "1 7 4 5 2\n");  // "hihi": one "▁hi", then "h" "i"
  expect_exit(2, "tokenize --tokenizer gpt2 --chat " + chat, "--chat needs --tokenizer FOLDER");
  expect_exit(2, "tokenize --tokenizer " + f.dir.string() + " --text", "go with --chat");
  const std::string bad = f.write("bad.json", R"({"turns": []})");
  expect_exit(2, "tokenize --tokenizer " + f.dir.string() + " --chat " + bad,
              "expected a list of messages");
}

TEST(HfJsonCli, BadFilesExitTwoNamingTheCause) {
  const HfCliFolder f;
  expect_exit(2, "tokenize --tokenizer " + (f.dir / "nowhere.json").string(),
              "not gpt2, bpe, word or char, and no such file");
  std::string text = kHfCliTokenizer;
  text.replace(text.find("\"type\": \"BPE\""), 13, "\"type\": \"Unigram\"");
  const std::string bad = f.write("tokenizer.json", text);
  expect_exit(2, "tokenize --tokenizer " + bad,
              bad + ": model: unsupported model type \"Unigram\"");
  expect_exit(2, "tokenize --tokenizer gpt2 --add-special-tokens", "are for a tokenizer.json");
}

}  // namespace
}  // namespace tinylm::testing
