#include "open/gguf_model.h"

#include <nlohmann/json.hpp>

#include "model/gguf_lm.h"
#include "open/gguf_tokenizer_json.h"
#include "tokenizer/char_as_bpe.h"
#include "tokenizer/char_tokenizer.h"
#include "util/error.h"
#include "util/utf8.h"

namespace tinylm {

std::unique_ptr<Tokenizer> gguf_tokenizer(const Gguf& g) {
  const std::string model = g.get_string("tokenizer.ggml.model");
  require(model == "gpt2", [&] {
    return g.source + ": tokenizer.ggml.model '" + model +
           "' is not gpt2 (tinylm reads GPT-2's byte-level BPE)";
  });
  if (g.find("tokenizer.ggml.pre")) {
    const std::string pre = g.get_string("tokenizer.ggml.pre");
    if (pre != "gpt-2" && pre != "default") {
      const GgufPretokenizer* row = find_gguf_pretokenizer(pre);
      require(row != nullptr, [&] {
        std::string names;
        for (const GgufPretokenizer& r : gguf_pretokenizers()) names += " " + r.name;
        return g.source + ": tokenizer.ggml.pre '" + pre +
               "' is not a pre-tokeniser tinylm reads (it reads" + names + ")";
      });
      return gguf_tokenizer_json(g, *row);
    }
  }
  const GgufValue& tokens = g.get("tokenizer.ggml.tokens");
  const GgufValue& merges = g.get("tokenizer.ggml.merges");
  require(tokens.type == GgufType::kString && tokens.is_array && merges.type == GgufType::kString &&
              merges.is_array,
          g.source + ": tokenizer.ggml.tokens and .merges must be arrays of strings");
  for (const auto* list : {&tokens, &merges})
    for (size_t i = 0; i < list->strings.size(); ++i)
      require(utf8_first_invalid(list->strings[i]) == std::string::npos, [&] {
        return g.source + ": " + (list == &tokens ? "token " : "merge ") + std::to_string(i) +
               " is not valid UTF-8 (a byte-level BPE vocabulary spells bytes in GPT-2's "
               "alphabet)";
      });
  size_t real = tokens.strings.size();  // tokens before the pads of a larger model vocabulary
  while (real > 0 && tokens.strings[real - 1].rfind("[PAD", 0) == 0) --real;
  if (auto chars = chars_of_bpe_spelling(tokens.strings, merges.strings, real))
    return std::make_unique<CharTokenizer>(std::move(*chars));
  nlohmann::json encoder = nlohmann::json::object();
  for (size_t id = 0; id < tokens.strings.size(); ++id) encoder[tokens.strings[id]] = id;
  require(encoder.size() == tokens.strings.size(),
          g.source + ": tokenizer.ggml.tokens holds a token twice");
  std::string merges_text = "#version: 0.2\n";
  for (const std::string& m : merges.strings) merges_text += m + "\n";
  try {
    return std::make_unique<BpeTokenizer>(BpeTokenizer::from_texts(
        encoder.dump(), std::move(merges_text), "bpe", g.source, Pretokenizer::Gpt2));
  } catch (const InputError& e) {
    throw InputError(g.source + ": its tokenizer is not GPT-2's layout: " + e.what());
  }
}

GgufModel load_gguf_model(const std::string& path) {
  const Gguf g = load_gguf(path);
  GgufModel m{model_from_gguf(g), gguf_tokenizer(g)};
  for (const GgufTensor& t : g.tensors)
    if (t.name == "blk.0.attn_qkv.weight") m.matrix_type = t.type;
  require(m.tokenizer->vocab_size() <= m.model->config().vocab_size, [&] {
    return path + ": the tokenizer has " + std::to_string(m.tokenizer->vocab_size()) +
           " tokens, the model " + std::to_string(m.model->config().vocab_size);
  });
  return m;
}

}  // namespace tinylm
