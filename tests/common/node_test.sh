# The start every test that checks tinylm against a node package shares (sourced):
#   node_test_start BIN
# exits 77 with "skipped: node not found" when node or npm is missing (the tests'
# SKIP_RETURN_CODE in CTest), exits 2 when BIN is not an executable, and sets bin to
# BIN's absolute path.
node_test_start() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "skipped: node not found"
    exit 77
  fi
  [ -x "$1" ] || { echo "$(basename "$0"): no $(basename "$1") binary at $1" >&2; exit 2; }
  bin=$(realpath "$1")
}
