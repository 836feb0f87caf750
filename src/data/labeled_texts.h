// Reading (label, text) pairs from a TSV, CSV or JSONL file (delimited_file.h), for
// classification.
//
// Columns are chosen by name or by 0-based index ("label", "2"). The defaults are the
// names "label" and "text" when the file has a header, else columns 0 (label) and 1
// (text), the layout of the SMS spam file (`ham<TAB>Go until jurong point...`).
//
// Header (TSV / CSV), header = "auto" (the default):
//   the first record is a header when it holds one of the column *names* asked for (the
//   defaults "label" and "text" count only when both are there; ignoring case and
//   spaces); otherwise the file has no header. A column given by name that the header
//   lacks, or in a file without a header, is an error. "yes" / "no" force it.
// JSONL: every line is an object; columns must be names (no header, no indices).
//
// Labels are trimmed of spaces; texts are kept as written. Every record must have a
// non-empty label and a text that is not blank; errors are InputError "FILE:LINE:
// problem" (missing label column, missing text column, empty label, empty text) or
// "FILE: no examples" for a file with no records.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm {

struct LabeledTextFormat {
  std::string format;           // "tsv", "csv", "jsonl" or "" (from the extension)
  std::string label_column;     // name or 0-based index; "" = default (see above)
  std::string text_column;      // name or 0-based index; "" = default
  std::string header = "auto";  // "auto", "yes", "no"
};

struct LabeledText {
  int64_t line = 0;   // where the record starts in the file
  std::string label;  // "" when labels were not asked for
  std::string text;
};

// need_labels = false reads only the text column (texts to classify, as
// `tinylm classify --input FILE`); the label column is then neither required nor read,
// and with default columns and no header the text is the last field of each line (a file
// of one text per line, or label<TAB>text).
std::vector<LabeledText> read_labeled_texts(const std::string& path,
                                            const LabeledTextFormat& format,
                                            bool need_labels = true);

}  // namespace tinylm
