// Where a training run's batches come from: a tokenized corpus (random windows of the
// train split; evaluation on either split) or the generated addition task (training
// problems; evaluation on held-out problems that training never sees).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "data/addition.h"
#include "data/batch.h"
#include "data/sliding_windows.h"
#include "run/train_config.h"
#include "tokenizer/tokenizer.h"
#include "util/rng.h"

namespace tinylm {

class TrainingData {
 public:
  // Loads the corpus named by config.data (or sets up the task). If `tokenizer_json` is
  // not null (a resumed run), that tokenizer is used instead of building one, and the
  // corpus must give the same vocabulary. With train.init_from, `tokenizer_json` is the
  // base's tokenizer and encodes the corpus (a character it does not know, a prepared
  // folder made with another tokenizer, or a data.tokenizer other than the base's:
  // InputError).
  TrainingData(const TrainConfig& config, const nlohmann::json* tokenizer_json);

  // Batch number `index` of the run (step * grad_accum + micro-batch): random windows
  // drawn from rng, or (data.windows = sliding) that batch of the sliding-window loader.
  Batch train_batch(int64_t B, int64_t T, Rng& rng, int64_t index) const;
  // Optimizer steps in data.epochs epochs of sliding windows (0 when not set).
  int64_t steps_for_epochs(int64_t epochs, int64_t grad_accum) const;
  // split: "train" or "val".
  Batch eval_batch(const std::string& split, int64_t B, int64_t T, Rng& rng) const;

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  bool is_addition() const { return addition_; }
  // "bpc" for character-level text (loss / ln 2), else "ppl" (exp(loss)).
  std::string metric_name() const;
  double metric(double loss) const;
  int64_t train_tokens() const { return static_cast<int64_t>(train_.size()); }
  int64_t val_tokens() const { return static_cast<int64_t>(val_.size()); }
  // A fixed input for looking inside the model (the run report's attention maps): the
  // first held-out addition problem with its answer (12 ids), or the first max_tokens
  // ids of the validation split (of the training split when there is none).
  std::vector<int32_t> fixed_input(int64_t max_tokens) const;

 private:
  void use_base_tokenizer(const TrainConfig& config, const nlohmann::json& tokenizer_json);
  void make_windows(const TrainConfig& config);  // data.windows = sliding

  std::unique_ptr<Tokenizer> tokenizer_;
  std::vector<int32_t> train_, val_;
  bool addition_ = false;
  bool supervise_all_ = false;               // addition with data.loss_on = all
  std::unique_ptr<SlidingWindows> sliding_;  // data.windows = sliding
  std::vector<AdditionProblem> held_out_;    // addition: the problems evaluation draws from
};

}  // namespace tinylm
