// One file over HTTP into `path`, as every download here fetches it: the bytes arrive in
// PATH.incomplete (so a half-downloaded file is never visible under its final name); an
// existing .incomplete is resumed with a Range request (from its start again when the
// server sends the whole file); the result must have the announced size and, for a file
// whose FileMeta is LFS, the sha256 its etag names (a mismatch deletes the partial file
// and says so); then it is renamed to `path`. A file already at `path` is not fetched.
// DownloadError: the network (the partial file stays: the same command resumes it), an
// HTTP status, a mismatch; DownloadInterrupted when request.should_stop says so.
#pragma once
#include <cstdint>
#include <string>

#include "download/download.h"
#include "download/http.h"
#include "download/hub_api.h"

namespace tinylm::download {

// Returns the bytes fetched over the network (0 when the file was there).
uint64_t fetch_file(const HttpOptions& http, const FileMeta& meta, const std::string& name,
                    const std::string& path, const DownloadRequest& request);

}  // namespace tinylm::download
