// Classification data: TSV / CSV / JSONL reading, header detection, labels, balancing,
// the split, padding and truncation, batches, and the errors for bad files.
#include <gtest/gtest.h>

#include <set>

#include "data/classification_dataset.h"
#include "data/delimited_file.h"
#include "data/test_util.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"
#include "util/files.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::TempDir;

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tok;
  return tok;
}

std::string write(const TempDir& tmp, const std::string& name, const std::string& text) {
  const std::string path = tmp.file(name);
  write_file_atomic(path, text);
  return path;
}

TEST(DelimitedFile, CsvFollowsRfc4180Quoting) {
  const auto records = parse_csv(
      "label,text\r\nspam,\"Win, now\"\r\nham,\"say \"\"hi\"\"\nsoon\"\n\nham,plain \"q\"",
      "t.csv");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[1].fields, (std::vector<std::string>{"spam", "Win, now"}));
  EXPECT_EQ(records[2].fields, (std::vector<std::string>{"ham", "say \"hi\"\nsoon"}));
  EXPECT_EQ(records[2].line, 3);
  EXPECT_EQ(records[3].line, 6);  // the blank line 5 is skipped; the quoted newline counted
  EXPECT_EQ(records[3].fields[1], "plain \"q\"");
  EXPECT_NE(input_error([] { parse_csv("a,\"open\nb,c\n", "x.csv"); }).find("x.csv:1: quote"),
            std::string::npos);
  EXPECT_NE(input_error([] { parse_csv("a,\"b\"c\n", "x.csv"); }).find("after the closing"),
            std::string::npos);
}

TEST(LabeledTexts, TsvWithoutHeaderIsLabelThenTextAndKeepsQuotes) {
  const TempDir tmp;
  const auto path = write(tmp, "s.tsv", "ham\t\"Hi\" there\nspam\tWIN\r\n\nham\tok\n");
  const auto texts = read_labeled_texts(path, {});
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0].label, "ham");
  EXPECT_EQ(texts[0].text, "\"Hi\" there");
  EXPECT_EQ(texts[1].text, "WIN");
  EXPECT_EQ(texts[2].line, 4);
  // A first text that is the word "text" does not make a header.
  const auto word = write(tmp, "w.tsv", "ham\ttext\nspam\tx\n");
  EXPECT_EQ(read_labeled_texts(word, {}).size(), 2u);
}

TEST(LabeledTexts, HeaderIsDetectedAndColumnsChosenByNameOrIndex) {
  const TempDir tmp;
  const auto csv = write(tmp, "s.csv", "id,Text,Label\n1,hello,a\n2,\"x, y\",b\n");
  const auto by_default = read_labeled_texts(csv, {});  // header has label and text
  ASSERT_EQ(by_default.size(), 2u);
  EXPECT_EQ(by_default[1].label, "b");
  EXPECT_EQ(by_default[1].text, "x, y");

  LabeledTextFormat by_index;
  by_index.label_column = "0";
  by_index.text_column = "1";
  const auto ids = read_labeled_texts(csv, by_index);  // header still recognised, skipped
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0].label, "1");

  const auto other = write(tmp, "o.tsv", "category\tmessage\nx\tone\ny\ttwo\n");
  LabeledTextFormat named;
  named.label_column = "category";
  named.text_column = "message";
  EXPECT_EQ(read_labeled_texts(other, named).size(), 2u);
  LabeledTextFormat no_header = by_index;
  no_header.header = "no";
  EXPECT_EQ(read_labeled_texts(other, no_header).size(), 3u);  // the header is a record
  named.text_column = "body";
  EXPECT_NE(input_error([&] {
              read_labeled_texts(other, named);
            }).find("the header has no text column named 'body'"),
            std::string::npos);
}

TEST(LabeledTexts, ByteOrderMarkIsSkipped) {
  const TempDir tmp;
  const auto path = write(tmp, "bom.csv", "\xEF\xBB\xBFlabel,text\nham,hi\n");
  const auto texts = read_labeled_texts(path, {});
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0].label, "ham");
}

TEST(LabeledTexts, JsonlByNameWithNumericLabels) {
  const TempDir tmp;
  const auto path = write(tmp, "d.jsonl",
                          "{\"text\": \"a\", \"label\": 1}\n\n{\"text\": \"b\", "
                          "\"label\": 0, \"extra\": true}\n");
  const auto texts = read_labeled_texts(path, {});
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[0].label, "1");
  EXPECT_EQ(texts[1].line, 3);
  const auto bad =
      write(tmp, "b.jsonl", "{\"text\": \"a\", \"label\": \"x\"}\n{\"label\": \"y\"}\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(bad, {}); }),
            bad + ":2: missing text column 'text'");
}

TEST(LabeledTexts, TextsWithoutLabelsTakeTheLastField) {
  const TempDir tmp;
  const auto plain = write(tmp, "p.txt", "first text\nsecond\n");
  const auto texts = read_labeled_texts(plain, {}, /*need_labels=*/false);
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[1].text, "second");
  const auto two = write(tmp, "t.tsv", "ham\tone\n");
  EXPECT_EQ(read_labeled_texts(two, {}, false)[0].text, "one");
}

TEST(LabeledTexts, BadFilesNameFileLineAndProblem) {
  const TempDir tmp;
  const auto empty = write(tmp, "e.tsv", "");
  EXPECT_EQ(input_error([&] { read_labeled_texts(empty, {}); }),
            empty + ": no examples (the file is empty)");
  const auto header_only = write(tmp, "h.csv", "label,text\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(header_only, {}); }),
            header_only + ": no examples (only a header line)");
  const auto no_text = write(tmp, "n.tsv", "ham\thello\nspam\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(no_text, {}); }),
            no_text + ":2: missing text column (column 1, the line has 1)");
  const auto empty_text = write(tmp, "t.tsv", "ham\thello\nspam\t  \n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(empty_text, {}); }),
            empty_text + ":2: empty text");
  const auto empty_label = write(tmp, "l.tsv", "ham\thello\n\tworld\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(empty_label, {}); }),
            empty_label + ":2: empty label");
  const auto named = write(tmp, "m.tsv", "ham\thello\n");
  LabeledTextFormat f;
  f.label_column = "label";
  EXPECT_NE(input_error([&] { read_labeled_texts(named, f); }).find("no header line naming"),
            std::string::npos);
  const auto bad_utf8 = write(tmp, "u.tsv", "ham\tok\nspam\t\xff\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(bad_utf8, {}); }),
            bad_utf8 + ":2: invalid UTF-8 at byte 12");
  const auto unknown_ext = write(tmp, "x.dat", "ham\tok\n");
  EXPECT_NE(
      input_error([&] { read_labeled_texts(unknown_ext, {}); }).find("cannot tell the format"),
      std::string::npos);
}

// 12 "a" and 4 "b" texts of known character lengths.
std::string small_file() {
  std::string s;
  for (int i = 0; i < 16; ++i)
    s += std::string(i % 4 == 3 ? "b" : "a") + "\t" + std::string(1 + i % 5, 'x') + "\n";
  return s;
}

CharTokenizer x_tokenizer() {
  return CharTokenizer({U'x', U'.'});
}

// A folder given as the data file is said to be a folder, whatever its
// name and whether or not the format is named; a missing file is said to be missing.
TEST(LabeledTexts, AFolderIsRefusedAsAFolder) {
  const TempDir tmp;
  for (const std::string name : {"data", "data.tsv", "data.jsonl"}) {
    const std::string dir = tmp.file(name);
    std::filesystem::create_directories(dir);
    EXPECT_EQ(input_error([&] { read_labeled_texts(dir, {}); }), dir + " is a folder, not a file");
    LabeledTextFormat csv;
    csv.format = "csv";
    EXPECT_EQ(input_error([&] { read_labeled_texts(dir, csv, false); }),
              dir + " is a folder, not a file");
    ClassificationOptions o;
    o.pad_id = 1;
    EXPECT_EQ(input_error([&] { load_classification_data(dir, x_tokenizer(), o); }),
              dir + " is a folder, not a file");
  }
  const std::string missing = tmp.file("missing");
  EXPECT_EQ(input_error([&] { read_labeled_texts(missing, {}); }),
            "cannot open " + missing + ": No such file or directory");
}

// A JSONL line is read through the checked JSON reader.
TEST(LabeledTexts, JsonlLinesAreCheckedForDuplicateKeysAndDepth) {
  const TempDir tmp;
  const auto twice = write(tmp, "twice.jsonl",
                           "{\"text\": \"a\", \"label\": \"x\"}\n\n"
                           "{\"text\": \"b\", \"label\": \"x\", \"label\": \"y\"}\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(twice, {}); }),
            twice + ":3: duplicate key \"label\"");
  const auto deep =
      write(tmp, "deep.jsonl",
            "{\"text\": \"a\", \"label\": \"x\", \"y\": " + std::string(150'000, '[') +
                std::string(150'000, ']') + "}\n");
  EXPECT_EQ(input_error([&] { read_labeled_texts(deep, {}); }),
            deep + ":1: JSON nested deeper than 512 levels");
}

// A column index too large for any integer type is bad input, not a
// "stoll" failure.
TEST(LabeledTexts, ColumnIndexesAreRangeChecked) {
  const TempDir tmp;
  const auto path = write(tmp, "t.tsv", "ham\thello\n");
  LabeledTextFormat f;
  f.text_column = "99999999999999999999";
  EXPECT_EQ(input_error([&] { read_labeled_texts(path, f, false); }),
            "text column index must be in [0, 2147483647], got 99999999999999999999");
  f.text_column = "1";
  f.label_column = "2147483648";
  EXPECT_EQ(input_error([&] { read_labeled_texts(path, f); }),
            "label column index must be in [0, 2147483647], got 2147483648");
  f.label_column = "0";
  EXPECT_EQ(read_labeled_texts(path, f)[0].text, "hello");
}

TEST(ClassificationData, LabelsSortedSplitShuffledPaddedToLongestTrainingText) {
  const TempDir tmp;
  const auto path = write(tmp, "s.tsv", small_file());
  ClassificationOptions o;
  o.pad_id = 1;
  const auto data = load_classification_data(path, x_tokenizer(), o);
  EXPECT_EQ(data.labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(data.class_counts, (std::vector<int64_t>{12, 4}));
  EXPECT_EQ(data.train.size(), 11);  // floor(16 * 0.7)
  EXPECT_EQ(data.val.size(), 1);     // floor(16 * 0.1)
  EXPECT_EQ(data.test.size(), 4);
  int64_t longest_train = 0;
  for (int32_t len : data.train.lengths) longest_train = std::max<int64_t>(longest_train, len);
  EXPECT_EQ(data.max_length, longest_train);
  // Every example is its text's ids then pad ids, and the lines are a permutation.
  std::set<int64_t> lines;
  for (const ClassificationSet* set : {&data.train, &data.val, &data.test}) {
    EXPECT_EQ(set->T, data.max_length);
    for (int64_t i = 0; i < set->size(); ++i) {
      const int64_t line = set->lines[i];
      lines.insert(line);
      const int len = 1 + static_cast<int>((line - 1) % 5);
      EXPECT_EQ(set->labels[i], (line - 1) % 4 == 3 ? 1 : 0);
      EXPECT_EQ(set->lengths[i], std::min<int64_t>(len, set->T));
      for (int64_t t = 0; t < set->T; ++t)
        EXPECT_EQ(set->ids[i * set->T + t], t < set->lengths[i] ? 0 : 1);
    }
  }
  EXPECT_EQ(lines.size(), 16u);
  // Same seed: same split; another seed: another.
  const auto again = load_classification_data(path, x_tokenizer(), o);
  EXPECT_EQ(again.train.lines, data.train.lines);
  o.seed = 7;
  EXPECT_NE(load_classification_data(path, x_tokenizer(), o).train.lines, data.train.lines);
}

TEST(ClassificationData, BalancingGivenLabelsAndMaxLengthTruncation) {
  const TempDir tmp;
  const auto path = write(tmp, "s.tsv", small_file());
  ClassificationOptions o;
  o.pad_id = 1;
  o.balance = true;
  o.labels = {"b", "a"};
  o.max_length = 3;
  o.quiet = true;
  const auto data = load_classification_data(path, x_tokenizer(), o);
  EXPECT_EQ(data.labels, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(data.class_counts, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(data.train.size() + data.val.size() + data.test.size(), 8);
  EXPECT_EQ(data.train.size(), 5);  // floor(8 * 0.7)
  EXPECT_EQ(data.max_length, 3);
  EXPECT_EQ(data.longest, 5);
  // Lengths 1..5 cycle over lines: texts of 4 or 5 x's are cut to 3.
  int64_t expected_cut = 0, b_count = 0;
  for (const ClassificationSet* set : {&data.train, &data.val, &data.test})
    for (int64_t i = 0; i < set->size(); ++i) {
      expected_cut += (set->lines[i] - 1) % 5 >= 3;
      b_count += set->labels[i] == 0;
      EXPECT_EQ(set->labels[i] == 0, (set->lines[i] - 1) % 4 == 3);  // "b" has id 0 now
    }
  EXPECT_EQ(b_count, 4);
  EXPECT_GT(expected_cut, 0);
  EXPECT_EQ(data.train.truncated + data.val.truncated + data.test.truncated, expected_cut);
  EXPECT_NE(data.truncation_note().find(std::to_string(expected_cut) +
                                        " of 8 texts are longer than 3 tokens"),
            std::string::npos);

  // A context shorter than the longest training text caps T.
  o.max_length = 0;
  o.context_length = 2;
  const auto capped = load_classification_data(path, x_tokenizer(), o);
  EXPECT_EQ(capped.max_length, 2);
  EXPECT_EQ(capped.train.T, 2);

  o.labels = {"a"};
  EXPECT_NE(input_error([&] {
              load_classification_data(path, x_tokenizer(), o);
            }).find(path + ":4: unknown label 'b' (expected one of a)"),
            std::string::npos);
  o.labels = {"a", "b", "c"};
  EXPECT_NE(input_error([&] {
              load_classification_data(path, x_tokenizer(), o);
            }).find("cannot balance: label 'c' has no examples"),
            std::string::npos);
  o.labels = {"a", "b", "a"};
  EXPECT_NE(input_error([&] {
              load_classification_data(path, x_tokenizer(), o);
            }).find("'a' is given twice"),
            std::string::npos);
  const auto one_label = write(tmp, "one.tsv", "a\tx\na\txx\n");
  o.labels = {};
  EXPECT_NE(input_error([&] {
              load_classification_data(one_label, x_tokenizer(), o);
            }).find("at least two labels"),
            std::string::npos);
  o.pad_id = -1;  // a char tokenizer has no <|endoftext|>
  EXPECT_NE(input_error([&] { load_classification_data(path, x_tokenizer(), o); }).find("pad id"),
            std::string::npos);
}

TEST(ClassificationData, BatchesAndEpochOrder) {
  ClassificationSet set;
  set.T = 2;
  set.ids = {1, 2, 3, 4, 5, 6};
  set.labels = {0, 1, 0};
  const std::vector<int64_t> rows = {2, 0};
  const auto b = make_classification_batch(set, rows);
  EXPECT_EQ(b.B, 2);
  EXPECT_EQ(b.T, 2);
  EXPECT_EQ(b.ids, (std::vector<int32_t>{5, 6, 1, 2}));
  EXPECT_EQ(b.labels, (std::vector<int32_t>{0, 0}));

  Rng rng(1);
  const auto ordered = epoch_batches(10, 4, false, false, rng);
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[2], (std::vector<int64_t>{8, 9}));
  const auto shuffled = epoch_batches(10, 4, true, true, rng);
  ASSERT_EQ(shuffled.size(), 2u);
  std::set<int64_t> seen;
  for (const auto& batch : shuffled) seen.insert(batch.begin(), batch.end());
  EXPECT_EQ(seen.size(), 8u);
}

// The course's figures on the real SMS Spam Collection (data/sms-spam.tsv, a copy of
// the shared file): 4,827 ham and 747 spam; balanced 747 + 747; 1,045 / 149 / 300.
TEST(ClassificationData, SmsSpamAsTheCourse) {
  ClassificationOptions o;
  o.balance = true;
  o.quiet = true;
  const auto data = load_classification_data(testing::repo_path("data/sms-spam.tsv"), gpt2(), o);
  EXPECT_EQ(data.labels, (std::vector<std::string>{"ham", "spam"}));
  EXPECT_EQ(data.pad_id, 50256);
  EXPECT_EQ(data.class_counts, (std::vector<int64_t>{747, 747}));
  EXPECT_EQ(data.train.size(), 1045);
  EXPECT_EQ(data.val.size(), 149);
  EXPECT_EQ(data.test.size(), 300);
  EXPECT_EQ(data.train.truncated, 0);
  // The longest training text sets T (the course's subset gives 120; ours is another
  // random subset of the same file).
  EXPECT_EQ(data.max_length,
            *std::max_element(data.train.lengths.begin(), data.train.lengths.end()));
  EXPECT_GE(data.longest, data.max_length);

  o.balance = false;
  const auto all = load_classification_data(testing::repo_path("data/sms-spam.tsv"), gpt2(), o);
  EXPECT_EQ(all.class_counts, (std::vector<int64_t>{4827, 747}));
  EXPECT_EQ(all.train.size() + all.val.size() + all.test.size(), 5574);
}

}  // namespace
}  // namespace tinylm
