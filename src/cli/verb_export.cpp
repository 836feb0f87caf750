// tinylm export --model SRC --format gguf|hf [--dtype f32|f16|bf16|q8_0] [--merge] --out
// PATH: a model as a GGUF file that llama.cpp runs (export/gguf_export.h says what is
// written), or as a Hugging Face folder (export/hf_export.h).
#include <cstdio>
#include <filesystem>

#include "cli/cli_util.h"
#include "export/gguf_export.h"
#include "export/hf_export.h"
#include "export/model_folder.h"
#include "io/gguf.h"
#include "open/model_source.h"
#include "open/open_model.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

namespace {

int export_hf_folder(OpenedModel& opened, const std::string& out, bool merge) {
  const HfExportSummary s = export_hf(opened, out, merge);
  std::printf("wrote %s: %s as %s%s%s\n", out.c_str(), opened.title().c_str(),
              s.architecture.c_str(), s.merged_lora ? ", LoRA adapters merged" : "",
              s.tokenizer_files ? ", with its tokenizer files"
                                : "; no tokenizer files (only BPE vocabularies have them)");
  return 0;
}

// "runs/shakespeare/" and "runs/shakespeare/best.safetensors" -> "shakespeare":
// general.name by default.
std::string name_of(const std::string& source) {
  std::filesystem::path p = std::filesystem::path(source).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();                  // "runs/add/"
  if (p.extension() == ".safetensors" && p.has_parent_path())  // a run's checkpoint file
    p = p.parent_path();
  return p.filename().string();
}

// --checkpoint best|last: that checkpoint file of a train run ("": the source as given,
// which opens a run at its best checkpoint when it has one, as every verb does). A
// fine-tuning run keeps its last checkpoint only.
std::string checkpoint_file(const std::string& source, const std::string& which) {
  if (which.empty()) return source;
  const ModelSourceInfo info = identify_model_source(source, "--model");
  if (which == "last" && info.kind == ModelSourceKind::FinetuneRun) return source;
  require(info.kind == ModelSourceKind::TrainRun,
          "--checkpoint " + which + ": " + source + " is " + describe(info) +
              "; only a tinylm train run keeps best and last checkpoints");
  const std::string file = info.path + "/" + which + ".safetensors";
  require(file_exists(file),
          "--checkpoint " + which + ": " + source + " has no " + which + ".safetensors yet");
  return file;
}

// A GGUF file's --out: a new entry of a folder (not "", ".", "..", "DIR/." and not ending
// in '/'), where nothing is yet (tinylm does not overwrite). InputError otherwise.
std::string gguf_output_path(const std::string& out) {
  require(out.empty() || out.back() != '/',
          "--out: " + out + " names a folder; --format gguf writes a file");
  const std::string last = std::filesystem::path(out).filename().string();
  require(!last.empty() && last != "." && last != "..",
          "--out: '" + out + "' names no new file or folder");
  require(!std::filesystem::exists(std::filesystem::symlink_status(out)),
          "--out: " + out + " exists; tinylm export does not overwrite a file");
  return out;
}

}  // namespace

int run_export(int argc, char** argv) {
  CLI::App app{
      "Write a model in a format other programs run: GGUF (llama.cpp, ollama, "
      "LM Studio). Matrices take --dtype; norms, biases and positions stay f32.",
      "tinylm export"};
  std::string source, format, dtype = "f32", out, name, vocab_dir = default_gpt2_dir();
  app.add_option("--model,--run", source,
                 "a run folder, a checkpoint, an instruct run (its adapters merged), a Hugging "
                 "Face folder (GPT-2, Llama, Qwen2, Qwen3) or a preset")
      ->required();
  app.add_option("--format", format,
                 "gguf (llama.cpp, ollama, LM Studio) or hf (a folder transformers loads)")
      ->required()
      ->check(CLI::IsMember({"gguf", "hf"}));
  std::string checkpoint;
  app.add_option("--checkpoint", checkpoint,
                 "best (lowest val loss) or last checkpoint of a tinylm train run (default: "
                 "best when the run has one, as sample and generate open it)")
      ->check(CLI::IsMember({"best", "last"}));
  bool merge = false;
  app.add_flag("--merge", merge,
               "hf: fold an instruct run's LoRA adapters into the weights (without it, the "
               "adapters are written as a PEFT adapter folder)");
  app.add_option("--dtype", dtype, "f32, f16, bf16 or q8_0 (blocks of 32 with a half scale)")
      ->capture_default_str();
  app.add_option("--out", out,
                 "the file (gguf: must not exist) or folder (hf: must not exist, or be empty) to "
                 "write")
      ->required();
  app.add_option("--name", name, "general.name in the file (default: the source's name)");
  app.add_option("--vocab-dir", vocab_dir,
                 "encoder.json + vocab.bpe for Hugging Face folders and presets")
      ->capture_default_str();
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  const GgmlType type = parse_ggml_type(dtype);
  require(format == "gguf" || type == GgmlType::kF32,
          "--dtype: the hf format writes float32 weights (as save_pretrained does)");
  // A folder by the rule of every model folder (export/model_folder.h), a file by GGUF's.
  out = format == "hf" ? checked_model_folder(out) : gguf_output_path(out);
  if (name.empty()) name = name_of(source);
  OpenOptions open;
  open.gpt2_vocab_dir = vocab_dir;
  OpenedModel opened = open_model(checkpoint_file(source, checkpoint), open);
  if (format == "hf") return export_hf_folder(opened, out, merge);
  if (opened.lora) opened.merge_adapters();
  const Gguf gguf = export_gguf(opened, type, name);
  write_new_file_atomic(out, serialize_gguf(gguf));  // never replaces what appeared meanwhile
  std::printf("wrote %s: %s, %zu tensors, %s matrices\n", out.c_str(), opened.title().c_str(),
              gguf.tensors.size(), ggml_type_name(static_cast<uint32_t>(type)).c_str());
  return 0;
}

}  // namespace tinylm::cli
