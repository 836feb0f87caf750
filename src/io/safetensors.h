// safetensors: Hugging Face's tensor file format, read and written here.
//
// File layout (all integers little-endian):
//
//   [8 bytes]  N: uint64, the length of the header
//   [N bytes]  the header: UTF-8 JSON, possibly padded with trailing spaces
//   [rest]     the data buffer: every tensor's raw bytes, back to back
//
// The header is a JSON object. Its optional "__metadata__" entry maps strings to strings;
// every other entry describes one tensor:
//
//   "wte.weight": {"dtype": "F32", "shape": [512, 48], "data_offsets": [0, 98304]}
//
// data_offsets = [begin, end) are byte offsets relative to the start of the data buffer,
// and end - begin = numel(shape) * itemsize(dtype). As in Hugging Face's own reader, the
// tensors must cover the data buffer exactly: sorted by offset, each begins where the
// previous one ended, without holes or overlaps, and the last ends at the end of the file.
//
// Reading is bounds-checked: a truncated or malformed file gives one InputError naming the
// file and the tensor (e.g. "model.safetensors: tensor 'wte.weight': data_offsets [0,
// 999999] outside the data buffer (4096 bytes)"), never a crash, and never an allocation
// larger than the file itself. tests/io/fuzz_safetensors.cpp fuzzes the parser.
// The header is parsed in time n log n in its number of keys, and bounded: at most
// 100 MB (as Hugging Face's reader), kMaxSafetensorsTensors tensors and
// kMaxSafetensorsMetadata __metadata__ entries; a header past a bound is refused at the
// first key too many.
//
// Writing produces files that PyTorch / Hugging Face load: keys in the given order,
// contiguous offsets, the header padded with spaces so the data buffer starts on an 8-byte
// boundary. The output is a pure function of the input (same tensors, same bytes).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/tensor.h"
#include "util/float16.h"  // F16 and BF16 to float32

namespace tinylm {

// The most tensors one file may hold. Checkpoints hold a few hundred to a few thousand
// tensors per file; 100,000 leaves room for any real model and stops a crafted header of
// millions of tiny entries.
inline constexpr int64_t kMaxSafetensorsTensors = 100'000;
// The most "__metadata__" entries one file may hold. PyTorch writes one ("format"),
// tinylm a dozen.
inline constexpr int64_t kMaxSafetensorsMetadata = 10'000;

// Bytes per element of a safetensors dtype: "F64", "F32", "F16", "BF16", "I64", "I32",
// "I16", "I8", "U64", "U32", "U16", "U8", "BOOL". 0 for any other (unsupported) dtype.
int64_t safetensors_dtype_size(std::string_view dtype);

// One tensor as stored in a file: its dtype, shape and raw little-endian bytes.
struct SafeTensorEntry {
  std::string dtype;  // see safetensors_dtype_size
  Shape shape;
  std::string bytes;  // numel(shape) * itemsize(dtype) raw little-endian bytes
  std::string label;  // "<file>: tensor '<name>'", used in error messages

  int64_t numel() const { return shape_numel(shape); }
  // Any dtype to float32 (F64 and large integers are rounded to nearest). InputError for
  // shapes of more than 4 dimensions (Tensor's limit).
  Tensor to_float() const;
  // Integer and BOOL dtypes to int64 (BOOL as 0/1). InputError for float dtypes, and for
  // U64 values above INT64_MAX.
  std::vector<int64_t> to_int64() const;
};

// The contents of one safetensors file.
struct SafeTensors {
  std::map<std::string, SafeTensorEntry> tensors;
  std::vector<std::string> names;  // tensor names in header order
  std::map<std::string, std::string> metadata;
  std::string source = "safetensors";  // the file name, for messages

  bool has(const std::string& name) const { return tensors.count(name) > 0; }
  // InputError naming the file and the missing tensor.
  const SafeTensorEntry& get(const std::string& name) const;
  Tensor get_float(const std::string& name) const { return get(name).to_float(); }
  std::vector<int64_t> get_int64(const std::string& name) const { return get(name).to_int64(); }
};

// Parses the bytes of a safetensors file; `what` names it in error messages.
SafeTensors parse_safetensors(std::string_view bytes, const std::string& what);
// Reads and parses a file; InputError if it cannot be read or is malformed.
SafeTensors load_safetensors(const std::string& path);

// Entries to write with serialize_safetensor_entries (label is ignored).
SafeTensorEntry float32_entry(const Tensor& t);
SafeTensorEntry int64_entry(const Shape& shape, const std::vector<int64_t>& values);

// The bytes of a safetensors file holding `tensors` as F32, in the given order, and
// `metadata` (omitted when empty). std::invalid_argument for an undefined tensor, a
// duplicate name or the reserved name "__metadata__".
std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata);
// The same for entries of any supported dtype (e.g. int64_entry for token ids); also
// std::invalid_argument if an entry's byte count does not match its dtype and shape.
std::string serialize_safetensor_entries(
    const std::vector<std::pair<std::string, SafeTensorEntry>>& entries,
    const std::map<std::string, std::string>& metadata);

// serialize_safetensors / serialize_safetensor_entries, written atomically (temp file +
// rename) with write_file_atomic.
void save_safetensors(const std::string& path,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata);
void save_safetensor_entries(const std::string& path,
                             const std::vector<std::pair<std::string, SafeTensorEntry>>& entries,
                             const std::map<std::string, std::string>& metadata);

}  // namespace tinylm
