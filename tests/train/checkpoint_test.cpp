// Checkpoints: a model with a non-finite weight or AdamW moment is
// never written as a checkpoint, and the checkpoints a folder holds are described.
#include "run/checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "util/files.h"

namespace tinylm {
namespace {

GPTConfig tiny() {
  GPTConfig c;
  c.vocab_size = 11;
  c.block_size = 8;
  c.n_layer = 1;
  c.n_head = 2;
  c.d_model = 8;
  return c;
}

TEST(Checkpoint, NonFiniteWeightsAreNeverWritten) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tinylm-ckpt-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  GPT model(tiny());
  Rng rng(1);
  model.init(rng);
  AdamW opt(model.parameters(), AdamWConfig{});
  EXPECT_EQ(first_non_finite(model, opt), "");
  CheckpointState state;
  state.step = 3;
  state.config = {{"model", tiny().to_json()}};
  state.tokenizer = {{"kind", "char"}};
  save_checkpoint(dir + "/last.safetensors", model, &opt, state);
  const std::string good = read_file(dir + "/last.safetensors");

  model.parameters()[2].param->value[1] = std::numeric_limits<float>::infinity();
  EXPECT_NE(first_non_finite(model, opt).find(model.parameters()[2].name), std::string::npos);
  EXPECT_THROW(save_checkpoint(dir + "/last.safetensors", model, &opt, state), std::runtime_error);
  EXPECT_EQ(read_file(dir + "/last.safetensors"), good);

  model.parameters()[2].param->value[1] = 0;
  opt.second_moments()[0][0] = std::nanf("");
  EXPECT_NE(first_non_finite(model, opt).find("AdamW moment"), std::string::npos);

  const SavedCheckpoints saved = find_checkpoints(dir);
  EXPECT_EQ(saved.newest(), dir + "/last.safetensors");
  EXPECT_EQ(saved.describe(), "last.safetensors (step 3)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm
