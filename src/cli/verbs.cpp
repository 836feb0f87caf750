#include "cli/verbs.h"

namespace tinylm::cli {

// Each verb is defined in its own verb_<name>.cpp.
int run_attention(int argc, char** argv);
int run_eval(int argc, char** argv);
int run_sample(int argc, char** argv);
int run_prepare(int argc, char** argv);
int run_train(int argc, char** argv);
int run_generate(int argc, char** argv);
int run_verify(int argc, char** argv);
int run_tokenize(int argc, char** argv);
int run_info(int argc, char** argv);
int run_bpe_train(int argc, char** argv);
int run_plot(int argc, char** argv);
int run_embeddings(int argc, char** argv);
int run_report(int argc, char** argv);
int run_trace(int argc, char** argv);
int run_finetune(int argc, char** argv);
int run_respond(int argc, char** argv);
int run_classify(int argc, char** argv);
int run_lora(int argc, char** argv);
int run_data(int argc, char** argv);
int run_demo(int argc, char** argv);
int run_export(int argc, char** argv);
int run_serve(int argc, char** argv);
int run_download(int argc, char** argv);

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> list = {
      // train and use a model
      {"train", "train a model from a JSON config (configs/*.json)", run_train},
      {"sample", "generate text from a trained run", run_sample},
      {"eval", "loss / bpc / perplexity of a run on a text, or addition accuracy", run_eval},
      {"generate", "generate tokens from a GPT-2 style model folder", run_generate},
      {"verify", "check a model folder against its reference outputs", run_verify},
      {"finetune", "fine-tune a GPT: --task instruct (instructions) or classify", run_finetune},
      {"respond", "the response of an instruct run to one instruction", run_respond},
      {"serve", "an OpenAI-compatible HTTP server: completions, chat, many clients", run_serve},
      {"classify", "label texts with a classify run: label and probability", run_classify},
      {"lora", "LoRA adapters: merge an adapter into its base (a Hugging Face folder)", run_lora},
      {"export", "write a model as a GGUF file (llama.cpp) or a Hugging Face folder", run_export},
      {"download", "fetch a GPT-2 model from the Hugging Face hub into its cache", run_download},
      // tokenizers and data
      {"tokenize", "encode / decode / count (gpt2, bpe, word, char), or --check vs tiktoken",
       run_tokenize},
      {"bpe-train", "train a byte-level BPE vocabulary on a corpus", run_bpe_train},
      {"prepare", "tokenise a corpus once into train.bin / val.bin (uint16)", run_prepare},
      {"data", "--show: input -> target pairs, a batch, embedding shapes (Raschka ch. 2)",
       run_data},
      // look inside
      {"info", "parameters, FLOPs and training memory of a model config", run_info},
      {"attention", "attention step by step (--example), or heatmaps of a model as SVG",
       run_attention},
      {"trace", "walk one input through a model: embeddings, attention, norms", run_trace},
      {"plot", "training curves of a run (log.jsonl) as SVG", run_plot},
      {"embeddings", "cosine similarity of embedding rows (wte / wpe) as SVG", run_embeddings},
      {"demo", "the course's experiments: residual, sqrt-dk, activations, layernorm", run_demo},
      {"report", "write a run's report.html (curves, samples, attention, tables)", run_report},
  };
  return list;
}

}  // namespace tinylm::cli
