// Hugging Face's tokenizers library reads a tokenizer.json that `tinylm export --format hf`
// wrote (node check.mjs TOKENIZER.json CASES.jsonl): every case's text is encoded with
// Tokenizer.fromFile (no special tokens added) and must give the case's ids, and the ids
// must decode back to the text. tokenizers, like transformers, always reads
// "<|endoftext|>" in a text as the special token, so a case that holds it as plain text
// (no "allowed_special") is skipped. Prints "tokenizers: P passed, F failed, S skipped"
// and the first mismatches; exit 0 when none failed.
import { readFileSync } from "node:fs";
import { Tokenizer } from "tokenizers";

const [file, casesPath] = process.argv.slice(2);
const tokenizer = Tokenizer.fromFile(file);
let passed = 0, failed = 0, skipped = 0;
for (const line of readFileSync(casesPath, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  const special = c.allowed_special !== undefined && c.allowed_special !== null;
  if (!special && c.text.includes("<|endoftext|>")) {
    skipped++;
    continue;
  }
  const ids = (await tokenizer.encode(c.text, null, { addSpecialTokens: false })).getIds();
  const text = await tokenizer.decode(ids, false);
  if (JSON.stringify(ids) === JSON.stringify(c.ids) && text === c.text) {
    passed++;
  } else if (failed++ < 5) {
    console.log(`mismatch ${JSON.stringify(c.text)}: ids ${ids} vs ${c.ids}, ` +
                `decoded ${JSON.stringify(text)}`);
  }
}
console.log(`tokenizers: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
