// GPT2ForSequenceClassification folders in and out (see hf_classifier.h).
#include "model/hf_classifier.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "model/hf_gpt2.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// config.json's tinylm_max_length (0 when absent); InputError naming `what` unless it is
// a positive 32-bit integer.
int64_t max_length_from_hf(const nlohmann::json& hf, const std::string& what) {
  if (!hf.contains("tinylm_max_length")) return 0;
  const nlohmann::json& v = hf["tinylm_max_length"];
  require(v.is_number_integer() && v.get<int64_t>() > 0 && v.get<int64_t>() <= INT32_MAX,
          what + ": tinylm_max_length must be a positive integer");
  return v.get<int64_t>();
}

}  // namespace

ClassifierConfig classifier_config_from_hf(const nlohmann::json& hf, const std::string& what) {
  require(hf.is_object(), what + " must be a JSON object");
  ClassifierConfig c;
  const auto field = [&](const char* f) { return what + ": " + f; };
  std::vector<std::string> names;
  if (hf.contains("id2label")) {
    const auto& m = hf["id2label"];
    require(m.is_object() && !m.empty(), field("id2label") + " must be a non-empty object");
    names.resize(m.size());
    for (size_t i = 0; i < m.size(); ++i) {
      const std::string key = std::to_string(i);
      require(m.contains(key) && m[key].is_string(),
              field("id2label") + " must map \"0\".. \"" + std::to_string(m.size() - 1) +
                  "\" to label names (missing or not a string: \"" + key + "\")");
      names[i] = m[key].get<std::string>();
    }
  }
  // Integers are range-checked before they are narrowed (a pad id of 2^32 + 5 is not 5).
  const JsonField checked(hf, what);
  if (hf.contains("num_labels")) {
    require(hf["num_labels"].is_number_integer(), field("num_labels") + " must be an integer");
    c.num_labels = checked["num_labels"].integer(2, INT32_MAX);
    require(names.empty() || static_cast<int64_t>(names.size()) == c.num_labels,
            field("num_labels") + " disagrees with id2label");
  } else {
    require(!names.empty(), what + ": needs num_labels or id2label");
    c.num_labels = static_cast<int64_t>(names.size());
  }
  require(c.num_labels >= 2, field("num_labels") + " must be at least 2");
  c.labels = names;
  if (hf.contains("label2id") && !names.empty()) {
    const auto& m = hf["label2id"];
    require(m.is_object(), field("label2id") + " must be an object");
    for (size_t i = 0; i < names.size(); ++i)
      require(m.contains(names[i]) && m[names[i]].is_number_integer() &&
                  m[names[i]].get<int64_t>() == static_cast<int64_t>(i),
              field("label2id") + " disagrees with id2label for '" + names[i] + "'");
  }
  // The pad id: pad_token_id, else eos_token_id (GPT-2 has no pad token), else 50256.
  const char* pad_key = hf.contains("pad_token_id") && !hf["pad_token_id"].is_null()
                            ? "pad_token_id"
                        : hf.contains("eos_token_id") ? "eos_token_id"
                                                      : nullptr;
  if (pad_key) {
    c.pad_token_id = static_cast<int32_t>(checked[pad_key].integer(0, INT32_MAX));
  }
  c.pooling = Pooling::LastNonPad;  // what transformers does
  if (hf.contains("tinylm_pooling")) {
    require(hf["tinylm_pooling"].is_string(), field("tinylm_pooling") + " must be a string");
    c.pooling = parse_pooling(hf["tinylm_pooling"].get<std::string>());
  }
  c.max_length = max_length_from_hf(hf, what);
  return c;
}

std::unique_ptr<SequenceClassifier> load_hf_classifier(const std::string& dir) {
  require(is_hf_model_dir(dir),
          dir + ": not a model folder (needs config.json and model.safetensors)");
  const nlohmann::json hf = read_json_file(dir + "/config.json");
  ClassifierConfig cc = classifier_config_from_hf(hf, dir + "/config.json");
  const std::string path = dir + "/model.safetensors";
  const SafeTensors file = load_safetensors(path);
  require(file.has("score.weight"), path +
                                        ": missing tensor score.weight (not a "
                                        "GPT2ForSequenceClassification folder?)");
  cc.head_bias = file.has("score.bias");
  auto model = std::make_unique<SequenceClassifier>(load_hf_gpt2(dir), cc);
  for (const auto& p : model->head_parameters()) {
    const Tensor t = file.get(p.name).to_float();
    check_shape(t, p.param->value.shape(), path + ": " + p.name);
    p.param->value.copy_from(t);
  }
  return model;
}

int64_t hf_classifier_max_length(const std::string& dir) {
  const std::string path = dir + "/config.json";
  return max_length_from_hf(read_json_file(path), path);
}

void save_hf_classifier(SequenceClassifier& model, const std::string& dir, int64_t max_length,
                        int32_t eot) {
  const ClassifierConfig& cc = model.config();
  require(!cc.head_bias,
          "the classifier's head has a bias, which transformers' "
          "GPT2ForSequenceClassification does not have (use head_bias false)");
  require(!model.adapters(), "the classifier has LoRA adapters: merge them first");
  auto tensors = hf_tensors(model.body());
  tensors.emplace_back("score.weight", model.score.weight.value);

  nlohmann::json config = config_to_hf(model.body().config(), eot);
  config["architectures"] = {"GPT2ForSequenceClassification"};
  config["num_labels"] = cc.num_labels;
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (int64_t i = 0; i < cc.num_labels; ++i) {
    id2label[std::to_string(i)] = cc.label(i);
    label2id[cc.label(i)] = i;
  }
  config["id2label"] = id2label;
  config["label2id"] = label2id;
  config["pad_token_id"] = cc.pad_token_id;
  config["tinylm_pooling"] = pooling_name(cc.pooling);
  if (max_length > 0) config["tinylm_max_length"] = max_length;

  create_own_folder(dir);  // a link at dir is replaced, not written through
  save_safetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}});
  write_file_atomic(dir + "/config.json", config.dump(2) + "\n");
}

}  // namespace tinylm
