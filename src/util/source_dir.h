// Where tinylm's sources were when it was built (the clone: data/, configs/, the test
// fixtures), for what the program ships in the repository (GPT-2's vocabulary files).
#pragma once

namespace tinylm {

// The absolute path, no trailing slash. Only util/source_dir.cpp is compiled with the
// path (TINYLM_SOURCE_DIR), so that no other object file depends on where the clone is
// and a compiler cache shares them between clones (docs/design.md, "Testing").
const char* source_dir();

}  // namespace tinylm
