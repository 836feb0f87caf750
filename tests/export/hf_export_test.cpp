// A model opened by open/ as a Hugging Face folder: the GPT-2 fixtures' model.safetensors
// tensors written again exactly, a model read back by tinylm's importer giving the same
// logits bit for bit (sinusoidal positions as the equivalent table), classifiers, and
// what GPT-2 cannot express refused by its config field, leaving nothing behind. The
// tokenizer files themselves: tests/tokenizer/hf_tokenizer_files_test.cpp.
#include "export/hf_export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "common/gradcheck.h"
#include "io/safetensors.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "tokenizer/char_tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(tinylm::source_dir()) + "/tests/fixtures";

std::string fresh_out(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() /
                       ("tinylm-hf-export-" + tag + "-" + std::to_string(std::random_device{}()));
  return (dir / "out").string();
}

std::vector<float> logits_of(GPT& model, int64_t vocab) {
  std::vector<int32_t> ids = {1, 7, 3, 12, 0, 5, 9, 2};
  for (int32_t& id : ids) id %= static_cast<int32_t>(vocab);
  return model.forward(ids.data(), 2, 4).to_vector();
}

TEST(HfExport, TheFixturesTensorsAreWrittenAgainExactly) {
  for (const char* name : {"gpt2-tiny", "gpt2-micro"}) {
    const std::string fixture = kFixtures + "/" + name, out = fresh_out(name);
    OpenedModel opened = open_model(fixture);
    const HfExportSummary s = export_hf(opened, out, false);
    EXPECT_EQ(s.architecture, "GPT2LMHeadModel");
    const SafeTensors mine = load_safetensors(out + "/model.safetensors");
    const SafeTensors theirs = load_safetensors(fixture + "/model.safetensors");
    for (const std::string& t : mine.names) {
      const std::string bare = t.substr(t.find('.') + 1);  // without "transformer."
      const std::string in_fixture = theirs.has(t) ? t : bare;
      ASSERT_TRUE(theirs.has(in_fixture)) << name << ": " << t;
      EXPECT_EQ(mine.get(t).to_float().to_vector(), theirs.get(in_fixture).to_float().to_vector())
          << name << ": " << t;
    }
    EXPECT_EQ(read_file(out + "/vocab.json").size() > 0, true);
    fs::remove_all(fs::path(out).parent_path());
  }
}

GPTConfig small(PositionEncoding position) {
  GPTConfig c;
  c.vocab_size = 29, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.d_model = 16;
  c.position = position;
  return c;
}

OpenedModel random_opened(const GPTConfig& c, uint64_t seed) {
  OpenedModel m;
  m.lm = std::make_unique<GPT>(c);
  Rng rng(seed);
  m.lm->init(rng);
  for (auto& p : m.lm->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  m.tokenizer = std::make_unique<CharTokenizer>(CharTokenizer::from_corpus("abcdefghij klmnop"));
  return m;
}

TEST(HfExport, ReadBackTheLogitsAreBitIdenticalSinusoidalIncluded) {
  for (PositionEncoding p : {PositionEncoding::Learned, PositionEncoding::Sinusoidal}) {
    OpenedModel m = random_opened(small(p), 3);
    const std::string out = fresh_out("back");
    const HfExportSummary s = export_hf(m, out, false);
    EXPECT_FALSE(s.tokenizer_files);  // a char vocabulary has none
    auto back = load_hf_gpt2(out);
    EXPECT_EQ(back->config().position, PositionEncoding::Learned);
    EXPECT_EQ(logits_of(*back, 29), logits_of(*m.lm, 29));
    EXPECT_TRUE(file_exists(out + "/generation_config.json"));
    // a char vocabulary has no end of text: config.json names none (not GPT-2's 50256)
    const auto config = nlohmann::json::parse(read_file(out + "/config.json"));
    EXPECT_FALSE(config.contains("eos_token_id")) << config.dump();
    EXPECT_FALSE(config.contains("bos_token_id")) << config.dump();
    fs::remove_all(fs::path(out).parent_path());
  }
}

TEST(HfExport, WhatGpt2CannotExpressIsRefusedByName) {
  const auto refused = [](GPTConfig c, const std::string& field) {
    OpenedModel m = random_opened(c, 4);
    const fs::path top = fs::path(fresh_out("refused")).parent_path();
    const std::string out = (top / "a" / "b" / "out").string();
    std::string message;
    try {
      export_hf(m, out, false);
    } catch (const InputError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(field), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(top)) << top;  // refused before any folder is made
    fs::remove_all(top);
  };
  GPTConfig post = small(PositionEncoding::Learned);
  post.pre_ln = false;
  refused(post, "model.pre_ln");
  GPTConfig flat = small(PositionEncoding::Learned);
  flat.residual = false;
  refused(flat, "model.residual");
  // an existing --out is never written
  const std::string out = fresh_out("exists");
  fs::create_directories(out);
  write_file_atomic(out + "/mine.txt", "keep");
  OpenedModel m = random_opened(small(PositionEncoding::Learned), 5);
  EXPECT_THROW(export_hf(m, out, false), InputError);
  EXPECT_EQ(read_file(out + "/mine.txt"), "keep");
  fs::remove_all(fs::path(out).parent_path());
}

TEST(HfExport, AClassifierIsGpt2ForSequenceClassification) {
  const std::string fixture = kFixtures + "/gpt2-micro-classify", out = fresh_out("cls");
  OpenedModel opened = open_model(fixture);
  EXPECT_EQ(export_hf(opened, out, false).architecture, "GPT2ForSequenceClassification");
  auto back = load_hf_classifier(out);
  auto original = load_hf_classifier(fixture);
  EXPECT_EQ(back->score.weight.value.to_vector(), original->score.weight.value.to_vector());
  EXPECT_EQ(read_json_file(out + "/config.json")["architectures"][0],
            "GPT2ForSequenceClassification");
  fs::remove_all(fs::path(out).parent_path());
}

}  // namespace
}  // namespace tinylm
