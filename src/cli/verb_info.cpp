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

}  // namespace

int run_info(int argc, char** argv) {
  CLI::App app{
      "Show a model's parameters by component, FLOPs per token and per training "
      "step, and the memory of a training step (float32, AdamW), all computed from "
      "its config. Give exactly one of --config, --run, --model, --preset.",
      "tinylm info"};
  std::string config_file, run_dir, model_dir, preset;
  int64_t batch = 1, seq = 0;
  bool json = false;
  app.add_option("--config", config_file,
                 "JSON config: a training config with the model under \"model\", or a bare "
                 "model object");
  app.add_option("--run", run_dir,
                 "run folder (train or finetune) or checkpoint: reads the model's shape from it");
  app.add_option("--model", model_dir,
                 "Hugging Face GPT-2 folder (reads its config.json), or any source --run takes");
  app.add_option("--preset", preset, "gpt2-124m, gpt2-355m, gpt2-774m or gpt2-1558m");
  app.add_option("--batch", batch, "batch size B for FLOPs and memory")->capture_default_str();
  app.add_option("--seq", seq, "sequence length T (default: the model's block_size)");
  app.add_flag("--json", json, "print the same report as JSON");
  int64_t embedding_vocab = 0;
  std::vector<int64_t> embedding_dims = {128, 256, 512, 1024};
  app.add_option("--embedding-table", embedding_vocab,
                 "print only the size of a token embedding table of this vocabulary at each "
                 "--dims width (the course module: 32100)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dims", embedding_dims,
                 "widths for --embedding-table (default 128 256 512 1024)");
  std::string device, precision = "fp32";
  double utilization = 0.4;
  app.add_option("--device", device,
                 "also analyse the model on a device: cpu (this machine, measured by a short "
                 "probe), rtx4060-laptop, a100, h100, h200: roofline of each matrix product, "
                 "predicted step time, memory fit, cost of a generated token");
  app.add_option("--precision", precision, "fp32 (default) or bf16, with --device");
  app.add_option("--utilization", utilization,
                 "the MFU assumed for the predicted step time, with --device (default 0.4)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(json == false || device.empty(), "--device prints text: leave out --json");
  if (embedding_vocab > 0) {
    std::printf("%s", report::render_embedding_table(embedding_vocab, embedding_dims).c_str());
    return 0;
  }

  const int sources =
      !config_file.empty() + !run_dir.empty() + !model_dir.empty() + !preset.empty();
  require(sources == 1, "give exactly one of --config, --run, --model, --preset");
  GPTConfig config;
  if (!config_file.empty())
    config = config_file_model(config_file);
  else if (!run_dir.empty())
    config = model_config_of(identify_model_source(run_dir, "--run"));
  else if (!model_dir.empty())
    config = model_config_of(identify_model_source(model_dir, "--model"));
  else
    config = GPTConfig::preset(preset);

  const report::ModelInfo info = report::model_info(config, batch, seq ? seq : config.block_size);
  if (json) {
    std::printf("%s\n", report::to_json(info).dump(2).c_str());
  } else {
    std::printf("%s", report::render_text(info).c_str());
  }
  if (!device.empty()) {
    const report::DeviceAnalysis a =
        report::analyse_on_device(config, batch, seq ? seq : config.block_size,
                                  report::find_device(device), precision, utilization);
    std::printf("\n%s", report::render_device_analysis(a).c_str());
    // Every parameter trains (tinylm train without LoRA): its gradient is all-reduced.
    std::printf("\n%s", report::render_data_parallel(
                            report::plan_data_parallel(info.params.total, a.predicted_step_seconds))
                            .c_str());
  }
  return 0;
}

}  // namespace tinylm::cli
