// llama.cpp's generation speed on one GGUF file, batch 1, the peer of tinylm's
// generate_speed in bench/gguf.sh:
//   node llama_speed.mjs --model FILE.gguf [--prompt 64] [--new 128] [--threads 2]
//                        [--rounds 3] [--modules DIR]
// llama.cpp runs through npm node-llama-cpp, loaded from DIR (default: the cache that
// install.sh fills, ${TINYLM_BENCH_CACHE:-~/.cache/tinylm-bench}/llama-cpp), CPU only, on
// exactly --threads threads. Each round, on a cleared sequence (an empty KV cache):
//   prefill  the prompt (--prompt token ids drawn from a fixed seed, the same every
//            round) in one batch (unless the check below says otherwise), timed up to its
//            first greedy token;
//   decode   then --new more greedy tokens, one evaluation each, timed from the first
//            token to the last: --new single-token evaluations and their sampling.
// A warm-up round runs first and is not counted (it pages the weights in and lets
// llama.cpp size its buffers). The timing is of node-llama-cpp's token-level API
// (LlamaContextSequence.evaluate), so it is llama.cpp's work plus a thin JS step per
// token, no chat wrapper or detokenizing. Prints the build used, one line per round, and
//   llama.cpp FILE: prefill P tokens N tokens/s; decode N tokens/s (median of R)
// With --check-ids IDS --check-top "ID LP,ID LP,..." --check-tol T (tinylm's log-
// probabilities of its most likely tokens after IDS, `tinylm generate --logprobs`), it
// first checks its own: IDS evaluated in batches of --prompt tokens (as the timed prefill
// is), then, if they are off by more than T, in batches of 16. Timing uses the first batch
// size that passed and says so when it is not the default; none passing is an error.
// ggml's CPU variant (or the native build) and any error llama.cpp reports are printed.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

function fail(message) {
  console.error(`llama_speed.mjs: ${message}`);
  process.exit(2);
}

// --flag value pairs; every flag has a default except --model.
function parseArgs(argv) {
  const cacheRoot = process.env.TINYLM_BENCH_CACHE || path.join(homedir(), ".cache", "tinylm-bench");
  const args = { model: "", prompt: 64, new: 128, threads: 2, rounds: 3,
                 modules: path.join(cacheRoot, "llama-cpp"),
                 "check-ids": "", "check-top": "", "check-tol": 0.05 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in args) || i + 1 >= argv.length) fail(`unknown flag or missing value: ${argv[i]}`);
    args[key] = typeof args[key] === "number" ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.model) fail("--model FILE.gguf is required");
  if (!existsSync(args.model)) fail(`no file ${args.model}`);
  for (const key of ["prompt", "new", "threads", "rounds"]) {
    if (!Number.isInteger(args[key]) || args[key] < 1) fail(`--${key} must be a positive integer`);
  }
  if (!(args["check-tol"] > 0)) fail("--check-tol must be a positive number");
  if (!args["check-ids"] !== !args["check-top"]) fail("--check-ids and --check-top go together");
  return args;
}

// node-llama-cpp from the folder install.sh made (not from this clone: the native build
// lives in the cache, outside it).
async function importNodeLlamaCpp(dir) {
  let entry;
  try {
    entry = createRequire(path.resolve(dir, "package.json")).resolve("node-llama-cpp");
  } catch {
    fail(`node-llama-cpp is not installed in ${dir} (run bench/gguf/install.sh)`);
  }
  const packageDir = path.resolve(path.dirname(entry), "..");
  return { module: await import(pathToFileURL(entry).href), packageDir };
}

// Where the loaded binaries are: the local (native) build named by the package's
// llama/lastBuild.json, or the prebuilt package for this platform.
function buildLocation(llama, packageDir) {
  if (llama.buildType === "localBuild") {
    try {
      const last = JSON.parse(readFileSync(path.join(packageDir, "llama", "lastBuild.json"), "utf8"));
      return path.join(packageDir, "llama", "localBuilds", last.folderName);
    } catch {
      return path.join(packageDir, "llama", "localBuilds");
    }
  }
  return path.join(path.dirname(packageDir), "@node-llama-cpp", `${process.platform}-${process.arch}`);
}

// Fixed prompt ids: a 32-bit xorshift from a fixed seed, below the vocabulary size.
function promptIds(count, vocab) {
  let x = 20240601;
  const ids = [];
  for (let i = 0; i < count; ++i) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    ids.push((x >>> 0) % vocab);
  }
  return ids;
}

// The file's vocabulary: its tokenizer's token list, else the token embedding's rows.
function vocabularySize(info) {
  const tokens = info.metadata?.tokenizer?.ggml?.tokens;
  if (Array.isArray(tokens) && tokens.length > 0) return tokens.length;
  const embedding = info.fullTensorInfo?.find((t) => t.name === "token_embd.weight");
  if (embedding) return Number(embedding.dimensions[1]);
  fail("cannot tell the vocabulary size of the file");
}

// Which of ggml's CPU libraries this process loaded: a variant of the prebuilt package
// ("zen4", "sapphirerapids", ...) or the native build's one library.
function cpuVariant() {
  const maps = readFileSync("/proc/self/maps", "utf8");
  const m = maps.match(/\/([^/\s]*libggml-cpu[^/\s]*\.so)/);
  return m ? m[1] : "no libggml-cpu library mapped";
}

// llama.cpp's log-probabilities at the last of `ids`, evaluated in batches of `batch`,
// against tinylm's ("ID LP,ID LP,..."): the largest difference over tinylm's tokens.
async function checkDifference(model, ids, expected, batch) {
  const context = await model.createContext({ contextSize: Math.ceil((ids.length + 1) / 256) * 256,
                                              batchSize: batch, sequences: 1 });
  const input = ids.map((id, i) => [id, i === ids.length - 1 ? { generateNext: { logits: true } } : {}]);
  const results = await context.getSequence().controlledEvaluate(input);
  const logits = results.at(-1).next.logits;  // Map id -> logit
  await context.dispose();
  let max = -Infinity, sum = 0;
  for (const [, v] of logits) max = Math.max(max, v);
  for (const [, v] of logits) sum += Math.exp(v - max);
  const logSum = max + Math.log(sum);
  let worst = 0;
  for (const pair of expected.split(",")) {
    const [id, lp] = pair.trim().split(/\s+/).map(Number);
    worst = Math.max(worst, Math.abs((logits.get(id) ?? -Infinity) - logSum - lp));
  }
  return worst;
}

// The batch size to time with: --prompt when llama.cpp's logits pass the check there, else
// 16 (below the sizes ggml's AMX Q8_0 kernel gets wrong, docs/export.md).
async function checkedBatch(model, args) {
  if (!args["check-ids"]) return args.prompt;
  const ids = args["check-ids"].split(",").map(Number);
  const tries = [...new Set([args.prompt, Math.min(16, args.prompt)])];
  for (const batch of tries) {
    const diff = await checkDifference(model, ids, args["check-top"], batch);
    const ok = diff <= args["check-tol"];
    console.log(`llama.cpp check, batch ${batch}: max |logprob - tinylm's| over tinylm's top ` +
                `${args["check-top"].split(",").length} is ${diff.toPrecision(3)} ` +
                `(tolerance ${args["check-tol"]}): ${ok ? "agrees" : "WRONG"}`);
    if (ok) {
      if (batch !== args.prompt) console.log(`llama.cpp: timed with batch ${batch}, not ${args.prompt}: ` +
                                             `its batch-${args.prompt} logits were wrong`);
      return batch;
    }
  }
  fail(`llama.cpp's logits disagree with tinylm's at every batch size tried (${tries.join(", ")})`);
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// One round on a cleared sequence: seconds for the prefill (up to the first token) and
// for the `count` decode steps after it.
async function round(sequence, prompt, count) {
  await sequence.clearHistory();
  const t0 = performance.now();
  let t1 = 0, produced = 0;
  // temperature 0: greedy. yieldEogToken: an end-of-text token from random weights must
  // not end the run early.
  for await (const token of sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true })) {
    void token;
    if (++produced === 1) t1 = performance.now();
    if (produced === count + 1) break;
  }
  const t2 = performance.now();
  if (produced !== count + 1) throw new Error(`generation stopped after ${produced} tokens`);
  return { prefill: (t1 - t0) / 1000, decode: (t2 - t1) / 1000 };
}

// Anything that goes wrong is printed (stdout, which bench/gguf.sh shows) before exit 1.
process.on("unhandledRejection", (e) => { console.log(`llama_speed.mjs: ${e?.stack ?? e}`); process.exit(1); });
process.on("uncaughtException", (e) => { console.log(`llama_speed.mjs: ${e?.stack ?? e}`); process.exit(1); });

const args = parseArgs(process.argv.slice(2));
const { module: nlc, packageDir } = await importNodeLlamaCpp(args.modules);
// build "never": use what install.sh compiled (found before any prebuilt library), never
// compile here. maxThreads caps llama.cpp's pool at --threads. Its warnings and errors
// go to stdout with the rest.
const llama = await nlc.getLlama({ gpu: false, build: "never", maxThreads: args.threads,
                                   logLevel: "warn", progressLogs: false,
                                   logger: (level, message) => console.log(`llama.cpp ${level}: ${message.trim()}`) });
const kind = llama.buildType === "localBuild" ? "native (compiled here for this CPU)" : "prebuilt (generic x86-64)";
console.log(`llama.cpp build: ${kind}, release ${llama.llamaCppRelease.release}, at ${buildLocation(llama, packageDir)}`);
console.log(`llama.cpp system info: ${llama.systemInfo.trim()}`);  // the instruction sets it uses
if (llama.buildType !== "localBuild") {
  console.log("llama.cpp: warning: not the native build; run bench/gguf/install.sh for it");
}

const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 });
console.log(`llama.cpp CPU library: ${cpuVariant()}`);
const batchSize = await checkedBatch(model, args);
const vocab = vocabularySize(model.fileInfo);
// The whole run fits: the prompt, the first token and --new more (llama.cpp rounds the
// size up to a multiple of 256).
const contextSize = Math.ceil((args.prompt + args.new + 1) / 256) * 256;
const context = await model.createContext({
  contextSize, batchSize, sequences: 1,
  threads: { ideal: args.threads, min: args.threads },
});
const sequence = context.getSequence();
const prompt = promptIds(args.prompt, vocab);
const file = path.basename(args.model);
console.log(`llama.cpp ${file}: ${context.currentThreads || context.idealThreads} threads, context ${context.contextSize}, ` +
            `batch ${context.batchSize}, flash attention ${context.flashAttention}`);

await round(sequence, prompt, args.new);  // warm-up, not counted
const prefill = [], decode = [];
for (let r = 1; r <= args.rounds; ++r) {
  const t = await round(sequence, prompt, args.new);
  prefill.push(args.prompt / t.prefill);
  decode.push(args.new / t.decode);
  console.log(`round ${r}: prefill ${args.prompt} tokens ${prefill.at(-1).toFixed(1)} tokens/s ` +
              `(${(t.prefill * 1000).toFixed(1)} ms); decode ${args.new} tokens ` +
              `${decode.at(-1).toFixed(1)} tokens/s (${(t.decode * 1000 / args.new).toFixed(2)} ms/token)`);
}
console.log(`llama.cpp ${file}: prefill ${args.prompt} tokens ${median(prefill).toFixed(1)} tokens/s; ` +
            `decode ${median(decode).toFixed(1)} tokens/s (median of ${args.rounds})`);
await context.dispose();
await model.dispose();
await llama.dispose();
