// The llama family as a second architecture (model.arch "llama"): its config fields and
// their rules, the model's parameter names, gradients, and Hugging Face folders (one file
// or shards; a tensor the config does not describe is refused).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/gradcheck.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "model/hf_llama.h"
#include "model/hf_lm.h"
#include "model_gradcheck.h"
#include "util/error.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

const std::string kFixtures = std::string(source_dir()) + "/tests/fixtures/";

nlohmann::json llama_json() {
  return {{"arch", "llama"}, {"vocab_size", 17}, {"block_size", 8}, {"n_layer", 2}, {"n_head", 4},
          {"n_kv_head", 2},  {"d_model", 8},     {"head_dim", 6},   {"d_ff", 12}};
}

std::string config_error(const nlohmann::json& j) {
  try {
    GPTConfig::from_json(j).validate();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(LlamaConfig, JsonRoundTripWithEveryField) {
  nlohmann::json j = llama_json();
  j["rope_theta"] = 500000.0;
  j["rope_scaling"] = {{"rope_type", "llama3"},
                       {"factor", 8.0},
                       {"low_freq_factor", 1.0},
                       {"high_freq_factor", 4.0},
                       {"original_max_position_embeddings", 64}};
  j["qk_norm"] = true;
  j["attention_bias"] = true;
  j["norm_eps"] = 1e-5;
  j["tie_head"] = true;
  const GPTConfig c = GPTConfig::from_json(j);
  EXPECT_EQ(c.arch, Arch::Llama);
  EXPECT_EQ(c.position, PositionEncoding::Rotary);
  EXPECT_EQ(c.kv_heads(), 2);
  EXPECT_EQ(c.head_size(), 6);
  EXPECT_TRUE(c.qkv_bias && c.qk_norm && c.tie_head);
  EXPECT_FALSE(c.attn_proj_bias || c.ffn_bias || c.ln_bias);
  EXPECT_EQ(c.rope_scaling.factor, 8.0f);
  EXPECT_EQ(c.rope_scaling.original_max_position, 64);
  EXPECT_EQ(GPTConfig::from_json(c.to_json()).to_json(), c.to_json());
  EXPECT_EQ(c.to_json()["arch"], "llama");
  // the family's defaults: Hugging Face's LlamaConfig (eps 1e-6, untied, no biases)
  const GPTConfig d = GPTConfig::from_json(llama_json());
  EXPECT_FALSE(d.tie_head || d.qkv_bias || d.qk_norm);
  EXPECT_EQ(d.norm_eps, 1e-6f);
  EXPECT_EQ(d.rope_scaling.factor, 0.0f);
  EXPECT_EQ(config_error(llama_json()), "no error");
}

TEST(LlamaConfig, RefusesMixedFamiliesAndBadShapesNamingTheField) {
  nlohmann::json gpt2 = {
      {"vocab_size", 17}, {"block_size", 8}, {"n_layer", 1}, {"n_head", 2}, {"d_model", 8}};
  auto bad = gpt2;
  bad["n_kv_head"] = 1;
  EXPECT_EQ(config_error(bad),
            "model.n_kv_head is not a field of arch gpt2 (it is arch llama's: set model.arch)");
  bad = gpt2;
  bad["rope_theta"] = 10000;
  EXPECT_NE(config_error(bad).find("model.rope_theta is not a field of arch gpt2"),
            std::string::npos);
  bad = gpt2;
  bad["rope_scaling"] = nullptr;
  EXPECT_NE(config_error(bad).find("model.rope_scaling is not a field of arch gpt2"),
            std::string::npos);
  bad = llama_json();
  bad["activation"] = "relu";
  EXPECT_NE(config_error(bad).find("model.activation is not a field of arch llama"),
            std::string::npos);
  bad = llama_json();
  bad["ln_eps"] = 1e-5;
  EXPECT_NE(config_error(bad).find("model.ln_eps is not a field of arch llama"), std::string::npos);
  bad = llama_json();
  bad["n_kv_head"] = 3;
  EXPECT_EQ(config_error(bad), "model.n_head (4) must be a multiple of model.n_kv_head (3)");
  bad = llama_json();
  bad["head_dim"] = 5;
  EXPECT_NE(config_error(bad).find("model.head_dim (5) must be even"), std::string::npos);
  bad = llama_json();
  bad.erase("d_ff");
  EXPECT_NE(config_error(bad).find("model.d_ff must be set for arch llama"), std::string::npos);
  bad = llama_json();
  bad["arch"] = "mamba";
  EXPECT_EQ(config_error(bad), "model.arch: unknown architecture 'mamba' (gpt2 or llama)");
  bad = llama_json();
  bad["preset"] = "gpt2-124m";
  EXPECT_NE(config_error(bad).find("preset 'gpt2-124m' is gpt2, not llama"), std::string::npos);
  bad = llama_json();
  bad["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  EXPECT_NE(config_error(bad).find("model.rope_scaling.rope_type: 'yarn' is not supported"),
            std::string::npos);
}

GPT small_llama(bool tied, bool qk_norm) {
  GPTConfig c = GPTConfig::from_json(llama_json());
  c.tie_head = tied, c.qk_norm = qk_norm;
  return GPT(c);
}

TEST(LlamaModel, HuggingFaceNamesWithoutThePrefixAndNoPositionTable) {
  GPT model = small_llama(false, true);
  std::vector<std::string> names;
  for (const auto& p : model.parameters()) names.push_back(p.name);
  const std::vector<std::string> first = {"embed_tokens.weight",
                                          "layers.0.input_layernorm.weight",
                                          "layers.0.self_attn.q_proj.weight",
                                          "layers.0.self_attn.k_proj.weight",
                                          "layers.0.self_attn.v_proj.weight",
                                          "layers.0.self_attn.o_proj.weight",
                                          "layers.0.self_attn.q_norm.weight",
                                          "layers.0.self_attn.k_norm.weight",
                                          "layers.0.post_attention_layernorm.weight",
                                          "layers.0.mlp.gate_proj.weight",
                                          "layers.0.mlp.up_proj.weight",
                                          "layers.0.mlp.down_proj.weight"};
  ASSERT_GE(names.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(names[i], first[i]);
  EXPECT_EQ(names[names.size() - 2], "norm.weight");
  EXPECT_EQ(names.back(), "lm_head.weight");
  // embeddings, per layer q 24x8, k and v 12x8, o 8x24, q/k norms 6, two norms 8, 3 MLP
  // matrices 12x8, then the final norm and the untied head
  const int64_t per_layer = 24 * 8 + 2 * 12 * 8 + 8 * 24 + 2 * 6 + 2 * 8 + 3 * 12 * 8;
  EXPECT_EQ(model.num_parameters(), 17 * 8 + 2 * per_layer + 8 + 17 * 8);
}

TEST(LlamaModel, GradientsMatchFiniteDifferences) {
  for (bool tied : {true, false}) {
    GPT model = small_llama(tied, !tied);
    Rng rng(31);
    model.init(rng);
    testing::expect_loss_gradients_close(model, testing::randomize(model, rng, 2, 5), 12);
  }
}

// A scratch copy of a fixture folder, removed at the end of the test.
struct FolderCopy {
  std::filesystem::path dir;
  explicit FolderCopy(const std::string& fixture) {
    dir = std::filesystem::temp_directory_path() /
          ("tinylm-llama-" + fixture + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const char* f : {"config.json", "model.safetensors"})
      std::filesystem::copy(kFixtures + fixture + "/" + f, dir / f);
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add);
  }
  ~FolderCopy() { std::filesystem::remove_all(dir); }
  std::string path() const { return dir.string(); }
};

void expect_same_weights(GPT& a, GPT& b) {
  auto pa = a.parameters(), pb = b.parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    ASSERT_EQ(pa[i].name, pb[i].name);
    for (int64_t j = 0; j < pa[i].param->value.numel(); ++j)
      ASSERT_EQ(pa[i].param->value[j], pb[i].param->value[j]) << pa[i].name;
  }
}

// Shards listed by model.safetensors.index.json, in bfloat16 and float32, load as the one
// file does (bf16 values exact in both).
TEST(HfLlama, ShardedFoldersLoadAsOneFile) {
  FolderCopy folder("llama-micro");
  std::unique_ptr<GPT> whole = load_hf_lm(folder.path());
  const SafeTensors file = load_safetensors(folder.path() + "/model.safetensors");
  std::vector<std::pair<std::string, SafeTensorEntry>> shard[2];
  nlohmann::json map = nlohmann::json::object();
  for (size_t i = 0; i < file.names.size(); ++i) {
    const std::string& name = file.names[i];
    Tensor t = file.get(name).to_float();
    SafeTensorEntry e = float32_entry(t);
    if (i % 2 == 1) {  // odd tensors as bf16 (and the whole model rounded the same way)
      e.dtype = "BF16";
      e.bytes.clear();
      for (int64_t j = 0; j < t.numel(); ++j) {
        const uint16_t b = float_to_bf16(t[j]);
        e.bytes.append(reinterpret_cast<const char*>(&b), 2);
      }
    }
    const std::string shard_name =
        "model-0000" + std::to_string(i % 2 + 1) + "-of-00002.safetensors";
    shard[i % 2].emplace_back(name, e);
    map[name] = shard_name;
  }
  std::filesystem::remove(folder.dir / "model.safetensors");
  for (int s = 0; s < 2; ++s)
    save_safetensor_entries(
        folder.path() + "/model-0000" + std::to_string(s + 1) + "-of-00002.safetensors", shard[s],
        {});
  std::ofstream(folder.dir / "model.safetensors.index.json")
      << nlohmann::json{{"metadata", nlohmann::json::object()}, {"weight_map", map}}.dump();
  ASSERT_TRUE(is_hf_llama_dir(folder.path()));
  std::unique_ptr<GPT> sharded = load_hf_lm(folder.path());
  // the whole model with its odd tensors rounded to bf16, as the shards hold them
  auto params = whole->parameters();
  for (auto& p : params) {
    const std::string stored = p.name.rfind("lm_head.", 0) == 0 ? p.name : "model." + p.name;
    const auto it = std::find(file.names.begin(), file.names.end(), stored);
    if ((it - file.names.begin()) % 2 == 1)
      for (int64_t j = 0; j < p.param->value.numel(); ++j)
        p.param->value[j] = bf16_to_float(float_to_bf16(p.param->value[j]));
  }
  expect_same_weights(*whole, *sharded);
}

std::string load_error(const std::string& dir) {
  try {
    load_hf_lm(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

void edit_config(const FolderCopy& folder, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json c = nlohmann::json::parse(std::ifstream(folder.dir / "config.json"));
  edit(c);
  std::ofstream(folder.dir / "config.json") << c.dump();
}

TEST(HfLlama, RefusesFoldersWhoseTensorsDoNotMatchTheConfig) {
  FolderCopy folder("llama-micro");
  edit_config(folder, [](nlohmann::json& c) { c["num_key_value_heads"] = 4; });
  EXPECT_NE(
      load_error(folder.path()).find("tensor model.layers.0.self_attn.k_proj.weight has shape"),
      std::string::npos);
  edit_config(folder, [](nlohmann::json& c) {
    c["num_key_value_heads"] = 2;
    c["tie_word_embeddings"] = true;  // but the file has lm_head.weight
  });
  EXPECT_NE(load_error(folder.path()).find("tensor lm_head.weight does not belong"),
            std::string::npos);
  edit_config(folder, [](nlohmann::json& c) {
    c["tie_word_embeddings"] = false;
    c["model_type"] = "qwen3";  // q/k norms the file does not have
  });
  EXPECT_NE(load_error(folder.path()).find("missing tensor model.layers.0.self_attn.q_norm.weight"),
            std::string::npos);
  edit_config(folder, [](nlohmann::json& c) {
    c["model_type"] = "llama";
    c["hidden_act"] = "gelu";
  });
  EXPECT_NE(load_error(folder.path()).find("hidden_act 'gelu' is not supported"),
            std::string::npos);
  edit_config(folder, [](nlohmann::json& c) {
    c["hidden_act"] = "silu";
    c["model_type"] = "mistral";
  });
  EXPECT_NE(load_error(folder.path())
                .find("model_type 'mistral' is not supported (gpt2, llama, "
                      "qwen2, qwen3)"),
            std::string::npos);
}

// Written as Hugging Face writes each architecture and read back bit for bit: Llama (with
// Llama 3 scaling), Qwen3 (q/k norms, its own head width), Qwen2 (biases).
TEST(HfLlama, SavedFoldersReadBackAsTheSameModel) {
  for (const char* fixture : {"llama-tiny", "qwen3-micro"}) {
    std::unique_ptr<GPT> model = load_hf_lm(kFixtures + fixture);
    const std::string dir = std::filesystem::temp_directory_path() /
                            ("tinylm-hf-save-" + std::string(fixture) + std::to_string(::getpid()));
    save_hf_lm(*model, dir, 50256);
    const nlohmann::json saved = nlohmann::json::parse(std::ifstream(dir + "/config.json"));
    const nlohmann::json original =
        nlohmann::json::parse(std::ifstream(kFixtures + fixture + "/config.json"));
    EXPECT_EQ(saved["architectures"], original["architectures"]);
    EXPECT_EQ(saved["head_dim"], original["head_dim"]);
    std::unique_ptr<GPT> back = load_hf_lm(dir);
    EXPECT_EQ(back->config().to_json(), model->config().to_json());
    expect_same_weights(*model, *back);
    std::filesystem::remove_all(dir);
  }
  GPTConfig c = GPTConfig::from_json(llama_json());
  c.qkv_bias = true;
  GPT qwen2(c);
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("tinylm-hf-save-qwen2" + std::to_string(::getpid()));
  save_hf_lm(qwen2, dir, -1);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir + "/config.json"))["model_type"], "qwen2");
  std::unique_ptr<GPT> back = load_hf_lm(dir);
  expect_same_weights(qwen2, *back);
  std::filesystem::remove_all(dir);
  c.qk_norm = true;  // and biases: no Hugging Face architecture has both
  GPT both(c);
  EXPECT_THROW(save_hf_lm(both, dir, -1), InputError);
}

// transformers 5 writes rope_theta and the llama3 scaling as one rope_parameters object:
// the same config as transformers 4's top-level keys.
TEST(HfLlama, ReadsTransformers5RopeParameters) {
  nlohmann::json v4 = nlohmann::json::parse(std::ifstream(kFixtures + "llama-tiny/config.json"));
  nlohmann::json v5 = v4;
  v5.erase("rope_theta");
  v5.erase("rope_scaling");
  v5["rope_parameters"] = v4["rope_scaling"];
  v5["rope_parameters"]["rope_theta"] = v4["rope_theta"];
  const GPTConfig a = llama_config_from_hf(v4), b = llama_config_from_hf(v5);
  EXPECT_EQ(a.to_json(), b.to_json());
  EXPECT_EQ(b.rope_theta, 500000.0f);
  EXPECT_EQ(b.rope_scaling.factor, 8.0f);
  v5["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 1e6}};
  EXPECT_EQ(llama_config_from_hf(v5).rope_scaling.factor, 0.0f);
  EXPECT_EQ(llama_config_from_hf(v5).rope_theta, 1e6f);
}

}  // namespace
}  // namespace tinylm
