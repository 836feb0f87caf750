// Raschka chapter 2's data pipeline printed step by step (see data_walkthrough.h).
#include "course/data_walkthrough.h"

#include <cstdio>

#include "nn/embedding.h"
#include "nn/positional_encoding.h"
#include "report/text_table.h"
#include "util/error.h"
#include "util/utf8.h"

namespace tinylm::course {

namespace {

// Decoded text with the outer spaces trimmed and newlines / tabs shown as \n, \t.
std::string shown(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  const std::string text = tok.decode(ids);
  size_t a = 0, b = text.size();
  while (a < b && text[a] == ' ') ++a;
  while (b > a && text[b - 1] == ' ') --b;
  std::string out;
  for (size_t i = a; i < b; ++i) {
    if (text[i] == '\n') {
      out += "\\n";
    } else if (text[i] == '\t') {
      out += "\\t";
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string ids_text(const int32_t* ids, int64_t n) {
  std::string out = "[";
  for (int64_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

std::vector<ContextTargetPair> context_target_pairs(const Tokenizer& tok,
                                                    const std::vector<int32_t>& ids, int64_t from,
                                                    int64_t context) {
  require(from >= 0 && context >= 1, "--from must be >= 0 and --context >= 1");
  require(from + context < static_cast<int64_t>(ids.size()),
          "the text has " + std::to_string(ids.size()) + " tokens: too few for " +
              std::to_string(context) + " pairs from token " + std::to_string(from));
  std::vector<ContextTargetPair> pairs;
  for (int64_t k = 1; k <= context; ++k) {
    ContextTargetPair p;
    p.context.assign(ids.begin() + from, ids.begin() + from + k);
    p.target = ids[from + k];
    p.context_text = shown(tok, p.context);
    p.target_text = shown(tok, {p.target});
    pairs.push_back(std::move(p));
  }
  return pairs;
}

EmbeddingShapes embed_batch(const Batch& batch, int64_t vocab, int64_t d_model, uint64_t seed) {
  require(d_model >= 1, "--d-model must be >= 1");
  nn::Embedding wte(vocab, d_model);
  nn::PositionalEncoding wpe(batch.T, d_model, /*learned=*/true);
  Rng rng(seed);
  wte.init(rng, 1.0f);
  wpe.init(rng, 1.0f);
  const Tensor tok = wte.forward(batch.inputs.data(), batch.B * batch.T);  // [B*T, d]
  const Tensor pos = wpe.forward(0, batch.T);                              // [T, d]
  EmbeddingShapes s;
  s.token = {batch.B, batch.T, d_model};
  s.position = {pos.shape()[0], pos.shape()[1]};
  s.input = {batch.B, batch.T, d_model};
  require(tok.numel() == batch.B * batch.T * d_model, "token embedding has the wrong size");
  for (int64_t c = 0; c < std::min<int64_t>(d_model, 4); ++c)
    s.first_input_row.push_back(tok.data()[c] + pos.data()[c]);  // input[0, 0, c]
  return s;
}

std::string data_walkthrough(const Tokenizer& tok, const std::string& text,
                             const std::string& source, const DataWalkthroughOptions& opt) {
  const std::vector<int32_t> ids = tok.encode(text);
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %s characters -> %s tokens (%s tokenizer, vocab %s)\n",
                source.c_str(),
                report::with_commas(static_cast<int64_t>(utf8_decode(text, source).size())).c_str(),
                report::with_commas(static_cast<int64_t>(ids.size())).c_str(), tok.kind().c_str(),
                report::with_commas(tok.vocab_size()).c_str());
  out += buf;

  out += "\n--- input -> target pairs, context size " + std::to_string(opt.context) +
         ", from token " + std::to_string(opt.from) + " ---\n";
  const auto pairs = context_target_pairs(tok, ids, opt.from, opt.context);
  for (const auto& p : pairs)
    out += ids_text(p.context.data(), static_cast<int64_t>(p.context.size())) + " -> " +
           std::to_string(p.target) + "\n";
  for (const auto& p : pairs) out += p.context_text + " -> " + p.target_text + "\n";

  const SlidingWindows windows(ids, opt.windows);
  const Batch b = windows.batch(0);
  std::snprintf(
      buf, sizeof buf,
      "\n--- sliding windows: max_length %lld, stride %lld, batch_size %lld, shuffle "
      "%s, drop_last %s ---\n%lld windows, %lld batches per epoch; the first batch:\n",
      static_cast<long long>(opt.windows.max_length), static_cast<long long>(opt.windows.stride),
      static_cast<long long>(opt.windows.batch_size), opt.windows.shuffle ? "true" : "false",
      opt.windows.drop_last ? "true" : "false", static_cast<long long>(windows.num_windows()),
      static_cast<long long>(windows.batches_per_epoch()));
  out += buf;
  out += "inputs " + shape_text({b.B, b.T}) + ":\n";
  for (int64_t r = 0; r < b.B; ++r) out += "  " + ids_text(&b.inputs[r * b.T], b.T) + "\n";
  out += "targets " + shape_text({b.B, b.T}) + ":\n";
  for (int64_t r = 0; r < b.B; ++r) out += "  " + ids_text(&b.targets[r * b.T], b.T) + "\n";

  const EmbeddingShapes s = embed_batch(b, tok.vocab_size(), opt.d_model, opt.seed);
  out += "\n--- token + position embeddings, d_model " + std::to_string(opt.d_model) + " ---\n";
  out += "token embeddings    wte " + shape_text({tok.vocab_size(), opt.d_model}) + " looks up " +
         shape_text({b.B, b.T}) + " -> " + shape_text(s.token) + "\n";
  out += "position embeddings wpe " + shape_text({b.T, opt.d_model}) + " at positions 0.." +
         std::to_string(b.T - 1) + " -> " + shape_text(s.position) + "\n";
  out += "input embeddings    token + position (broadcast over the batch) -> " +
         shape_text(s.input) + "\n";
  out += "input embeddings[0, 0, :" + std::to_string(s.first_input_row.size()) + "] = [";
  for (size_t c = 0; c < s.first_input_row.size(); ++c) {
    std::snprintf(buf, sizeof buf, "%s%.4f", c ? ", " : "", s.first_input_row[c]);
    out += buf;
  }
  out += "] (random N(0, 1) tables, seed " + std::to_string(opt.seed) + ")\n";
  return out;
}

}  // namespace tinylm::course
