#include "train/train_config.h"

#include "train/section_reader.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

TrainConfig TrainConfig::from_json(const nlohmann::json& j) {
  require(j.is_object(), "config must be a JSON object");
  for (const auto& [key, value] : j.items())
    require(key == "model" || key == "data" || key == "train" || key == "sample",
            "unknown section '" + key + "' (model, data, train, sample)");
  TrainConfig c;
  if (j.contains("model")) c.model = GPTConfig::from_json(j["model"], "model.");
  const nlohmann::json empty = nlohmann::json::object();
  SectionReader(j.value("data", empty), "data")
      .string("path", c.data.path)
      .string("tokenizer", c.data.tokenizer)
      .number("val_fraction", c.data.val_fraction)
      .string("task", c.data.task)
      .done();
  auto& t = c.train;
  SectionReader(j.value("train", empty), "train")
      .integer("batch_size", t.batch_size)
      .integer("max_steps", t.max_steps)
      .number("lr", t.lr)
      .number("min_lr", t.min_lr)
      .integer("warmup_steps", t.warmup_steps)
      .integer("lr_decay_steps", t.lr_decay_steps)
      .number("beta1", t.beta1)
      .number("beta2", t.beta2)
      .number("eps", t.eps)
      .number("weight_decay", t.weight_decay)
      .boolean("decay_embeddings", t.decay_embeddings)
      .number("grad_clip", t.grad_clip)
      .integer("grad_accum", t.grad_accum)
      .integer("eval_interval", t.eval_interval)
      .integer("eval_iters", t.eval_iters)
      .integer("log_interval", t.log_interval)
      .integer("checkpoint_interval", t.checkpoint_interval)
      .unsigned_integer("seed", t.seed)
      .integer("threads", t.threads)
      .done();
  auto& s = c.sample;
  SectionReader(j.value("sample", empty), "sample")
      .string("prompt", s.prompt)
      .integer("max_new_tokens", s.max_new_tokens)
      .number("temperature", s.temperature)
      .integer("top_k", s.top_k)
      .number("top_p", s.top_p)
      .done();
  return c;
}

nlohmann::json TrainConfig::to_json() const {
  const auto& t = train;
  return {{"model", model.to_json()},
          {"data",
           {{"path", data.path},
            {"tokenizer", data.tokenizer},
            {"val_fraction", data.val_fraction},
            {"task", data.task}}},
          {"train",
           {{"batch_size", t.batch_size},       {"max_steps", t.max_steps},
            {"lr", t.lr},                       {"min_lr", t.min_lr},
            {"warmup_steps", t.warmup_steps},   {"lr_decay_steps", t.lr_decay_steps},
            {"beta1", t.beta1},                 {"beta2", t.beta2},
            {"eps", t.eps},                     {"weight_decay", t.weight_decay},
            {"decay_embeddings", t.decay_embeddings}, {"grad_clip", t.grad_clip},
            {"grad_accum", t.grad_accum},       {"eval_interval", t.eval_interval},
            {"eval_iters", t.eval_iters},       {"log_interval", t.log_interval},
            {"checkpoint_interval", t.checkpoint_interval}, {"seed", t.seed},
            {"threads", t.threads}}},
          {"sample",
           {{"prompt", sample.prompt},
            {"max_new_tokens", sample.max_new_tokens},
            {"temperature", sample.temperature},
            {"top_k", sample.top_k},
            {"top_p", sample.top_p}}}};
}

void TrainConfig::validate() const {
  const auto& t = train;
  require(data.task.empty() || data.task == "addition",
          "data.task: unknown task '" + data.task + "' (addition)");
  require(!data.task.empty() || !data.path.empty(), "data.path: no corpus given");
  require(data.val_fraction > 0 && data.val_fraction < 1, "data.val_fraction must be in (0, 1)");
  require(t.batch_size > 0, "train.batch_size must be positive");
  require(t.max_steps > 0, "train.max_steps must be positive");
  require(t.lr > 0, "train.lr must be positive");
  require(t.min_lr >= 0 && t.min_lr <= t.lr, "train.min_lr must be in [0, train.lr]");
  require(t.warmup_steps >= 0, "train.warmup_steps must be >= 0");
  require(t.beta1 >= 0 && t.beta1 < 1, "train.beta1 must be in [0, 1)");
  require(t.beta2 >= 0 && t.beta2 < 1, "train.beta2 must be in [0, 1)");
  require(t.eps > 0, "train.eps must be positive");
  require(t.weight_decay >= 0, "train.weight_decay must be >= 0");
  require(t.grad_clip >= 0, "train.grad_clip must be >= 0 (0: no clipping)");
  require(t.grad_accum > 0, "train.grad_accum must be positive");
  require(t.eval_interval > 0, "train.eval_interval must be positive");
  require(t.eval_iters > 0, "train.eval_iters must be positive");
  require(t.log_interval > 0, "train.log_interval must be positive");
  require(t.checkpoint_interval > 0, "train.checkpoint_interval must be positive");
  require(t.threads >= 0, "train.threads must be >= 0 (0: all cores)");
  require(sample.max_new_tokens >= 0, "sample.max_new_tokens must be >= 0");
}

void apply_override(nlohmann::json& j, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  require(eq != std::string::npos && eq > 0,
          "--set expects key=value (e.g. train.lr=3e-4), got '" + assignment + "'");
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    value = text;  // a bare word: a string
  }
  nlohmann::json* node = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot - start);
    require(!key.empty(), "--set: empty name in '" + path + "'");
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    if (!node->contains(key)) (*node)[key] = nlohmann::json::object();
    node = &(*node)[key];
    require(node->is_object(), "--set: " + path.substr(0, dot) + " is not a section");
    start = dot + 1;
  }
}

nlohmann::json load_config_json(const std::string& path, const std::vector<std::string>& sets) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  require(j.is_object(), path + ": the config must be a JSON object");
  for (const auto& s : sets) apply_override(j, s);
  return j;
}

}  // namespace tinylm
