// The tokenizer.json reader as a whole on small hand-written files: a SentencePiece-style
// BPE (Llama 2's shape: Prepend/Replace, byte fallback, <s> template, Strip decoder) and
// a byte-level one (Llama 3's shape: Split regex + ByteLevel, ignore_merges), their
// streamed decoding, storing in a run (to_json) and the refusals of bad files.
#include "tokenizer/hf_json_tokenizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "tokenizer/load.h"
#include "tokenizer/stream_decoder.h"

namespace tinylm {
namespace {

using Ids = std::vector<int32_t>;

nlohmann::json special_token(const std::string& content, int id, bool special = true) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

// Llama 2's shape.
nlohmann::json spm_json() {
  return {{"version", "1.0"},
          {"added_tokens",
           {special_token("<unk>", 0), special_token("<s>", 1), special_token("</s>", 2)}},
          {"normalizer",
           {{"type", "Sequence"},
            {"normalizers",
             {{{"type", "Prepend"}, {"prepend", "\u2581"}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
          {"pre_tokenizer", nullptr},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
          {"decoder",
           {{"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
          {"model",
           {{"type", "BPE"},
            {"unk_token", "<unk>"},
            {"fuse_unk", true},
            {"byte_fallback", true},
            {"vocab",
             {{"<unk>", 0},
              {"<s>", 1},
              {"</s>", 2},
              {"<0xC3>", 3},
              {"<0xA9>", 4},
              {"\u2581", 5},
              {"h", 6},
              {"e", 7},
              {"l", 8},
              {"o", 9},
              {"ll", 10},
              {"\u2581h", 11},
              {"\u2581he", 12},
              {"llo", 13},
              {"\u2581hello", 14}}},
            {"merges", {"l l", "\u2581 h", {"\u2581h", "e"}, {"ll", "o"}, {"\u2581he", "llo"}}}}}};
}

// Llama 3's shape, in GPT-2's byte alphabet (Ġ is the space).
nlohmann::json byte_level_json() {
  return {{"added_tokens", {special_token("<|eot|>", 5), special_token("<tool>", 6, false)}},
          {"normalizer", nullptr},
          {"pre_tokenizer",
           {{"type", "Sequence"},
            {"pretokenizers",
             {{{"type", "Split"},
               {"pattern", {{"Regex", " ?\\p{L}+|\\s+"}}},
               {"behavior", "Isolated"},
               {"invert", false}},
              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}}},
          {"post_processor", {{"type", "ByteLevel"}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model",
           {{"type", "BPE"},
            {"ignore_merges", true},
            {"vocab", {{"a", 0}, {"b", 1}, {"\u0120", 2}, {"\u0120a", 3}, {"ab", 4}}},
            {"merges", nlohmann::json::array({nlohmann::json::array({"\u0120", "a"}),
                                              nlohmann::json::array({"a", "b"})})}}}};
}

HfJsonTokenizer hf_tok(const nlohmann::json& j, nlohmann::json config = nullptr) {
  return HfJsonTokenizer(j.dump(), std::move(config), "t.json");
}

std::string hf_error(const nlohmann::json& j) {
  return testing::input_error([&] { hf_tok(j); });
}

TEST(HfJsonTokenizer, SentencePieceShape) {
  const HfJsonTokenizer tok = hf_tok(spm_json());
  EXPECT_EQ(tok.encode("hello"), (Ids{14}));
  EXPECT_EQ(tok.encode("hello", true), (Ids{1, 14}));
  EXPECT_EQ(tok.encode("hello hello"), (Ids{14, 14}));
  EXPECT_EQ(tok.encode("<s>hello"), (Ids{1, 14}));  // added tokens parsed in the text
  EXPECT_EQ(tok.encode("\u00e9"), (Ids{5, 3, 4}));  // byte fallback
  EXPECT_EQ(tok.encode("xq"), (Ids{5, 0}));         // no bytes for x, q: one fused <unk>
  EXPECT_EQ(tok.decode({5, 3, 4}), "\u00e9");       // Strip takes the leading space
  EXPECT_EQ(tok.decode({1, 14, 14}), "<s> hello hello");
  EXPECT_EQ(tok.decode({1, 14, 2}, true), "hello");
  EXPECT_EQ(tok.decode({3}), "\ufffd");  // half a character
  EXPECT_EQ(tok.vocab_size(), 15);
  EXPECT_NE(testing::input_error([&] { tok.decode({15}); }).find("outside the vocabulary"),
            std::string::npos);
}

TEST(HfJsonTokenizer, ByteLevelShape) {
  const HfJsonTokenizer tok = hf_tok(byte_level_json());
  EXPECT_EQ(tok.encode("ab ab"), (Ids{4, 3, 1}));  // "ab" whole (ignore_merges), " ab" merged
  EXPECT_EQ(tok.encode("ab<|eot|> a<tool>"), (Ids{4, 5, 3, 6}));
  EXPECT_EQ(tok.encode("ab", true), (Ids{4}));  // ByteLevel adds nothing
  EXPECT_EQ(tok.decode({4, 3, 1, 5, 6}), "ab ab<|eot|><tool>");
  EXPECT_EQ(tok.decode({4, 5, 6}, true), "ab<tool>");  // <tool> is not special
  EXPECT_EQ(tok.eot_id(), -1);
  EXPECT_NE(testing::input_error([&] { tok.encode("abc"); }).find("\"c\" is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(testing::input_error([&] { tok.encode("a\xff"); }).find("invalid UTF-8 at byte 1"),
            std::string::npos);
}

TEST(HfJsonTokenizer, ConfigDecidesBosAndCleanUp) {
  const nlohmann::json config = {{"add_bos_token", false},
                                 {"add_eos_token", true},
                                 {"eos_token", "</s>"},
                                 {"clean_up_tokenization_spaces", true}};
  const HfJsonTokenizer tok = hf_tok(spm_json(), config);
  EXPECT_EQ(tok.encode("hello", true), (Ids{14, 2}));
  EXPECT_EQ(tok.eot_id(), 2);
  const HfJsonTokenizer bytes = hf_tok(byte_level_json(), {{"eos_token", "<|eot|>"}});
  EXPECT_EQ(bytes.eot_id(), 5);
  EXPECT_EQ(bytes.decode({4, 2, 2, 4}), "ab  ab");
  EXPECT_EQ(clean_up_tokenization("a . b 's c n't ,"), "a. b's cn't,");
}

TEST(HfJsonTokenizer, StreamedPiecesEqualDecode) {
  const std::vector<std::pair<nlohmann::json, std::vector<Ids>>> cases = {
      {spm_json(), {Ids{1, 14, 5, 3, 4, 14}, Ids{5, 3, 3, 4, 2}, Ids{3, 14, 0}}},
      {byte_level_json(), {Ids{4, 3, 1, 5, 6}, Ids{0, 2, 2, 6}, Ids{6, 2}}}};
  for (const auto& [j, id_lists] : cases) {
    const HfJsonTokenizer tok = hf_tok(j);
    for (const Ids& ids : id_lists) {
      StreamDecoder d(tok);
      std::string streamed;
      for (const int32_t id : ids) streamed += d.add(id);
      EXPECT_EQ(streamed + d.finish(), tok.decode(ids));
    }
  }
}

TEST(HfJsonTokenizer, StoredInARunAndReadBack) {
  const HfJsonTokenizer tok = hf_tok(spm_json(), {{"add_bos_token", true}, {"bos_token", "<s>"}});
  const auto back = tokenizer_from_json(nlohmann::json::parse(tok.to_json().dump()));
  EXPECT_EQ(back->kind(), "hf");
  EXPECT_EQ(back->encode("hello \u00e9"), tok.encode("hello \u00e9"));
  EXPECT_EQ(dynamic_cast<const HfJsonTokenizer&>(*back).encode("hello", true), (Ids{1, 14}));
}

TEST(HfJsonTokenizer, OpensAFileOrAFolder) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("tinylm-hf-json-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << spm_json().dump();
  std::ofstream(dir / "tokenizer_config.json") << R"({"add_bos_token": false})";
  EXPECT_EQ(open_hf_json_tokenizer(dir.string())->encode("hello", true), (Ids{14}));
  EXPECT_EQ(open_hf_json_tokenizer((dir / "tokenizer.json").string())->encode("hello", true),
            (Ids{14}));
  // data.tokenizer: the folder or the file names it for a run, chat_template.jinja's text
  // is the template it keeps
  std::ofstream(dir / "chat_template.jinja") << "{{ messages }}";
  EXPECT_EQ(tokenizer_for_corpus(dir.string(), "")->kind(), "hf");
  EXPECT_EQ(tokenizer_for_corpus((dir / "tokenizer.json").string(), "")->encode("hello"),
            (Ids{14}));
  EXPECT_EQ(open_hf_json_tokenizer(dir.string())->config()["chat_template"], "{{ messages }}");
  std::filesystem::remove(dir / "tokenizer.json");
  EXPECT_NE(testing::input_error([&] {
              open_hf_json_tokenizer(dir.string());
            }).find("no tokenizer.json in this folder"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HfJsonTokenizer, RefusesBadFilesNamingTheCause) {
  const auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  EXPECT_TRUE(
      has(testing::input_error([] { HfJsonTokenizer("{\"model\": {\"vocab", nullptr, "t.json"); }),
          "t.json"));
  nlohmann::json j = spm_json();
  j["model"]["merges"].push_back("x y");
  EXPECT_TRUE(
      has(hf_error(j),
          "t.json: model: merge 5 (\"x\", \"y\") names \"x\", which is not in the vocabulary"));
  j = spm_json();
  j["model"]["vocab"]["dup"] = 3;
  EXPECT_TRUE(has(hf_error(j), "t.json: model: duplicate id 3"));
  j = spm_json();
  j["normalizer"] = {{"type", "NFKC"}};
  EXPECT_TRUE(has(hf_error(j), "t.json: normalizer: unsupported normalizer type \"NFKC\""));
  j = spm_json();
  j["model"]["type"] = "WordPiece";
  EXPECT_TRUE(has(hf_error(j), "t.json: model: unsupported model type \"WordPiece\""));
  j = spm_json();
  j["decoder"] = {{"type", "WordPiece"}};
  EXPECT_TRUE(has(hf_error(j), "t.json: decoder: unsupported decoder type \"WordPiece\""));
  j = spm_json();
  j["post_processor"] = {{"type", "BertProcessing"}};
  EXPECT_TRUE(has(hf_error(j), "t.json: post_processor: unsupported post-processor type"));
  j = spm_json();
  j["model"]["dropout"] = 0.1;
  EXPECT_TRUE(has(hf_error(j), "dropout is not supported"));
}

}  // namespace
}  // namespace tinylm
