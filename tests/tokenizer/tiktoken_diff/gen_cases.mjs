// Writes random test texts with their GPT-2 ids from OpenAI's tiktoken (npm, WASM) as
// JSONL, one {"text", "ids", "allowed_special"?} per line, for `tinylm tokenize --check`.
//
//   node gen_cases.mjs [--count N] [--seed S]   random texts (default 10000, seed 1)
//   node gen_cases.mjs --sweep                  one probe text per Unicode code point
//
// Texts are built from fragments: ASCII words, whitespace runs, contractions (with
// upper-case variants, which GPT-2's case-sensitive pattern does not treat as
// contractions), digits, punctuation, Latin-1, Greek, Cyrillic, Bengali, CJK, emoji with
// ZWJ sequences, combining marks, random code points and <|endoftext|>. Deterministic
// for a given seed.
import { get_encoding } from "tiktoken";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const count = Number(arg("--count", "10000"));
let seed = Number(arg("--seed", "1")) >>> 0;

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

const words = ["the", "and", "Hello", "world", "GPT", "token", "izer", "someunknownPlace",
  "sunlit", "terraces", "ROMEO", "Juliet", "xyzzy", "a", "I", "supercalifragilistic", "tea",
  "don", "they", "we", "you", "it", "The", "ALL", "camelCase", "snake_case", "http", "www"];
const spaces = [" ", " ", " ", "  ", "   ", "    ", "\n", "\n\n", "\n\n\n", "\t", "\t\t",
  " \n", "\n ", "\r\n", " \t ", "\u00a0", "\u3000", "\u2003", "\u0085", "\u2028", "\u000b",
  "\f", "\u200b", "\u180e", " \u00a0 "];
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve",
  "'M", "'LL", "'D", "'", "''", "'x", "\u2019s"];
const puncts = chars(".,!?;:-()[]{}\"'`~@#$%^&*_+=<>/\\|").concat(["...", "--", "—", "–",
  "…", "«", "»", "¿", "¡", "->", "!=", "==", "//", "/*", "*/", "#!", "$$"]);
const latin1 = chars("éèêñüößÆæØøÅåçÇàáâãäÀÁÂÃÄ¿¡«»°½²³µ¶·×÷¼¾¬®©");
const greek = ["αβγ", "Ελληνικά", "λόγος", "Ωμέγα", "ψυχή"];
const cyrillic = ["Привет", "мир", "Москва", "ЁЖИК", "щука", "ъ"];
const bengali = ["বাংলা", "ভাষা", "রবীন্দ্রনাথ", "গল্পগুচ্ছ", "ক্ষ", "শ্রী", "র‌্যাব", "১২৩", "।", "০৯"];
const cjk = ["中文", "日本語", "漢字", "こんにちは", "カタカナ", "한국어", "你好，世界", "。", "、"];
const emoji = ["😀", "🙂", "👍🏽", "👩‍👩‍👧‍👦", "👨‍💻", "🏳️‍🌈", "🇺🇸", "🇯🇵", "1️⃣", "❤️", "✨", "🤖",
  "\u{1F9D1}\u{200D}\u{1F680}", "\u2764\ufe0f\u200d\u{1F525}"];
const combining = ["e\u0301", "a\u0308", "n\u0303", "\u0301", "\u0327c", "o\u0302\u0323",
  "\u093e", "\u0cbe", "Z\u0351\u0352\u0353"];
const digits = () => repeat(() => String(below(10)), 1, 8);
const unicodeDigits = ["٠١٢", "１２３", "Ⅻ", "½", "²", "߀", "໒"];

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
  () => repeat(() => pick(latin1), 1, 5), () => pick(greek), () => pick(cyrillic),
  () => pick(bengali), () => " " + pick(bengali), () => pick(cjk), () => pick(emoji),
  () => pick(combining), () => pick(unicodeDigits), () => randomCodePoint(),
  () => "<|endoftext|>", () => pick(["<|", "|>", "<|endoftext", "endoftext|>", "<|endof"]),
  () => repeat(() => pick([" ", "\n", "\t"]), 1, 6), () => range(0x20, 0x7e),
  () => repeat(() => range(0x0980, 0x09ff), 1, 6), () => repeat(() => range(0x4e00, 0x9fff), 1, 4),
];

function randomText() {
  const long = random() < 0.05;
  const n = long ? 50 + below(200) : 1 + below(24);
  let s = "";
  for (let i = 0; i < n; ++i) s += pick(fragments)();
  return s;
}

function probeText(cp) {  // exercises every class decision around one code point
  const c = String.fromCodePoint(cp);
  return `${c}'s${c}${c} ${c}a${c}1 ${c}\n${c}  ${c}.${c}`;
}

const enc = get_encoding("gpt2");
const out = [];
const flush = () => {
  process.stdout.write(out.join(""));
  out.length = 0;
};
const emit = (text) => {
  const special = text.includes("<|endoftext|>");
  const ids = special ? enc.encode(text, "all") : enc.encode_ordinary(text);
  const line = { text, ids: Array.from(ids) };
  if (special) line.allowed_special = ["<|endoftext|>"];
  out.push(JSON.stringify(line) + "\n");
  if (out.length >= 4096) flush();
};

if (args.includes("--sweep")) {
  for (let cp = 0; cp < 0x110000; ++cp) if (cp < 0xd800 || cp > 0xdfff) emit(probeText(cp));
} else {
  for (let i = 0; i < count; ++i) emit(randomText());
}
flush();
enc.free();
