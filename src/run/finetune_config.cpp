#include "run/finetune_config.h"

#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "generate/generate.h"
#include "model/pooling.h"
#include "run/count_limits.h"
#include "run/section_reader.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// A known task, and a config object whose keys are known sections.
void require_known_task_and_sections(const nlohmann::json& j, const std::string& task) {
  require(task == "classify" || task == "instruct",
          "--task: unknown task '" + task + "' (classify, instruct)");
  require(j.is_object(), "config must be a JSON object");
  for (const auto& [key, value] : j.items())
    require(key == "finetune" || key == "lora" || key == "model" || key == "dist",
            "unknown section '" + key + "' (finetune, lora, model, dist)");
}

// The defaults, with those that depend on the task (the course's ch. 6 and ch. 7).
FinetuneSettings task_defaults(const std::string& task) {
  FinetuneSettings f;
  const bool classify = task == "classify";
  f.epochs = classify ? 5 : 2;
  f.trainable = classify ? "last:1" : "all";
  f.train_fraction = classify ? 0.7 : 0.85;
  f.eval_interval = classify ? 50 : 5;  // the course's eval_freq (ch. 6: 50, ch. 7: 5)
  return f;
}

// The fields of fine-tuning alone beside the shared ones: the optimizer's decay groups,
// the epochs, evaluation batches and dropout.
const SettingField<FinetuneSettings> kFinetuneLoopFields[] = {
    {"decay_all", &FinetuneSettings::decay_all},
    {"epochs", &FinetuneSettings::epochs},
    {"eval_batches", &FinetuneSettings::eval_batches},
    {"dropout", &FinetuneSettings::dropout},
};

// What is trained, the classification head, the data file's columns and labels, the splits.
const SettingField<FinetuneSettings> kClassifyFields[] = {
    {"trainable", &FinetuneSettings::trainable},
    {"pooling", &FinetuneSettings::pooling},
    {"max_length", &FinetuneSettings::max_length},
    {"balance", &FinetuneSettings::balance},
    {"head_bias", &FinetuneSettings::head_bias},
    {"label_column", &FinetuneSettings::label_column},
    {"text_column", &FinetuneSettings::text_column},
    {"format", &FinetuneSettings::format},
    {"header", &FinetuneSettings::header},
    {"labels", &FinetuneSettings::labels},
    {"train_fraction", &FinetuneSettings::train_fraction},
    {"val_fraction", &FinetuneSettings::val_fraction},
    {"test_fraction", &FinetuneSettings::test_fraction},
};

const SettingField<FinetuneSettings> kInstructFields[] = {
    {"mask_prompt", &FinetuneSettings::mask_prompt},
    {"allowed_max_length", &FinetuneSettings::allowed_max_length},
    {"max_new_tokens", &FinetuneSettings::max_new_tokens},
    {"write_responses", &FinetuneSettings::write_responses},
};

// The docs promise label_column / text_column as a name or a 0-based index, and the data
// reader takes an index as its digits: a JSON integer there becomes that string (its
// range is checked where the file is read, as the string's is).
nlohmann::json with_column_indices_as_text(const nlohmann::json& section) {
  nlohmann::json s = section;
  if (!s.is_object()) return s;  // SectionReader names the problem
  for (const std::string key : {"label_column", "text_column"}) {
    if (!s.contains(key) || !s[key].is_number_integer()) continue;
    require(s[key].is_number_unsigned() || s[key].get<int64_t>() >= 0,
            "finetune." + key + " must be a column name or a 0-based index (not negative)");
    s[key] = std::to_string(s[key].get<uint64_t>());
  }
  return s;
}

// The "finetune" section over the task's defaults in f.
void read_finetune_section(const nlohmann::json& raw, FinetuneSettings& f) {
  const nlohmann::json section = with_column_indices_as_text(raw);
  SectionReader reader(section, "finetune");
  read_fields(reader, static_cast<OptimizerSettings&>(f), kOptimizerFields);
  read_fields(reader, static_cast<LoopCounts&>(f), kLoopFields);
  read_fields(reader, f, kFinetuneLoopFields);
  read_fields(reader, f, kClassifyFields);
  read_fields(reader, f, kInstructFields);
  reader.done();
}

// Fine-tuning's own sizes and intervals, dropout, lengths and the train fraction.
void check_finetune_values(const FinetuneSettings& f) {
  require(f.epochs >= 1, "finetune.epochs must be at least 1");
  require(f.eval_batches >= 1, "finetune.eval_batches must be at least 1");
  require(f.dropout >= 0 && f.dropout < 1, "finetune.dropout must be in [0, 1)");
  require(f.max_length >= 0, "finetune.max_length must be >= 0 (0: the longest training text)");
  require(f.allowed_max_length >= 0, "finetune.allowed_max_length must be >= 0 (0: no cut)");
  require(f.max_new_tokens >= 0, "finetune.max_new_tokens must be >= 0");
  require(f.train_fraction > 0 && f.train_fraction <= 1,
          "finetune.train_fraction must be in (0, 1]");
  for (const auto& [name, v, limit] :
       {std::tuple<const char*, int64_t, int64_t>{"finetune.epochs", f.epochs, kMaxEpochs},
        {"finetune.eval_batches", f.eval_batches, kMaxEvalBatches},
        {"finetune.max_new_tokens", f.max_new_tokens, kMaxNewTokens}})
    require_at_most(name, v, limit);
}

nlohmann::json finetune_section_json(const FinetuneSettings& f) {
  nlohmann::json j = nlohmann::json::object();
  write_fields(static_cast<const OptimizerSettings&>(f), kOptimizerFields, j);
  write_fields(static_cast<const LoopCounts&>(f), kLoopFields, j);
  write_fields(f, kFinetuneLoopFields, j);
  write_fields(f, kClassifyFields, j);
  write_fields(f, kInstructFields, j);
  return j;
}

}  // namespace

FinetuneConfig FinetuneConfig::from_json(const nlohmann::json& j, const std::string& task) {
  require_known_task_and_sections(j, task);
  FinetuneConfig c;
  c.task = task;
  c.finetune = task_defaults(task);
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json finetune_section = j.value("finetune", empty);
  read_finetune_section(finetune_section, c.finetune);
  c.dist = DistSettings::from_json(j.value("dist", empty));
  // A "lora" section without a trainable set asks for LoRA.
  if (j.contains("lora") && !finetune_section.contains("trainable")) c.finetune.trainable = "lora";
  c.lora = read_lora(j.value("lora", empty));
  if (j.contains("model")) {
    require(j["model"].is_object(), "model must be a JSON object");
    c.model = j["model"];
  }
  c.validate();
  return c;
}

void FinetuneConfig::validate() const {
  check_optimizer(finetune, {"finetune", true, false});
  check_loop(finetune, {"finetune", false, true});
  check_finetune_values(finetune);
  validate_task_fields();
  tinylm::validate(lora);
  require(model.empty() || model.is_object(), "model must be a JSON object");
}

// Every field is checked, whichever task uses it: a setting of the other task is
// never accepted with a value that task would refuse.
void FinetuneConfig::validate_task_fields() const {
  const FinetuneSettings& f = finetune;
  require(f.val_fraction >= 0 && f.val_fraction < 1, "finetune.val_fraction must be in [0, 1)");
  require(f.test_fraction >= 0 && f.test_fraction < 1, "finetune.test_fraction must be in [0, 1)");
  const double held_out = task == "classify" ? f.val_fraction : f.test_fraction;
  require(f.train_fraction + held_out <= 1,
          std::string("finetune.train_fraction + finetune.") +
              (task == "classify" ? "val_fraction" : "test_fraction") + " must be at most 1");
  require(f.format.empty() || f.format == "tsv" || f.format == "csv" || f.format == "jsonl",
          "finetune.format: unknown '" + f.format +
              "' (tsv, csv, jsonl, or empty: from the extension)");
  require(f.header == "auto" || f.header == "yes" || f.header == "no",
          "finetune.header must be auto, yes or no (got '" + f.header + "')");
  parse_pooling(f.pooling);
  std::set<std::string> seen;
  for (const auto& label : f.labels) {
    require(!label.empty(), "finetune.labels: an empty label name");
    require(seen.insert(label).second, "finetune.labels: '" + label + "' is given twice");
  }
}

nlohmann::json FinetuneConfig::to_json() const {
  return {{"task", task},
          {"base", base},
          {"data", data},
          {"finetune", finetune_section_json(finetune)},
          {"lora", lora_json(lora)},
          {"model", model},
          {"dist", dist.to_json()}};
}

FinetuneConfig FinetuneConfig::from_saved(const nlohmann::json& j, const std::string& what) {
  require(j.is_object() && j.contains("task") && j["task"].is_string() && j.contains("finetune"),
          what + ": not the config of a tinylm finetune run (no task / finetune section)");
  nlohmann::json sections = j;
  const std::string task = j["task"].get<std::string>();
  const JsonField saved(j, what);  // "base": 5 is bad input, not nlohmann's type_error
  const std::string base = saved.has("base") ? saved["base"].string() : "";
  const std::string data = saved.has("data") ? saved["data"].string() : "";
  sections.erase("task");
  sections.erase("base");
  sections.erase("data");
  sections.erase("run");  // what the run learnt (run_folder.h), not a setting
  FinetuneConfig c = from_json(sections, task);
  c.base = base;
  c.data = data;
  return c;
}

}  // namespace tinylm
