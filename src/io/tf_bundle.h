// TensorFlow's checkpoint format (the "tensor bundle" of tf.train.Saver V2 and
// tf.train.Checkpoint), read: OpenAI's original GPT-2 release is one. A checkpoint with
// the prefix "model.ckpt" is the files
//
//   model.ckpt.index                  which tensors, where: a LevelDB table
//                                     (io/leveldb_table.h) of protocol buffers
//   model.ckpt.data-00000-of-00001    their bytes (shard 0 of 1), raw, little-endian
//   (model.ckpt.meta, the graph, and the folder's `checkpoint` text file are not read)
//
// The index maps keys to protocol buffers (tensorflow/core/protobuf/tensor_bundle.proto;
// decoded by hand, io/protobuf_wire.h, unknown fields skipped):
//   ""   (the first key)  BundleHeaderProto { int32 num_shards = 1; enum endianness = 2
//                         (0 little, 1 big); VersionDef version = 3 { int32 producer = 1;
//                         int32 min_consumer = 2 } }
//   a tensor's name       BundleEntryProto { DataType dtype = 1; TensorShapeProto shape = 2
//                         { repeated Dim dim = 2 { int64 size = 1 }; bool unknown_rank = 3 };
//                         int32 shard_id = 3; int64 offset = 4; int64 size = 5;
//                         fixed32 crc32c = 6; repeated TensorSliceProto slices = 7 }
// The tensor's bytes are [offset, offset + size) of PREFIX.data-<shard_id>-of-<num_shards>
// (five digits each), row-major; crc32c is their masked CRC-32C (io/crc32c.h).
//
// Reading checks everything and throws InputError naming the file and the problem: a
// missing header, a big-endian or too new bundle, a shard id outside num_shards, a size
// that does not match the dtype and shape, a missing data file, a tensor beyond the end of
// its data file, a checksum mismatch ("model.ckpt.data-00000-of-00001: tensor model/wte:
// checksum mismatch (the file is corrupt)"), an unsupported dtype; partitioned (sliced)
// tensors are listed but not read. Several shards are read. tests/io/fuzz_tf_bundle.cpp
// fuzzes the index parser.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace tinylm {

// TensorFlow's DataType numbers (tensorflow/core/framework/types.proto); a file may hold
// others, which are listed and refused when read.
enum class TfDType : int32_t {
  kInvalid = 0,  // no dtype (the field is missing)
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kBFloat16 = 14,
  kUInt16 = 17,
  kComplex128 = 18,
  kHalf = 19,
  kUInt32 = 22,
  kUInt64 = 23,
};

// "float32", "float16", "bfloat16", "int64", ... or "dtype <n>" for one tinylm does not know.
std::string tf_dtype_name(TfDType dtype);
// Bytes per element; 0 for dtypes without a fixed size (string, variant) or unknown ones.
int64_t tf_dtype_size(TfDType dtype);

struct TfBundleHeader {
  int32_t num_shards = 0;
  int32_t endianness = 0;  // 0 little; a big-endian bundle is refused
  int32_t producer = 0;
  int32_t min_consumer = 0;
};

// One tensor of the index.
struct TfBundleEntry {
  std::string name;
  TfDType dtype = TfDType::kInvalid;
  Shape shape;  // at most Shape::kMaxDims dimensions
  int32_t shard_id = 0;
  int64_t offset = 0, size = 0;  // bytes [offset, offset + size) of the shard's data file
  uint32_t masked_crc32c = 0;
  bool sliced = false;  // a partitioned tensor: stored as slices, not read by tinylm

  int64_t numel() const { return shape_numel(shape); }
};

// The contents of an index file.
struct TfBundleIndex {
  TfBundleHeader header;
  std::vector<TfBundleEntry> entries;  // in key order (bytewise), without the header

  // The entry named `name`, or nullptr.
  const TfBundleEntry* find(std::string_view name) const;
};

// Parses the bytes of an index file; `what` names it in messages.
TfBundleIndex parse_tf_bundle_index(std::string_view bytes, const std::string& what);

// "PREFIX.data-00002-of-00005" for shard 2 of 5.
std::string tf_bundle_data_path(const std::string& prefix, int32_t shard, int32_t num_shards);

// Checks that `bytes` (read from the data file `what`) are the bytes of `e` (their size and
// checksum).
void check_tf_tensor_bytes(const TfBundleEntry& e, std::string_view bytes, const std::string& what);
// The checked bytes of `e` as float32: float32, float16, bfloat16 and float64 (rounded)
// tensors of at most 4 dimensions (Tensor's limit); InputError for any other.
Tensor tf_tensor_to_float(const TfBundleEntry& e, std::string_view bytes, const std::string& what);

// An opened checkpoint: its index read and checked against the sizes of its data files.
struct TfBundle {
  std::string prefix;
  TfBundleIndex index;

  const std::vector<TfBundleEntry>& tensors() const { return index.entries; }
  bool has(std::string_view name) const { return index.find(name) != nullptr; }
  // InputError naming the index and the missing tensor.
  const TfBundleEntry& get(std::string_view name) const;
  // The tensor's raw little-endian bytes, checked (size, checksum); any dtype of fixed size.
  std::string read_bytes(std::string_view name) const;
  // The tensor as float32 (tf_tensor_to_float).
  Tensor read_float(std::string_view name) const;
};

// Opens the checkpoint with this prefix ("gpt2/124M/model.ckpt"; the index's path, ending
// in ".index", is taken too): reads PREFIX.index and checks that the data files exist and
// hold every tensor's byte range. The tensors' bytes are read when asked for.
TfBundle open_tf_bundle(const std::string& prefix);

}  // namespace tinylm
