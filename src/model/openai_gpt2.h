// OpenAI's original GPT-2 release, as its download script and the book's gpt_download.py
// lay it out in a folder:
//   hparams.json                      {"n_vocab", "n_ctx", "n_embd", "n_head", "n_layer"}
//   checkpoint                        model_checkpoint_path: "model.ckpt"
//   model.ckpt.index, model.ckpt.data-00000-of-00001   a TensorFlow checkpoint
//                                     (io/tf_bundle.h); model.ckpt.meta is not read
//   encoder.json, vocab.bpe           the GPT-2 BPE vocabulary (tokenizer/)
// The variables, mapped to tinylm's parameters (the same model as Hugging Face's GPT-2):
//   model/wte [V, C], model/wpe [T, C]                 -> wte.weight, wpe.weight
//   model/h<i>/ln_1/{g,b}, model/h<i>/ln_2/{g,b}       -> h.<i>.ln_1.{weight,bias} ...
//   model/h<i>/attn/c_attn/{w,b}, .../attn/c_proj/{w,b},
//   model/h<i>/mlp/c_fc/{w,b}, .../mlp/c_proj/{w,b}    -> h.<i>.attn.c_attn.{weight,bias} ...
//   model/ln_f/{g,b}                                   -> ln_f.{weight,bias}
// A `w` is TensorFlow's 1x1 convolution kernel [1, in, out]: Hugging Face's Conv1D layout
// with a leading 1, transposed to tinylm's [out, in]. The head is tied to wte; the block
// is GPT-2's (pre-LN, tanh GELU, epsilon 1e-5, every bias, learned positions), the dropout
// Hugging Face's gpt2 config gives (0.1).
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/gpt.h"

namespace tinylm {

// Is `dir` such a folder (hparams.json and a checkpoint index)?
bool is_openai_gpt2_dir(const std::string& dir);

// The checkpoint prefix in dir: the `checkpoint` file's model_checkpoint_path, else
// "model.ckpt".
std::string openai_checkpoint_prefix(const std::string& dir);

// hparams.json -> GPTConfig; InputError naming the field.
GPTConfig config_from_openai_hparams(const nlohmann::json& hparams);

// The checkpoint variable of a tinylm parameter ("h.3.attn.c_attn.weight" ->
// "model/h3/attn/c_attn/w"); InputError for a parameter GPT-2 does not have.
std::string openai_variable_name(const std::string& param);

// Loads the model of such a folder; every variable is checked (shape, checksum).
std::unique_ptr<GPT> load_openai_gpt2(const std::string& dir);

}  // namespace tinylm
