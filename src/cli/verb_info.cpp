// tinylm info --config FILE | --run RUN_DIR | --model HF_DIR | --preset NAME
//             [--batch B] [--seq T] [--json]
// A model's parameter table, FLOPs and training memory, computed from its config alone
// (see report/model_info.h); no weights are loaded. A `tinylm train` run folder is read
// from its config.json (a checkpoint need not exist yet); a LoRA run's memory counts
// gradients and AdamW state for its adapters only. Every flag is checked before anything
// is printed.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "cli/cli_util.h"
#include "model/config.h"
#include "open/model_source.h"
#include "report/data_parallel.h"
#include "report/embedding_table.h"
#include "report/model_info.h"
#include "report/roofline.h"
#include "run/run_folder.h"
#include "run/train_config.h"
#include "train/config_model.h"
#include "train/lora_adapters.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::cli {

namespace {

// A config file's model (train/config_model.h), with a note when its vocabulary comes
// from the data.
GPTConfig config_file_model(const std::string& path) {
  const ConfigModel m = training_config_model(load_config_json(path, {}), path);
  if (!m.vocab_from.empty())
    std::fprintf(stderr, "note: vocab_size %lld comes from the data's %s tokenizer\n",
                 static_cast<long long>(m.model.vocab_size), m.vocab_from.c_str());
  return m.model;
}

// The flags of `tinylm info`.
struct InfoArgs {
  std::string config_file, run_dir, model_dir, preset;
  int64_t batch = 1, seq = 0;  // seq 0: the model's block_size
  bool json = false;
  int64_t embedding_vocab = 0;
  std::vector<int64_t> embedding_dims = {128, 256, 512, 1024};
  std::string device, precision = "fp32";
  double utilization = 0.4;
};

void add_info_flags(CLI::App& app, InfoArgs& a) {
  app.add_option("--config", a.config_file,
                 "JSON config: a training config with the model under \"model\", or a bare "
                 "model object");
  app.add_option("--run", a.run_dir,
                 "run folder (train or finetune) or checkpoint: reads the model's shape from it");
  app.add_option("--model", a.model_dir,
                 "Hugging Face folder (reads its config.json: GPT-2, Llama, Qwen2, Qwen3), or any "
                 "source --run takes");
  app.add_option("--preset", a.preset, "a released model's shape: " + preset_names());
  app.add_option("--batch", a.batch, "batch size B for FLOPs and memory")->capture_default_str();
  app.add_option("--seq", a.seq, "sequence length T (default: the model's block_size)");
  app.add_flag("--json", a.json, "print the same report as JSON");
  app.add_option("--embedding-table", a.embedding_vocab,
                 "print only the size of a token embedding table of this vocabulary at each "
                 "--dims width (the course module: 32100)")
      ->check(at_least(1));
  app.add_option("--dims", a.embedding_dims,
                 "widths for --embedding-table (default 128 256 512 1024)")
      ->check(at_least(1));
  app.add_option("--device", a.device,
                 "also analyse the model on a device: cpu (this machine, measured by a short "
                 "probe), rtx4060-laptop, a100, h100, h200: roofline of each matrix product, "
                 "predicted step time, memory fit, cost of a generated token");
  app.add_option("--precision", a.precision, "fp32 (default) or bf16, with --device");
  app.add_option("--utilization", a.utilization,
                 "the MFU assumed for the predicted step time, with --device (default 0.4)");
}

// The model of a run folder and, when the run trains LoRA adapters, their shapes.
struct RunModel {
  explicit RunModel(GPTConfig c) : config(std::move(c)) {}
  GPTConfig config;
  bool has_lora = false;
  report::LoraAdapters lora;
};

// The config.json of a `tinylm train` run folder (run_config_kind), or null when dir is not
// one. A run folder is one as soon as its config is written, before its first checkpoint.
std::unique_ptr<nlohmann::json> train_run_config(const std::string& dir) {
  if (!is_directory(dir) || run_config_kind(dir) != "train") return nullptr;
  return std::make_unique<nlohmann::json>(read_json_file(dir + "/config.json"));
}

// --run DIR: a train run folder from its config.json (LoRA adapters included); any other
// source --run takes through the one resolver.
RunModel run_model_of(const std::string& dir) {
  const auto j = train_run_config(dir);
  if (!j) return RunModel(model_config_of(identify_model_source(dir, "--run")));
  const std::string file = dir + "/config.json";
  RunModel m(report::model_config_from_json(*j, file));
  if (!j->contains("lora")) return m;  // no adapters: every parameter trains
  try {
    const TrainConfig tc = TrainConfig::from_json(*j);
    if (tc.train.trainable == "lora") {
      m.has_lora = true;
      m.lora = lora_adapters_of(tc.model, tc.lora);
    }
  } catch (const InputError& e) {
    throw InputError(file + ": " + e.what());
  }
  return m;
}

// The model's config (and a LoRA run's adapters) from the one source given.
RunModel model_of(const InfoArgs& a) {
  const int sources =
      !a.config_file.empty() + !a.run_dir.empty() + !a.model_dir.empty() + !a.preset.empty();
  require(sources == 1, "give exactly one of --config, --run, --model, --preset");
  if (!a.config_file.empty()) return RunModel(config_file_model(a.config_file));
  if (!a.run_dir.empty()) return run_model_of(a.run_dir);
  if (!a.model_dir.empty())
    return RunModel(model_config_of(identify_model_source(a.model_dir, "--model")));
  return RunModel(GPTConfig::preset(a.preset));
}

// Flags that would be silently ignored are refused (exit 2), naming them.
void refuse_flags_that_do_not_apply(const CLI::App& app, const InfoArgs& a) {
  const bool table = app.count("--embedding-table") > 0;
  if (table) {
    const std::string extra =
        given_flags(app, {"--config", "--run", "--model", "--preset", "--batch", "--seq", "--json",
                          "--device", "--precision", "--utilization"});
    require(extra.empty(), "--embedding-table prints only the table, as text: leave out " + extra);
  } else {
    require(app.count("--dims") == 0, "--dims applies only with --embedding-table");
  }
  if (a.device.empty()) {
    const std::string extra = given_flags(app, {"--precision", "--utilization"});
    require(extra.empty(), extra + " applies only with --device");
  }
  require(a.json == false || a.device.empty(), "--device prints text: leave out --json");
}

// --device: the roofline analysis on that device, then data parallelism across such
// devices (the gradient of every trained parameter is all-reduced: all of them, or a
// LoRA run's adapters). Computed before anything is printed, so that a bad --device,
// --precision or --utilization prints only its message.
std::string device_analysis_text(const InfoArgs& a, const GPTConfig& config, int64_t T,
                                 const report::ModelInfo& info) {
  const report::DeviceAnalysis d = report::analyse_on_device(
      config, a.batch, T, report::find_device(a.device), a.precision, a.utilization);
  const int64_t trained = info.has_lora ? info.lora.parameters() : info.params.total;
  return "\n" + report::render_device_analysis(d) + "\n" +
         report::render_data_parallel(
             report::plan_data_parallel(trained, d.predicted_step_seconds));
}

}  // namespace

int run_info(int argc, char** argv) {
  CLI::App app{
      "Show a model's parameters by component, FLOPs per token and per training "
      "step, and the memory of a training step (float32, AdamW), all computed from "
      "its config. Give exactly one of --config, --run, --model, --preset.",
      "tinylm info"};
  InfoArgs a;
  add_info_flags(app, a);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  refuse_flags_that_do_not_apply(app, a);
  if (a.embedding_vocab > 0) {
    std::printf("%s", report::render_embedding_table(a.embedding_vocab, a.embedding_dims).c_str());
    return 0;
  }
  const RunModel model = model_of(a);
  const int64_t T = a.seq ? a.seq : model.config.block_size;
  const report::ModelInfo info =
      report::model_info(model.config, a.batch, T, model.has_lora ? &model.lora : nullptr);
  const std::string device = a.device.empty() ? "" : device_analysis_text(a, model.config, T, info);
  if (a.json)
    std::printf("%s\n", report::to_json(info).dump(2).c_str());
  else
    std::printf("%s%s", report::render_text(info).c_str(), device.c_str());
  return 0;
}

}  // namespace tinylm::cli
