// A model as a Hugging Face folder (see hf_export.h).
#include "export/hf_export.h"

#include <nlohmann/json.hpp>

#include "export/model_folder.h"
#include "lora/classifier_lora.h"
#include "lora/peft.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "model/hf_llama.h"
#include "util/error.h"

namespace tinylm {

void require_hf_expressible(const GPTConfig& c) {
  require(c.pre_ln, "post-LN blocks (model.pre_ln false): GPT-2 has pre-LN blocks only");
  require(c.residual,
          "no residual connections (model.residual false): GPT-2's blocks always have them");
  require(c.tie_head || !c.head_bias,
          "a bias on the untied head (model.head_bias): GPT-2's lm_head has none");
}

std::unique_ptr<GPT> with_learned_positions(GPT& model) {
  GPTConfig c = model.config();
  c.position = PositionEncoding::Learned;
  auto learned = std::make_unique<GPT>(c);
  ParameterList from = model.parameters();
  for (auto& [name, param] : learned->parameters()) {
    if (name == "wpe.weight") {
      param->value.copy_from(model.wpe.weight.value);  // the sinusoidal table
      continue;
    }
    for (auto& [other, value] : from)
      if (other == name) param->value.copy_from(value->value);
  }
  return learned;
}

namespace {

void write_language_model(GPT& model, const std::string& dir, int32_t eot) {
  if (model.config().arch == Arch::Llama) return save_hf_llama(model, dir, eot);
  std::unique_ptr<GPT> learned;
  GPT* m = &model;
  if (model.config().position != PositionEncoding::Learned) {
    learned = with_learned_positions(model);
    m = learned.get();
  }
  save_hf_gpt2(*m, dir, eot);
}

// Makes --out (export/model_folder.h), `write` filling the folder, with the tokenizer's
// files.
template <typename Write>
void write_folder(OpenedModel& opened, const std::string& out, HfExportSummary& s,
                  const Write& write) {
  s.tokenizer_files =
      write_model_folder(out, opened.tokenizer.get(), opened.gpt().config().block_size, write);
}

}  // namespace

HfExportSummary export_hf(OpenedModel& opened, const std::string& out, bool merge) {
  checked_model_folder(out);  // before anything is merged
  HfExportSummary s;
  SequenceClassifier* classifier = opened.classifier.get();
  const bool classifier_lora = classifier && lora_of(*classifier);
  if ((opened.lora || classifier_lora) && !merge) {  // as PEFT saves them, naming the base
    const std::string base = opened.finetune_config ? opened.finetune_config->base : "";
    s.architecture =
        classifier_lora ? "a PEFT LoRA adapter (SEQ_CLS)" : "a PEFT LoRA adapter (CAUSAL_LM)";
    write_folder(opened, out, s, [&](const std::string& dir) {
      if (classifier_lora)
        save_peft_classifier_adapter(*classifier, dir, base);
      else
        save_peft_adapter(*opened.lora, dir, {"CAUSAL_LM", base, nullptr});
    });
    return s;
  }
  if (opened.lora || classifier_lora) {
    opened.merge_adapters();
    if (classifier_lora) merge_lora(*classifier);
    s.merged_lora = true;
  }
  GPT& body = opened.classifier ? opened.classifier->body()
                                : opened.language_model("tinylm export --format hf");
  require_hf_expressible(body.config());  // before anything is made
  require(!(opened.classifier && body.config().arch == Arch::Llama),
          "a classifier on a llama-family body: tinylm writes GPT2ForSequenceClassification "
          "folders only");
  if (body.config().arch == Arch::Llama) llama_config_to_hf(body.config(), -1);  // may refuse
  const int32_t eot = opened.tokenizer ? opened.tokenizer->eot_id() : kGpt2EndOfText;
  write_folder(opened, out, s, [&](const std::string& dir) {
    if (opened.classifier) {
      save_hf_classifier(*opened.classifier, dir, opened.max_length, eot);
      s.architecture = "GPT2ForSequenceClassification";
    } else {
      write_language_model(body, dir, eot);
      s.architecture =
          body.config().arch == Arch::Llama
              ? llama_config_to_hf(body.config(), eot)["architectures"][0].get<std::string>()
              : "GPT2LMHeadModel";
    }
    write_hf_generation_config(eot, dir);
  });
  return s;
}

}  // namespace tinylm
