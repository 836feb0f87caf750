#include "export/gguf_export.h"

#include "export/gguf_hf_tokenizer.h"
#include "model/gguf_lm.h"
#include "tokenizer/bpe_spelling.h"
#include "tokenizer/char_as_bpe.h"
#include "tokenizer/char_tokenizer.h"
#include "util/error.h"

namespace tinylm {
namespace {

// llama.cpp's token types (llama_token_type).
constexpr int32_t kNormal = 1, kControl = 3, kUnused = 5;

}  // namespace

void add_gguf_tokenizer(const BpeTokenizer& tokenizer, int64_t model_vocab, Gguf& g) {
  require_gpt2_pretokenizer(tokenizer, "llama.cpp's gpt2 tokenizer");
  const BpeVocab& v = tokenizer.vocab();
  require(v.size() <= model_vocab, [&] {
    return "the tokenizer has " + std::to_string(v.size()) + " tokens, the model only " +
           std::to_string(model_vocab);
  });
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  for (int64_t id = 0; id < model_vocab; ++id) {
    if (id >= v.size()) {
      tokens.push_back("[PAD" + std::to_string(id) + "]");
      types.push_back(kUnused);
    } else {
      const auto i = static_cast<int32_t>(id);
      tokens.push_back(bpe_token_text(v, i));
      types.push_back(is_special_token(v, i) ? kControl : kNormal);
    }
  }
  std::vector<std::string> merges = bpe_merge_texts(v);
  const int32_t eot = tokenizer.eot_id();
  g.metadata.emplace_back("tokenizer.ggml.model", GgufValue::string("gpt2"));
  g.metadata.emplace_back("tokenizer.ggml.pre", GgufValue::string("gpt-2"));
  g.metadata.emplace_back("tokenizer.ggml.tokens", GgufValue::strings_of(std::move(tokens)));
  g.metadata.emplace_back("tokenizer.ggml.token_type", GgufValue::i32s(types));
  g.metadata.emplace_back("tokenizer.ggml.merges", GgufValue::strings_of(std::move(merges)));
  if (eot >= 0) {
    g.metadata.emplace_back("tokenizer.ggml.bos_token_id", GgufValue::u32(eot));
    g.metadata.emplace_back("tokenizer.ggml.eos_token_id", GgufValue::u32(eot));
  }
  g.metadata.emplace_back("tokenizer.ggml.add_bos_token", GgufValue::boolean(false));
}

void add_gguf_char_tokenizer(const CharTokenizer& tokenizer, int64_t model_vocab, Gguf& g) {
  require(tokenizer.vocab_size() <= model_vocab, [&] {
    return "the tokenizer has " + std::to_string(tokenizer.vocab_size()) +
           " tokens, the model only " + std::to_string(model_vocab);
  });
  BpeSpelling s = char_vocab_as_bpe(tokenizer.chars());
  std::vector<int32_t> types(s.tokens.size(), kNormal);
  for (int64_t id = tokenizer.vocab_size(); id < model_vocab; ++id) {
    s.tokens.push_back("[PAD" + std::to_string(id) + "]");
    types.push_back(kUnused);
  }
  g.metadata.emplace_back("tokenizer.ggml.model", GgufValue::string("gpt2"));
  g.metadata.emplace_back("tokenizer.ggml.pre", GgufValue::string("gpt-2"));
  g.metadata.emplace_back("tokenizer.ggml.tokens", GgufValue::strings_of(std::move(s.tokens)));
  g.metadata.emplace_back("tokenizer.ggml.token_type", GgufValue::i32s(types));
  g.metadata.emplace_back("tokenizer.ggml.merges", GgufValue::strings_of(std::move(s.merges)));
  g.metadata.emplace_back("tokenizer.ggml.add_bos_token", GgufValue::boolean(false));
}

Gguf export_gguf(OpenedModel& opened, GgmlType type, const std::string& name) {
  GPT& model = opened.language_model("tinylm export --format gguf");
  const auto* bpe = dynamic_cast<const BpeTokenizer*>(opened.tokenizer.get());
  const auto* chars = dynamic_cast<const CharTokenizer*>(opened.tokenizer.get());
  const auto* hf = dynamic_cast<const HfJsonTokenizer*>(opened.tokenizer.get());
  require(bpe != nullptr || chars != nullptr || hf != nullptr, [&] {
    const std::string kind = opened.tokenizer ? opened.tokenizer->kind() : "missing";
    if (kind == "word")
      return std::string(
          "a word tokenizer: GGUF export refuses it, because a word vocabulary drops the "
          "spaces between words (Raschka's SimpleTokenizerV2), which no byte-level BPE "
          "vocabulary can reproduce exactly; export --format hf writes the weights");
    return "a " + kind +
           " tokenizer: GGUF export takes GPT-2 BPE, trained BPE, char and byte-level "
           "tokenizer.json vocabularies";
  });
  Gguf g = model_to_gguf(model, type, name);
  if (bpe)
    add_gguf_tokenizer(*bpe, model.config().vocab_size, g);
  else if (hf)
    add_gguf_hf_tokenizer(*hf, model.config().vocab_size, g);
  else
    add_gguf_char_tokenizer(*chars, model.config().vocab_size, g);
  return g;
}

}  // namespace tinylm
