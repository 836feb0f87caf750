#include "util/source_dir.h"

namespace tinylm {

const char* source_dir() { return TINYLM_SOURCE_DIR; }

}  // namespace tinylm
