// llama.cpp reads a GGUF file tinylm exported (node check.mjs FILE CASES.jsonl PROMPT N):
//   tokenize  every case's text with the file's tokenizer; prints "tokenize: P passed,
//             F failed" and the first mismatches against the case's ids (tiktoken's)
//   greedy    PROMPT (comma-separated ids) then N tokens, argmax at every step; prints
//             "greedy: id,id,..."
//   cpu       prints "llama.cpp CPU variant: NAME", the ggml CPU library it loaded
// Exit 0 when every text tokenized as expected. Uses llama.cpp's prebuilt CPU libraries
// (@node-llama-cpp/linux-x64, llama.mjs); never builds llama.cpp.
import { readFileSync } from "node:fs";
import { cpuVariant, kBatchSize, loadLlama } from "./llama.mjs";

const [file, casesPath, promptText, countText] = process.argv.slice(2);
const llama = await loadLlama();
const model = await llama.loadModel({ modelPath: file });
console.log(`llama.cpp CPU variant: ${cpuVariant()}`);

let passed = 0, failed = 0;
for (const line of readFileSync(casesPath, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  const special = c.allowed_special !== undefined && c.allowed_special !== null;
  const got = Array.from(model.tokenize(c.text, special));
  if (JSON.stringify(got) === JSON.stringify(c.ids)) {
    passed++;
  } else {
    if (failed++ < 5) console.log(`mismatch ${JSON.stringify(c.text)}: ${got} vs ${c.ids}`);
  }
}
console.log(`tokenize: ${passed} passed, ${failed} failed`);

const prompt = promptText.split(",").map(Number);
const context = await model.createContext({ contextSize: model.trainContextSize,
                                            batchSize: kBatchSize });
const sequence = context.getSequence();
const out = [];
// yieldEogToken: go on past an end-of-generation token, as `tinylm generate` does
for await (const token of sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true })) {
  out.push(token);
  if (out.length >= Number(countText)) break;
}
console.log(`greedy: ${out.join(",")}`);
await context.dispose();
await model.dispose();
process.exit(failed === 0 ? 0 : 1);
