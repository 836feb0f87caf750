// tinylm download against a stand-in for the hub on 127.0.0.1 (tests/download/fake_hub.h),
// then the verbs opening the model by its name from the cache: the same greedy tokens as
// the fixture folder, and verify passes on a copy with the fixture's reference. Exit codes:
// 2 for a bad name or an unknown repo, 1 for the network.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"
#include "common/scoped_env.h"
#include "download/fake_hub.h"
#include "model/hf_gpt2.h"
#include "model/openai_folder_writer.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = "tests/fixtures/gpt2-tiny";
const std::string kGreedy =
    " --prompt-ids 15496,11,314,716,257,7009,3303,2746,11 --max-new-tokens 12 --greedy "
    "--print-ids";

struct HubAndCache {
  FakeHub hub;
  std::string cache = fresh_dir("download-cache");
  ScopedEnv endpoint{"HF_ENDPOINT", hub.endpoint().c_str()};
  ScopedEnv cache_env{"HF_HUB_CACHE", cache.c_str()};
  ScopedEnv token{"HF_TOKEN", nullptr};
  ScopedEnv no_proxy{"no_proxy", "127.0.0.1"};  // a proxy of the machine never sees loopback
  HubAndCache() {
    hub.add("me/tiny",
            {"0123456789abcdef0123456789abcdef01234567",
             {{"config.json", {read_file(kFixture + "/config.json")}},
              {"model.safetensors", {read_file(kFixture + "/model.safetensors"), true}}}});
  }
};

TEST(DownloadCli, FetchesAModelThatEveryVerbThenOpensByName) {
  HubAndCache h;
  const std::string out = fresh_dir("download-out") + "/tiny";
  const RunResult d = run_tinylm("download me/tiny --out " + out);
  ASSERT_EQ(d.code, 0) << d.output;
  EXPECT_NE(d.output.find(h.cache + "/models--me--tiny/snapshots/"), std::string::npos) << d.output;
  const RunResult by_name = run_tinylm("generate --model me/tiny" + kGreedy);
  ASSERT_EQ(by_name.code, 0) << by_name.output;
  EXPECT_EQ(by_name.output, run_tinylm("generate --model " + kFixture + kGreedy).output);
  {  // the cache is enough: with no hub at all, the verbs still open it by name
    ScopedEnv dead{"HF_ENDPOINT", "http://127.0.0.1:1"};
    EXPECT_EQ(run_tinylm("generate --model me/tiny" + kGreedy).output, by_name.output);
  }
  // the copy verifies against the fixture's transformers reference
  for (const char* f : {"reference.json", "reference.safetensors"})
    fs::copy_file(kFixture + "/" + f, out + "/" + f);
  const RunResult v = run_tinylm("verify " + out);
  EXPECT_EQ(v.code, 0) << v.output;
}

// OpenAI's original files (the fixture's weights written as OpenAI's TensorFlow checkpoint
// with GPT-2's vocabulary files), fetched from a file store by --source openai: generate
// gives the fixture's greedy tokens from that folder.
TEST(DownloadCli, OpenAisOriginalFilesGiveTheSameModel) {
  HubAndCache h;
  const std::string written = fresh_dir("openai-written");
  auto model = load_hf_gpt2(kFixture);
  write_openai_gpt2(*model, written, default_gpt2_dir());
  for (const auto& entry : fs::directory_iterator(written))
    h.hub.add_static("124M/" + entry.path().filename().string(), read_file(entry.path().string()));
  ScopedEnv url{"TINYLM_OPENAI_GPT2_URL", (h.hub.endpoint() + "/cdn").c_str()};
  const std::string out = fresh_dir("openai-out") + "/124M";
  const RunResult d = run_tinylm("download gpt2 --source openai --out " + out);
  ASSERT_EQ(d.code, 0) << d.output;
  const RunResult g = run_tinylm("generate --model " + out + kGreedy);
  ASSERT_EQ(g.code, 0) << g.output;
  EXPECT_EQ(g.output, run_tinylm("generate --model " + kFixture + kGreedy).output);
  expect_exit(2, "download gpt3 --source openai", "not one of OpenAI's GPT-2 models");
}

// A PEFT adapter repo downloaded by name merges by name, as its folder does.
TEST(DownloadCli, AnAdapterRepoMergesByName) {
  HubAndCache h;
  const std::string adapter = "tests/fixtures/gpt2-micro-lora/adapter";
  h.hub.add(
      "me/adapter",
      {"89abcdef0123456789abcdef0123456789abcdef",
       {{"adapter_config.json", {read_file(adapter + "/adapter_config.json")}},
        {"adapter_model.safetensors", {read_file(adapter + "/adapter_model.safetensors"), true}}}});
  ASSERT_EQ(run_tinylm("download me/adapter").code, 0);
  const std::string dir = fresh_dir("download-merge");
  const std::string base = "lora merge --base tests/fixtures/gpt2-micro-lora --adapter ";
  const RunResult by_name = run_tinylm(base + "me/adapter --out " + dir + "/by-name");
  ASSERT_EQ(by_name.code, 0) << by_name.output;
  ASSERT_EQ(run_tinylm(base + adapter + " --out " + dir + "/by-path").code, 0);
  EXPECT_EQ(read_file(dir + "/by-name/model.safetensors"),
            read_file(dir + "/by-path/model.safetensors"));
}

TEST(DownloadCli, BadNamesAndUnknownReposExit2TheNetworkExits1) {
  HubAndCache h;
  expect_exit(2, "download 'not a repo'", "not a Hugging Face repo id");
  expect_exit(2, "download me/absent", "no model repo me/absent");
  expect_exit(2, "generate --model me/absent --prompt hi", "`tinylm download me/absent`");
  ScopedEnv dead{"HF_ENDPOINT", "http://127.0.0.1:1"};
  expect_exit(1, "download me/tiny", "cannot connect to 127.0.0.1");
}

}  // namespace
}  // namespace tinylm::testing
