// tinylm prepare --tokenizer gpt2 --input FILE --out DIR: tokenise a corpus once, into
// nanoGPT's layout: DIR/train.bin and DIR/val.bin (flat little-endian uint16 ids, or
// uint32 for a vocabulary above 65,536 ids: data/token_file.h; the first 1 - val_fraction
// of the tokens and the rest) and DIR/meta.json (tokenizer, counts, the ids' dtype).
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "data/corpus.h"
#include "data/token_file.h"
#include "tensor/threads.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

int run_prepare(int argc, char** argv) {
  CLI::App app{
      "Tokenise a corpus once into train.bin / val.bin (uint16 ids, nanoGPT's "
      "layout; uint32 for a vocabulary above 65,536 ids, named in meta.json) and meta.json.",
      "tinylm prepare"};
  std::string tokenizer = "gpt2", input, out;
  double val_fraction = 0.1;
  int threads = 0;
  app.add_option("--tokenizer", tokenizer,
                 "gpt2, char, word, a folder with encoder.json + vocab.bpe, or a tokenizer.json "
                 "(or a folder holding one)")
      ->capture_default_str();
  app.add_option("--input", input, "the corpus (UTF-8 text)")->required()->check(kNonEmptyPath);
  app.add_option("--out", out, "output folder")->required()->check(kNonEmptyPath);
  app.add_option("--val-fraction", val_fraction, "the last fraction of tokens kept for validation")
      ->capture_default_str();
  app.add_option("--threads", threads, "threads for GPT-2 BPE encoding (0: all cores)")
      ->check(in_range(0, 1024));  // tokenize's limit
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(val_fraction > 0 && val_fraction < 1, "--val-fraction must be in (0, 1)");

  require_writable_folder(out, "--out");  // an unwritable output is refused before the work
  const std::string text = load_corpus(input);
  const std::unique_ptr<Tokenizer> tok = tokenizer_for_corpus(tokenizer, text);
  std::vector<int32_t> ids;
  if (const auto* bpe = dynamic_cast<const BpeTokenizer*>(tok.get())) {
    ids =
        bpe->encode_parallel(text, AllowedSpecials::every(), threads > 0 ? threads : num_threads());
  } else {
    ids = tok->encode(text);
  }
  const size_t n_train =
      static_cast<size_t>(static_cast<double>(ids.size()) * (1.0 - val_fraction));
  const TokenWidth width = token_width_for(tok->vocab_size());
  create_folder(out, "--out");
  write_token_file(out + "/train.bin", std::span(ids).first(n_train), width);
  write_token_file(out + "/val.bin", std::span(ids).subspan(n_train), width);
  const nlohmann::json meta = {{"tokenizer", tok->to_json()},
                               {"vocab_size", tok->vocab_size()},
                               {"dtype", token_width_name(width)},
                               {"source", input},
                               {"tokens", ids.size()},
                               {"train_tokens", n_train},
                               {"val_tokens", ids.size() - n_train}};
  write_file_atomic(out + "/meta.json", meta.dump(2) + "\n");
  std::printf("%s: %zu tokens (%s, vocab %lld, %s) -> %s/train.bin (%zu), %s/val.bin (%zu)\n",
              input.c_str(), ids.size(), tok->kind().c_str(),
              static_cast<long long>(tok->vocab_size()), token_width_name(width), out.c_str(),
              n_train, out.c_str(), ids.size() - n_train);
  return 0;
}

}  // namespace tinylm::cli
