// GGUF: the single-file model format of llama.cpp (ggml), read and written here.
//
// File layout (version 3; all integers little-endian; a string is a uint64 byte count and
// the bytes, no terminator):
//
//   "GGUF"  uint32 version  uint64 tensor_count  uint64 metadata_count
//   metadata_count x { string key, uint32 value type, value }
//   tensor_count   x { string name, uint32 n_dims, n_dims x uint64 ne, uint32 ggml type,
//                      uint64 offset }
//   padding to the alignment (metadata "general.alignment", a uint32; 32 if absent)
//   the data: every tensor's bytes at its offset from here, in order, each padded to the
//   alignment
//
// Value types (ggml's numbers): 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool,
// 8 string, 9 array (uint32 element type, uint64 count, the elements; no arrays of arrays
// here), 10 u64, 11 i64, 12 f64. Dimensions run innermost first (ggml's ne): a row-major
// [rows, cols] matrix has ne = {cols, rows}. Tensor types: io/ggml_types.h.
//
// Reading is bounds-checked as io/safetensors.h is: a truncated or malformed file gives one
// InputError naming the file and what is wrong (wrong magic or version, a count or a
// string longer than the file, an unknown value or tensor type, a tensor whose offset is not
// where the previous one ends, rounded up to the alignment, as ggml requires, or that runs
// past the end, a duplicate key or name), never a crash and never an allocation larger than
// the file. tests/io/fuzz_gguf.cpp fuzzes it. Versions 2 and 3 are read (the same layout);
// version 3 is written. Writing is a pure function of the contents.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/ggml_types.h"
#include "tensor/tensor.h"

namespace tinylm {

enum class GgufType : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

// A metadata value: one value or an array of values of one type. Integers and bools are
// held in `ints` (a u64 above INT64_MAX as its bit pattern), floats in `floats`, strings in
// `strings`; a single value is an array of one with is_array false.
struct GgufValue {
  GgufType type = GgufType::kU32;  // the type of the value, or of every element
  bool is_array = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;

  static GgufValue u32(uint32_t v);
  static GgufValue u64(uint64_t v);
  static GgufValue i32(int32_t v);
  static GgufValue f32(float v);
  static GgufValue boolean(bool v);
  static GgufValue string(std::string v);
  static GgufValue strings_of(std::vector<std::string> v);
  static GgufValue i32s(const std::vector<int32_t>& v);
  static GgufValue f32s(const std::vector<float>& v);

  size_t size() const;  // elements (1 for a single value)
};

// One tensor as stored: its name, ne (innermost first), type and raw bytes.
struct GgufTensor {
  std::string name;
  std::vector<int64_t> ne;
  GgmlType type = GgmlType::kF32;
  std::string bytes;

  int64_t numel() const;
  // The values as float32, shaped row-major (ne reversed: {cols, rows} -> [rows, cols]).
  Tensor to_float() const;
};

// A GGUF file's contents: metadata and tensors in file order.
struct Gguf {
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensor> tensors;
  std::string source = "gguf";  // the file name, for messages

  const GgufValue* find(std::string_view key) const;  // null when absent
  // InputError "<file>: no metadata <key>" / "... no tensor <name>".
  const GgufValue& get(std::string_view key) const;
  const GgufTensor& tensor(std::string_view name) const;
  // Typed reads of one metadata value; InputError naming the key when it is absent, an
  // array, or of another kind (any integer type for integer(), f32 or f64 for number()).
  std::string get_string(std::string_view key) const;
  int64_t get_integer(std::string_view key) const;
  double get_number(std::string_view key) const;
};

// A tensor of `type` from float32 values shaped row-major (a [rows, cols] Tensor becomes
// ne = {cols, rows}); the innermost size must be a whole number of blocks.
GgufTensor gguf_tensor(const std::string& name, const Tensor& values, GgmlType type);

// ggml's quantization format version (GGML_QNT_VERSION), which a file with a quantized
// tensor (a block type: Q8_0) names in "general.quantization_version" (a uint32), as the
// GGUF spec and llama.cpp's quantizer write it.
inline constexpr uint32_t kGgmlQuantizationVersion = 2;
// Adds general.quantization_version after general.file_type (or at the end) when one of
// the tensors is quantized; a file of float types only is left as it is.
void add_quantization_version(Gguf& gguf);

// Parses the bytes of a GGUF file; `what` names it in messages.
Gguf parse_gguf(std::string_view bytes, const std::string& what);
Gguf load_gguf(const std::string& path);
// The bytes of a version 3 file; std::invalid_argument for a duplicate key or tensor name,
// or a tensor whose bytes do not match its type and ne.
std::string serialize_gguf(const Gguf& gguf);
// serialize_gguf written atomically (util/files.h).
void save_gguf(const std::string& path, const Gguf& gguf);

}  // namespace tinylm
