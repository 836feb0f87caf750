// llama.cpp as the checks here load it: node-llama-cpp's prebuilt CPU libraries, never
// built here, and the batch size its contexts use.
import { readFileSync } from "node:fs";
import { getLlama } from "node-llama-cpp";

// Prompts go to llama.cpp in batches of at most this many tokens. On a host with AMX
// (Intel Xeon, Sapphire Rapids and later) ggml loads its "sapphirerapids" CPU variant,
// which repacks Q8_0 and F16 weights for AMX; its Q8_0 product is wrong for batches of
// 32-33 rows (logits off by their own size; 1-31 rows agree with the other variants, see
// docs/export.md). Every batch here stays below that.
export const kBatchSize = 16;

export async function loadLlama() {
  return getLlama({ gpu: false, build: "never", logLevel: "error" });
}

// Which of ggml's CPU variants this process loaded ("zen4", "sapphirerapids", ...): the
// libggml-cpu-*.so mapped into it. Call after a model is loaded.
export function cpuVariant() {
  const maps = readFileSync("/proc/self/maps", "utf8");
  const m = maps.match(/libggml-cpu(?:-([\w.]+?))?\.so/);
  return m ? (m[1] ?? "libggml-cpu.so (one variant)") : "none found in /proc/self/maps";
}
