// tinylm classify --run RUN (--text "..." | --input FILE) [--format tsv|csv|jsonl]
//                 [--text-column NAME_OR_INDEX]
#include <cstdio>

#include "cli/cli_util.h"
#include "data/classification_dataset.h"
#include "data/labeled_texts.h"
#include "finetune/classify_run.h"
#include "util/error.h"

namespace tinylm::cli {

int run_classify(int argc, char** argv) {
  CLI::App app{
      "Classify texts with a classification fine-tuned run (tinylm finetune --task "
      "classify): prints, per text, the label and its probability, tab-separated "
      "(label, probability, text).",
      "tinylm classify"};
  std::string run, input;
  std::vector<std::string> texts;
  LabeledTextFormat format;
  app.add_option("--run", run, "a classify run folder")->required();
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

  finetune::ClassifyRun loaded = finetune::load_classify_run(run, "tinylm classify");
  if (!input.empty())
    for (const LabeledText& t : read_labeled_texts(input, format, false)) texts.push_back(t.text);
  for (const std::string& text : texts) {
    require(!text.empty(), "--text: an empty text");
    const std::vector<int32_t> ids =
        encode_padded(*loaded.tokenizer, text, loaded.max_length, loaded.pad_id);
    const std::vector<float> p = finetune::label_probabilities(*loaded.model, ids);
    size_t best = 0;
    for (size_t i = 1; i < p.size(); ++i)
      if (p[i] > p[best]) best = i;
    std::string shown = text;
    for (char& ch : shown)
      if (ch == '\n' || ch == '\t') ch = ' ';
    std::printf("%s\t%.4f\t%s\n", loaded.model->config().label(static_cast<int64_t>(best)).c_str(),
                p[best], shown.c_str());
  }
  return 0;
}

}  // namespace tinylm::cli
