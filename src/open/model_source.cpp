// Telling a model source from its files, through the table of kinds (see model_source.h).
#include "open/model_source.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "hub/hub_cache.h"
#include "run/run_folder.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

namespace fs = std::filesystem;

namespace {

const char* kWhatASourceIs =
    "a Hugging Face folder (config.json + model.safetensors: GPT-2, Llama, Qwen2, Qwen3), OpenAI's "
    "GPT-2 folder "
    "(hparams.json + model.ckpt.*), a tinylm run folder, a "
    "checkpoint file (.safetensors), a GGUF file (.gguf), a Hugging Face repo id in the cache "
    "(gpt2, ORG/NAME) or a preset (gpt2-124m, gpt2-355m, "
    "gpt2-774m, gpt2-1558m)";

// Whether a row of `form` recognises info.path: the first that does (in table order)
// sets info.kind.
bool recognised(SourceForm form, ModelSourceInfo& info) {
  for (const ModelSourceRow& row : model_source_table()) {
    if (row.form != form) continue;
    info.kind = row.kind;
    if (row.recognise(info)) return true;
  }
  return false;
}

// The first folder row that recognises dir; the messages for a run folder with no
// checkpoint yet and for a folder of no kind.
ModelSourceInfo identify_folder(const std::string& dir, const std::string& option) {
  ModelSourceInfo info{ModelSourceKind::Preset, dir, "", option};
  if (recognised(SourceForm::kFolder, info)) return info;
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

// The first file row that recognises path.
ModelSourceInfo identify_file(const std::string& path, const std::string& option) {
  ModelSourceInfo info{ModelSourceKind::Preset, path, "", option};
  if (recognised(SourceForm::kFile, info)) return info;
  throw InputError(option + " " + path + ": not a model file; give " + kWhatASourceIs);
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
  ModelSourceInfo info{ModelSourceKind::Preset, name, "", option};
  if (recognised(SourceForm::kName, info)) return info;
  throw InputError(option + " " + name + ": no such file or folder; give " + kWhatASourceIs);
}

}  // namespace

GPTConfig preset_config(const std::string& name, const std::string& option) {
  try {
    return GPTConfig::preset(name);  // InputError listing the presets
  } catch (const InputError& e) {
    throw InputError(option + " " + name + ": no such file or folder, and " + e.what());
  }
}

ModelSourceInfo identify_model_source(const std::string& src, const std::string& option) {
  require(!src.empty(), option + ": no model given");
  if (is_directory(src)) return identify_folder(src, option);
  if (fs::exists(src)) return identify_file(src, option);
  return identify_by_name(src, option);
}

const ModelSourceRow& model_source_row(ModelSourceKind kind) {
  for (const ModelSourceRow& row : model_source_table())
    if (row.kind == kind) return row;
  throw std::logic_error("model_source_row: a kind with no row");
}

std::string describe(const ModelSourceInfo& source) {
  return model_source_row(source.kind).describe(source);
}

GPTConfig model_config_of(const ModelSourceInfo& source) {
  return model_source_row(source.kind).shape(source);
}

}  // namespace tinylm
