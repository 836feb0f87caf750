// Tiny data and settings for the fine-tuning trainer tests: instruction entries and a
// small preset-shaped GPT (vocabulary 50,257 for the GPT-2 tokenizer, 1 block, d 16).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "util/files.h"

namespace tinylm::testing {

// A fresh temp folder path (removed first; not created).
inline std::string temp_path(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("tinylm-ft-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

// n instruction entries (every third without input), written as a JSON file.
inline std::string write_instruction_file(const std::string& path, int n) {
  nlohmann::json entries = nlohmann::json::array();
  const char* words[] = {"red", "blue", "green", "small", "large", "quick", "slow"};
  for (int i = 0; i < n; ++i) {
    nlohmann::json e = {{"instruction", std::string("Repeat the word ") + words[i % 7] + "."},
                        {"output", std::string(words[i % 7]) + " " + words[(i + 1) % 7]}};
    if (i % 3 != 0) e["input"] = "number " + std::to_string(i);
    entries.push_back(e);
  }
  write_file_atomic(path, entries.dump(1));
  return path;
}

// Settings JSON for a fast instruct run on the tiny preset shape.
inline nlohmann::json tiny_instruct_settings() {
  return {{"model", {{"n_layer", 1}, {"n_head", 2}, {"d_model", 16}, {"block_size", 96}}},
          {"finetune",
           {{"batch_size", 2},
            {"epochs", 2},
            {"lr", 3e-3},
            {"eval_interval", 3},
            {"eval_batches", 2},
            {"max_new_tokens", 6},
            {"checkpoint_interval", 4},
            {"threads", 1}}}};
}

}  // namespace tinylm::testing
