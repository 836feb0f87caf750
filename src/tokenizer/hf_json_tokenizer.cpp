#include "tokenizer/hf_json_tokenizer.h"

#include <algorithm>

#include "tokenizer/bpe_utf8_lossy.h"
#include "tokenizer/hf_json_fields.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

// The settings of tokenizer_config.json that tinylm reads (and stores in to_json).
constexpr const char* kConfigKeys[] = {"add_bos_token",
                                       "add_eos_token",
                                       "bos_token",
                                       "eos_token",
                                       "clean_up_tokenization_spaces",
                                       "additional_special_tokens",
                                       "tokenizer_class",
                                       "chat_template",
                                       "model_max_length"};

// A config token: "text" or {"content": "text", ...} (an AddedToken); "" when absent.
std::string config_token(const nlohmann::json& config, const char* key, const std::string& name) {
  if (!config.is_object() || !config.contains(key) || config[key].is_null()) return "";
  const nlohmann::json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  require(v.is_object() && v.contains("content") && v["content"].is_string(),
          name + ": \"" + std::string(key) + "\" must be a string or {\"content\": ...}");
  return v["content"].get<std::string>();
}

}  // namespace

std::string clean_up_tokenization(std::string text) {
  static constexpr std::pair<const char*, const char*> kRules[] = {
      {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) text = hf_json::replace_all(std::move(text), from, to);
  return text;
}

HfJsonTokenizer::HfJsonTokenizer(std::string json_text, nlohmann::json config,
                                 const std::string& name)
    : json_text_(std::move(json_text)), name_(name) {
  const nlohmann::json j = parse_json(json_text_, name);
  require(j.is_object(), name + ": expected a JSON object");
  const auto part = [&](const char* key) -> const nlohmann::json& {
    static const nlohmann::json null;
    return j.contains(key) ? j[key] : null;
  };
  for (const char* key : {"truncation", "padding"})
    require(part(key).is_null(), name + ": \"" + std::string(key) + "\" is not supported");
  added_ = HfAddedTokens(part("added_tokens"), name + ": added_tokens");
  normalizer_ = HfNormalizer(part("normalizer"), name + ": normalizer");
  pre_tokenizer_ = HfPreTokenizer(part("pre_tokenizer"), name + ": pre_tokenizer");
  model_ = std::make_unique<HfBpeModel>(hf_json::field(j, "model", name),
                                        pre_tokenizer_.byte_level(), name + ": model");
  decoder_ = HfDecoder(part("decoder"), name + ": decoder");

  index_tokens();
  read_post_processor(part("post_processor"), name + ": post_processor");
  config_ = std::move(config);
  read_config(name);
}

// By id: the text (an added token's content, else the vocabulary's), whether it is an
// added token (the ByteLevel decoder leaves those as they are) and whether it is special.
void HfJsonTokenizer::index_tokens() {
  vocab_size_ = model_->size();
  for (const HfAddedToken& t : added_.tokens())
    vocab_size_ = std::max<int64_t>(vocab_size_, t.id + 1);
  text_.assign(vocab_size_, "");
  is_added_.assign(vocab_size_, false);
  special_.assign(vocab_size_, false);
  for (int32_t id = 0; id < model_->size(); ++id) text_[id] = model_->token_text(id);
  BytesMap added_text(added_.tokens().size());
  for (const HfAddedToken& t : added_.tokens()) {
    text_[t.id] = t.content;
    special_[t.id] = t.special;
    is_added_[t.id] = true;
    added_text.insert(t.content, 1);
  }
  // A vocabulary token spelled as an added token decodes as one (transformers.js).
  for (int32_t id = 0; id < model_->size(); ++id)
    if (added_text.find(text_[id]) != kAbsent) is_added_[id] = true;
}

int32_t HfJsonTokenizer::id_of(const std::string& text) const {
  const int32_t added = added_id(text);
  return added >= 0 ? added : model_->id_of(text);
}

int32_t HfJsonTokenizer::config_token_id(const char* key, const std::string& name) const {
  const std::string text = config_token(config_, key, name);
  if (text.empty()) return -1;
  const int32_t id = id_of(text);
  require(id >= 0, name + ": " + std::string(key) + " \"" + text + "\" is not a token");
  return id;
}

// The settings of tokenizer_config.json; only kConfigKeys are kept.
void HfJsonTokenizer::read_config(const std::string& name) {
  const std::string where = name + " (tokenizer_config.json)";
  if (config_.is_null()) {  // none: the tokenizers library's behaviour
    eot_id_ = added_id("<|endoftext|>");
    return;
  }
  require(config_.is_object(), where + ": expected a JSON object");
  nlohmann::json kept = nlohmann::json::object();
  for (const char* key : kConfigKeys)
    if (config_.contains(key)) kept[key] = config_[key];
  config_ = std::move(kept);
  clean_up_ = hf_json::bool_field(config_, "clean_up_tokenization_spaces", true, where);
  if (config_.contains("additional_special_tokens")) {
    const nlohmann::json& extra = config_["additional_special_tokens"];
    require(extra.is_array(), where + ": \"additional_special_tokens\" must be a list");
    for (const auto& t : extra) {
      const nlohmann::json& text = t.is_object() && t.contains("content") ? t["content"] : t;
      require(text.is_string(), where + ": \"additional_special_tokens\" must list tokens");
      const int32_t id = added_id(text.get<std::string>());
      if (id >= 0) special_[id] = true;
    }
  }
  if (config_.contains("add_bos_token") || config_.contains("add_eos_token"))
    read_config_template(where);
  eot_id_ = config_token_id("eos_token", where);
  if (eot_id_ < 0) eot_id_ = added_id("<|endoftext|>");
}

// add_bos_token / add_eos_token: [bos] $A [eos] in place of the post-processor's template.
void HfJsonTokenizer::read_config_template(const std::string& where) {
  prefix_.clear(), suffix_.clear();
  if (hf_json::bool_field(config_, "add_bos_token", false, where)) {
    const int32_t bos = config_token_id("bos_token", where);
    require(bos >= 0, where + ": add_bos_token is true but there is no bos_token");
    prefix_.push_back(bos);
  }
  if (hf_json::bool_field(config_, "add_eos_token", false, where)) {
    const int32_t eos = config_token_id("eos_token", where);
    require(eos >= 0, where + ": add_eos_token is true but there is no eos_token");
    suffix_.push_back(eos);
  }
}

int32_t HfJsonTokenizer::added_id(const std::string& content) const {
  int32_t id = -1;
  for (const HfAddedToken& t : added_.tokens())
    if (t.content == content) id = t.id;
  return id;
}

// TemplateProcessing's "single" template (special tokens around $A), ByteLevel (nothing
// to add), or a Sequence of them.
void HfJsonTokenizer::read_post_processor(const nlohmann::json& j, const std::string& where) {
  if (j.is_null()) return;
  const std::string type = hf_json::type_of(j, where);
  if (type == "ByteLevel") return;
  if (type == "Sequence") {
    const nlohmann::json& list = hf_json::field(j, "processors", where);
    require(list.is_array(), where + ": \"processors\" must be a list");
    for (const auto& item : list) read_post_processor(item, where);
    return;
  }
  require(type == "TemplateProcessing", [&] {
    return where + ": unsupported post-processor type \"" + type +
           "\" (tinylm reads TemplateProcessing, ByteLevel and Sequence)";
  });
  const nlohmann::json& single = hf_json::field(j, "single", where);
  const nlohmann::json& specials = hf_json::field(j, "special_tokens", where);
  require(single.is_array(), where + ": \"single\" must be a list");
  bool after_a = false;
  for (const auto& item : single) {
    if (item.is_object() && item.contains("Sequence")) {
      after_a = true;
      continue;
    }
    require(item.is_object() && item.contains("SpecialToken") && item["SpecialToken"].is_object(),
            where + ": \"single\" items must be {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    const std::string token = hf_json::string_field(item["SpecialToken"], "id", where);
    require(specials.is_object() && specials.contains(token) && specials[token].contains("ids") &&
                specials[token]["ids"].is_array(),
            where + ": special token \"" + token + "\" is not in \"special_tokens\"");
    for (const auto& id : specials[token]["ids"]) {
      require(id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() < vocab_size_,
              where + ": special token \"" + token + "\" has an id outside the vocabulary");
      (after_a ? suffix_ : prefix_).push_back(static_cast<int32_t>(id.get<int64_t>()));
    }
  }
}

std::vector<int32_t> HfJsonTokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const size_t bad = utf8_first_invalid(text);
  require(bad == std::string_view::npos,
          [&] { return "text: invalid UTF-8 at byte " + std::to_string(bad); });
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 8);
  if (add_special_tokens) out = prefix_;
  HfWords words;
  const std::vector<HfSection> sections = added_.split(text);
  for (size_t i = 0; i < sections.size(); ++i) {
    const HfSection& s = sections[i];
    if (s.token >= 0) {
      out.push_back(added_.tokens()[s.token].id);
      continue;
    }
    if (s.end <= s.begin) continue;
    const std::string_view plain = text.substr(s.begin, s.end - s.begin);
    const std::string normalized = normalizer_.empty() ? std::string() : normalizer_.apply(plain);
    const std::string_view x = normalizer_.empty() ? plain : std::string_view(normalized);
    if (x.empty()) continue;
    pre_tokenizer_.split(x, i == 0, words);
    for (size_t w = 0; w < words.spans.size(); ++w) model_->encode_word(words.word(w), out);
  }
  if (add_special_tokens) out.insert(out.end(), suffix_.begin(), suffix_.end());
  return out;
}

void HfJsonTokenizer::check_id(int32_t id) const {
  require(id >= 0 && id < vocab_size_, [&] {
    return "token id " + std::to_string(id) + " is outside the vocabulary [0, " +
           std::to_string(vocab_size_) + ")";
  });
}

std::string HfJsonTokenizer::decode_piece(int32_t id, bool first) const {
  check_id(id);
  return decoder_.piece(text_[id], is_added_[id], first);
}

std::string HfJsonTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special,
                                    bool clean_up) const {
  std::string bytes;
  bool first = true;
  for (const int32_t id : ids) {
    check_id(id);
    if (skip_special && special_[id]) continue;
    bytes += decoder_.piece(text_[id], is_added_[id], first);
    first = false;
  }
  decoder_.finish(bytes);
  std::string text = utf8_lossy(bytes);
  return clean_up && clean_up_ ? clean_up_tokenization(std::move(text)) : text;
}

nlohmann::json HfJsonTokenizer::to_json() const {
  return {{"kind", "hf"},
          {"source", name_},
          {"tokenizer.json", json_text_},
          {"tokenizer_config", config_}};
}

std::unique_ptr<HfJsonTokenizer> open_hf_json_tokenizer(const std::string& path) {
  const bool dir = is_directory(path);
  const std::string file = dir ? path + "/tokenizer.json" : path;
  require(file_exists(file), [&] {
    return dir ? path + ": no tokenizer.json in this folder" : path + ": no such file";
  });
  const size_t slash = file.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : file.substr(0, slash);
  const std::string config_path = folder + "/tokenizer_config.json";
  nlohmann::json config;  // null: none
  if (file_exists(config_path)) config = read_json_file(config_path);
  // Newer transformers write the chat template to a file of its own, which wins.
  const std::string template_path = folder + "/chat_template.jinja";
  if (file_exists(template_path)) {
    if (!config.is_object()) config = nlohmann::json::object();
    config["chat_template"] = read_file(template_path);
  }
  return std::make_unique<HfJsonTokenizer>(read_file(file), std::move(config), file);
}

}  // namespace tinylm
