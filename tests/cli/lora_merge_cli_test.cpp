// `tinylm lora merge`: the merged folder is filled under
// a new name made exclusively, so no folder tinylm did not make is removed; an --out that
// cannot be written exits 2 naming it and leaves nothing behind; a base that already
// holds its LoRA adapters (a LoRA run) is refused; and an adapter with a tensor name it
// does not recognise or NaN / infinite values exits 2 and writes nothing; the merged
// folder keeps the base's tokenizer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "io/safetensors.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

const std::string kMerge =
    "lora merge --base tests/fixtures/gpt2-micro-lora --adapter "
    "tests/fixtures/gpt2-micro-lora/adapter";

// The names under dir (recursively, links not followed), for "nothing else changed".
std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.insert(e.path().string());
  return names;
}

// Runs the merge into out; expects exit 2, a message naming out, no raw filesystem
// message, and dir as it was.
void expect_refused_out(const std::string& dir, const std::string& out, const std::string& words) {
  const std::set<std::string> before = listing(dir);
  const RunResult r = run_tinylm(kMerge + " --out " + out);
  EXPECT_EQ(r.code, 2) << out << "\n" << r.output;
  EXPECT_NE(r.output.find("--out " + out), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("filesystem error"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one message
  EXPECT_EQ(listing(dir), before) << out;
}

// A folder under the old temporary name is someone else's, and stays.
TEST(LoraMerge, NeverRemovesWhatItDidNotMake) {
  const std::string dir = fresh_dir("merge-tmp-name");
  fs::create_directory(dir + "/m.tmp-merge");
  std::ofstream(dir + "/m.tmp-merge/n") << "x";
  fs::create_directory(dir + "/elsewhere");
  std::ofstream(dir + "/elsewhere/config.json") << "precious";
  fs::create_directory_symlink(dir + "/elsewhere", dir + "/k.tmp-merge");
  auto r = run_tinylm(kMerge + " --out " + dir + "/m");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm(kMerge + " --out " + dir + "/k/");  // a trailing '/' names k itself
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_file(dir + "/m.tmp-merge/n"), "x");
  EXPECT_EQ(read_file(dir + "/elsewhere/config.json"), "precious");
  EXPECT_TRUE(fs::is_symlink(dir + "/k.tmp-merge"));
  EXPECT_TRUE(file_exists(dir + "/m/model.safetensors"));
  EXPECT_TRUE(file_exists(dir + "/k/config.json"));
  // Nothing else is left beside them: the temporary folders were renamed.
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(dir)) top.insert(e.path().filename().string());
  EXPECT_EQ(top, (std::set<std::string>{"elsewhere", "k", "k.tmp-merge", "m", "m.tmp-merge"}));
  fs::remove_all(dir);
}

// An --out that cannot be the merged folder exits 2 naming it, with no debris.
TEST(LoraMerge, AnOutThatCannotBeWrittenExits2AndLeavesNothing) {
  const std::string dir = fresh_dir("merge-bad-out");
  std::ofstream(dir + "/file") << "x";
  fs::create_directory(dir + "/full");
  std::ofstream(dir + "/full/x") << "x";
  fs::create_directory(dir + "/elsewhere");
  fs::create_directory_symlink(dir + "/elsewhere", dir + "/link");
  for (const char* tail : {"/m/.", "/m/..", "/."})
    expect_refused_out(dir, dir + tail, "name the new folder itself");
  expect_refused_out(dir, dir + "/file/m", "is not a folder");
  expect_refused_out(dir, dir + "/file/deeper/m", "Not a directory");
  expect_refused_out(dir, dir + "/file", "does not overwrite");
  expect_refused_out(dir, dir + "/full", "does not overwrite");
  expect_refused_out(dir, dir + "/link", "symbolic link");
  EXPECT_TRUE(fs::is_empty(dir + "/elsewhere"));
  expect_refused_out(dir, "/proc/tinylm-merge-" + std::to_string(::getpid()), "/proc");
  // A read-only folder (root writes anywhere: then only the check above applies).
  fs::create_directory(dir + "/ro");
  fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
  if (::access((dir + "/ro").c_str(), W_OK) != 0)
    expect_refused_out(dir, dir + "/ro/m", "cannot write into");
  fs::permissions(dir + "/ro", fs::perms::owner_all);
  fs::remove_all(dir);
}

// The LoRA run of train_lora_cli_test.cpp, shorter: gpt2-tiny with adapters on c_attn.
std::string train_lora_run(const std::string& dir) {
  std::ofstream(dir + "/lora.json") << R"({
  "model": {"block_size": 16},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"init_from": "tests/fixtures/gpt2-tiny", "trainable": "lora",
            "batch_size": 2, "max_steps": 2, "lr": 1e-2, "warmup_steps": 1, "eval_interval": 2,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 5, "threads": 1},
  "lora": {"r": 2, "alpha": 4, "targets": ["c_attn"]},
  "sample": {"max_new_tokens": 0}
})";
  const RunResult r =
      run_tinylm("train --quiet --config " + dir + "/lora.json --out " + dir + "/run");
  EXPECT_EQ(r.code, 0) << r.output;
  return dir + "/run";
}

// A run that trained LoRA already holds its adapters; merging one into it again
// would apply LoRA twice.
TEST(LoraMerge, ARunThatTrainedLoraIsRefusedAsTheBase) {
  const std::string dir = fresh_dir("merge-lora-run");
  const std::string run = train_lora_run(dir);
  fs::copy(run + "/adapter", dir + "/copied-adapter");
  for (const std::string& base : {run, run + "/last.safetensors", run + "/best.safetensors"}) {
    for (const std::string& adapter : {run + "/adapter", dir + "/copied-adapter"}) {
      const RunResult r = run_tinylm("lora merge --base " + base + " --adapter " + adapter +
                                     " --out " + dir + "/m");
      EXPECT_EQ(r.code, 2) << base << "\n" << r.output;
      EXPECT_NE(r.output.find("--base " + base + " is a run that trained LoRA"), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("--base tests/fixtures/gpt2-tiny"), std::string::npos) << r.output;
      EXPECT_FALSE(fs::exists(dir + "/m"));
    }
  }
  // An instruct fine-tuning run with LoRA: the same.
  nlohmann::json s = tiny_instruct_settings();
  s["finetune"]["max_steps"] = 1;
  s["finetune"]["write_responses"] = false;
  s["finetune"]["trainable"] = "lora";
  s["lora"] = {{"r", 2}, {"alpha", 4}, {"targets", {"c_attn"}}};
  std::ofstream(dir + "/settings.json") << s.dump(2);
  RunResult r = run_tinylm("finetune --task instruct --base gpt2-124m --data " +
                           write_instruction_file(dir + "/data.json", 14) + " --out " + dir +
                           "/instruct --quiet --config " + dir + "/settings.json");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("lora merge --base " + dir + "/instruct --adapter " + dir +
                 "/instruct/adapter --out " + dir + "/m");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("apply LoRA twice"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/m"));
  // Its own base takes the adapter.
  r = run_tinylm("lora merge --base tests/fixtures/gpt2-tiny --adapter " + run + "/adapter --out " +
                 dir + "/m");
  EXPECT_EQ(r.code, 0) << r.output;
  fs::remove_all(dir);
}

// A base trained on a char vocabulary, a LoRA run from it, the adapter merged into it:
// the merged folder holds the base's tokenizer (tinylm_tokenizer.json, as `tinylm export
// --format hf` writes it), so tinylm reads it back with that tokenizer and samples the
// LoRA run's text. Without it the folder is read with GPT-2's tokenizer.
TEST(LoraMerge, TheMergedFolderKeepsTheBasesTokenizer) {
  const std::string dir = fresh_dir("merge-char-base");
  std::ofstream(dir + "/base.json") << R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "data/the-verdict.txt", "tokenizer": "char"},
  "train": {"batch_size": 2, "max_steps": 2, "lr": 1e-2, "warmup_steps": 1, "eval_interval": 2,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 5, "threads": 1},
  "sample": {"max_new_tokens": 0}
})";
  RunResult r = run_tinylm("train --quiet --config " + dir + "/base.json --out " + dir + "/base");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(dir + "/lora.json") << R"({
  "data": {"path": "data/the-verdict.txt"},
  "train": {"init_from": ")" + dir + R"(/base", "trainable": "lora",
            "batch_size": 2, "max_steps": 2, "lr": 1e-1, "warmup_steps": 1, "eval_interval": 2,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 5, "threads": 1},
  "lora": {"r": 2, "alpha": 4, "targets": ["c_attn"]},
  "sample": {"max_new_tokens": 0}
})";
  r = run_tinylm("train --quiet --config " + dir + "/lora.json --out " + dir + "/lora");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("lora merge --base " + dir + "/base --adapter " + dir + "/lora/adapter --out " +
                 dir + "/merged");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string sample = " sample --prompt 'I had' --max-new-tokens 24 --seed 3 --run ";
  const RunResult from_run = run_tinylm(sample + dir + "/lora");
  const RunResult from_merged = run_tinylm(sample + dir + "/merged");
  ASSERT_EQ(from_run.code, 0) << from_run.output;
  EXPECT_EQ(from_merged.code, 0) << from_merged.output;
  EXPECT_EQ(from_merged.output, from_run.output);
  const std::string stored = dir + "/merged/tinylm_tokenizer.json";
  ASSERT_TRUE(file_exists(stored));
  EXPECT_EQ(nlohmann::json::parse(read_file(stored))["kind"], "char");
  fs::remove_all(dir);
}

// A copy of the fixture's adapter with its tensors (names and values) changed by `edit`.
std::string edited_adapter(const std::string& dir, const std::string& name,
                           const std::function<void(std::string&, Tensor&)>& edit) {
  const std::string src =
      std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro-lora/adapter";
  const std::string out = dir + "/" + name;
  fs::create_directories(out);
  fs::copy_file(src + "/adapter_config.json", out + "/adapter_config.json");
  const SafeTensors file = load_safetensors(src + "/adapter_model.safetensors");
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& key : file.names) {
    std::string k = key;
    Tensor t = file.get(key).to_float();
    edit(k, t);
    tensors.emplace_back(k, t);
  }
  save_safetensors(out + "/adapter_model.safetensors", tensors, {{"format", "pt"}});
  return out;
}

// No adapter tensor is skipped, and no NaN or infinity is written.
TEST(LoraMerge, UnknownTensorsAndNonFiniteValuesExit2AndWriteNothing) {
  const std::string dir = fresh_dir("merge-bad-adapter");
  const auto expect_refused = [&](const std::string& adapter, const std::string& words) {
    const RunResult r = run_tinylm("lora merge --base tests/fixtures/gpt2-micro-lora --adapter " +
                                   adapter + " --out " + dir + "/m");
    EXPECT_EQ(r.code, 2) << adapter << "\n" << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/m")) << adapter;
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find("m.tmp"), std::string::npos) << e.path();
  };
  const auto rename = [](const std::string& from, const std::string& to) {
    return [=](std::string& key, Tensor&) {
      if (const size_t at = key.find(from); at != std::string::npos)
        key.replace(at, from.size(), to);
    };
  };
  expect_refused(edited_adapter(dir, "h00", rename(".h.0.attn.c_attn.", ".h.00.attn.c_attn.")),
                 "tensor 'base_model.model.transformer.h.00.attn.c_attn.lora_A.weight'");
  expect_refused(edited_adapter(dir, "h1", rename(".h.1.mlp.", ".h.01.mlp.")),
                 "transformer.h.01.mlp");
  expect_refused(edited_adapter(dir, "h3", rename(".h.2.", ".h.3.")),
                 "which the base model does not have");
  expect_refused(edited_adapter(dir, "q", rename("attn.c_proj", "attn.q_proj")), "attn.q_proj");
  const auto poison = [](const std::string& which, float value) {
    return [=](std::string& key, Tensor& t) {
      if (key == "base_model.model.transformer.h.0.attn.c_attn." + which) t.data()[5] = value;
    };
  };
  const float inf = std::numeric_limits<float>::infinity();
  expect_refused(edited_adapter(dir, "nan-b", poison("lora_B.weight", std::nanf(""))),
                 "transformer.h.0.attn.c_attn.lora_B.weight holds NaN or infinite values");
  expect_refused(edited_adapter(dir, "inf-a", poison("lora_A.weight", -inf)),
                 "transformer.h.0.attn.c_attn.lora_A.weight holds NaN or infinite values");
  // Finite values whose merge overflows float.
  expect_refused(edited_adapter(dir, "huge",
                                [](std::string&, Tensor& t) {
                                  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = 1e30f;
                                }),
                 "is NaN or infinite (nothing was written)");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
