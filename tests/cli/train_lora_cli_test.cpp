// `tinylm train` starting from a base (train.init_from) and training LoRA adapters
// (train.trainable "lora"): the base comes in exactly and stays frozen, resume is
// bit-identical with adapter dropout, the run loads back with the adapters merged, the
// PEFT folder it writes merges into the same model, and bad input exits 2.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "cli/cli_test_util.h"
#include "io/safetensors.h"
#include "model/hf_gpt2.h"
#include "open/loaded_run.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

const std::string kTiny = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny";

// tests/fixtures/gpt2-tiny: a Hugging Face GPT-2 folder (2 layers, d 32, 64 positions,
// the GPT-2 vocabulary). LoRA r 4 on c_attn and c_fc, dropout 0.1, positions cropped to 16.
std::string lora_config(const std::string& dir) {
  const std::string path = dir + "/lora.json";
  std::ofstream(path) << R"({
  "model": {"block_size": 16},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"init_from": "tests/fixtures/gpt2-tiny", "trainable": "lora",
            "batch_size": 4, "max_steps": 8, "lr": 1e-2, "warmup_steps": 1, "eval_interval": 4,
            "eval_iters": 2, "log_interval": 1, "checkpoint_interval": 4, "seed": 5, "threads": 1},
  "lora": {"r": 4, "alpha": 8, "targets": ["c_attn", "c_fc"], "dropout": 0.1},
  "sample": {"max_new_tokens": 0}
})";
  return path;
}

// Every tensor of a checkpoint or safetensors file whose name starts with `prefix`.
std::map<std::string, Tensor> tensors(const std::string& file, const std::string& prefix) {
  std::map<std::string, Tensor> out;
  const SafeTensors f = load_safetensors(file);
  for (const auto& name : f.names)
    if (name.rfind(prefix, 0) == 0) out[name.substr(prefix.size())] = f.get(name).to_float();
  return out;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    m = std::max(m, std::abs(static_cast<double>(a.data()[i]) - b.data()[i]));
  return m;
}

TEST(TrainLora, StartsFromTheBaseKeepsItFrozenAndResumesBitIdentically) {
  const std::string dir = fresh_dir("train-lora");
  const std::string cfg = lora_config(dir);
  auto whole = run_tinylm("train --config " + cfg + " --out " + dir + "/whole");
  ASSERT_EQ(whole.code, 0) << whole.output;
  // GPT-2 tiny has 2 layers: c_attn and c_fc in each, 2 x (4 x (32 + 96) + 4 x (32 + 128)).
  EXPECT_NE(whole.output.find("2,304 trainable: LoRA r 4 on 4 layers"), std::string::npos)
      << whole.output;
  EXPECT_NE(read_file(dir + "/whole/report.html")
                .find("1,636,512: 2,304 trainable (LoRA r 4 on c_attn, c_fc), 1,634,208 frozen"),
            std::string::npos);
  auto half =
      run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/split --stop-after 3");
  ASSERT_EQ(half.code, 0) << half.output;
  auto rest = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/split --resume");
  ASSERT_EQ(rest.code, 0) << rest.output;
  EXPECT_EQ(read_file(dir + "/whole/last.safetensors"), read_file(dir + "/split/last.safetensors"));

  // The base's weights, as tinylm names them, with the learned positions cropped to 16.
  const std::unique_ptr<GPT> base = load_hf_gpt2(kTiny);
  const auto saved = tensors(dir + "/whole/last.safetensors", "model.");
  for (const auto& p : base->parameters()) {
    ASSERT_TRUE(saved.count(p.name)) << p.name;
    const Tensor& w = saved.at(p.name);
    const int64_t n = w.numel();
    ASSERT_LE(n, p.param->value.numel()) << p.name;
    EXPECT_TRUE(std::equal(w.data(), w.data() + n, p.param->value.data())) << p.name << " changed";
  }
  const Tensor& wpe = saved.at("wpe.weight");
  EXPECT_EQ(wpe.shape(), (Shape{16, 32}));
  // The adapters trained (B starts at zero), and only they have AdamW moments.
  const Tensor& b0 = saved.at("transformer.h.0.attn.c_attn.lora_B.weight");
  EXPECT_EQ(b0.shape(), (Shape{96, 4}));
  EXPECT_GT(max_abs_diff(b0, Tensor::zeros(b0.shape())), 0.0);
  const auto moments = tensors(dir + "/whole/last.safetensors", "optim.m.");
  EXPECT_EQ(moments.size(), 8u);
  for (const auto& [name, m] : moments) EXPECT_NE(name.find(".lora_"), std::string::npos) << name;

  // The PEFT folder: the adapters under PEFT's names and shapes.
  const auto peft = tensors(dir + "/whole/adapter/adapter_model.safetensors", "base_model.model.");
  ASSERT_EQ(peft.size(), 8u);
  EXPECT_EQ(peft.at("transformer.h.1.mlp.c_fc.lora_A.weight").shape(), (Shape{4, 32}));
  EXPECT_EQ(max_abs_diff(peft.at("transformer.h.0.attn.c_attn.lora_B.weight"), b0), 0.0);
  const auto config = nlohmann::json::parse(read_file(dir + "/whole/adapter/adapter_config.json"));
  EXPECT_EQ(config["r"], 4);
  EXPECT_EQ(config["lora_alpha"], 8.0);
  EXPECT_EQ(config["lora_dropout"], 0.1);
  EXPECT_EQ(config["base_model_name_or_path"], "tests/fixtures/gpt2-tiny");
  fs::remove_all(dir);
}

TEST(TrainLora, TheRunLoadsMergedAndEqualsTheBaseWithItsPeftAdapterMerged) {
  const std::string dir = fresh_dir("train-lora-merge");
  auto r = run_tinylm("train --quiet --config " + lora_config(dir) + " --out " + dir + "/run");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("lora merge --base tests/fixtures/gpt2-tiny --adapter " + dir +
                 "/run/adapter --out " + dir + "/merged");
  ASSERT_EQ(r.code, 0) << r.output;

  const LoadedRun run = load_run(dir + "/run/last.safetensors");
  const std::unique_ptr<GPT> merged = load_hf_gpt2(dir + "/merged");
  const std::unique_ptr<GPT> base = load_hf_gpt2(kTiny);
  std::vector<int32_t> ids(16);
  std::iota(ids.begin(), ids.end(), 1000);
  const Tensor a = run.model->forward(ids.data(), 1, 16).clone();
  const Tensor b = merged->forward(ids.data(), 1, 16).clone();
  const Tensor c = base->forward(ids.data(), 1, 16).clone();
  EXPECT_LT(max_abs_diff(a, b), 1e-5);
  EXPECT_GT(max_abs_diff(a, c), 1e-3);  // the adapters changed the model
  // `sample` and `eval` read the run the same way.
  r = run_tinylm("eval --run " + dir + "/run");
  EXPECT_EQ(r.code, 0) << r.output;
  fs::remove_all(dir);
}

TEST(TrainLora, FullTrainingFromARunFolderContinuesItsWeights) {
  const std::string dir = fresh_dir("train-init-run");
  const std::string cfg = dir + "/base.json";
  std::ofstream(cfg) << R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"batch_size": 4, "max_steps": 6, "warmup_steps": 1, "eval_interval": 3,
            "eval_iters": 2, "seed": 3, "threads": 1},
  "sample": {"max_new_tokens": 0}
})";
  auto r = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/base");
  ASSERT_EQ(r.code, 0) << r.output;
  // The same corpus with the base's character vocabulary; every weight trains.
  r = run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                 "/more --set train.init_from=" + dir +
                 "/base --set train.max_steps=2 --set train.lr=1e-9 --set train.min_lr=0");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto before = tensors(dir + "/base/last.safetensors", "model.");
  const auto after = tensors(dir + "/more/last.safetensors", "model.");
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [name, w] : before) {
    EXPECT_LT(max_abs_diff(w, after.at(name)), 1e-6) << name;  // lr 1e-9: barely moved
  }
  const auto saved = nlohmann::json::parse(read_file(dir + "/more/config.json"));
  EXPECT_EQ(saved["model"]["d_model"], 16);
  EXPECT_EQ(saved["train"]["init_from"], dir + "/base");
  fs::remove_all(dir);
}

TEST(TrainLora, BadInputIsOneMessageAndExitCode2) {
  const std::string dir = fresh_dir("train-lora-bad");
  const std::string cfg = lora_config(dir);
  const auto expect_input_error = [&](const std::string& sets, const std::string& words) {
    const auto r = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run " + sets);
    EXPECT_EQ(r.code, 2) << sets << "\n" << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << sets << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir + "/run/last.safetensors")) << sets;
  };
  expect_input_error("--set train.init_from=" + dir + "/nothing-here", "train.init_from " + dir);
  expect_input_error("--set model.n_layer=3", "model.n_layer is 3 but");
  expect_input_error("--set model.block_size=65", "positions for only 64");
  expect_input_error("--set data.tokenizer=char", "leave data.tokenizer out");
  expect_input_error("--set train.trainable=some", "train.trainable");
  expect_input_error("--set lora.r=0", "lora.r must be a positive integer");
  expect_input_error("--set lora.r=200", "lora.r = 200 is larger than");
  expect_input_error("--set lora.targets='[\"head\"]'", "head");
  expect_input_error("--set lora.targets='[\"q_proj\"]'", "q_proj");
  expect_input_error("--set lora.dropout=1", "lora.dropout");

  // A character-level base cannot read a corpus with characters it never saw.
  const std::string text = dir + "/abc.txt", other = dir + "/xyz.txt";
  std::ofstream(text) << std::string(400, 'a') + std::string(400, 'b');
  std::ofstream(other) << std::string(400, 'x') + std::string(400, 'y');
  const std::string base_cfg = dir + "/base.json";
  std::ofstream(base_cfg)
      << R"({"model": {"block_size": 8, "n_layer": 1, "n_head": 1, "d_model": 8},
  "data": {"path": ")" +
             text +
             R"("}, "train": {"batch_size": 2, "max_steps": 2, "eval_iters": 1, "threads": 1},
  "sample": {"max_new_tokens": 0}})";
  auto r = run_tinylm("train --quiet --config " + base_cfg + " --out " + dir + "/abc");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("train --quiet --config " + base_cfg + " --out " + dir +
                 "/xyz --set data.path=" + other + " --set train.init_from=" + dir + "/abc");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot encode"), std::string::npos) << r.output;

  // What may not change on resume: the adapters' settings.
  r = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run --stop-after 2");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string before = read_file(dir + "/run/last.safetensors");
  r = run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                 "/run --resume --set lora.r=8");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("lora.r"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(dir + "/run/last.safetensors"), before);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
