#include "data/dataset.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "data/split.h"
#include "data/token_file.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// A folder from `tinylm prepare`: meta.json + train.bin + val.bin.
TokenDataset load_prepared(const std::string& dir, const std::string& tokenizer,
                           int64_t block_size) {
  const std::string meta_path = dir + "/meta.json";
  require(file_exists(meta_path), "data folder " + dir +
                                      " has no meta.json (expected a folder written by "
                                      "`tinylm prepare`: meta.json, train.bin, val.bin)");
  const nlohmann::json meta = read_json_file(meta_path);
  require(meta.is_object() && meta.contains("tokenizer"),
          meta_path + ": expected an object with a \"tokenizer\"");
  TokenDataset ds;
  ds.tokenizer = tokenizer_from_json(meta["tokenizer"]);
  const nlohmann::json tj = ds.tokenizer->to_json();
  const bool same = tokenizer.empty() || tokenizer == ds.tokenizer->kind() ||
                    (tj.contains("dir") && tokenizer == tj["dir"].get<std::string>());
  require(same, "data.tokenizer is \"" + tokenizer + "\" but " + dir + " was prepared with the " +
                    ds.tokenizer->kind() +
                    " tokenizer (leave data.tokenizer out to use the folder's)");
  const int64_t vocab = ds.tokenizer->vocab_size();
  TokenWidth width = TokenWidth::kUint16;  // a meta.json from before uint32 files names none
  if (meta.contains("dtype")) {
    require(meta["dtype"].is_string(), meta_path + ": \"dtype\" must be a string");
    width = parse_token_width(meta["dtype"].get<std::string>(), meta_path);
  }
  for (const char* split : {"train", "val"}) {
    const std::string path = dir + "/" + split + ".bin";
    require(file_exists(path), "data folder " + dir + " has no " + split + ".bin");
    std::vector<int32_t> ids = read_token_file(path, vocab, width);
    require(static_cast<int64_t>(ids.size()) >= block_size + 1,
            path + ": " + std::to_string(ids.size()) +
                " tokens, need at least block_size+1 = " + std::to_string(block_size + 1));
    (std::string(split) == "train" ? ds.train : ds.val) = std::move(ids);
  }
  return ds;
}

}  // namespace

TokenDataset load_token_dataset(const std::string& path, const std::string& tokenizer,
                                int64_t block_size, double val_fraction) {
  if (std::filesystem::is_directory(path)) return load_prepared(path, tokenizer, block_size);
  const std::string text = load_corpus(path);
  TokenDataset ds;
  ds.tokenizer = tokenizer_for_corpus(tokenizer.empty() ? "char" : tokenizer, text);
  TokenSplit split = split_tokens(ds.tokenizer->encode(text), block_size, val_fraction);
  ds.train = std::move(split.train);
  ds.val = std::move(split.val);
  return ds;
}

}  // namespace tinylm
