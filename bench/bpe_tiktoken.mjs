// GPT-2 BPE encoding speed of OpenAI's tiktoken (npm, WASM; single thread) on the same
// texts as bench/bpe_bench.cpp. Needs tests/tokenizer/tiktoken_diff/node_modules
// (npm ci there). Prints "RESULT <text> tiktoken <MB/s> <tokens>": median of R runs after
// one warm-up run.   node bench/bpe_tiktoken.mjs [--repeat R]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "tests/tokenizer/tiktoken_diff/package.json"));
const { get_encoding } = require("tiktoken");

const i = process.argv.indexOf("--repeat");
const repeat = i > 0 ? Number(process.argv[i + 1]) : 7;
const enc = get_encoding("gpt2");
for (const name of ["tinyshakespeare", "bangla"]) {
  const text = readFileSync(join(root, "data", name + ".txt"), "utf8");
  const mb = Buffer.byteLength(text, "utf8") / 1e6;
  let tokens = enc.encode_ordinary(text).length;  // warm-up
  const times = [];
  for (let r = 0; r < repeat; ++r) {
    const t0 = process.hrtime.bigint();
    tokens = enc.encode_ordinary(text).length;
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  console.log(`RESULT ${name} tiktoken ${(mb / times[times.length >> 1]).toFixed(2)} ${tokens}`);
}
enc.free();
