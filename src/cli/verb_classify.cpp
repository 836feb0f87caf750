// tinylm classify --run RUN | --model HF_CLASSIFIER (--text "..." | --input FILE)
//                 [--format tsv|csv|jsonl]
//                 [--text-column NAME_OR_INDEX]
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "data/classification_dataset.h"
#include "data/labeled_texts.h"
#include "open/classify_run.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

// A text as the classifier reads it: a run's texts are cut and padded to the length it
// was trained at; a Hugging Face classifier reads the text as it is (cut to its context).
std::vector<int32_t> classifier_input(const OpenedModel& m, const std::string& text) {
  if (m.max_length > 0) return encode_padded(*m.tokenizer, text, m.max_length, m.pad_id);
  std::vector<int32_t> ids = m.tokenizer->encode(text);
  const GPTConfig& c = m.classifier->body().config();
  if (static_cast<int64_t>(ids.size()) > c.block_size) ids.resize(c.block_size);
  for (int32_t id : ids)
    require(id < c.vocab_size, m.title() + ": its tokenizer gives id " + std::to_string(id) +
                                   ", outside the model's vocabulary (" +
                                   std::to_string(c.vocab_size) + " tokens)");
  return ids;
}

// Every text read and encoded before any is classified: a bad one (empty, or ids outside
// the vocabulary) exits 2 before a line is printed, not after the texts before it.
std::vector<std::vector<int32_t>> checked_inputs(const OpenedModel& m,
                                                 const std::vector<std::string>& texts) {
  std::vector<std::vector<int32_t>> inputs;
  inputs.reserve(texts.size());
  for (const std::string& text : texts) {
    require(!text.empty(), "--text: an empty text");
    inputs.push_back(classifier_input(m, text));
  }
  return inputs;
}

// One line: the most probable label, its probability, the text on one line.
void print_prediction(const SequenceClassifier& model, const std::vector<float>& p,
                      const std::string& text) {
  size_t best = 0;
  for (size_t i = 1; i < p.size(); ++i)
    if (p[i] > p[best]) best = i;
  std::string shown = text;
  for (char& ch : shown)
    if (ch == '\n' || ch == '\t') ch = ' ';
  std::printf("%s\t%.4f\t%s\n", model.config().label(static_cast<int64_t>(best)).c_str(), p[best],
              shown.c_str());
}

}  // namespace

int run_classify(int argc, char** argv) {
  CLI::App app{
      "Classify texts with a classification fine-tuned run (tinylm finetune --task "
      "classify) or a Hugging Face GPT2ForSequenceClassification folder: prints, per "
      "text, the label and its probability, tab-separated (label, probability, text).",
      "tinylm classify"};
  ModelFlags source;
  std::string input;
  std::vector<std::string> texts;
  LabeledTextFormat format;
  add_model_flags(app, source);
  app.add_option("--text", texts, "a text to classify (repeatable)");
  app.add_option("--input", input,
                 "a file of texts: one per line, or TSV / CSV / JSONL (the text is the last "
                 "field of a line unless --text-column names it)");
  app.add_option("--format", format.format,
                 "format of --input: tsv, csv, jsonl (default: from the extension)");
  app.add_option("--text-column", format.text_column,
                 "the text column of --input (name or 0-based index)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(texts.empty() != input.empty(), "pass --text \"...\" or --input FILE (one of the two)");

  require(has_model(source), "pass --run RUN (a classify run) or --model HF_CLASSIFIER_DIR");
  OpenedModel loaded = open_model(source);
  SequenceClassifier& model = loaded.classifier_model("tinylm classify");
  if (!input.empty())
    for (const LabeledText& t : read_labeled_texts(input, format, false)) texts.push_back(t.text);
  const std::vector<std::vector<int32_t>> inputs = checked_inputs(loaded, texts);
  for (size_t i = 0; i < inputs.size(); ++i)
    print_prediction(model, label_probabilities(model, inputs[i]), texts[i]);
  return 0;
}

}  // namespace tinylm::cli
