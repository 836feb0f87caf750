// Telling a model source from its files (see model_source.h).
#include "train/model_source.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "hub/hub_cache.h"
#include "model/gguf_gpt2.h"
#include "model/hf_gpt2.h"
#include "model/openai_gpt2.h"
#include "report/model_info.h"
#include "train/checkpoint.h"
#include "train/run_folder.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace fs = std::filesystem;

namespace {

bool hf_classifier_config(const std::string& dir) {
  const nlohmann::json config = read_json_file(dir + "/config.json");
  if (!config.is_object() || !config.contains("architectures")) return false;
  const nlohmann::json& a = config["architectures"];
  return a.is_array() && !a.empty() && a[0] == "GPT2ForSequenceClassification";
}

bool has_train_checkpoint(const std::string& dir) {
  return file_exists(dir + "/last.safetensors") || file_exists(dir + "/best.safetensors");
}

const char* kWhatASourceIs =
    "a Hugging Face GPT-2 folder (config.json + model.safetensors), OpenAI's GPT-2 folder "
    "(hparams.json + model.ckpt.*), a tinylm run folder, a "
    "checkpoint file (.safetensors), a GGUF file (.gguf), a Hugging Face repo id in the cache "
    "(gpt2, ORG/NAME) or a preset (gpt2-124m, gpt2-355m, "
    "gpt2-774m, gpt2-1558m)";

ModelSourceInfo identify_folder(const std::string& dir, const std::string& option) {
  if (is_openai_gpt2_dir(dir)) return {ModelSourceKind::OpenAiCheckpoint, dir, "", option};
  if (is_hf_model_dir(dir))
    return {hf_classifier_config(dir) ? ModelSourceKind::HfClassifier
                                      : ModelSourceKind::HfLanguageModel,
            dir, "", option};
  if (const std::string task = finetune_task_of(dir); !task.empty()) {
    require(file_exists(dir + "/last.safetensors"),
            option + " " + dir + ": a " + task +
                " fine-tuning run with no checkpoint yet (no last.safetensors)");
    return {ModelSourceKind::FinetuneRun, dir, task, option};
  }
  if (has_train_checkpoint(dir)) return {ModelSourceKind::TrainRun, dir, "", option};
  if (file_exists(dir + "/" + kRunMarker))
    throw InputError(option + " " + dir +
                     ": a tinylm run folder with no checkpoint yet (no last.safetensors or "
                     "best.safetensors)");
  throw InputError(option + " " + dir +
                   ": not a Hugging Face GPT-2 folder, not OpenAI's GPT-2 folder, not a tinylm "
                   "train run and not a tinylm finetune run (no config.json + "
                   "model.safetensors, no hparams.json + model.ckpt.index, no checkpoint); "
                   "give " +
                   kWhatASourceIs);
}

// A name that is no path: a Hugging Face repo id or GPT-2 short name found in the hub
// cache, else a preset. A name shaped as a repo id ("gpt2", "ORG/NAME") that the cache does
// not hold says which download fetches it (the network is never used here).
ModelSourceInfo identify_by_name(const std::string& name, const std::string& option) {
  if (const std::string snapshot = hub::find_cached_model(name); !snapshot.empty())
    return identify_folder(snapshot, option);
  const bool hub_shaped = hub::is_gpt2_short_name(name) ||
                          (hub::is_repo_id(name) && name.find('/') != std::string::npos);
  if (hub_shaped)
    throw InputError(option + " " + name +
                     ": no such file or folder, and no Hugging Face repo of that name in the "
                     "cache (" +
                     hub::cache_dir() + "); `tinylm download " + name + "` fetches it");
  return {ModelSourceKind::Preset, name, "", option};
}

}  // namespace

GPTConfig preset_config(const std::string& name, const std::string& option) {
  try {
    return GPTConfig::preset(name);  // InputError listing the presets
  } catch (const InputError& e) {
    throw InputError(option + " " + name + ": no such file or folder, and " + e.what());
  }
}

std::string finetune_task_of(const std::string& dir) {
  const std::string path = dir + "/config.json";
  if (!file_exists(path)) return "";
  try {
    const nlohmann::json j = read_json_file(path);
    if (j.is_object() && j.contains("task") && j["task"].is_string() && j.contains("finetune"))
      return j["task"].get<std::string>();
  } catch (const InputError&) {
  }
  return "";
}

ModelSourceInfo identify_model_source(const std::string& src, const std::string& option) {
  require(!src.empty(), option + ": no model given");
  if (is_directory(src)) return identify_folder(src, option);
  if (fs::exists(src)) {
    if (src.ends_with(".gguf")) return {ModelSourceKind::GgufFile, src, "", option};
    require(src.ends_with(".safetensors"),
            option + " " + src + ": not a model file; give " + kWhatASourceIs);
    const nlohmann::json config = read_checkpoint_state(src).config;
    if (config.is_object() && config.contains("task") && config.contains("finetune")) {
      const std::string dir = fs::path(src).parent_path().string();
      throw InputError(option + " " + src + ": a fine-tuning checkpoint; give its run folder (" +
                       (dir.empty() ? "." : dir) + ")");
    }
    return {ModelSourceKind::Checkpoint, src, "", option};
  }
  return identify_by_name(src, option);
}

std::string describe(const ModelSourceInfo& source) {
  switch (source.kind) {
    case ModelSourceKind::HfLanguageModel:
      return "a Hugging Face GPT-2 folder";
    case ModelSourceKind::HfClassifier:
      return "a Hugging Face GPT-2 classifier folder";
    case ModelSourceKind::TrainRun:
      return "a tinylm train run";
    case ModelSourceKind::Checkpoint:
      return "a tinylm train checkpoint";
    case ModelSourceKind::FinetuneRun:
      return "a " + source.task + " fine-tuning run";
    case ModelSourceKind::Preset:
      return "the preset " + source.path;
    case ModelSourceKind::GgufFile:
      return "a GGUF file";
    case ModelSourceKind::OpenAiCheckpoint:
      return "OpenAI's GPT-2 checkpoint";
  }
  return "a model";
}

GPTConfig model_config_of(const ModelSourceInfo& source) {
  const std::string& path = source.path;
  switch (source.kind) {
    case ModelSourceKind::HfLanguageModel:
    case ModelSourceKind::HfClassifier:
      try {
        return config_from_hf(read_json_file(path + "/config.json"));
      } catch (const InputError& e) {
        const std::string what = e.what();
        throw InputError(what.rfind("config.json", 0) == 0 ? path + "/" + what : what);
      }
    case ModelSourceKind::TrainRun:
      return report::load_model_config(path + "/config.json");
    case ModelSourceKind::Checkpoint:
      return report::model_config_from_json(read_checkpoint_state(path).config, path);
    case ModelSourceKind::FinetuneRun: {
      // config.json: the FinetuneConfig, and under "run" what the run learnt of its model.
      const std::string file = path + "/config.json";
      const nlohmann::json j = read_json_file(file);
      require(j.contains("run") && j["run"].is_object() && j["run"].contains("model"),
              file + ": no run.model (the shape of the fine-tuned model)");
      try {
        GPTConfig c = GPTConfig::from_json(j["run"]["model"], "run.model.");
        c.validate();
        return c;
      } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
      }
    }
    case ModelSourceKind::Preset:
      return preset_config(path, source.option);
    case ModelSourceKind::GgufFile:
      return gguf_gpt2_config(load_gguf(path));
    case ModelSourceKind::OpenAiCheckpoint:
      try {
        return config_from_openai_hparams(read_json_file(path + "/hparams.json"));
      } catch (const InputError& e) {
        throw InputError(path + "/" + e.what());
      }
  }
  throw InputError("unknown model source");
}

}  // namespace tinylm
