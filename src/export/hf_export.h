// A model opened by open/ as a Hugging Face folder that transformers loads with
// from_pretrained (`tinylm export --format hf`), written as every model folder is
// (export/model_folder.h: --out new or an empty folder, filled beside it and renamed):
//   a language model   GPT2LMHeadModel: model.safetensors (Conv1D layout), config.json,
//                      generation_config.json (model/hf_gpt2.h)
//   a classifier       GPT2ForSequenceClassification (model/hf_classifier.h)
//   + the tokenizer files (tokenizer/folder_tokenizer_files.h): Hugging Face's for a BPE
//     vocabulary, and for any vocabulary but GPT-2's own tinylm's tokenizer
// Sinusoidal positions are written as the equivalent learned table (the same function).
// What GPT-2 cannot express is refused, naming the config field: post-LN blocks
// (model.pre_ln false), no residual connections (model.residual false), a bias on an
// untied head (model.head_bias). A LoRA run's adapters are merged into the weights
// (merge true), or written as PEFT saves an adapter (merge false): adapter_config.json
// (task_type CAUSAL_LM for an instruct run, SEQ_CLS with the head in modules_to_save for
// a classifier; base_model_name_or_path: the run's base) and adapter_model.safetensors
// (lora/peft.h), with the tokenizer files.
#pragma once
#include <string>

#include "open/open_model.h"

namespace tinylm {

struct HfExportSummary {
  std::string architecture;  // "GPT2LMHeadModel", "GPT2ForSequenceClassification" or
                             // "a PEFT LoRA adapter (CAUSAL_LM)" / "(SEQ_CLS)"
  bool tokenizer_files = false;
  bool merged_lora = false;
};

HfExportSummary export_hf(OpenedModel& opened, const std::string& out, bool merge);

// InputError naming the first option of c that GPT-2's Hugging Face layout cannot express.
void require_hf_expressible(const GPTConfig& c);

// The model with its sinusoidal table as a learned one (the same weights otherwise); the
// model itself when its positions are learned.
std::unique_ptr<GPT> with_learned_positions(GPT& model);

}  // namespace tinylm
