#include "cli/verbs.h"

namespace tinylm::cli {

// Each verb is defined in its own verb_<name>.cpp.

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> list = {
  };
  return list;
}

}  // namespace tinylm::cli
