// tinylm data --show: Raschka chapter 2's data pipeline on any corpus and tokenizer
// (course/data_walkthrough.h): input -> target pairs, one batch of the sliding-window
// loader, and the shapes of the token + position embeddings.
#include <cstdio>
#include <string>

#include "cli/cli_util.h"
#include "course/data_walkthrough.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

int run_data(int argc, char** argv) {
  CLI::App app{"Show how a corpus becomes training batches (Raschka, chapter 2).", "tinylm data"};
  bool show = false, no_drop_last = false;
  std::string input = "data/the-verdict.txt", tokenizer = "gpt2";
  course::DataWalkthroughOptions opt;
  app.add_flag("--show", show, "print the pairs, the first batch and the embedding shapes");
  app.add_option("--input", input, "UTF-8 text (default data/the-verdict.txt)");
  app.add_option("--tokenizer", tokenizer,
                 "gpt2 (default), char, word, or a folder with encoder.json + vocab.bpe");
  app.add_option("--from", opt.from, "first token of the input -> target pairs (default 50)");
  app.add_option("--context", opt.context, "context size of the pairs (default 4)");
  app.add_option("--max-length", opt.windows.max_length, "tokens per window (default 4)");
  app.add_option("--stride", opt.windows.stride, "distance between windows (default 4)");
  app.add_option("--batch-size", opt.windows.batch_size, "windows per batch (default 8)");
  app.add_flag("--shuffle", opt.windows.shuffle, "shuffle the windows (seeded by --seed)");
  app.add_flag("--no-drop-last", no_drop_last, "keep a last, smaller batch");
  app.add_option("--d-model", opt.d_model, "embedding size (default 256)")
      ->check(in_range(1, 4096));  // the token table is vocabulary x d_model floats
  app.add_option("--seed", opt.seed, "seed of the shuffle and the embedding tables (default 123)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(show, "nothing to do: pass --show");
  opt.windows.drop_last = !no_drop_last;
  opt.windows.seed = opt.seed;
  const std::string text = read_file(input);
  require(!text.empty(), input + ": empty file");
  const auto tok = tokenizer_for_corpus(tokenizer, text);
  std::fputs(course::data_walkthrough(*tok, text, input, opt).c_str(), stdout);
  return 0;
}

}  // namespace tinylm::cli
