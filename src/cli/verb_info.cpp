// tinylm info --config FILE | --run RUN_DIR | --model HF_DIR | --preset NAME
//             [--batch B] [--seq T] [--json]
// A model's parameter table, FLOPs and training memory, computed from its config alone
// (see report/model_info.h); no weights are loaded.
#include <cstdio>

#include "cli/cli_util.h"
#include "report/data_parallel.h"
#include "report/embedding_table.h"
#include "report/model_info.h"
#include "report/roofline.h"
#include "train/config_model.h"
#include "train/model_source.h"
#include "train/train_config.h"
#include "util/error.h"

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
                 "Hugging Face GPT-2 folder (reads its config.json), or any source --run takes");
  app.add_option("--preset", a.preset, "gpt2-124m, gpt2-355m, gpt2-774m or gpt2-1558m");
  app.add_option("--batch", a.batch, "batch size B for FLOPs and memory")->capture_default_str();
  app.add_option("--seq", a.seq, "sequence length T (default: the model's block_size)");
  app.add_flag("--json", a.json, "print the same report as JSON");
  app.add_option("--embedding-table", a.embedding_vocab,
                 "print only the size of a token embedding table of this vocabulary at each "
                 "--dims width (the course module: 32100)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dims", a.embedding_dims,
                 "widths for --embedding-table (default 128 256 512 1024)");
  app.add_option("--device", a.device,
                 "also analyse the model on a device: cpu (this machine, measured by a short "
                 "probe), rtx4060-laptop, a100, h100, h200: roofline of each matrix product, "
                 "predicted step time, memory fit, cost of a generated token");
  app.add_option("--precision", a.precision, "fp32 (default) or bf16, with --device");
  app.add_option("--utilization", a.utilization,
                 "the MFU assumed for the predicted step time, with --device (default 0.4)");
}

// The model's config from the one source given.
GPTConfig model_of(const InfoArgs& a) {
  const int sources =
      !a.config_file.empty() + !a.run_dir.empty() + !a.model_dir.empty() + !a.preset.empty();
  require(sources == 1, "give exactly one of --config, --run, --model, --preset");
  if (!a.config_file.empty()) return config_file_model(a.config_file);
  if (!a.run_dir.empty()) return model_config_of(identify_model_source(a.run_dir, "--run"));
  if (!a.model_dir.empty()) return model_config_of(identify_model_source(a.model_dir, "--model"));
  return GPTConfig::preset(a.preset);
}

// --device: the roofline analysis on that device, then data parallelism across such
// devices (every parameter trains, as in tinylm train without LoRA: its gradient is
// all-reduced).
void print_device_analysis(const InfoArgs& a, const GPTConfig& config, int64_t T,
                           const report::ModelInfo& info) {
  const report::DeviceAnalysis d = report::analyse_on_device(
      config, a.batch, T, report::find_device(a.device), a.precision, a.utilization);
  std::printf("\n%s", report::render_device_analysis(d).c_str());
  std::printf("\n%s", report::render_data_parallel(
                          report::plan_data_parallel(info.params.total, d.predicted_step_seconds))
                          .c_str());
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
  require(a.json == false || a.device.empty(), "--device prints text: leave out --json");
  if (a.embedding_vocab > 0) {
    std::printf("%s", report::render_embedding_table(a.embedding_vocab, a.embedding_dims).c_str());
    return 0;
  }
  const GPTConfig config = model_of(a);
  const int64_t T = a.seq ? a.seq : config.block_size;
  const report::ModelInfo info = report::model_info(config, a.batch, T);
  if (a.json)
    std::printf("%s\n", report::to_json(info).dump(2).c_str());
  else
    std::printf("%s", report::render_text(info).c_str());
  if (!a.device.empty()) print_device_analysis(a, config, T, info);
  return 0;
}

}  // namespace tinylm::cli
