// `tinylm verify DIR` for an instruction fixture (reference.json "task": "instruct", as
// ../shared/fixtures/gpt2-instruct): DIR holds config.json + model.safetensors (a
// Hugging Face GPT-2), entries.json (instruction entries), reference.json and
// reference.safetensors with, per case C in reference.json's "cases":
//   C.input_ids, C.targets  [B, T] int64, the course's collate of the entries
//   C.grad.<HF name>        d loss / d parameter for some parameters (optional)
// and in reference.json cases.C: mask_prompt, loss (mean cross-entropy over targets that
// are not ignore_index), counted_targets (optional); at the top: pad_and_end_token,
// ignore_index, allowed_max_length (0 = no cut).
//
// For every case, the ids are rebuilt from entries.json with tinylm's GPT-2 tokenizer
// (data/instruction_data.h) and collate (data/instruction_collate.h), then:
//   C.ids      input_ids identical              C.targets  targets identical (the
//              reference's ignore_index read as -100) and counted_targets equal
//   C.loss     our forward on our batch, relative error <= 1e-5
//   C.grad     every given gradient, worst relative error <= 1e-4
// Missing files, tensors or fields, and fields of the wrong type, are InputError
// naming the file and the field.
#pragma once
#include <string>
#include <vector>

#include "verify/verify_lm.h"

namespace tinylm {

std::vector<CheckResult> verify_instruct(const std::string& dir);

}  // namespace tinylm
