// Models by name from the Hugging Face cache, laid out as huggingface_hub lays it out, so
// that what Python users downloaded is found without a download (docs/hub.md):
//   CACHE/models--ORG--NAME/
//     refs/main                   the commit hash that the revision "main" names
//     snapshots/<commit>/FILE     each a symbolic link to ../../blobs/<etag> (or a file)
//     blobs/<etag>                the file's bytes, named by its etag (sha256 for LFS files)
// CACHE is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub, as huggingface_hub chooses it. Nothing here touches the network.
#pragma once
#include <string>
#include <vector>

namespace tinylm::hub {

// The hub cache folder (above); it may not exist.
std::string cache_dir();

// A repo id as the hub accepts it: "NAME" or "ORG/NAME", letters, digits, '-', '_' and
// '.', at most 96 characters, no "--" or "..", neither part starting or ending with '-'
// or '.'.
bool is_repo_id(const std::string& name);

// The short names of OpenAI's GPT-2 sizes: gpt2, gpt2-medium, gpt2-large, gpt2-xl.
bool is_gpt2_short_name(const std::string& name);

// The repo ids a name may be cached under: a short name under itself (what
// `from_pretrained("gpt2")` writes) and under openai-community/NAME (the hub's canonical
// id); any other repo id under itself.
std::vector<std::string> cache_names(const std::string& name);

// CACHE/models--ORG--NAME for a repo id.
std::string repo_folder(const std::string& cache, const std::string& repo_id);

// The snapshot folder of `revision` (a ref such as "main", or a 40-hex commit hash) of
// repo_id in `cache`, or "" when the cache does not hold it. InputError for a revision
// that is not a ref name or hash (empty, "..", a leading '/').
std::string find_snapshot(const std::string& cache, const std::string& repo_id,
                          const std::string& revision = "main");

// The snapshot folder of name's "main" in the cache (cache_names, in order), or "".
std::string find_cached_model(const std::string& name);

// A folder given by path or by name: `path_or_name` when it exists, else the snapshot the
// cache holds for that name, else `path_or_name` unchanged (its reader then says it is
// missing). For folders other than models: a PEFT adapter (`lora merge --adapter`).
std::string folder_or_cached(const std::string& path_or_name);

}  // namespace tinylm::hub
