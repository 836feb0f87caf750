// Tiny data and settings for the fine-tuning trainer tests: instruction entries, a
// labelled spam-like file, and small preset-shaped GPTs (vocabulary 50,257 for the GPT-2
// tokenizer, 1 or 2 blocks, d 16).
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

// A labelled TSV (label<TAB>text, no header) of n texts: "spam" texts carry a prize word,
// "ham" texts do not; two of three are ham (balancing has work to do).
inline std::string write_spam_file(const std::string& path, int n) {
  const char* ham[] = {"see you at lunch", "call me when you are home", "the meeting moved to noon",
                       "thanks for the notes", "are we still on for tonight"};
  const char* spam[] = {"you win a free prize now", "claim your cash prize today",
                        "free entry to win a car", "urgent prize call now to claim"};
  std::string text;
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 2)
      text += std::string("spam\t") + spam[i % 4] + " " + std::to_string(i) + "\n";
    else
      text += std::string("ham\t") + ham[i % 5] + " " + std::to_string(i) + "\n";
  }
  write_file_atomic(path, text);
  return path;
}

// Settings JSON for a fast classify run on the tiny preset shape.
inline nlohmann::json tiny_classify_settings() {
  return {{"model", {{"n_layer", 2}, {"n_head", 2}, {"d_model", 16}, {"block_size", 32}}},
          {"finetune",
           {{"batch_size", 4},
            {"epochs", 3},
            {"lr", 1e-2},
            {"eval_interval", 4},
            {"eval_batches", 2},
            {"checkpoint_interval", 5},
            {"trainable", "all"},
            {"threads", 1}}}};
}

}  // namespace tinylm::testing
