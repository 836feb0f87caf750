#include "data/dataset.h"

#include "data/corpus.h"
#include "data/split.h"
#include "tokenizer/load.h"

namespace tinylm {

TokenDataset load_token_dataset(const std::string& path, const std::string& tokenizer,
                                int64_t block_size, double val_fraction) {
  const std::string text = load_corpus(path);
  TokenDataset ds;
  ds.tokenizer = tokenizer_for_corpus(tokenizer, text);
  TokenSplit split = split_tokens(ds.tokenizer->encode(text), block_size, val_fraction);
  ds.train = std::move(split.train);
  ds.val = std::move(split.val);
  return ds;
}

}  // namespace tinylm
