// LoRA adapters in PEFT's layout, a folder with:
//   adapter_config.json        peft_type "LORA", r, lora_alpha, target_modules,
//                              fan_in_fan_out true (GPT-2's Conv1D), lora_dropout,
//                              bias "none", use_rslora, task_type, base_model_name_or_path,
//                              modules_to_save (["score"] when the head trains fully)
//   adapter_model.safetensors  base_model.model.<module>.lora_A.weight [r, in] and
//                              .lora_B.weight [out, r] for each adapted module
//                              ("transformer.h.0.attn.c_attn", ..., "score"), and
//                              base_model.model.score.weight for a saved head
// The A/B layout does not depend on fan_in_fan_out: PEFT keeps [r, in] / [out, r] and
// transposes the product for Conv1D.
#pragma once
#include <memory>
#include <string>

#include "lora/lora.h"

namespace tinylm {

struct PeftInfo {
  std::string task_type = "CAUSAL_LM";  // SEQ_CLS for a classifier
  std::string base_model_name_or_path;  // null in the JSON when empty
  Parameter* saved_head = nullptr;      // the classifier's score.weight, when it trains fully
};

// Writes DIR/adapter_config.json and DIR/adapter_model.safetensors (atomically; creates
// DIR, replacing a symbolic link there: files/create_own_folder).
void save_peft_adapter(LoraSet& lora, const std::string& dir, const PeftInfo& info);

// Reads a PEFT LoRA folder and attaches its adapters to `body` (and `head`, may be null),
// every module the file names, with the file's values. InputError (naming the file and
// the field or tensor) for: a config that is not LORA or uses what tinylm does not
// implement (DoRA, bias other than "none", rank or alpha patterns), r <= 0, a tensor
// whose name is not exactly one of the base's modules ("transformer.h.00.attn.c_attn" is
// not h.0: no tensor is ever skipped) or that no target names, a target that names no
// tensor, missing A or B, shapes that do not match the base, r > max(in, out), a NaN or
// infinite value.
// A saved head (base_model.model.score.weight) is copied into head->weight.
std::unique_ptr<LoraSet> load_peft_adapter(GPT& body, nn::Linear* head, const std::string& dir);

}  // namespace tinylm
