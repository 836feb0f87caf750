// Classification data: labels, balancing, split, encoding and batches; see
// classification_dataset.h.
#include "data/classification_dataset.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "util/error.h"

namespace tinylm {

namespace {

// Fisher-Yates with tinylm's Rng: the same permutation for the same seed everywhere.
void shuffle(std::vector<int64_t>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Label name -> id, from the given list or the sorted distinct labels of the file.
std::vector<int32_t> label_ids(const std::vector<LabeledText>& texts,
                               std::vector<std::string>& names, const std::string& path) {
  if (names.empty()) {
    for (const auto& t : texts) names.push_back(t.label);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  std::map<std::string, int32_t> id_of;
  for (size_t i = 0; i < names.size(); ++i) {
    require(!names[i].empty(), "labels: empty label name");
    require(id_of.emplace(names[i], static_cast<int32_t>(i)).second,
            "labels: '" + names[i] + "' is given twice");
  }
  std::vector<int32_t> ids;
  ids.reserve(texts.size());
  for (const auto& t : texts) {
    const auto it = id_of.find(t.label);
    require(it != id_of.end(), path + ":" + std::to_string(t.line) + ": unknown label '" + t.label +
                                   "' (expected one of " + joined(names) + ")");
    ids.push_back(it->second);
  }
  require(names.size() >= 2, path + ": a classifier needs at least two labels (found " +
                                 std::to_string(names.size()) + ": " + joined(names) + ")");
  return ids;
}

// Undersamples every class to the size of the smallest: indices kept, in file order.
std::vector<int64_t> balanced(const std::vector<int32_t>& ids,
                              const std::vector<std::string>& names, const std::string& path,
                              Rng& rng) {
  std::vector<std::vector<int64_t>> by_class(names.size());
  for (size_t i = 0; i < ids.size(); ++i) by_class[ids[i]].push_back(static_cast<int64_t>(i));
  size_t smallest = ids.size();
  for (size_t c = 0; c < by_class.size(); ++c) {
    require(!by_class[c].empty(),
            path + ": cannot balance: label '" + names[c] + "' has no examples");
    smallest = std::min(smallest, by_class[c].size());
  }
  std::vector<int64_t> kept;
  for (auto& c : by_class) {
    if (c.size() > smallest) {
      shuffle(c, rng);
      c.resize(smallest);
    }
    kept.insert(kept.end(), c.begin(), c.end());
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace

std::vector<int32_t> encode_padded(const Tokenizer& tokenizer, const std::string& text, int64_t T,
                                   int32_t pad_id, int32_t* length, bool* truncated) {
  std::vector<int32_t> ids = tokenizer.encode(text);
  const bool cut = static_cast<int64_t>(ids.size()) > T;
  if (cut) ids.resize(T);
  if (length) *length = static_cast<int32_t>(ids.size());
  if (truncated) *truncated = cut;
  ids.resize(T, pad_id);
  return ids;
}

ClassificationData load_classification_data(const std::string& path, const Tokenizer& tokenizer,
                                            const ClassificationOptions& o) {
  require(o.train_fraction > 0 && o.train_fraction <= 1 && o.val_fraction >= 0 &&
              o.train_fraction + o.val_fraction <= 1,
          "split fractions: train must be in (0, 1], val in [0, 1), train + val <= 1 (got " +
              std::to_string(o.train_fraction) + " and " + std::to_string(o.val_fraction) + ")");
  require(o.max_length >= 0, "max_length must be >= 0 (0 = the longest training text)");
  require(o.context_length >= 0, "context_length must be >= 0 (0 = no limit)");
  ClassificationData data;
  data.pad_id = o.pad_id >= 0 ? o.pad_id : tokenizer.eot_id();
  require(data.pad_id >= 0 && data.pad_id < tokenizer.vocab_size(),
          "pad id: the tokenizer has no <|endoftext|> and no valid pad id was given");

  const std::vector<LabeledText> texts = read_labeled_texts(path, o.format);
  data.labels = o.labels;
  const std::vector<int32_t> ids = label_ids(texts, data.labels, path);

  Rng rng(o.seed);
  std::vector<int64_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0);
  if (o.balance) order = balanced(ids, data.labels, path, rng);
  data.class_counts.assign(data.labels.size(), 0);
  for (int64_t i : order) ++data.class_counts[ids[i]];
  shuffle(order, rng);

  const auto n = static_cast<int64_t>(order.size());
  const auto n_train = static_cast<int64_t>(static_cast<double>(n) * o.train_fraction);
  const auto n_val = static_cast<int64_t>(static_cast<double>(n) * o.val_fraction);
  require(n_train > 0, path + ": the training split is empty (" + std::to_string(n) + " examples)");

  // Encode everything first: T may be the longest training text.
  std::vector<std::vector<int32_t>> encoded(order.size());
  for (int64_t k = 0; k < n; ++k) encoded[k] = tokenizer.encode(texts[order[k]].text);
  int64_t longest_train = 0;
  for (int64_t k = 0; k < n; ++k) {
    const auto len = static_cast<int64_t>(encoded[k].size());
    data.longest = std::max(data.longest, len);
    if (k < n_train) longest_train = std::max(longest_train, len);
  }
  data.max_length = o.max_length > 0 ? o.max_length : longest_train;
  if (o.context_length > 0) data.max_length = std::min(data.max_length, o.context_length);

  const auto fill = [&](ClassificationSet& set, int64_t begin, int64_t end) {
    set.T = data.max_length;
    for (int64_t k = begin; k < end; ++k) {
      std::vector<int32_t>& e = encoded[k];
      if (static_cast<int64_t>(e.size()) > set.T) {
        e.resize(set.T);
        ++set.truncated;
      }
      set.lengths.push_back(static_cast<int32_t>(e.size()));
      e.resize(set.T, data.pad_id);
      set.ids.insert(set.ids.end(), e.begin(), e.end());
      set.labels.push_back(ids[order[k]]);
      set.lines.push_back(texts[order[k]].line);
    }
  };
  fill(data.train, 0, n_train);
  fill(data.val, n_train, n_train + n_val);
  fill(data.test, n_train + n_val, n);
  if (!o.quiet) {
    const std::string note = data.truncation_note();
    if (!note.empty()) std::fprintf(stderr, "note: %s: %s\n", path.c_str(), note.c_str());
  }
  return data;
}

std::string ClassificationData::truncation_note() const {
  const int64_t cut = train.truncated + val.truncated + test.truncated;
  if (cut == 0) return "";
  const int64_t total = train.size() + val.size() + test.size();
  const std::string T = std::to_string(max_length);
  return std::to_string(cut) + " of " + std::to_string(total) + " texts are longer than " + T +
         " tokens and were cut to " + T + " (train " + std::to_string(train.truncated) + ", val " +
         std::to_string(val.truncated) + ", test " + std::to_string(test.truncated) + ")";
}

ClassificationBatch make_classification_batch(const ClassificationSet& set,
                                              std::span<const int64_t> indices) {
  ClassificationBatch b;
  b.B = static_cast<int64_t>(indices.size());
  b.T = set.T;
  b.ids.reserve(b.B * b.T);
  for (int64_t i : indices) {
    if (i < 0 || i >= set.size())
      throw std::out_of_range("classification batch: example " + std::to_string(i) +
                              " outside the split");
    b.ids.insert(b.ids.end(), set.ids.begin() + i * set.T, set.ids.begin() + (i + 1) * set.T);
    b.labels.push_back(set.labels[i]);
  }
  return b;
}

std::vector<std::vector<int64_t>> epoch_batches(int64_t n, int64_t batch_size, bool shuffle_order,
                                                bool drop_last, Rng& rng) {
  require(batch_size > 0, "batch size must be > 0");
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (shuffle_order) shuffle(order, rng);
  std::vector<std::vector<int64_t>> batches;
  for (int64_t start = 0; start < n; start += batch_size) {
    const int64_t end = std::min(n, start + batch_size);
    if (drop_last && end - start < batch_size) break;
    batches.emplace_back(order.begin() + start, order.begin() + end);
  }
  return batches;
}

}  // namespace tinylm
