#include "train/training_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/addition.h"
#include "data/corpus.h"
#include "data/dataset.h"
#include "data/sampler.h"
#include "data/split.h"
#include "tokenizer/load.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace tinylm {

TrainingData::TrainingData(const TrainConfig& config, const nlohmann::json* tokenizer_json) {
  if (config.data.task == "addition") {
    addition_ = true;
    supervise_all_ = config.data.loss_on == "all";
    tokenizer_ = tokenizer_for_corpus("addition", "");
    held_out_ = held_out_problems(num_held_out_problems());
    return;
  }
  if (!config.train.init_from.empty()) {
    require(tokenizer_json != nullptr, "TrainingData: train.init_from needs the base's tokenizer");
    use_base_tokenizer(config, *tokenizer_json);
    return;
  }
  TokenDataset ds = load_token_dataset(config.data.path, config.data.tokenizer,
                                       config.model.block_size, config.data.val_fraction);
  if (tokenizer_json) {
    // Keep the saved vocabulary: ids must mean what they meant when the run started.
    tokenizer_ = tokenizer_from_json(*tokenizer_json);
    require(tokenizer_->to_json() == ds.tokenizer->to_json(),
            config.data.path +
                ": the corpus gives a different vocabulary than the run's "
                "checkpoint (were the corpus or the tokenizer files changed?)");
  } else {
    tokenizer_ = std::move(ds.tokenizer);
  }
  train_ = std::move(ds.train);
  val_ = std::move(ds.val);
  make_windows(config);
}

void TrainingData::use_base_tokenizer(const TrainConfig& config,
                                      const nlohmann::json& tokenizer_json) {
  tokenizer_ = tokenizer_from_json(tokenizer_json);
  const std::string base = "train.init_from (" + config.train.init_from + ")";
  require(config.data.tokenizer.empty() || config.data.tokenizer == tokenizer_->kind(),
          "data.tokenizer is '" + config.data.tokenizer + "' but " + base + " uses its own (" +
              tokenizer_->kind() + "); leave data.tokenizer out");
  if (std::filesystem::is_directory(config.data.path)) {  // prepared ids: the same vocabulary
    TokenDataset ds = load_token_dataset(config.data.path, "", config.model.block_size);
    require(ds.tokenizer->to_json() == tokenizer_->to_json(),
            config.data.path + " was prepared with the " + ds.tokenizer->kind() +
                " tokenizer, another vocabulary than " + base + "'s " + tokenizer_->kind() +
                " tokenizer");
    train_ = std::move(ds.train);
    val_ = std::move(ds.val);
  } else {
    const std::string text = load_corpus(config.data.path);
    std::vector<int32_t> ids;
    try {
      ids = tokenizer_->encode(text);
    } catch (const InputError& e) {
      throw InputError(config.data.path + ": " + base + "'s " + tokenizer_->kind() +
                       " tokenizer cannot encode it: " + e.what());
    }
    TokenSplit split = split_tokens(ids, config.model.block_size, config.data.val_fraction);
    train_ = std::move(split.train);
    val_ = std::move(split.val);
  }
  make_windows(config);
}

void TrainingData::make_windows(const TrainConfig& config) {
  if (config.data.windows == "sliding") {
    SlidingWindowOptions o;
    o.max_length = config.model.block_size;
    o.stride = config.data.stride > 0 ? config.data.stride : config.model.block_size;
    o.batch_size = config.train.batch_size;
    o.shuffle = config.data.shuffle;
    o.drop_last = config.data.drop_last;
    o.batches_per_step = config.train.grad_accum;  // the micro-batches of all ranks
    o.seed = config.train.seed;
    sliding_ = std::make_unique<SlidingWindows>(train_, o);
  }
}

int64_t TrainingData::steps_for_epochs(int64_t epochs, int64_t grad_accum) const {
  if (!sliding_ || epochs <= 0) return 0;
  const int64_t batches =
      checked_mul(epochs, sliding_->batches_per_epoch(), "data.epochs x batches per epoch");
  return batches / grad_accum + (batches % grad_accum != 0);
}

Batch TrainingData::train_batch(int64_t B, int64_t T, Rng& rng, int64_t index) const {
  if (addition_) return addition_training_batch(B, rng, supervise_all_);
  if (sliding_) return sliding_->batch(index);
  return sample_batch(train_, B, T, rng);
}

Batch TrainingData::eval_batch(const std::string& split, int64_t B, int64_t T, Rng& rng) const {
  if (addition_) {
    if (split == "train") return addition_training_batch(B, rng, supervise_all_);
    // B held-out problems at a random place in the fixed held-out list.
    std::vector<AdditionProblem> pick;
    for (int64_t i = 0; i < B; ++i) pick.push_back(held_out_[rng.below(held_out_.size())]);
    return addition_batch(pick, supervise_all_);
  }
  return sample_batch(split == "train" ? train_ : val_, B, T, rng);
}

std::vector<int32_t> TrainingData::fixed_input(int64_t max_tokens) const {
  if (addition_) {
    std::vector<int32_t> seq = addition_sequence(held_out_.front());
    seq.resize(kAdditionBlockSize);  // the inputs: "aaa+bbb=" and the 4 answer digits
    return seq;
  }
  const std::vector<int32_t>& from = val_.empty() ? train_ : val_;
  const auto n =
      std::min<size_t>(from.size(), static_cast<size_t>(std::max<int64_t>(max_tokens, 1)));
  return {from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n)};
}

std::string TrainingData::metric_name() const {
  return tokenizer_->kind() == "char" ? "bpc" : "ppl";
}

double TrainingData::metric(double loss) const {
  return tokenizer_->kind() == "char" ? loss / std::log(2.0) : std::exp(loss);
}

}  // namespace tinylm
