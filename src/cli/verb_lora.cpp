// tinylm lora merge --base SRC --adapter DIR --out HF_DIR: fold a PEFT LoRA adapter
// into its base and write a Hugging Face folder (see export/merge.h).
#include <cstdio>

#include "cli/cli_util.h"
#include "export/merge_source.h"

namespace tinylm::cli {

int run_lora(int argc, char** argv) {
  CLI::App app{"LoRA adapters (PEFT layout: adapter_config.json + adapter_model.safetensors).",
               "tinylm lora"};
  app.require_subcommand(1);
  std::string base, adapter, out;
  CLI::App* merge = app.add_subcommand(
      "merge",
      "fold an adapter into its base (W += alpha/r * B A) and write a Hugging Face "
      "folder (config.json + model.safetensors)");
  merge
      ->add_option("--base", base,
                   "the base: a Hugging Face folder (GPT2LMHeadModel, "
                   "GPT2ForSequenceClassification, LlamaForCausalLM, Qwen2/Qwen3ForCausalLM), a "
                   "tinylm run or fine-tuning run, a "
                   "checkpoint, or a preset (gpt2-124m)")
      ->required();
  merge->add_option("--adapter", adapter, "the PEFT adapter folder")->required();
  merge->add_option("--out", out, "the folder to write (must not exist, or be empty)")->required();
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  const MergeSummary s = merge_adapter_into(base, adapter, out);
  std::printf("merged %lld LoRA modules (%lld adapter parameters) into %s%s\n",
              static_cast<long long>(s.modules), static_cast<long long>(s.lora_parameters),
              out.c_str(), s.classifier ? " (GPT2ForSequenceClassification)" : "");
  return 0;
}

}  // namespace tinylm::cli
