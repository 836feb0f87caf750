// `tinylm download`: a GPT-2 model (or PEFT adapter) from the Hugging Face hub into the
// Hugging Face cache, as huggingface_hub's snapshot_download does it, with only the files
// tinylm reads (docs/hub.md):
//   - the revision's commit and file list from the hub's API, config.json first (a repo
//     that is not GPT-2 is refused before any weights are fetched);
//   - each file into blobs/<etag>.incomplete, resumed with a Range request after an
//     interruption, checked (the sha256 the hub publishes for large files, the size for
//     the others; a mismatch deletes the partial file and says so), then renamed into
//     place and linked from snapshots/<commit>/; refs/<revision> written last;
//   - files already in the cache are not fetched again.
// Errors: InputError (exit 2) for a bad name, an unknown repo or revision, a repo that is
// not GPT-2; DownloadError (exit 1) for the network and the hub's failures;
// DownloadInterrupted when should_stop says so (the partial file stays, resumable).
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "download/hub_api.h"

namespace tinylm::download {

struct DownloadRequest {
  std::string name;  // a repo id or GPT-2 short name
  std::string revision = "main";
  std::string out;  // also copy the files into this folder ("" : no)
  std::function<bool()> should_stop = [] { return false; };
  std::FILE* log = stderr;  // progress
};

struct DownloadResult {
  std::string snapshot;  // the snapshot folder in the cache
  std::string commit;
  std::vector<std::string> files;
  uint64_t bytes_fetched = 0;  // over the network in this run
};

DownloadResult download_model(const DownloadRequest& request, const HubClient& hub);

}  // namespace tinylm::download
