#include "io/ggml_types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "io/load_unaligned.h"
#include "util/error.h"
#include "util/float16.h"
#include "util/q8_0.h"

namespace tinylm {
namespace {

template <typename T>
void store(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

void quantize_q8_block(const float* x, char* out) {
  BlockQ8_0 block;
  quantize_q8_0_block(x, &block);
  std::memcpy(out, &block, sizeof block);
}

void dequantize_q8_block(const char* bytes, float* out) {
  BlockQ8_0 block;
  std::memcpy(&block, bytes, sizeof block);
  dequantize_q8_0_block(block, out);
}

}  // namespace

bool ggml_type_known(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::kF32:
    case GgmlType::kF16:
    case GgmlType::kQ8_0:
    case GgmlType::kBF16:
      return true;
  }
  return false;
}

std::string ggml_type_name(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::kF32:
      return "F32";
    case GgmlType::kF16:
      return "F16";
    case GgmlType::kQ8_0:
      return "Q8_0";
    case GgmlType::kBF16:
      return "BF16";
  }
  return "type " + std::to_string(type);
}

GgmlType parse_ggml_type(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "f32") return GgmlType::kF32;
  if (lower == "f16") return GgmlType::kF16;
  if (lower == "bf16") return GgmlType::kBF16;
  if (lower == "q8_0") return GgmlType::kQ8_0;
  throw InputError("unknown tensor type '" + name + "' (expected f32, f16, bf16 or q8_0)");
}

int64_t ggml_block_size(GgmlType type) {
  return type == GgmlType::kQ8_0 ? kQ8Block : 1;
}

int64_t ggml_bytes(GgmlType type, int64_t n) {
  switch (type) {
    case GgmlType::kF32:
      return 4 * n;
    case GgmlType::kF16:
    case GgmlType::kBF16:
      return 2 * n;
    case GgmlType::kQ8_0:
      return n / kQ8Block * kQ8BlockBytes;
  }
  return 0;
}

std::string ggml_from_float(GgmlType type, const float* x, int64_t n) {
  require(n % ggml_block_size(type) == 0, [&] {
    return ggml_type_name(static_cast<uint32_t>(type)) + ": " + std::to_string(n) +
           " values are not a whole number of blocks of " + std::to_string(ggml_block_size(type));
  });
  std::string bytes(static_cast<size_t>(ggml_bytes(type, n)), '\0');
  char* out = bytes.data();
  for (int64_t i = 0; i < n; i += ggml_block_size(type)) {
    switch (type) {
      case GgmlType::kF32:
        store(out + 4 * i, x[i]);
        break;
      case GgmlType::kF16:
        store(out + 2 * i, float_to_half(x[i]));
        break;
      case GgmlType::kBF16:
        store(out + 2 * i, float_to_bf16(x[i]));
        break;
      case GgmlType::kQ8_0:
        quantize_q8_block(x + i, out + i / kQ8Block * kQ8BlockBytes);
        break;
    }
  }
  return bytes;
}

void ggml_to_float(GgmlType type, const char* bytes, int64_t n, float* out) {
  for (int64_t i = 0; i < n; i += ggml_block_size(type)) {
    switch (type) {
      case GgmlType::kF32:
        out[i] = load_unaligned<float>(bytes + 4 * i);
        break;
      case GgmlType::kF16:
        out[i] = half_to_float(load_unaligned<uint16_t>(bytes + 2 * i));
        break;
      case GgmlType::kBF16:
        out[i] = bf16_to_float(load_unaligned<uint16_t>(bytes + 2 * i));
        break;
      case GgmlType::kQ8_0:
        dequantize_q8_block(bytes + i / kQ8Block * kQ8BlockBytes, out + i);
        break;
    }
  }
}

}  // namespace tinylm
