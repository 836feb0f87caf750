#include "export/gguf_hf_tokenizer.h"

#include <algorithm>

#include "tokenizer/gguf_pretokenizers.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm {
namespace {

// llama.cpp's token types (llama_token_type).
constexpr int32_t kNormalType = 1, kControlType = 3, kUserDefinedType = 4, kUnusedType = 5;

// As llama.cpp's converter decides: an added token spelled <|...|> is control even when
// the file does not call it special (Qwen's <|fim_prefix|>, ...).
bool looks_special(const std::string& text) {
  return text.size() >= 4 && text.rfind("<|", 0) == 0 &&
         text.compare(text.size() - 2, 2, "|>") == 0;
}

int32_t token_type(const HfJsonTokenizer& tok, int32_t id) {
  if (!tok.is_added(id)) return kNormalType;
  return tok.is_special(id) || looks_special(tok.token_text(id)) ? kControlType : kUserDefinedType;
}

// model.merges as "left right" lines; both of tokenizer.json's spellings ("a b", ["a", "b"]).
std::vector<std::string> merge_lines(const nlohmann::json& merges, const std::string& where) {
  std::vector<std::string> lines;
  lines.reserve(merges.size());
  for (const nlohmann::json& m : merges) {
    if (m.is_string()) {
      lines.push_back(m.get<std::string>());
      continue;
    }
    require(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(),
            where + ": a merge must be \"a b\" or [\"a\", \"b\"]");
    const std::string a = m[0].get<std::string>(), b = m[1].get<std::string>();
    require(a.find(' ') == std::string::npos && b.find(' ') == std::string::npos,
            where + ": a merge of a token holding a space cannot be written as \"a b\"");
    lines.push_back(a + " " + b);
  }
  return lines;
}

// What encode(text, true) adds around encode(text, false): {prefix, suffix}.
std::pair<std::vector<int32_t>, std::vector<int32_t>> added_around(const HfJsonTokenizer& tok) {
  const std::vector<int32_t> plain = tok.encode("a", false), with = tok.encode("a", true);
  const auto at = std::search(with.begin(), with.end(), plain.begin(), plain.end());
  if (plain.empty() || at == with.end()) return {};
  return {{with.begin(), at}, {at + static_cast<std::ptrdiff_t>(plain.size()), with.end()}};
}

// The config's bos_token ("text" or {"content": "text"}) as an id, or -1.
int32_t config_bos_id(const HfJsonTokenizer& tok) {
  const nlohmann::json& c = tok.config();
  if (!c.is_object() || !c.contains("bos_token")) return -1;
  const nlohmann::json& v = c["bos_token"].is_object() ? c["bos_token"]["content"] : c["bos_token"];
  return v.is_string() ? tok.id_of(v.get<std::string>()) : -1;
}

void add_special_ids(const HfJsonTokenizer& tok, Gguf& g) {
  const auto [prefix, suffix] = added_around(tok);
  const int32_t bos = prefix.empty() ? config_bos_id(tok) : prefix.front();
  const int32_t eos = tok.eot_id();
  if (bos >= 0) g.metadata.emplace_back("tokenizer.ggml.bos_token_id", GgufValue::u32(bos));
  if (eos >= 0) g.metadata.emplace_back("tokenizer.ggml.eos_token_id", GgufValue::u32(eos));
  g.metadata.emplace_back("tokenizer.ggml.add_bos_token", GgufValue::boolean(!prefix.empty()));
  g.metadata.emplace_back("tokenizer.ggml.add_eos_token", GgufValue::boolean(!suffix.empty()));
}

void add_chat_template(const HfJsonTokenizer& tok, Gguf& g) {
  const nlohmann::json& c = tok.config();
  if (!c.is_object() || !c.contains("chat_template")) return;
  const nlohmann::json& t = c["chat_template"];
  if (t.is_string()) {
    g.metadata.emplace_back("tokenizer.chat_template", GgufValue::string(t.get<std::string>()));
    return;
  }
  // A list of named templates: "default" as tokenizer.chat_template, the others under
  // their names, as llama.cpp's converter writes them.
  for (const nlohmann::json& named : t.is_array() ? t : nlohmann::json::array()) {
    if (!named.is_object() || !named.contains("name") || !named.contains("template")) continue;
    const std::string name = named["name"].get<std::string>();
    g.metadata.emplace_back(name == "default" ? std::string("tokenizer.chat_template")
                                              : "tokenizer.chat_template." + name,
                            GgufValue::string(named["template"].get<std::string>()));
  }
}

}  // namespace

void add_gguf_hf_tokenizer(const HfJsonTokenizer& tok, int64_t model_vocab, Gguf& g) {
  const std::string& where = tok.name();
  const nlohmann::json j = parse_json(tok.json_text(), where);
  const GgufPretokenizer& pre = gguf_pretokenizer_of(j, where);
  require(tok.vocab_size() <= model_vocab, [&] {
    return "the tokenizer has " + std::to_string(tok.vocab_size()) + " tokens, the model only " +
           std::to_string(model_vocab);
  });
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  for (int64_t id = 0; id < model_vocab; ++id) {
    const auto i = static_cast<int32_t>(id);
    if (id >= tok.vocab_size() || tok.token_text(i).empty()) {  // a pad, or a hole in the ids
      tokens.push_back("[PAD" + std::to_string(id) + "]");
      types.push_back(kUnusedType);
    } else {
      tokens.push_back(tok.token_text(i));
      types.push_back(token_type(tok, i));
    }
  }
  g.metadata.emplace_back("tokenizer.ggml.model", GgufValue::string("gpt2"));
  g.metadata.emplace_back("tokenizer.ggml.pre", GgufValue::string(pre.name));
  g.metadata.emplace_back("tokenizer.ggml.tokens", GgufValue::strings_of(std::move(tokens)));
  g.metadata.emplace_back("tokenizer.ggml.token_type", GgufValue::i32s(types));
  g.metadata.emplace_back(
      "tokenizer.ggml.merges",
      GgufValue::strings_of(merge_lines(j["model"].value("merges", nlohmann::json::array()),
                                        where + ": model.merges")));
  add_special_ids(tok, g);
  add_chat_template(tok, g);
}

}  // namespace tinylm
