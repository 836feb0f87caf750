// Hugging Face GPT2ForSequenceClassification folders: config.json (GPT-2's fields plus
// num_labels, id2label, label2id, pad_token_id) and model.safetensors (the GPT-2 body as
// in hf_gpt2.h, plus `score.weight` [num_labels, n_embd]; transformers' head has no bias).
// tinylm also writes "tinylm_pooling" into config.json, and for a run that padded its
// texts "tinylm_max_length" (transformers ignores both); a folder without them pools as
// transformers does (last_non_pad) and reads each text as it comes.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/classifier.h"
#include "model/hf_gpt2.h"

namespace tinylm {

// The classifier fields of an HF config.json (num_labels, id2label, pad_token_id,
// tinylm_pooling, tinylm_max_length); InputError naming `what` and the field on bad values.
ClassifierConfig classifier_config_from_hf(const nlohmann::json& hf, const std::string& what);

// Loads DIR/config.json + DIR/model.safetensors (InputError if score.weight is missing
// or has the wrong shape).
std::unique_ptr<SequenceClassifier> load_hf_classifier(const std::string& dir);

// Writes DIR/config.json + DIR/model.safetensors (atomically; creates DIR, replacing a
// symbolic link there: files/create_own_folder). InputError
// for a head with a bias (transformers' `score` has none) or attached LoRA adapters
// (merge them first, or save them with save_peft_adapter).
// max_length: the length texts were cut and padded to in training (0: none); eot: the
// vocabulary's end of text (config.json's bos and eos; -1: none).
void save_hf_classifier(SequenceClassifier& model, const std::string& dir, int64_t max_length = 0,
                        int32_t eot = kGpt2EndOfText);

// DIR/config.json's tinylm_max_length (0 when absent): what a classify run's texts were
// padded to, so that tinylm pools the same position when it reads the folder back.
int64_t hf_classifier_max_length(const std::string& dir);

}  // namespace tinylm
