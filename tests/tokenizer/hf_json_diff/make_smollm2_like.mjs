// Writes a tokenizer.json and tokenizer_config.json shaped as SmolLM2's
// (HuggingFaceTB/SmolLM2-*-Instruct) over GPT-2's vocabulary and merges, for the
// differential test (run.sh): no normalizer; the pre-tokenizer Sequence of Digits
// (individual_digits) and ByteLevel (use_regex); a ByteLevel post-processor and decoder;
// <|endoftext|>, <|im_start|> and <|im_end|> as special tokens. SmolLM2's own file is
// not on npm; its vocabulary (49,152 tokens) differs, its structure is this one.
//
//   node make_smollm2_like.mjs --gpt2 DIR --out DIR [--individual-digits true|false]
//
// --gpt2: a folder with OpenAI's encoder.json and vocab.bpe (the repository's data/gpt2).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const gpt2Dir = arg("--gpt2");
const outDir = arg("--out");
const individualDigits = arg("--individual-digits", "true") === "true";

const vocab = JSON.parse(readFileSync(`${gpt2Dir}/encoder.json`, "utf8"));
const merges = readFileSync(`${gpt2Dir}/vocab.bpe`, "utf8")
  .split("\n")
  .filter((line) => line && !line.startsWith("#version"));

const special = (id, content) => ({ id, content, single_word: false, lstrip: false,
  rstrip: false, normalized: false, special: true });
const added = [special(vocab["<|endoftext|>"], "<|endoftext|>")];
for (const content of ["<|im_start|>", "<|im_end|>"]) {
  vocab[content] = Object.keys(vocab).length;
  added.push(special(vocab[content], content));
}
const byteLevel = (add_prefix_space, trim_offsets) =>
  ({ type: "ByteLevel", add_prefix_space, trim_offsets, use_regex: true });

const tokenizer = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: added,
  normalizer: null,
  pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Digits", individual_digits: individualDigits }, byteLevel(false, true)] },
  post_processor: byteLevel(true, false),
  decoder: byteLevel(true, true),
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null,
    end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges },
};
const config = {
  add_prefix_space: false,
  additional_special_tokens: ["<|im_start|>", "<|im_end|>"],
  bos_token: "<|im_start|>",
  clean_up_tokenization_spaces: false,
  eos_token: "<|im_end|>",
  model_max_length: 8192,
  pad_token: "<|im_end|>",
  tokenizer_class: "GPT2Tokenizer",
  unk_token: "<|endoftext|>",
};
mkdirSync(outDir, { recursive: true });
writeFileSync(`${outDir}/tokenizer.json`, JSON.stringify(tokenizer));
writeFileSync(`${outDir}/tokenizer_config.json`, JSON.stringify(config, null, 2));
