// tinylm export: a GGUF file written once, never over an existing file; bad flags exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "io/gguf.h"
#include "io/safetensors.h"

namespace tinylm::testing {
namespace {

TEST(ExportCli, WritesAGgufAndNeverOverwrites) {
  const std::string dir = fresh_dir("export");
  const std::string out = dir + "/tiny.gguf";
  const std::string args =
      "export --model tests/fixtures/gpt2-tiny --format gguf --dtype q8_0 --out " + out;
  const RunResult r = run_tinylm(args);
  ASSERT_EQ(r.code, 0) << r.output;
  const Gguf g = load_gguf(out);
  EXPECT_EQ(g.get_string("general.architecture"), "gpt2");
  EXPECT_EQ(g.get_string("general.name"), "gpt2-tiny");
  EXPECT_EQ(g.tensor("blk.0.attn_qkv.weight").type, GgmlType::kQ8_0);
  const std::string before = read_file(out);
  expect_exit(2, args, "does not overwrite");
  EXPECT_EQ(read_file(out), before);
}

// generate and sample open an exported file as any other model: at F32 the fixture's
// greedy continuation is transformers' own (reference.json).
TEST(ExportCli, GenerateAndSampleReadTheExportedFile) {
  const std::string out = fresh_dir("export-read") + "/tiny.gguf";
  ASSERT_EQ(run_tinylm("export --model tests/fixtures/gpt2-tiny --format gguf --out " + out).code,
            0);
  const RunResult g = run_tinylm("generate --model " + out +
                                 " --prompt-ids 15496,11,314,716,257,7009,3303,2746,11 "
                                 "--max-new-tokens 24 --greedy --print-ids");
  ASSERT_EQ(g.code, 0) << g.output;
  const RunResult hf = run_tinylm(
      "generate --model tests/fixtures/gpt2-tiny --prompt-ids "
      "15496,11,314,716,257,7009,3303,2746,11 --max-new-tokens 24 --greedy --print-ids");
  EXPECT_EQ(g.output, hf.output);
  const RunResult s = run_tinylm("sample --model " + out + " --prompt Hello --max-new-tokens 5");
  EXPECT_EQ(s.code, 0) << s.output;
}

// A Q8_0 file decodes with 8-bit weights by itself: what --q8 gives the same weights
// from an F32 file (the Q8_0 file widened and exported again); --bf16 and --q8 exclude
// each other.
TEST(ExportCli, AQ8FileDecodesAsQ8) {
  const std::string dir = fresh_dir("export-q8");
  const std::string q8 = dir + "/tiny-q8.gguf", f32 = dir + "/tiny-q8-widened.gguf";
  ASSERT_EQ(
      run_tinylm("export --model tests/fixtures/gpt2-tiny --format gguf --dtype q8_0 --out " + q8)
          .code,
      0);
  ASSERT_EQ(run_tinylm("export --model " + q8 + " --format gguf --dtype f32 --out " + f32).code, 0);
  const std::string greedy =
      " --prompt-ids 15496,11,314,716,257,7009,3303,2746,11 --max-new-tokens 24 --greedy "
      "--print-ids";
  const RunResult file = run_tinylm("generate --model " + q8 + greedy);
  ASSERT_EQ(file.code, 0) << file.output;
  EXPECT_EQ(file.output, run_tinylm("generate --model " + f32 + " --q8" + greedy).output);
  const RunResult s = run_tinylm("sample --model " + q8 + " --prompt Hello --max-new-tokens 5");
  EXPECT_EQ(s.code, 0) << s.output;
  expect_exit(2, "generate --model " + q8 + " --bf16 --q8" + greedy, "--q8");
}

// An instruct run trained with LoRA: without --merge its adapters as PEFT saves them
// (naming the run's base), which `lora merge` folds into that base to the very model
// --merge exports.
TEST(ExportCli, AnInstructLoraRunIsAPeftAdapter) {
  const std::string dir = fresh_dir("export-peft");
  nlohmann::json settings = tiny_instruct_settings();
  settings.erase("model");  // the base is a Hugging Face folder, not a preset
  settings["finetune"]["max_steps"] = 2;
  settings["finetune"]["write_responses"] = false;
  settings["finetune"]["trainable"] = "lora";
  settings["lora"] = {{"r", 2}, {"alpha", 4}, {"targets", {"c_attn", "c_fc"}}};
  std::ofstream(dir + "/settings.json") << settings.dump(2);
  const std::string base = "tests/fixtures/gpt2-tiny", run = dir + "/instruct";
  RunResult r = run_tinylm("finetune --task instruct --base " + base + " --data " +
                           write_instruction_file(dir + "/data.json", 8) + " --out " + run +
                           " --quiet --config " + dir + "/settings.json");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("export --model " + run + " --format hf --out " + dir + "/peft");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("PEFT LoRA adapter"), std::string::npos) << r.output;
  const nlohmann::json config = nlohmann::json::parse(read_file(dir + "/peft/adapter_config.json"));
  EXPECT_EQ(config["peft_type"], "LORA");
  EXPECT_EQ(config["task_type"], "CAUSAL_LM");
  EXPECT_EQ(config["base_model_name_or_path"], base);
  EXPECT_TRUE(file_exists(dir + "/peft/adapter_model.safetensors"));
  EXPECT_TRUE(file_exists(dir + "/peft/vocab.json"));
  ASSERT_EQ(
      run_tinylm("export --model " + run + " --format hf --merge --out " + dir + "/merged").code,
      0);
  r = run_tinylm("lora merge --base " + base + " --adapter " + dir + "/peft --out " + dir +
                 "/folded");
  ASSERT_EQ(r.code, 0) << r.output;
  // The adapted weight: the same in both folders, and not the base's (the adapters moved it).
  const auto c_attn = [](const std::string& folder) {
    const SafeTensors file = load_safetensors(folder + "/model.safetensors");
    for (const std::string& name : file.names)
      if (name.find("h.0.attn.c_attn.weight") != std::string::npos)
        return file.get(name).to_float().to_vector();
    ADD_FAILURE() << "no h.0.attn.c_attn.weight in " << folder;
    return std::vector<float>{};
  };
  const std::vector<float> merged_w = c_attn(dir + "/merged"), folded_w = c_attn(dir + "/folded"),
                           base_w = c_attn(base);
  ASSERT_EQ(merged_w.size(), folded_w.size());
  ASSERT_EQ(merged_w.size(), base_w.size());
  double moved = 0;
  for (size_t i = 0; i < merged_w.size(); ++i) {
    EXPECT_NEAR(folded_w[i], merged_w[i], 1e-6) << i;
    moved = std::max(moved, std::abs(double(merged_w[i]) - base_w[i]));
  }
  EXPECT_GT(moved, 1e-6) << "the adapters did not change the weight";
  const std::string greedy =
      " --prompt-ids 15496,11,314,716 --max-new-tokens 16 --greedy --print-ids";
  const RunResult merged = run_tinylm("generate --model " + dir + "/merged" + greedy);
  ASSERT_EQ(merged.code, 0) << merged.output;
  EXPECT_EQ(run_tinylm("generate --model " + dir + "/folded" + greedy).output, merged.output);
}

// A classifier fine-tuned with LoRA: without --merge, the PEFT SEQ_CLS adapter the run
// itself wrote at its end (the same files, byte for byte: the same weights); with --merge,
// the GPT2ForSequenceClassification folder it wrote after merging them (byte for byte).
TEST(ExportCli, AClassifyLoraRunIsAPeftSeqClsAdapter) {
  const std::string dir = fresh_dir("export-peft-cls");
  nlohmann::json settings = tiny_classify_settings();
  settings["finetune"]["trainable"] = "lora";
  settings["finetune"]["epochs"] = 1;
  settings["lora"] = {{"r", 2}, {"alpha", 4}, {"targets", {"c_attn", "c_fc"}}};
  std::ofstream(dir + "/settings.json") << settings.dump(2);
  const std::string run = dir + "/cls";
  RunResult r = run_tinylm("finetune --task classify --base gpt2-124m --data " +
                           write_spam_file(dir + "/spam.tsv", 24) + " --out " + run +
                           " --quiet --config " + dir + "/settings.json");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("export --model " + run + " --format hf --out " + dir + "/peft");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("PEFT LoRA adapter (SEQ_CLS)"), std::string::npos) << r.output;
  const nlohmann::json config = nlohmann::json::parse(read_file(dir + "/peft/adapter_config.json"));
  EXPECT_EQ(config["task_type"], "SEQ_CLS");
  EXPECT_EQ(config["modules_to_save"], nlohmann::json::array({"score"}));
  for (const char* file : {"adapter_config.json", "adapter_model.safetensors"})
    EXPECT_EQ(read_file(dir + "/peft/" + file), read_file(run + "/adapter/" + file)) << file;

  r = run_tinylm("export --model " + run + " --format hf --merge --out " + dir + "/merged");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("GPT2ForSequenceClassification"), std::string::npos) << r.output;
  // the folder the run wrote at its end, after merging its adapters
  for (const char* file : {"config.json", "model.safetensors"})
    EXPECT_EQ(read_file(dir + "/merged/" + file), read_file(run + "/hf/" + file)) << file;
  // The run padded its texts (to tinylm_max_length) and pools the last position: read
  // back, the folder classifies as the run does.
  EXPECT_TRUE(
      nlohmann::json::parse(read_file(dir + "/merged/config.json")).contains("tinylm_max_length"));
  const std::string text = " --text \"Free entry to win a prize, call now\" --text \"see you\"";
  const RunResult from_run = run_tinylm("classify --model " + run + text);
  ASSERT_EQ(from_run.code, 0) << from_run.output;
  EXPECT_EQ(run_tinylm("classify --model " + dir + "/merged" + text).output, from_run.output);
}

TEST(ExportCli, BadFlagsAreInputErrors) {
  const std::string out = fresh_dir("export-bad") + "/x.gguf";
  expect_exit(2, "export --model tests/fixtures/gpt2-tiny --format gguf --dtype q4_0 --out " + out,
              "q4_0");
  expect_exit(2, "export --model tests/fixtures/gpt2-tiny --format onnx --out " + out, "--format");
  expect_exit(2, "export --model no/such/run --format gguf --out " + out, "no/such/run");
  EXPECT_FALSE(file_exists(out));
}

// --format hf: a folder that tinylm (and transformers) reads back: the same greedy tokens;
// float32 only; never over an existing folder, but into an empty one.
TEST(ExportCli, AHuggingFaceFolderReadsBack) {
  const std::string out = fresh_dir("export-hf") + "/tiny-hf";
  const RunResult r =
      run_tinylm("export --model tests/fixtures/gpt2-tiny --format hf --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("GPT2LMHeadModel, with its tokenizer files"), std::string::npos)
      << r.output;
  const std::string greedy =
      " --prompt-ids 15496,11,314,716 --max-new-tokens 12 --greedy --print-ids";
  EXPECT_EQ(run_tinylm("generate --model " + out + greedy).output,
            run_tinylm("generate --model tests/fixtures/gpt2-tiny" + greedy).output);
  expect_exit(2, "export --model tests/fixtures/gpt2-tiny --format hf --out " + out,
              "does not overwrite");
  // An empty folder is taken, as lora merge takes one (export/model_folder.h).
  std::filesystem::create_directory(out + "-empty");
  ASSERT_EQ(
      run_tinylm("export --model tests/fixtures/gpt2-tiny --format hf --out " + out + "-empty")
          .code,
      0);
  EXPECT_TRUE(file_exists(out + "-empty/model.safetensors"));
  expect_exit(2,
              "export --model tests/fixtures/gpt2-tiny --format hf --dtype f16 --out " + out + "2",
              "float32");
}

// Five steps of the addition task (an evaluation at steps 2 and 4): a run with best and
// last checkpoints and the addition vocabulary, in a second.
RunResult train_addition_run(const std::string& out) {
  return run_tinylm("train --quiet --config configs/addition.json --out " + out +
                    " --set train.max_steps=5 --set train.eval_interval=2 "
                    "--set train.eval_iters=1 --set train.batch_size=8");
}

// A folder exported from a run whose vocabulary is not GPT-2's (here the addition task's)
// keeps that tokenizer (tinylm_tokenizer.json), so tinylm reads text with it again; a
// trailing slash names the folder itself; a gguf --out ending in one, or "DIR/.", is bad.
TEST(ExportCli, AFolderOfAnotherVocabularyReadsBackWithIt) {
  const std::string dir = fresh_dir("export-vocab");
  ASSERT_EQ(train_addition_run(dir + "/run").code, 0);
  const RunResult r =
      run_tinylm("export --model " + dir + "/run --format hf --out " + dir + "/hf/");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(file_exists(dir + "/hf/tinylm_tokenizer.json"));
  // config.json's bos and eos are the vocabulary's end of text (<EOS>, 13), not GPT-2's
  const auto config = nlohmann::json::parse(read_file(dir + "/hf/config.json"));
  EXPECT_EQ(config["eos_token_id"], 13);
  EXPECT_EQ(config["bos_token_id"], 13);
  const std::string greedy = " --prompt 12+34= --max-new-tokens 4 --greedy";
  const RunResult back = run_tinylm("generate --model " + dir + "/hf" + greedy);
  ASSERT_EQ(back.code, 0) << back.output;
  EXPECT_EQ(back.output, run_tinylm("generate --model " + dir + "/run" + greedy).output);
  // As a base to train on (train.init_from) the folder brings that tokenizer too.
  const std::string cfg = dir + "/more.json";
  std::ofstream(cfg) << R"({"data": {"task": "addition"}, "sample": {"max_new_tokens": 0},
    "train": {"batch_size": 8, "max_steps": 2, "eval_interval": 2, "eval_iters": 1}})";
  const RunResult more = run_tinylm("train --quiet --config " + cfg +
                                    " --set train.init_from=" + dir + "/hf --out " + dir + "/more");
  ASSERT_EQ(more.code, 0) << more.output;
  EXPECT_NE(read_file(dir + "/more/tokenizer.json").find("addition"), std::string::npos);
  expect_exit(2, "export --model " + dir + "/run --format gguf --out " + dir + "/x/",
              "names a folder");
  expect_exit(2, "export --model " + dir + "/run --format hf --out " + dir + "/.",
              "names no new file or folder");
}

// --checkpoint best|last exports that checkpoint file of a train run (the run's default,
// as sample opens it, is best); only train runs have both.
TEST(ExportCli, CheckpointBestOrLastIsThatFile) {
  const std::string dir = fresh_dir("export-best");
  ASSERT_EQ(train_addition_run(dir + "/run").code, 0);
  const auto exported = [&](const std::string& model, const std::string& flags,
                            const std::string& out) {
    const RunResult r =
        run_tinylm("export --model " + model + flags + " --format hf --out " + dir + "/" + out);
    EXPECT_EQ(r.code, 0) << r.output;
    return read_file(dir + "/" + out + "/model.safetensors");
  };
  const std::string run = dir + "/run";
  const std::string best_file = exported(run + "/best.safetensors", "", "best-file");
  const std::string last_file = exported(run + "/last.safetensors", "", "last-file");
  EXPECT_TRUE(exported(run, " --checkpoint best", "best") == best_file);
  EXPECT_TRUE(exported(run, " --checkpoint last", "last") == last_file);
  EXPECT_TRUE(exported(run, "", "default") == best_file);
  // with this seed the best is step 4 and the last step 5: the two differ
  if (read_file(run + "/best.safetensors") != read_file(run + "/last.safetensors")) {
    EXPECT_FALSE(best_file == last_file);
  }
  // a checkpoint file's GGUF is named after its run's folder, as the run's own is
  const RunResult c = run_tinylm(
      "train --quiet --config configs/shakespeare-char-cpu.json --out " + dir +
      "/chars --set train.max_steps=2 --set train.eval_interval=2 --set train.eval_iters=1 "
      "--set model.n_layer=1 --set model.d_model=16 --set model.n_head=2 "
      "--set model.activation=gelu_tanh --set sample.max_new_tokens=0");
  ASSERT_EQ(c.code, 0) << c.output;
  const RunResult g = run_tinylm("export --model " + dir +
                                 "/chars/last.safetensors --format gguf --out " + dir + "/c.gguf");
  ASSERT_EQ(g.code, 0) << g.output;
  EXPECT_EQ(load_gguf(dir + "/c.gguf").get_string("general.name"), "chars");
  expect_exit(
      2,
      "export --model tests/fixtures/gpt2-tiny --checkpoint best --format hf --out " + dir + "/c",
      "only a tinylm train run keeps best and last checkpoints");
}

}  // namespace
}  // namespace tinylm::testing
