// Writing into the Hugging Face cache as huggingface_hub writes it (hub/hub_cache.h reads
// it): a file's bytes in blobs/<etag> (arriving in blobs/<etag>.incomplete, so a
// half-downloaded file is never visible under its final name), the snapshot entry as a
// relative symbolic link to the blob, refs/<revision> holding the commit.
#pragma once
#include <string>

namespace tinylm::download {

// REPO/blobs/<etag>.
std::string blob_path(const std::string& repo_folder, const std::string& etag);

// REPO/snapshots/<commit>/<file> -> ../../blobs/<etag> (one more "../" per folder in
// file), made beside and renamed into place.
void link_into_snapshot(const std::string& repo_folder, const std::string& commit,
                        const std::string& file, const std::string& etag);

// REPO/refs/<revision> = commit (nothing for a revision that is the commit itself).
void write_ref(const std::string& repo_folder, const std::string& revision,
               const std::string& commit);

// Copies `from` to `to` through a temp file beside `to` and a rename.
void copy_file_atomic(const std::string& from, const std::string& to);

}  // namespace tinylm::download
