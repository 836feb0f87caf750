// Finding models in the Hugging Face cache laid out as huggingface_hub lays it out: the
// cache folder from the environment, repo ids, refs and commit hashes, what is absent.
#include "hub/hub_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/scoped_env.h"
#include "hub/hub_cache_builder.h"
#include "util/error.h"

namespace tinylm::hub {
namespace {

namespace fs = std::filesystem;
using testing::HubCacheRepo;
using testing::ScopedEnv;

const std::string kCommit = "607a30d783dfa663caf39e06633721c8d4cfcd7e";
const std::string kOther = "11c5a3d5811f50298f278a704980280950aedb10";

TEST(HubCache, TheFolderFollowsHuggingfaceHubsVariables) {
  ScopedEnv a("HF_HUB_CACHE", nullptr), b("HUGGINGFACE_HUB_CACHE", nullptr), c("HF_HOME", nullptr),
      d("XDG_CACHE_HOME", nullptr), h("HOME", "/home/u");
  EXPECT_EQ(cache_dir(), "/home/u/.cache/huggingface/hub");
  ScopedEnv xdg("XDG_CACHE_HOME", "/x");
  EXPECT_EQ(cache_dir(), "/x/huggingface/hub");
  ScopedEnv home("HF_HOME", "/hf");
  EXPECT_EQ(cache_dir(), "/hf/hub");
  ScopedEnv old("HUGGINGFACE_HUB_CACHE", "/old");
  EXPECT_EQ(cache_dir(), "/old");
  ScopedEnv hub("HF_HUB_CACHE", "/hub");
  EXPECT_EQ(cache_dir(), "/hub");
}

TEST(HubCache, RepoIdsAsTheHubAcceptsThem) {
  for (const char* good : {"gpt2", "openai-community/gpt2", "a_b/c.d-e", "Org9/x"})
    EXPECT_TRUE(is_repo_id(good)) << good;
  for (const char* bad : {"", "/gpt2", "gpt2/", "a/b/c", "a--b/c", "a/b..c", "-a/b", "a/b.",
                          "a b/c", "runs/x.safetensors/", "../x"})
    EXPECT_FALSE(is_repo_id(bad)) << bad;
  EXPECT_FALSE(is_repo_id(std::string(97, 'a')));
  EXPECT_TRUE(is_gpt2_short_name("gpt2-xl"));
  EXPECT_FALSE(is_gpt2_short_name("gpt2-124m"));  // a preset, not a hub name
  EXPECT_EQ(cache_names("gpt2-medium"),
            (std::vector<std::string>{"gpt2-medium", "openai-community/gpt2-medium"}));
  EXPECT_EQ(cache_names("me/tuned"), std::vector<std::string>{"me/tuned"});
  EXPECT_EQ(repo_folder("/c", "openai-community/gpt2"), "/c/models--openai-community--gpt2");
  EXPECT_EQ(repo_folder("/c", "gpt2"), "/c/models--gpt2");
}

TEST(HubCache, ARefOrACommitNamesASnapshot) {
  const std::string cache = testing::fresh_cache_dir("refs");
  const HubCacheRepo repo{cache, "me/tuned", kCommit};
  repo.put("config.json", "{}", "etag-config");
  repo.set_ref("main");
  EXPECT_EQ(find_snapshot(cache, "me/tuned"), repo.snapshot());
  EXPECT_EQ(find_snapshot(cache, "me/tuned", kCommit), repo.snapshot());
  EXPECT_EQ(find_snapshot(cache, "me/tuned", "v1"), "");    // no such ref
  EXPECT_EQ(find_snapshot(cache, "me/tuned", kOther), "");  // no such snapshot
  EXPECT_EQ(find_snapshot(cache, "someone/else"), "");      // no such repo
  const HubCacheRepo pr{cache, "me/tuned", kOther};
  pr.put("config.json", "{\"n\":1}", "etag-config-2");
  pr.set_ref("refs/pr/1");  // pull-request refs live in subfolders
  EXPECT_EQ(find_snapshot(cache, "me/tuned", "refs/pr/1"), pr.snapshot());
  for (const char* bad : {"", "../main", "/etc"})
    EXPECT_THROW(find_snapshot(cache, "me/tuned", bad), InputError) << bad;
  // a ref that does not hold a commit hash names nothing
  std::ofstream(repo.folder() + "/refs/broken") << "not a hash\n";
  EXPECT_EQ(find_snapshot(cache, "me/tuned", "broken"), "");
  fs::remove_all(cache);
}

TEST(HubCache, AShortNameIsFoundUnderEitherId) {
  const std::string cache = testing::fresh_cache_dir("short");
  ScopedEnv env("HF_HUB_CACHE", cache.c_str());
  EXPECT_EQ(find_cached_model("gpt2"), "");
  const HubCacheRepo canonical{cache, "openai-community/gpt2", kOther};
  canonical.put("config.json", "{}", "e1");
  canonical.set_ref("main");
  EXPECT_EQ(find_cached_model("gpt2"), canonical.snapshot());
  const HubCacheRepo legacy{cache, "gpt2", kCommit};  // from_pretrained("gpt2") writes this
  legacy.put("config.json", "{}", "e2");
  legacy.set_ref("main");
  EXPECT_EQ(find_cached_model("gpt2"), legacy.snapshot());
  EXPECT_EQ(find_cached_model("openai-community/gpt2"), canonical.snapshot());
  EXPECT_EQ(find_cached_model("runs/x.safetensors/"), "");  // no repo id: not looked up
  EXPECT_EQ(folder_or_cached("openai-community/gpt2"), canonical.snapshot());
  EXPECT_EQ(folder_or_cached(cache), cache);              // a path stays a path
  EXPECT_EQ(folder_or_cached("me/absent"), "me/absent");  // the reader says it is missing
  fs::remove_all(cache);
}

}  // namespace
}  // namespace tinylm::hub
