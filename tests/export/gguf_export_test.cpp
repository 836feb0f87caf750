// A model opened by open/ as a GGUF file: the Hugging Face fixture's logits back bit for
// bit from the file, and the tokenizer keys llama.cpp's gpt2 tokenizer reads (tokens in
// GPT-2's alphabet, control and pad types, merges in rank order, bos/eos), for BPE and
// char vocabularies; a file in the layout of llama.cpp's converter opens as the same
// model. llama.cpp itself reads these files in tests/export/llama_cpp/run.sh.
#include "export/gguf_export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/input_error.h"
#include "model/gguf_gpt2.h"
#include "model/hf_gpt2.h"
#include "open/gguf_model.h"
#include "open/model_source.h"
#include "ops/q8_0.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/word_tokenizer.h"
#include "util/error.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

const std::string kTiny = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny";

std::vector<float> logits_of(GPT& model) {
  const std::vector<int32_t> ids = {15496, 11, 314, 716, 257, 7009, 3303, 2746, 11};
  return model.forward(ids.data(), 1, static_cast<int64_t>(ids.size())).to_vector();
}

TEST(GgufExport, TheHuggingFaceFixtureComesBackBitForBit) {
  OpenedModel opened = open_model(kTiny);
  const Gguf g = parse_gguf(serialize_gguf(export_gguf(opened, GgmlType::kF32, "tiny")), "t.gguf");
  auto back = gpt_from_gguf(g);
  auto hf = load_hf_gpt2(kTiny);
  EXPECT_EQ(logits_of(*back), logits_of(*hf));
  EXPECT_EQ(g.get_string("general.name"), "tiny");
}

TEST(GgufExport, TheTokenizerIsLlamaCppsGpt2Tokenizer) {
  OpenedModel opened = open_model(kTiny);
  const Gguf g = export_gguf(opened, GgmlType::kF16, "tiny");
  EXPECT_EQ(g.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(g.get_string("tokenizer.ggml.pre"), "gpt-2");
  const GgufValue& tokens = g.get("tokenizer.ggml.tokens");
  const GgufValue& types = g.get("tokenizer.ggml.token_type");
  const GgufValue& merges = g.get("tokenizer.ggml.merges");
  ASSERT_EQ(tokens.strings.size(), 50257u);
  EXPECT_EQ(tokens.strings[15496], "Hello");
  EXPECT_EQ(tokens.strings[220], "\xc4\xa0");  // " " spelled U+0120
  EXPECT_EQ(tokens.strings[50256], "<|endoftext|>");
  EXPECT_EQ(types.ints[50256], 3);  // control
  EXPECT_EQ(types.ints[15496], 1);
  ASSERT_EQ(merges.strings.size(), 50000u);
  EXPECT_EQ(merges.strings[0], "\xc4\xa0 t");  // vocab.bpe's first merge
  EXPECT_EQ(g.get_integer("tokenizer.ggml.bos_token_id"), 50256);
  EXPECT_EQ(g.get_integer("tokenizer.ggml.eos_token_id"), 50256);
}

TEST(GgufExport, ExtraModelRowsArePadTokens) {
  Gguf g;
  add_gguf_tokenizer(BpeTokenizer(), 50304, g);  // nanoGPT's padded vocabulary
  const GgufValue& tokens = g.get("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.strings.size(), 50304u);
  EXPECT_EQ(tokens.strings[50300], "[PAD50300]");
  EXPECT_EQ(g.get("tokenizer.ggml.token_type").ints[50300], 5);  // unused
  Gguf small;
  EXPECT_THROW(add_gguf_tokenizer(BpeTokenizer(), 1000, small), InputError);
}

TEST(GgufExport, AWordTokenizerIsRefusedSayingWhy) {
  OpenedModel opened = open_model(kTiny);
  opened.tokenizer = std::make_unique<WordTokenizer>(WordTokenizer::from_corpus("a b, c"));
  try {
    export_gguf(opened, GgmlType::kF32, "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("word tokenizer"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("spaces"), std::string::npos) << e.what();
  }
}

// A char vocabulary as byte-level BPE (tokenizer/char_as_bpe.h): one token per character,
// spelled in GPT-2's alphabet, and the byte prefixes of the multi-byte ones as merges.
TEST(GgufExport, ACharVocabularyIsItsCharactersWithTheirBytePrefixesMerged) {
  const CharTokenizer chars({U'\n', U' ', U'a', U'\u00e9', U'\u00ea', U'\u0995', U'\U0001F600'});
  Gguf g;
  add_gguf_char_tokenizer(chars, 9, g);
  const GgufValue& tokens = g.get("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.strings.size(), 9u);
  EXPECT_EQ(tokens.strings[0], "\xc4\x8a");  // '\n' spelled U+010A
  EXPECT_EQ(tokens.strings[1], "\xc4\xa0");  // ' ' spelled U+0120
  EXPECT_EQ(tokens.strings[2], "a");
  EXPECT_EQ(tokens.strings[3], "\xc3\x83\xc2\xa9");  // C3 A9 spelled "Ã©"
  EXPECT_EQ(tokens.strings[7], "[PAD7]");
  EXPECT_EQ(g.get("tokenizer.ggml.token_type").ints[7], 5);
  // é and ê share their lead byte: C3 A9 and C3 AA are one merge each; क (E0 A6 95) two;
  // 😀 (F0 9F 98 80) three
  const GgufValue& merges = g.get("tokenizer.ggml.merges");
  ASSERT_EQ(merges.strings.size(), 7u);
  EXPECT_EQ(merges.strings[0], "\xc3\x83 \xc2\xa9");
  EXPECT_EQ(merges.strings[2], "\xc3\xa0 \xc2\xa6");          // E0 + A6
  EXPECT_EQ(merges.strings[3], "\xc3\xa0\xc2\xa6 \xc4\xb7");  // E0 A6 + 95 (U+0137)
  EXPECT_FALSE(g.find("tokenizer.ggml.eos_token_id"));        // a char vocabulary has none
}

// A char model exported and opened again: the same logits (F32) and a char tokenizer that
// encodes and decodes as the one it came from; a spelling that is not exactly a char
// vocabulary's is read as BPE (and refused when it is not GPT-2's layout either).
TEST(GgufExport, ACharModelOpensAgainWithItsCharTokenizer) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "tinylm-export-char-test.gguf").string();
  OpenedModel opened = open_model(kTiny);
  const std::string corpus = "hello world\nbonjour \u00e9t\u00e9 \u0995\u0996 \U0001F600";
  opened.tokenizer = std::make_unique<CharTokenizer>(CharTokenizer::from_corpus(corpus));
  save_gguf(path, export_gguf(opened, GgmlType::kF32, "char"));
  OpenedModel back = open_model(path);
  EXPECT_EQ(back.tokenizer->kind(), "char");
  EXPECT_EQ(back.tokenizer->vocab_size(), opened.tokenizer->vocab_size());
  EXPECT_EQ(back.tokenizer->encode(corpus), opened.tokenizer->encode(corpus));
  EXPECT_EQ(back.tokenizer->decode(opened.tokenizer->encode(corpus)), corpus);
  EXPECT_EQ(logits_of(back.language_model("test")), logits_of(opened.language_model("test")));

  Gguf g = load_gguf(path);
  std::filesystem::remove(path);
  for (auto& [key, value] : g.metadata)
    if (key == "tokenizer.ggml.merges") value.strings.pop_back();  // one merge short
  EXPECT_THROW(gguf_tokenizer(g), InputError);
}

// What tinylm exports, every verb opens again: the same logits (F32) and a tokenizer that
// encodes and decodes as the one it came from.
TEST(GgufExport, AnExportedFileOpensAsAModelWithItsTokenizer) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "tinylm-export-open-test.gguf").string();
  OpenedModel opened = open_model(kTiny);
  save_gguf(path, export_gguf(opened, GgmlType::kF32, "tiny"));
  OpenedModel back = open_model(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.source.kind, ModelSourceKind::GgufFile);
  EXPECT_EQ(logits_of(back.language_model("test")), logits_of(opened.language_model("test")));
  const std::string text = "Hello, I am a tiny language model!<|endoftext|> \u00e9\n\n";
  EXPECT_EQ(back.tokenizer->encode(text), opened.tokenizer->encode(text));
  EXPECT_EQ(back.tokenizer->vocab_size(), 50257);
  EXPECT_EQ(back.tokenizer->eot_id(), 50256);
  const std::vector<int32_t> ids = opened.tokenizer->encode(text);
  EXPECT_EQ(back.tokenizer->decode(ids), text);
}

// A file as llama.cpp's tools write it opens as the same model: the converter's extra
// metadata (string arrays, u64, f64, bools, its alignment), tensors in another order, older
// converters' copy of token_embd as `output` (an untied head of the same values), and a tensor of
// another type than the rest (llama-quantize's position table).
TEST(GgufExport, AFileInTheConverterLayoutOpensAsTheSameModel) {
  OpenedModel opened = open_model(kTiny);
  Gguf g = export_gguf(opened, GgmlType::kF32, "tiny");
  GgufValue f64;
  f64.type = GgufType::kF64, f64.floats = {0.5};
  for (auto& entry : std::vector<std::pair<std::string, GgufValue>>{
           {"general.type", GgufValue::string("model")},
           {"general.size_label", GgufValue::string("1.6M")},
           {"general.tags", GgufValue::strings_of({"text-generation", "gpt2"})},
           {"general.quantization_version", GgufValue::u32(2)},
           {"general.alignment", GgufValue::u32(64)},
           {"general.source.size", GgufValue::u64(1)},
           {"general.sampling.temp", f64},
           {"tokenizer.ggml.unknown_token_id", GgufValue::u32(50256)},
           {"tokenizer.ggml.add_eos_token", GgufValue::boolean(false)}})
    g.metadata.push_back(std::move(entry));
  GgufTensor head = g.tensor("token_embd.weight");
  head.name = "output.weight";
  g.tensors.push_back(std::move(head));
  std::reverse(g.tensors.begin(), g.tensors.end());
  auto reference = load_hf_gpt2(kTiny);
  Tensor& wpe = reference->wpe.weight.value;
  for (GgufTensor& t : g.tensors) {
    if (t.name != "position_embd.weight") continue;
    t = gguf_tensor(t.name, wpe, GgmlType::kF16);
    ggml_to_float(GgmlType::kF16, t.bytes.data(), wpe.numel(), wpe.data());  // as read back
  }

  const std::string path =
      (std::filesystem::temp_directory_path() / "tinylm-converter-layout-test.gguf").string();
  save_gguf(path, g);
  OpenedModel back = open_model(path);
  std::filesystem::remove(path);
  GPT& model = back.language_model("test");
  EXPECT_FALSE(model.config().tie_head);
  EXPECT_EQ(logits_of(model), logits_of(*reference));
  const std::string text = "Hello, I am a tiny language model!<|endoftext|>";
  EXPECT_EQ(back.tokenizer->encode(text), opened.tokenizer->encode(text));
  EXPECT_EQ(back.stored_decode_weights, decode::DecodeWeights::kF32);
}

// A Q8_0 file decodes with its own 8-bit blocks: the weights widened on load and
// quantised again for decoding (ops/q8_0.h) are the file's bytes, value for value and
// scale for scale; open/ says so (stored_decode_weights), and F16 and BF16 files likewise.
TEST(GgufExport, AQ8FileDecodesWithItsOwnBlocks) {
  OpenedModel opened = open_model(kTiny);
  const Gguf g = parse_gguf(serialize_gguf(export_gguf(opened, GgmlType::kQ8_0, "tiny")), "t.gguf");
  const GgufTensor& file = g.tensor("blk.1.ffn_down.weight");
  auto back = gpt_from_gguf(g);
  const Tensor& w = back->h[1].mlp.c_proj.weight.value;  // [out, in], widened
  const int64_t OC = w.dim(0), C = w.dim(1);
  std::vector<int8_t> q(OC * C);
  std::vector<uint16_t> d(OC * C / kQ8Block);
  ops::quantize_q8_0(w.data(), q.data(), d.data(), OC, C);
  for (int64_t b = 0; b < OC * C / kQ8Block; ++b) {
    BlockQ8_0 block;
    std::memcpy(&block, file.bytes.data() + b * kQ8BlockBytes, sizeof block);
    ASSERT_EQ(block.d, d[b]) << "block " << b;
    ASSERT_TRUE(std::equal(block.q, block.q + kQ8Block, q.begin() + b * kQ8Block)) << "block " << b;
  }
  const std::string dir = std::filesystem::temp_directory_path().string();
  for (auto [type, decode] : {std::pair{GgmlType::kQ8_0, decode::DecodeWeights::kQ8_0},
                              {GgmlType::kBF16, decode::DecodeWeights::kBf16},
                              {GgmlType::kF16, decode::DecodeWeights::kF16},
                              {GgmlType::kF32, decode::DecodeWeights::kF32}}) {
    const std::string path =
        dir + "/tinylm-export-decode-" + ggml_type_name(uint32_t(type)) + ".gguf";
    save_gguf(path, export_gguf(opened, type, "tiny"));
    const OpenedModel file_model = open_model(path);
    std::filesystem::remove(path);
    EXPECT_EQ(file_model.stored_decode_weights, decode) << ggml_type_name(uint32_t(type));
  }
}

TEST(GgufExport, AFileWithAnotherTokenizerIsRefusedByName) {
  OpenedModel opened = open_model(kTiny);
  Gguf g = export_gguf(opened, GgmlType::kF32, "tiny");
  for (auto& [key, value] : g.metadata)
    if (key == "tokenizer.ggml.model") value = GgufValue::string("llama");
  try {
    gguf_tokenizer(g);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'llama'"), std::string::npos) << e.what();
  }
}

// A file must hold exactly the tensors of the shape its keys give (llama.cpp counts them):
// a block count that leaves blocks out, or a stray tensor, is refused, not loaded as a
// smaller model; a token that is not UTF-8 is refused naming it.
TEST(GgufExport, TensorsBeyondTheShapeAndBrokenTokensAreRefused) {
  OpenedModel opened = open_model(kTiny);
  const Gguf good = export_gguf(opened, GgmlType::kF32, "tiny");
  Gguf fewer_blocks = good;
  for (auto& [key, value] : fewer_blocks.metadata)
    if (key == "gpt2.block_count") value = GgufValue::u32(1);
  EXPECT_NE(testing::input_error([&] {
              gguf_gpt2_config(fewer_blocks);
            }).find("tensor 'blk.1.attn_norm.weight' is not part of a gpt2 model of 1 blocks"),
            std::string::npos);
  Gguf stray = good;
  stray.tensors.push_back(stray.tensors.back());
  stray.tensors.back().name = "junk.weight";
  EXPECT_NE(
      testing::input_error([&] { gpt_from_gguf(stray); }).find("tensor 'junk.weight' is not part"),
      std::string::npos);
  Gguf not_utf8 = good;
  for (auto& [key, value] : not_utf8.metadata)
    if (key == "tokenizer.ggml.tokens") value.strings[5] = "\xff\xfe";
  EXPECT_NE(
      testing::input_error([&] { gguf_tokenizer(not_utf8); }).find("token 5 is not valid UTF-8"),
      std::string::npos);
  EXPECT_NO_THROW(gpt_from_gguf(good));
}

}  // namespace
}  // namespace tinylm
