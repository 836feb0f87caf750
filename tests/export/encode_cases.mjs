// Tokenizer cases for another vocabulary (node encode_cases.mjs TINYLM CASES.jsonl EVERY
// TOKENIZE_ARGS...): every EVERY-th text of CASES (of those without special tokens; their
// ids are not read) encoded by `tinylm tokenize TOKENIZE_ARGS...` (e.g. --tokenizer bpe
// --vocab-dir DIR --ordinary), printed as {"text", "ids"} lines that the checks read. An
// exported vocabulary must tokenize them as tinylm. (One process per text: EVERY keeps
// the test short.)
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

const [tinylm, casesPath, everyText, ...tokenizeArgs] = process.argv.slice(2);
const every = Number(everyText);
const cases = readFileSync(casesPath, "utf8").split("\n").filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .filter((c) => c.allowed_special === undefined || c.allowed_special === null);
for (const [i, c] of cases.entries()) {
  if (i % every !== 0) continue;
  const run = spawnSync(tinylm, ["tokenize", ...tokenizeArgs], { input: c.text, encoding: "utf8" });
  if (run.status !== 0) {
    console.error(`tinylm tokenize failed on ${JSON.stringify(c.text)}: ${run.stderr}`);
    process.exit(1);
  }
  const ids = run.stdout.trim() === "" ? [] : run.stdout.trim().split(/\s+/).map(Number);
  console.log(JSON.stringify({ text: c.text, ids }));
}
