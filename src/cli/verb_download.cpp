// tinylm download NAME_OR_REPO [--revision R] [--out DIR] [--source hf|openai]: a GPT-2
// or llama-family (Llama, Qwen2, Qwen3) model from the Hugging Face hub into the Hugging Face cache
// (download/download.h says what is fetched and how), or OpenAI's original files into a folder
// (download/openai_release.h).
// Exit 0 done, 1 a network or hub failure, 2 a bad name or a repo of another model type,
// 130 Ctrl-C (the partial file stays; the same command resumes it).
#include <cstdio>

#include "cli/cli_util.h"
#include "download/download.h"
#include "download/openai_release.h"
#include "download/progress.h"
#include "hub/hub_cache.h"
#include "train/interrupt.h"

namespace tinylm::cli {

int run_download(int argc, char** argv) {
  CLI::App app{
      "Fetch a GPT-2 or llama-family (Llama, Qwen2, Qwen3) model, a classifier or PEFT adapter "
      "from the Hugging Face hub into the "
      "Hugging Face cache (where Python's huggingface_hub keeps it); every verb then takes "
      "its name. Only the files tinylm reads. Resumes after an interruption; checks each "
      "file's sha256 or size. HF_ENDPOINT, HF_TOKEN, HF_HUB_CACHE / HF_HOME, "
      "HF_HUB_DOWNLOAD_TIMEOUT and the https_proxy variables apply as in huggingface_hub.",
      "tinylm download"};
  download::DownloadRequest request;
  app.add_option("name", request.name,
                 "gpt2, gpt2-medium, gpt2-large, gpt2-xl or a repo id (ORG/NAME)")
      ->required();
  app.add_option("--revision", request.revision, "a branch, tag or commit")->capture_default_str();
  std::string source = "hf";
  app.add_option("--source", source,
                 "hf: the Hugging Face hub; openai: OpenAI's original TensorFlow files (the "
                 "book's gpt_download.py) into --out (default openai-gpt2/<size>)")
      ->capture_default_str()
      ->check(CLI::IsMember({"hf", "openai"}));
  app.add_option("--out", request.out,
                 "hf: also copy the files into this folder; openai: the folder to fill")
      ->check(kNonEmptyPath);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  install_interrupt_handler();
  request.should_stop = [] { return interrupt_requested(); };
  download::DownloadResult r;
  try {
    r = source == "openai"
            ? download::download_openai_gpt2(request)
            : download::download_model(request, download::HubClient::from_environment());
  } catch (const download::DownloadInterrupted&) {
    std::fprintf(stderr,
                 "\ninterrupted: the partial file stays in the cache; the same command "
                 "resumes it\n");
    return 130;
  }
  restore_default_interrupt();
  std::printf("%s: %zu files, %s fetched\n%s\n", request.name.c_str(), r.files.size(),
              download::human_bytes(static_cast<double>(r.bytes_fetched)).c_str(),
              r.snapshot.c_str());
  if (!request.out.empty() && source == "hf") std::printf("copied into %s\n", request.out.c_str());
  return 0;
}

}  // namespace tinylm::cli
