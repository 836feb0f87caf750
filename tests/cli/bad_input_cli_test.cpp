// Bad input from outside: JSON someone else wrote, absurd sizes,
// odd arguments and unwritable outputs each give one clear message and exit code 2 --
// never undefined behaviour, a raw library error, a huge allocation or exit 0.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "io/safetensors.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// A copy of the gpt2-micro fixture (model + reference) to spoil.
std::string micro_copy(const std::string& name) {
  const std::string dir = fresh_dir(name);
  for (const char* f :
       {"config.json", "model.safetensors", "reference.json", "reference.safetensors"})
    fs::copy_file(std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro/" + f,
                  dir + "/" + f);
  return dir;
}

nlohmann::json reference(const std::string& dir) {
  return nlohmann::json::parse(read_file(dir + "/reference.json"));
}
void write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream(path) << j.dump(1);
}

// Every field of reference.json is read through a checked accessor.
TEST(BadInput, VerifyReadsReferenceJsonChecked) {
  const std::string dir = micro_copy("verifyjson");
  const nlohmann::json good = reference(dir);
  ASSERT_EQ(run_tinylm("verify " + dir).code, 0);

  write_json(dir + "/reference.json", nlohmann::json::array());
  expect_exit(2, "verify " + dir, "reference.json must be a JSON object");
  nlohmann::json j = good;
  j["loss"] = "six";
  write_json(dir + "/reference.json", j);
  expect_exit(2, "verify " + dir, "reference.json: loss must be a number");
  {
    j = good;
    j["adamw"].erase("betas");
    write_json(dir + "/reference.json", j);
    expect_exit(2, "verify " + dir, "adamw: missing field \"betas\"");
    j = good;
    j["adamw"]["steps"] = 1000000000000LL;
    write_json(dir + "/reference.json", j);
    expect_exit(2, "verify " + dir, "adamw.steps must be in");
  }
  {
    j = good;
    j["greedy"]["prompt_ids"] = {1, 2, 2147483648LL};
    write_json(dir + "/reference.json", j);
    expect_exit(2, "verify " + dir, "greedy.prompt_ids[2] must be in");
  }
  std::ofstream(dir + "/reference.json") << R"({"loss": 1.0, "loss": 2.0})";
  expect_exit(2, "verify " + dir, "duplicate key \"loss\"");
  fs::remove_all(dir);
}

// A targets tensor smaller than input_ids is refused, not read past its end.
TEST(BadInput, VerifyChecksTheReferenceTensors) {
  const std::string dir = micro_copy("verifytensors");
  const SafeTensors ref = load_safetensors(dir + "/reference.safetensors");
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  for (const auto& name : ref.names) {
    SafeTensorEntry e = ref.get(name);
    if (name == "targets") e = int64_entry({1, 2}, {1, 2});
    entries.emplace_back(name, e);
  }
  save_safetensor_entries(dir + "/reference.safetensors", entries, ref.metadata);
  expect_exit(2, "verify " + dir, "targets has shape");
  // A reference that checks nothing never reads as "all checks passed".
  entries.clear();
  for (const char* name : {"input_ids", "targets"}) entries.emplace_back(name, ref.get(name));
  save_safetensor_entries(dir + "/reference.safetensors", entries, ref.metadata);
  write_json(dir + "/reference.json", nlohmann::json::object());
  expect_exit(2, "verify " + dir, "checks nothing");
  fs::remove_all(dir);
}

// Sizes are checked against the weights file and the machine before allocating.
TEST(BadInput, AbsurdSizesAreRefusedBeforeAllocating) {
  const std::string dir = micro_copy("sizes");
  const nlohmann::json config = nlohmann::json::parse(read_file(dir + "/config.json"));
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, int64_t>>{{"n_layer", 1000000000},
                                                    {"n_positions", 1000000000},
                                                    {"vocab_size", 10000000000LL},
                                                    {"n_embd", int64_t{1} << 62}}) {
    nlohmann::json c = config;
    c[field] = value;
    write_json(dir + "/config.json", c);
    const RunResult r =
        run_tinylm("generate --model " + dir + " --prompt-ids 1,2 --max-new-tokens 1");
    EXPECT_EQ(r.code, 2) << field << "\n" << r.output;
    if (field == "n_embd") {  // info's arithmetic is checked: an error, not negative counts
      const RunResult info = run_tinylm("info --model " + dir);
      EXPECT_EQ(info.code, 2) << info.output;
      EXPECT_NE(info.output.find("too large"), std::string::npos) << info.output;
    }
  }
  // A training config whose model cannot fit in this machine's memory.
  expect_exit(2,
              "train --config configs/addition.json --out " + dir +
                  "/run --set model.d_model=65536 "
                  "--set model.n_layer=4096 --set model.n_head=1",
              "needs");
  EXPECT_FALSE(fs::exists(dir + "/run/last.safetensors"));
  fs::remove_all(dir);
}

// A checkpoint whose metadata claims absurd sizes is refused before the model
// is built (the sizes are checked against its tensors).
TEST(BadInput, CheckpointMetadataSizesAreCheckedAgainstItsTensors) {
  const std::string dir = fresh_dir("ckptsizes");
  ASSERT_EQ(run_tinylm("train --quiet --config configs/addition.json --out " + dir +
                       "/run --set train.max_steps=2 --set train.eval_interval=1000")
                .code,
            0);
  const std::string path = dir + "/run/last.safetensors";
  const SafeTensors f = load_safetensors(path);
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  for (const auto& name : f.names) entries.emplace_back(name, f.get(name));
  for (const auto& [field, value] : std::vector<std::pair<std::string, int64_t>>{
           {"n_layer", 1000000000}, {"block_size", 1000000000}, {"d_model", int64_t{1} << 62}}) {
    nlohmann::json config = nlohmann::json::parse(f.metadata.at("tinylm.config"));
    config["model"][field] = value;
    std::map<std::string, std::string> meta = f.metadata;
    meta["tinylm.config"] = config.dump();
    save_safetensor_entries(dir + "/bad.safetensors", entries, meta);
    const RunResult r =
        run_tinylm("sample --checkpoint " + dir + "/bad.safetensors --max-new-tokens 2");
    EXPECT_EQ(r.code, 2) << field << "\n" << r.output;
    EXPECT_TRUE(r.output.find("bad.safetensors") != std::string::npos ||
                r.output.find("too large") != std::string::npos)
        << field << "\n"
        << r.output;
  }
  fs::remove_all(dir);
}

// A config naming a key twice is refused.
TEST(BadInput, DuplicateKeysInAConfig) {
  const std::string dir = fresh_dir("dupkeys");
  std::ofstream(dir + "/c.json")
      << R"({"data": {"task": "addition"}, "train": {"lr": 1e-3, "lr": 1e-2}})";
  expect_exit(2, "train --config " + dir + "/c.json --out " + dir + "/run", "duplicate key \"lr\"");
  fs::remove_all(dir);
}

// Odd arguments and unwritable outputs.
TEST(BadInput, ArgumentsAndOutputs) {
  const std::string dir = fresh_dir("args");
  std::ofstream(dir + "/file") << "x";
  expect_exit(2, "train --config configs/addition.json --out " + dir + "/r --set 'train.lr=\xff'",
              "UTF-8");
  expect_exit(2, "train --config configs/addition.json --out '" + dir + "/r\xC3'", "UTF-8");
  expect_exit(2, "tokenize --tokenizer gpt2 --input " + dir + " --count", "is a folder");
  expect_exit(2, "train --config " + dir + " --out " + dir + "/r", "is a folder");
  expect_exit(2, "train --config configs/addition.json --out ''", "--out");
  expect_exit(2, "plot --run " + dir + " --out ''", "--out");
  expect_exit(2, "generate --model tests/fixtures/gpt2-micro --prompt-ids 1 --seed -1", "--seed");
  expect_exit(
      2, "generate --model tests/fixtures/gpt2-micro --prompt-ids 1 --max-new-tokens 1000000000000",
      "--max-new-tokens");
  // Unwritable outputs: the system's reason, exit 2, in each verb that writes.
  expect_exit(2, "prepare --tokenizer char --input data/the-verdict.txt --out " + dir + "/file/sub",
              "Not a directory");
  expect_exit(2,
              "bpe-train --corpus data/the-verdict.txt --vocab-size 260 --out " + dir + "/file/sub",
              "Not a directory");
  expect_exit(2, "attention --example --out " + dir + "/file/a.svg", "Not a directory");
  expect_exit(2, "attention --example --out " + dir + "/missing/a.svg",
              "No such file or directory");
  expect_exit(2, "train --config configs/addition.json --out " + dir + "/file/run",
              "Not a directory");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
