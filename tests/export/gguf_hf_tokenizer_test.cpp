// A tokenizer.json tokenizer in and out of GGUF (export/gguf_hf_tokenizer.h,
// open/gguf_tokenizer_json.h): a Qwen-shaped and a Llama 3-shaped tokenizer over GPT-2's
// vocabulary (its byte alphabet, so every text encodes) are written under llama.cpp's
// pre-tokeniser names with their token types, bos/eos and chat template, and open back
// from the file encoding every text as before; tokenizers llama.cpp has no name for are
// refused naming the part. llama.cpp itself reads real Qwen3 and Llama 3 tokenizers in
// tests/export/llama_cpp/tokenizer_json.sh.
#include "export/gguf_hf_tokenizer.h"

#include <gtest/gtest.h>

#include "open/gguf_tokenizer_json.h"
#include "tokenizer/gguf_pretokenizers.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

using nlohmann::json;

json added(const std::string& content, int64_t id, bool special) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

// GPT-2's vocabulary and merges under `pre` (a row's name), with three added tokens:
// <|endoftext|> (special), <|im_start|> (not special, looks it) and <think> (neither).
json tokenizer_json(const std::string& pre) {
  const std::string dir = std::string(source_dir()) + "/data/gpt2";
  json vocab = parse_json(read_file(dir + "/encoder.json"), "encoder.json");
  vocab.erase("<|endoftext|>");
  json merges = json::array();
  const std::string text = read_file(dir + "/vocab.bpe");
  for (size_t at = text.find('\n') + 1, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) merges.push_back(text.substr(at, end - at));
  }
  const GgufPretokenizer& row = *find_gguf_pretokenizer(pre);
  return {{"added_tokens",
           {added("<|endoftext|>", 50256, true), added("<|im_start|>", 50257, false),
            added("<think>", 50258, false)}},
          {"normalizer", row.normalizer},
          {"pre_tokenizer", row.pre_tokenizer},
          {"post_processor", {{"type", "ByteLevel"}, {"trim_offsets", false}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model",
           {{"type", "BPE"},
            {"ignore_merges", row.ignore_merges},
            {"vocab", vocab},
            {"merges", merges}}}};
}

const json kConfig = {{"eos_token", "<|endoftext|>"},
                      {"chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}"}};

const std::string kTexts[] = {
    "Hello, world! 12345 don't  stop\n\n\tagain",
    "<|im_start|>user\n<think>caf\u00e9 \u0995\u0996 \U0001F600</think><|endoftext|>",
    "   leading spaces and 2024-12-02, 3.14159\r\n",
};

std::string type_names(const Gguf& g, const std::vector<int32_t>& ids) {
  const GgufValue& types = g.get("tokenizer.ggml.token_type");
  std::string out;
  for (int32_t id : ids) out += std::to_string(types.ints[static_cast<size_t>(id)]);
  return out;
}

TEST(GgufHfTokenizer, QwenAndLlama3ShapesGoOutAndComeBackEncodingAlike) {
  for (const std::string pre : {"qwen2", "llama-bpe"}) {
    SCOPED_TRACE(pre);
    const HfJsonTokenizer tok(tokenizer_json(pre).dump(), kConfig, "t.json");
    Gguf g;
    g.source = "t.gguf";
    add_gguf_hf_tokenizer(tok, 50304, g);
    EXPECT_EQ(g.get_string("tokenizer.ggml.pre"), pre);
    EXPECT_EQ(g.get("tokenizer.ggml.tokens").strings.size(), 50304u);
    EXPECT_EQ(g.get("tokenizer.ggml.tokens").strings[50303], "[PAD50303]");
    EXPECT_EQ(type_names(g, {0, 50256, 50257, 50258, 50303}), "13345");
    EXPECT_EQ(g.get_integer("tokenizer.ggml.eos_token_id"), 50256);
    EXPECT_EQ(g.get_string("tokenizer.chat_template"), kConfig["chat_template"]);
    EXPECT_EQ(g.get("tokenizer.ggml.merges").strings.size(), 50000u);

    const auto back = gguf_tokenizer_json(g, *find_gguf_pretokenizer(pre));
    EXPECT_EQ(back->vocab_size(), 50259);
    EXPECT_EQ(back->eot_id(), 50256);
    EXPECT_EQ(back->config()["chat_template"], kConfig["chat_template"]);
    for (const std::string& text : kTexts) {
      EXPECT_EQ(back->encode(text), tok.encode(text)) << text;
      EXPECT_EQ(back->decode(tok.encode(text)), text);
    }
  }
}

// A tokenizer that adds a BOS (Llama 3's TemplateProcessing) says so in the file.
TEST(GgufHfTokenizer, ABosTheTokenizerAddsIsNamedAndAdded) {
  json j = tokenizer_json("llama-bpe");
  j["post_processor"] = json::parse(R"({
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<|im_start|>", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [],
    "special_tokens": {"<|im_start|>": {"id": "<|im_start|>", "ids": [50257],
                                        "tokens": ["<|im_start|>"]}}})");
  const HfJsonTokenizer tok(j.dump(), kConfig, "t.json");
  Gguf g;
  add_gguf_hf_tokenizer(tok, 50259, g);
  EXPECT_EQ(g.get_integer("tokenizer.ggml.bos_token_id"), 50257);
  EXPECT_EQ(g.get("tokenizer.ggml.add_bos_token").ints, std::vector<int64_t>{1});
  const auto back = gguf_tokenizer_json(g, *find_gguf_pretokenizer("llama-bpe"));
  EXPECT_EQ(back->encode("Hi there", true), tok.encode("Hi there", true));
}

void expect_refused(const json& j, const std::string& part) {
  try {
    gguf_pretokenizer_of(j, "t.json");
    FAIL() << "not refused: " << part;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("t.json: ", 0), 0u) << e.what();
  }
}

TEST(GgufHfTokenizer, TokenizersLlamaCppHasNoNameForAreRefusedNamingThePart) {
  json sentencepiece = tokenizer_json("qwen2");
  sentencepiece["model"]["byte_fallback"] = true;
  expect_refused(sentencepiece, "byte_fallback");
  json other_regex = tokenizer_json("qwen2");
  other_regex["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{L}+|\\s+";
  expect_refused(other_regex, "llama.cpp names no pre-tokenizer like this one");
  json lowercase = tokenizer_json("llama-bpe");
  lowercase["normalizer"] = {{"type", "Lowercase"}};
  expect_refused(lowercase, "Lowercase");
  json decoder = tokenizer_json("gpt-2");
  decoder["decoder"] = {{"type", "Fuse"}};
  expect_refused(decoder, "decoder");
  // trim_offsets moves offsets, never ids: a Qwen file's ByteLevel with it is still qwen2.
  json trimmed = tokenizer_json("qwen2");
  trimmed["pre_tokenizer"]["pretokenizers"][1]["trim_offsets"] = true;
  EXPECT_EQ(gguf_pretokenizer_of(trimmed, "t.json").name, "qwen2");
}

}  // namespace
}  // namespace tinylm
