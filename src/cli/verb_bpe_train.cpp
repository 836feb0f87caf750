// tinylm bpe-train --corpus FILE --vocab-size N --out DIR [--threads T]
// Trains a byte-level BPE vocabulary GPT-2 style (tokenizer/bpe_train.h) and writes
// DIR/encoder.json and DIR/vocab.bpe in OpenAI's format, and the same vocabulary as
// DIR/tokenizer.json in Hugging Face's (tokenizer/bpe_train_folder.h); use it with
// `tinylm tokenize --tokenizer bpe --vocab-dir DIR` or as a training config's tokenizer,
// and the tokenizer.json with transformers or transformers.js.
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/cli_util.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/bpe_train_folder.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

int run_bpe_train(int argc, char** argv) {
  CLI::App app{
      "Train a byte-level BPE vocabulary GPT-2 style: the corpus is cut by GPT-2's "
      "pre-tokeniser and the most frequent adjacent pair is merged until the vocabulary "
      "has N tokens (256 bytes + N-257 merges + <|endoftext|>). Writes encoder.json and "
      "vocab.bpe in OpenAI's format, and always the same vocabulary as tokenizer.json (with "
      "tokenizer_config.json) in Hugging Face's, which transformers and transformers.js "
      "read with the same ids.",
      "tinylm bpe-train"};
  std::string corpus_path, out_dir, pretokenizer = "gpt2";
  int64_t vocab_size = 0;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--corpus", corpus_path, "UTF-8 text to train on")->required();
  app.add_option("--vocab-size", vocab_size, "tokens in the vocabulary, >= 257 (GPT-2 has 50257)")
      ->required();
  app.add_option("--out", out_dir, "folder to write encoder.json, vocab.bpe and tokenizer.json to")
      ->required()
      ->check(kNonEmptyPath);
  app.add_option("--threads", threads, "threads for counting the pieces")
      ->check(CLI::Range(1, 1024));
  app.add_option("--pretokenizer", pretokenizer,
                 "gpt2 (default, GPT-2's pattern) or letters-marks (combining marks stay with "
                 "their letters, [\\p{L}\\p{M}]+, for scripts such as Bengali); written to "
                 "pretokenizer.txt beside the vocabulary, and into tokenizer.json");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  const Pretokenizer pretok = parse_pretokenizer(pretokenizer);
  require_writable_folder(out_dir, "--out");  // an unwritable output is refused before training
  const auto start = std::chrono::steady_clock::now();
  const std::string corpus = read_file(corpus_path);
  BpeTrainResult result;
  try {
    result = train_bpe(corpus, {vocab_size, threads, pretok});
  } catch (const InputError& e) {
    throw InputError(corpus_path + ": " + e.what());
  }
  write_bpe_train_folder(result, pretok, out_dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu merges, vocabulary of %zu tokens from %lld pieces (%lld distinct) in %.2f s\n",
              result.merges.size(), result.tokens.size(), static_cast<long long>(result.n_pieces),
              static_cast<long long>(result.n_distinct), seconds);
  if (static_cast<int64_t>(result.tokens.size()) < vocab_size)
    std::printf("note: the corpus ran out of pairs to merge before %lld tokens\n",
                static_cast<long long>(vocab_size));
  std::printf("wrote %s/encoder.json, vocab.bpe and tokenizer.json\n", out_dir.c_str());
  return 0;
}

}  // namespace tinylm::cli
