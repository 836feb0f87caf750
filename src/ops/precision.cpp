#include "ops/precision.h"

#include <string>

#include "util/error.h"

namespace tinylm::ops {

const char* precision_name(MatmulPrecision p) {
  switch (p) {
    case MatmulPrecision::kTf32:
      return "tf32";
    case MatmulPrecision::kBf16:
      return "bf16";
    case MatmulPrecision::kFp32:
      break;
  }
  return "fp32";
}

MatmulPrecision parse_precision(std::string_view name) {
  if (name == "fp32") return MatmulPrecision::kFp32;
  if (name == "tf32") return MatmulPrecision::kTf32;
  if (name == "bf16") return MatmulPrecision::kBf16;
  throw InputError("unknown precision \"" + std::string(name) + "\" (expected fp32, tf32 or bf16)");
}

}  // namespace tinylm::ops
