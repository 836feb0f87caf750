// OpenAI's original GPT-2 folder (hparams.json + a TensorFlow checkpoint), written by the
// test as TensorFlow lays it out (tests/io/tf_bundle_writer.h) from the same random
// weights as a Hugging Face folder: both load to bit-identical weights and logits. The
// variable names, a missing variable, a wrong shape and a corrupt tensor are checked.
#include "model/openai_gpt2.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "common/gradcheck.h"
#include "model/hf_gpt2.h"
#include "model/openai_folder_writer.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;

const nlohmann::json kHparams = {
    {"n_vocab", 61}, {"n_ctx", 12}, {"n_embd", 16}, {"n_head", 2}, {"n_layer", 2}};

std::string fresh_dir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() /
                       ("tinylm-openai-" + tag + "-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  return dir.string();
}

std::unique_ptr<GPT> random_gpt2(uint64_t seed) {
  auto model = std::make_unique<GPT>(config_from_openai_hparams(kHparams));
  Rng rng(seed);
  model->init(rng);
  for (auto& p : model->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  return model;
}

std::vector<tfw::BundleTensor> as_variables(GPT& model) {
  return testing::openai_variables(model);
}

void write_openai_folder(const std::string& dir, const std::vector<tfw::BundleTensor>& vars) {
  testing::write_openai_folder(dir, kHparams, vars);
}

std::vector<float> openai_logits_of(GPT& model) {
  const std::vector<int32_t> ids = {1, 60, 7, 0, 33, 12, 9, 9, 4, 50, 2, 17};
  return model.forward(ids.data(), 2, 6).to_vector();
}

TEST(OpenAiGpt2, VariableNames) {
  EXPECT_EQ(openai_variable_name("wte.weight"), "model/wte");
  EXPECT_EQ(openai_variable_name("wpe.weight"), "model/wpe");
  EXPECT_EQ(openai_variable_name("h.0.ln_1.weight"), "model/h0/ln_1/g");
  EXPECT_EQ(openai_variable_name("h.11.ln_2.bias"), "model/h11/ln_2/b");
  EXPECT_EQ(openai_variable_name("h.3.attn.c_attn.weight"), "model/h3/attn/c_attn/w");
  EXPECT_EQ(openai_variable_name("h.3.attn.c_proj.bias"), "model/h3/attn/c_proj/b");
  EXPECT_EQ(openai_variable_name("h.10.mlp.c_fc.weight"), "model/h10/mlp/c_fc/w");
  EXPECT_EQ(openai_variable_name("ln_f.weight"), "model/ln_f/g");
  EXPECT_THROW(openai_variable_name("nothing"), InputError);
}

TEST(OpenAiGpt2, TheSameWeightsBothWaysGiveBitIdenticalLogits) {
  auto model = random_gpt2(7);
  const std::string openai = fresh_dir("tf"), hf = fresh_dir("hf");
  write_openai_folder(openai, as_variables(*model));
  save_hf_gpt2(*model, hf);
  ASSERT_TRUE(is_openai_gpt2_dir(openai));
  EXPECT_FALSE(is_openai_gpt2_dir(hf));
  auto from_tf = load_openai_gpt2(openai);
  auto from_hf = load_hf_gpt2(hf);
  const std::vector<float> expected = openai_logits_of(*model);
  EXPECT_EQ(openai_logits_of(*from_tf), expected);
  EXPECT_EQ(openai_logits_of(*from_hf), expected);
  EXPECT_TRUE(from_tf->config().tie_head);
  fs::remove_all(openai);
  fs::remove_all(hf);
}

TEST(OpenAiGpt2, AMissingOrMisshapenOrCorruptVariableIsNamed) {
  auto model = random_gpt2(8);
  std::vector<tfw::BundleTensor> vars = as_variables(*model);
  const auto error_with = [&](std::vector<tfw::BundleTensor> v) {
    const std::string dir = fresh_dir("bad");
    write_openai_folder(dir, v);
    std::string message;
    try {
      load_openai_gpt2(dir);
    } catch (const InputError& e) {
      message = e.what();
    }
    fs::remove_all(dir);
    return message;
  };
  std::vector<tfw::BundleTensor> missing;
  for (const auto& v : vars)
    if (v.name != "model/h1/mlp/c_fc/b") missing.push_back(v);
  EXPECT_NE(error_with(missing).find("model/h1/mlp/c_fc/b"), std::string::npos);
  std::vector<tfw::BundleTensor> misshapen = vars;
  for (auto& v : misshapen)
    if (v.name == "model/wpe") v.shape = {6, 32};  // same bytes, wrong shape
  EXPECT_NE(error_with(misshapen).find("model/wpe"), std::string::npos);
  // a flipped byte in the data file: the tensor's checksum says so
  const std::string dir = fresh_dir("corrupt");
  write_openai_folder(dir, vars);
  const std::string data = dir + "/model.ckpt.data-00000-of-00001";
  std::string bytes = read_file(data);
  bytes[bytes.size() / 2] ^= 0x01;
  write_file_atomic(data, bytes);
  try {
    load_openai_gpt2(dir);
    ADD_FAILURE() << "a corrupt tensor was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
  EXPECT_THROW(config_from_openai_hparams({{"n_vocab", 0}}), InputError);
}

}  // namespace
}  // namespace tinylm
