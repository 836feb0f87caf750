// `tinylm download` against a stand-in for the hub on 127.0.0.1 (fake_hub.h): only the
// files tinylm reads, the cache written as huggingface_hub writes it and found by the
// verbs, resuming after a dropped connection, a corrupt file refused and removed, and the
// hub's and the network's failures as clear errors with the right kind (exit 2 or 1).
#include "download/download.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/scoped_env.h"
#include "download/cache_store.h"
#include "download/fake_hub.h"
#include "download/openai_release.h"
#include "download/sha256.h"
#include "hub/hub_cache.h"
#include "hub/hub_cache_builder.h"
#include "io/tf_bundle_writer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::download {
namespace {

namespace fs = std::filesystem;
using testing::FakeFile;
using testing::FakeHub;
using testing::FakeRepo;

const std::string kFixture = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny";
const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

// A fake hub holding the tiny GPT-2 fixture as me/tiny (with files tinylm does not read),
// and a fresh cache that the code under test finds through HF_HUB_CACHE.
struct Fixture {
  FakeHub hub;
  std::string cache = testing::fresh_cache_dir("download");
  testing::ScopedEnv env{"HF_HUB_CACHE", cache.c_str()};
  testing::ScopedEnv no_proxy{"no_proxy", "127.0.0.1"};  // loopback never via a proxy
  std::string config = read_file(kFixture + "/config.json");
  std::string weights = read_file(kFixture + "/model.safetensors");

  Fixture() {
    hub.add("me/tiny", {kCommit,
                        {{"config.json", {config}},
                         {"model.safetensors", {weights, true}},
                         {"pytorch_model.bin", {"not read", true}},
                         {"README.md", {"# tiny"}}}});
  }
  ~Fixture() { fs::remove_all(cache); }
  HubClient client(double timeout_s = 5) const {
    HubClient c;
    c.endpoint = hub.endpoint();
    c.etag_timeout_s = c.download_timeout_s = timeout_s;
    return c;
  }
  DownloadRequest request(const std::string& name) const {
    DownloadRequest r;
    r.name = name;
    r.log = stdout;
    return r;
  }
  std::string repo() const { return hub::repo_folder(cache, "me/tiny"); }
  std::string weights_blob() const { return blob_path(repo(), sha256_hex(weights)); }
};

TEST(Download, FetchesOnlyWhatTinylmReadsIntoTheCacheLayout) {
  Fixture f;
  const DownloadResult r = download_model(f.request("me/tiny"), f.client());
  EXPECT_EQ(r.files, (std::vector<std::string>{"config.json", "model.safetensors"}));
  EXPECT_EQ(r.commit, kCommit);
  EXPECT_EQ(r.snapshot, f.repo() + "/snapshots/" + kCommit);
  EXPECT_EQ(r.bytes_fetched, f.weights.size() + f.config.size());
  // huggingface_hub's layout: relative links to blobs named by etag, refs/main.
  const std::string link = r.snapshot + "/model.safetensors";
  ASSERT_TRUE(is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link).string(), "../../blobs/" + sha256_hex(f.weights));
  EXPECT_EQ(read_file(link), f.weights);
  EXPECT_EQ(read_file(r.snapshot + "/config.json"), f.config);
  EXPECT_EQ(read_file(f.repo() + "/refs/main"), kCommit);
  EXPECT_FALSE(fs::exists(r.snapshot + "/README.md"));
  EXPECT_EQ(hub::find_cached_model("me/tiny"), r.snapshot);
  // again: nothing is fetched
  const int cdn = f.hub.cdn_requests;
  EXPECT_EQ(download_model(f.request("me/tiny"), f.client()).bytes_fetched, 0u);
  EXPECT_EQ(f.hub.cdn_requests, cdn);
}

TEST(Download, AShortNameIsItsOwnRepoAndACommitWritesNoRef) {
  Fixture f;
  f.hub.add("gpt2",
            {kCommit, {{"config.json", {f.config}}, {"model.safetensors", {f.weights, true}}}});
  DownloadRequest q = f.request("gpt2");
  q.revision = kCommit;
  const DownloadResult r = download_model(q, f.client());
  EXPECT_EQ(r.snapshot, f.cache + "/models--gpt2/snapshots/" + kCommit);
  EXPECT_FALSE(fs::exists(f.cache + "/models--gpt2/refs/" + kCommit));
}

TEST(Download, ResumesAfterTheConnectionDrops) {
  Fixture f;
  f.hub.drop_next_cdn_halfway = true;
  std::string message;
  try {
    download_model(f.request("me/tiny"), f.client());
  } catch (const DownloadError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("run the same command again to resume"), std::string::npos) << message;
  const std::string partial = f.weights_blob() + ".incomplete";
  ASSERT_TRUE(fs::exists(partial));
  const uint64_t kept = fs::file_size(partial);
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, f.weights.size());
  EXPECT_FALSE(fs::exists(f.weights_blob()));  // never under its final name half-written
  EXPECT_FALSE(fs::exists(f.repo() + "/snapshots/" + kCommit + "/model.safetensors"));
  const uint64_t sent_before = f.hub.cdn_bytes_sent;
  const DownloadResult r = download_model(f.request("me/tiny"), f.client());
  EXPECT_EQ(r.bytes_fetched, f.weights.size() - kept);  // only the rest, by a Range request
  EXPECT_EQ(f.hub.cdn_bytes_sent - sent_before, f.weights.size() - kept);
  EXPECT_EQ(read_file(r.snapshot + "/model.safetensors"), f.weights);
  EXPECT_FALSE(fs::exists(partial));
}

TEST(Download, ACorruptFileIsRefusedAndRemoved) {
  Fixture f;
  f.hub.corrupt_cdn = true;
  std::string message;
  try {
    download_model(f.request("me/tiny"), f.client());
  } catch (const DownloadError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("model.safetensors: sha256"), std::string::npos) << message;
  EXPECT_NE(message.find("partial file was removed"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(f.weights_blob()));
  EXPECT_FALSE(fs::exists(f.weights_blob() + ".incomplete"));
  EXPECT_FALSE(fs::exists(f.repo() + "/snapshots/" + kCommit + "/model.safetensors"));
  EXPECT_FALSE(fs::exists(f.repo() + "/refs/main"));
}

template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(no error of that kind)";
}

TEST(Download, TheHubsAndTheNetworksFailuresSayWhat) {
  Fixture f;
  const auto fetch = [&](const std::string& name, double timeout = 5) {
    return [&f, name, timeout] { download_model(f.request(name), f.client(timeout)); };
  };
  EXPECT_NE(error_of<InputError>(fetch("me/none")).find("no model repo me/none"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>(fetch("not a name")).find("not a Hugging Face repo id"),
            std::string::npos);
  f.hub.api_status = 500;
  const std::string e500 = error_of<DownloadError>(fetch("me/tiny"));
  EXPECT_NE(e500.find("HTTP 500"), std::string::npos) << e500;
  EXPECT_NE(e500.find("Internal Error"), std::string::npos) << e500;
  f.hub.api_status = 0;
  f.hub.api_delay_ms = 2500;
  const std::string late = error_of<DownloadError>(fetch("me/tiny", 1));
  EXPECT_NE(late.find("timed out"), std::string::npos) << late;
  f.hub.api_delay_ms = 0;
  f.hub.add("me/odd", {"../../../elsewhere", {{"config.json", {f.config}}}});
  const std::string odd = error_of<DownloadError>(fetch("me/odd"));
  EXPECT_NE(odd.find("not a commit hash"), std::string::npos) << odd;
  HubClient nobody = f.client();
  nobody.endpoint = "http://127.0.0.1:1";
  const std::string refused =
      error_of<DownloadError>([&] { download_model(f.request("me/tiny"), nobody); });
  EXPECT_NE(refused.find("cannot connect to 127.0.0.1"), std::string::npos) << refused;
}

// A private repo: without HF_TOKEN the hub's 401 reads as an unknown repo that may need
// a token (exit 2); with the wrong token, access refused (exit 1); with the right one, it
// downloads. The token is read from HF_TOKEN as huggingface_hub reads it.
TEST(Download, APrivateRepoNeedsTheToken) {
  Fixture f;
  f.hub.required_token = "hf_secret";
  const auto fetch_with = [&](const char* token) {
    testing::ScopedEnv env("HF_TOKEN", token);
    testing::ScopedEnv no_file("HF_TOKEN_PATH", "/nonexistent/tinylm-test-token");
    HubClient c = HubClient::from_environment();
    c.endpoint = f.hub.endpoint();
    download_model(f.request("me/tiny"), c);
  };
  EXPECT_NE(error_of<InputError>([&] { fetch_with(nullptr); }).find("needs HF_TOKEN"),
            std::string::npos);
  EXPECT_NE(error_of<DownloadError>([&] { fetch_with("hf_wrong"); }).find("refused (HTTP 401)"),
            std::string::npos);
  EXPECT_NO_THROW(fetch_with("hf_secret"));
}

TEST(Download, ARepoOfAnotherModelTypeIsRefusedBeforeItsWeights) {
  Fixture f;
  f.hub.add("me/bert", {kCommit,
                        {{"config.json", {R"({"model_type": "bert"})"}},
                         {"model.safetensors", {f.weights, true}}}});
  const int cdn = f.hub.cdn_requests;
  const std::string e =
      error_of<InputError>([&] { download_model(f.request("me/bert"), f.client()); });
  EXPECT_NE(e.find("me/bert is a bert model"), std::string::npos) << e;
  EXPECT_NE(e.find("gpt2, llama, qwen2 and qwen3"), std::string::npos) << e;
  EXPECT_EQ(f.hub.cdn_requests, cdn);
  f.hub.add("me/pickle",
            {kCommit, {{"config.json", {f.config}}, {"pytorch_model.bin", {"x", true}}}});
  EXPECT_NE(error_of<InputError>([&] {
              download_model(f.request("me/pickle"), f.client());
            }).find("only pytorch_model.bin"),
            std::string::npos);
}

// A llama-family repo as the hub holds SmolLM2's or Qwen's: tokenizer.json with its
// tokenizer_config.json and chat_template.jinja, weights in shards with their index.
TEST(Download, ALlamaRepoWithShardsAndItsTokenizerFiles) {
  Fixture f;
  const std::string index =
      R"({"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})";
  f.hub.add("me/smol", {kCommit,
                        {{"config.json", {R"({"model_type": "llama"})"}},
                         {"tokenizer.json", {"{}"}},
                         {"tokenizer_config.json", {"{}"}},
                         {"chat_template.jinja", {"{{ messages }}"}},
                         {"model.safetensors.index.json", {index}},
                         {"model-00001-of-00002.safetensors", {f.weights, true}},
                         {"model-00002-of-00002.safetensors", {f.config + " ", true}},
                         {"onnx/model.onnx", {"x", true}}}});
  const DownloadResult r = download_model(f.request("me/smol"), f.client());
  EXPECT_EQ(r.files, (std::vector<std::string>{
                         "config.json", "tokenizer_config.json", "chat_template.jinja",
                         "tokenizer.json", "model.safetensors.index.json",
                         "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  EXPECT_EQ(read_file(r.snapshot + "/model-00001-of-00002.safetensors"), f.weights);
}

TEST(Download, AnInterruptionKeepsThePartialFile) {
  Fixture f;
  DownloadRequest q = f.request("me/tiny");
  int calls = 0;
  q.should_stop = [&calls] { return ++calls > 3; };
  EXPECT_THROW(download_model(q, f.client()), DownloadInterrupted);
  EXPECT_FALSE(fs::exists(f.repo() + "/refs/main"));
  const DownloadResult r = download_model(f.request("me/tiny"), f.client());
  EXPECT_EQ(read_file(r.snapshot + "/model.safetensors"), f.weights);
}

TEST(Download, OutAlsoCopiesTheFiles) {
  Fixture f;
  DownloadRequest q = f.request("me/tiny");
  q.out = f.cache + "/copy/tiny";
  download_model(q, f.client());
  EXPECT_FALSE(is_symlink(q.out + "/model.safetensors"));
  EXPECT_EQ(read_file(q.out + "/model.safetensors"), f.weights);
  EXPECT_EQ(read_file(q.out + "/config.json"), f.config);
}

// OpenAI's layout from a plain file store: the six files tinylm reads (not the graph),
// resumable; a corrupt checkpoint is found by its CRC-32Cs and removed.
struct OpenAiStore {
  FakeHub store;
  testing::ScopedEnv url{"TINYLM_OPENAI_GPT2_URL", (store.endpoint() + "/cdn").c_str()};
  testing::ScopedEnv no_proxy{"no_proxy", "127.0.0.1"};
  std::string dir = testing::fresh_cache_dir("openai");
  tfw::Files checkpoint =
      tfw::build_bundle({tfw::float_tensor("model/wte", {3, 2}, {1, 2, 3, 4, 5, 6}),
                         tfw::float_tensor("model/wpe", {2, 2}, {0.5f, -1, 2, 8})});
  OpenAiStore() {
    const std::map<std::string, std::string> files = {
        {"checkpoint", "model_checkpoint_path: \"model.ckpt\"\n"},
        {"hparams.json", R"({"n_vocab": 3, "n_ctx": 2, "n_embd": 2, "n_head": 1, "n_layer": 0})"},
        {"encoder.json", "{}"},
        {"vocab.bpe", "#version: 0.2\n"},
        {"model.ckpt.index", checkpoint.index},
        {"model.ckpt.data-00000-of-00001", checkpoint.data[0]},
        {"model.ckpt.meta", "the graph, not read"}};
    for (const auto& [name, bytes] : files) store.add_static("355M/" + name, bytes);
  }
  ~OpenAiStore() { fs::remove_all(dir); }
  DownloadRequest request() const {
    DownloadRequest r;
    r.name = "gpt2-medium";
    r.out = dir + "/355M";
    r.log = stdout;
    return r;
  }
};

TEST(Download, OpenAisFilesIntoAFolder) {
  OpenAiStore s;
  s.store.drop_next_cdn_halfway = true;  // the first file breaks off; the next run resumes
  EXPECT_THROW(download_openai_gpt2(s.request()), DownloadError);
  const DownloadResult r = download_openai_gpt2(s.request());
  EXPECT_EQ(r.snapshot, s.dir + "/355M");
  EXPECT_EQ(r.files.size(), 6u);
  EXPECT_EQ(read_file(r.snapshot + "/model.ckpt.index"), s.checkpoint.index);
  EXPECT_EQ(read_file(r.snapshot + "/model.ckpt.data-00000-of-00001"), s.checkpoint.data[0]);
  EXPECT_FALSE(fs::exists(r.snapshot + "/model.ckpt.meta"));
  EXPECT_EQ(download_openai_gpt2(s.request()).bytes_fetched, 0u);  // all there
  EXPECT_EQ(default_openai_folder("gpt2"), "openai-gpt2/124M");
  EXPECT_THROW(openai_model_size("gpt3"), InputError);
}

TEST(Download, ACorruptOpenAiCheckpointIsFoundAndRemoved) {
  OpenAiStore s;
  s.store.corrupt_cdn = true;
  const std::string e = error_of<DownloadError>([&] { download_openai_gpt2(s.request()); });
  EXPECT_NE(e.find("was removed"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(s.dir + "/355M/model.ckpt.index"));
  EXPECT_FALSE(fs::exists(s.dir + "/355M/model.ckpt.data-00000-of-00001"));
  s.store.corrupt_cdn = false;
  EXPECT_NO_THROW(download_openai_gpt2(s.request()));  // fetched anew
}

// A revision is a name under refs/ in the cache and --out a folder: a revision that would
// leave refs/, or an --out that cannot be a folder, is refused before anything is fetched.
TEST(Download, ABadRevisionOrOutIsRefusedBeforeAnythingIsFetched) {
  Fixture f;
  for (const char* revision : {"../../escaped", "a/../../b", "", "/abs", "a//b", ".", "a\\b"}) {
    DownloadRequest q = f.request("me/tiny");
    q.revision = revision;
    EXPECT_THROW(download_model(q, f.client()), InputError) << revision;
  }
  write_file_atomic(f.cache + "/a-file", "x");
  DownloadRequest q = f.request("me/tiny");
  q.out = f.cache + "/a-file";
  EXPECT_THROW(download_model(q, f.client()), InputError);
  EXPECT_EQ(f.hub.api_requests, 0);  // refused before the hub was asked
  EXPECT_FALSE(fs::exists(f.cache + "/escaped"));
}

// OpenAI's files: a download that fails before its first byte leaves no empty folders.
TEST(Download, AFailedOpenAiDownloadRemovesTheFoldersItMade) {
  OpenAiStore s;
  testing::ScopedEnv dead{"TINYLM_OPENAI_GPT2_URL", "http://127.0.0.1:9/nothing"};
  DownloadRequest q = s.request();
  q.out = s.dir + "/made/355M";
  fs::create_directories(s.dir);
  EXPECT_THROW(download_openai_gpt2(q), DownloadError);
  EXPECT_FALSE(fs::exists(s.dir + "/made"));
  EXPECT_TRUE(fs::exists(s.dir));  // there before: stays
}

TEST(Download, WhichFilesAndHowTheyAreNamed) {
  EXPECT_EQ(
      files_to_fetch("r", {"README.md", "model.safetensors", "vocab.json", "config.json",
                           "merges.txt", "pytorch_model.bin", "tf_model.h5"}),
      (std::vector<std::string>{"config.json", "vocab.json", "merges.txt", "model.safetensors"}));
  EXPECT_EQ(files_to_fetch("r", {"adapter_model.safetensors", "adapter_config.json"}),
            (std::vector<std::string>{"adapter_config.json", "adapter_model.safetensors"}));
  EXPECT_THROW(files_to_fetch("r", {"model.safetensors"}), InputError);
  EXPECT_EQ(
      files_to_fetch("r", {"model-00002-of-00002.safetensors", "config.json",
                           "model-00001-of-00002.safetensors", "model.safetensors.index.json",
                           "model-00001-of-00002.bin", "sub/model-00001-of-00002.safetensors"}),
      (std::vector<std::string>{"config.json", "model.safetensors.index.json",
                                "model-00001-of-00002.safetensors",
                                "model-00002-of-00002.safetensors"}));
  EXPECT_THROW(files_to_fetch("r", {"config.json", "pytorch_model.bin"}), InputError);
  EXPECT_EQ(url_escape("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(url_escape("sub dir/a+b.json", true), "sub%20dir/a%2Bb.json");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace tinylm::download
