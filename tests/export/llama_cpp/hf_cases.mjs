// Tokenizer cases for a GGUF file exported with a tokenizer.json tokenizer (node
// hf_cases.mjs TOKENIZER.json CASES.jsonl): the {"text", "ids"} lines of
// tests/tokenizer/hf_json_diff/gen_cases.mjs (transformers.js's ids, which tinylm's equal)
// as check.mjs reads them. transformers.js finds added tokens in any text; llama.cpp does
// when asked to parse special tokens, so a text holding an added token's content is
// marked "allowed_special" (check.mjs then asks). Left out, as llama.cpp differs from
// transformers by its own rules, with any GGUF file:
//  - texts that NFC changes, for a tokenizer with an NFC normalizer (Qwen's): llama.cpp
//    applies no normalizer;
//  - texts with U+FEFF or U+0085, which JavaScript's \s (in transformers.js's regexes)
//    and Unicode's White_Space (llama.cpp's, and Hugging Face's Rust library's) disagree
//    on;
//  - texts with a digit other than ASCII 0-9, for a tokenizer with a Digits step
//    (SmolLM2's): llama.cpp's smollm cuts every \p{N} apart, transformers.js 0-9 only;
//  - texts to be parsed for special tokens that hold one of the names llama.cpp promotes
//    to control tokens when it loads a vocabulary ("</s>", "<eos>", ...: llama-vocab.cpp's
//    end-of-generation and fill-in-the-middle names), where they are plain tokens here.
import { readFileSync } from "node:fs";

const [tokenizerPath, casesPath] = process.argv.slice(2);
const tokenizer = JSON.parse(readFileSync(tokenizerPath, "utf8"));
const added = tokenizer.added_tokens.map((t) => t.content);
const nfc = tokenizer.normalizer?.type === "NFC";
const digits = JSON.stringify(tokenizer.pre_tokenizer ?? null).includes('"Digits"');
const promoted = ["</s>", "<eos>", "<end>", "<EOT>", "[EOT]", "[EOS]", "<PAD>", "[PAD]", "<PRE>",
  "<SUF>", "<MID>", "<REPO>", "<turn>", "<call>", "<calls>", "<flush>", "<return>",
  "<prefix>", "<suffix>", "<middle>", "<reponame>", "<repo_name>", "<file_sep>",
  "<tool_response>"].filter((name) => !added.includes(name));
let dropped = 0;
for (const line of readFileSync(casesPath, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const { text, ids } = JSON.parse(line);
  const special = added.some((content) => text.includes(content));
  if ((nfc && text.normalize("NFC") !== text) || /[\ufeff\u0085]/u.test(text) ||
      (digits && /[^\P{N}0-9]/u.test(text)) ||
      (special && promoted.some((name) => text.includes(name)))) {
    dropped++;
    continue;
  }
  console.log(JSON.stringify(special ? { text, ids, allowed_special: "all" } : { text, ids }));
}
console.error(`hf_cases: ${dropped} texts left out (NFC, U+FEFF or U+0085, other digits, names llama.cpp promotes)`);
