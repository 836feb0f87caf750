// The tinylm program the CLI tests run: the only file of test_cli compiled with its path
// (TINYLM_BIN), so that the others do not depend on where the build is (a compiler cache
// shares them between clones).
#include "cli/cli_test_util.h"

namespace tinylm::testing {

const char* tinylm_bin() { return TINYLM_BIN; }

}  // namespace tinylm::testing
