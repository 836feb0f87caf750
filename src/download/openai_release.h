// `tinylm download gpt2 --source openai`: OpenAI's original GPT-2 files from OpenAI's public
// storage, as the book's gpt_download.py fetches them, into a folder that every verb reads
// (model/openai_gpt2.h):
//   BASE/{124M,355M,774M,1558M}/{checkpoint, encoder.json, hparams.json, vocab.bpe,
//                                model.ckpt.index, model.ckpt.data-00000-of-00001}
// (model.ckpt.meta, the TensorFlow graph, is not fetched: nothing reads it). BASE is
// https://openaipublic.blob.core.windows.net/gpt-2/models, or $TINYLM_OPENAI_GPT2_URL.
// Each file is fetched as fetch_file.h fetches (resumable, the announced size checked);
// the storage publishes no sha256, so once all are there every tensor's CRC-32C in the
// checkpoint is checked, and a corrupt data file is deleted and named.
#pragma once
#include <string>

#include "download/download.h"

namespace tinylm::download {

// "124M" for gpt2 (or "124M"), "355M" for gpt2-medium, "774M" for gpt2-large, "1558M" for
// gpt2-xl; InputError for any other name.
std::string openai_model_size(const std::string& name);

// The folder it goes into when --out is not given: openai-gpt2/<size> (the book's
// gpt2/<size>, under a name that is not the hub's "gpt2").
std::string default_openai_folder(const std::string& name);

// Fetches the files into request.out (default_openai_folder when empty). The result's
// snapshot is that folder; its commit is empty.
DownloadResult download_openai_gpt2(const DownloadRequest& request);

}  // namespace tinylm::download
