// llama.cpp's logits of one GGUF file against another's on the same tokens
// (node logits.mjs REFERENCE.gguf FILE.gguf IDS): both files are evaluated on IDS
// (comma-separated) with the logits of every position kept; prints
//   "logits: P positions x V, max |diff| D, max |reference| R, argmax agrees A of P"
// where diff = FILE's logit - REFERENCE's, after "llama.cpp CPU variant: NAME". The ids
// go in batches of llama.mjs's kBatchSize. Uses llama.cpp's prebuilt CPU libraries
// (@node-llama-cpp/linux-x64, llama.mjs); never builds llama.cpp.
import { cpuVariant, kBatchSize, loadLlama } from "./llama.mjs";

const [referencePath, filePath, idsText] = process.argv.slice(2);
const ids = idsText.split(",").map(Number);
const llama = await loadLlama();

// logits [positions][vocabulary] of `path` on ids, as dense arrays indexed by token id
async function logitsOf(path) {
  const model = await llama.loadModel({ modelPath: path });
  const context = await model.createContext({ contextSize: model.trainContextSize,
                                              batchSize: kBatchSize });
  const sequence = context.getSequence();
  const input = ids.map((id) => [id, { generateNext: { logits: true } }]);
  const results = await sequence.controlledEvaluate(input);
  const rows = results.map((r) => {
    const row = new Float64Array(r.next.logits.size);
    for (const [token, logit] of r.next.logits) row[token] = logit;
    return row;
  });
  await context.dispose();
  await model.dispose();
  return rows;
}

const reference = await logitsOf(referencePath);
console.log(`llama.cpp CPU variant: ${cpuVariant()}`);
const file = await logitsOf(filePath);
let maxDiff = 0, maxReference = 0, agree = 0;
const argmax = (row) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);
for (let p = 0; p < reference.length; p++) {
  for (let t = 0; t < reference[p].length; t++) {
    maxDiff = Math.max(maxDiff, Math.abs(file[p][t] - reference[p][t]));
    maxReference = Math.max(maxReference, Math.abs(reference[p][t]));
  }
  if (argmax(file[p]) === argmax(reference[p])) agree++;
}
console.log(`logits: ${reference.length} positions x ${reference[0].length}, ` +
            `max |diff| ${maxDiff.toPrecision(4)}, max |reference| ${maxReference.toPrecision(4)}, ` +
            `argmax agrees ${agree} of ${reference.length}`);
