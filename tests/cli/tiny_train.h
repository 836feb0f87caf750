// The tiny training run the train CLI tests share: its config file and the losses its log
// holds.
#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinylm::testing {

// A 1-layer model on the-verdict.txt: a few hundred milliseconds per run.
inline std::string train_config(const std::string& dir, const std::string& extra_train = "") {
  const std::string path = dir + "/tiny.json";
  // extra_train (", \"key\": value, ...") overrides fields of the train section.
  nlohmann::json j = nlohmann::json::parse(R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16, "dropout": 0.1},
  "data": {"path": "data/the-verdict.txt", "tokenizer": "char"},
  "train": {"batch_size": 4, "max_steps": 20, "warmup_steps": 2, "eval_interval": 5,
            "eval_iters": 2, "log_interval": 1, "checkpoint_interval": 5, "seed": 7},
  "sample": {"max_new_tokens": 0}
})");
  if (!extra_train.empty()) {
    std::string fields = extra_train.substr(1);
    fields.insert(0, 1, '{');
    fields += '}';
    j["train"].update(nlohmann::json::parse(fields));
  }
  std::ofstream(path) << j.dump(2);
  return path;
}

// Every step's loss and every evaluation's val loss, in log order.
inline std::vector<double> logged_losses(const std::string& log) {
  std::vector<double> losses;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) losses.push_back(j["loss"].get<double>());
    if (j.contains("val_loss")) losses.push_back(j["val_loss"].get<double>());
  }
  return losses;
}

}  // namespace tinylm::testing
