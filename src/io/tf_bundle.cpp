#include "io/tf_bundle.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "io/crc32c.h"
#include "io/leveldb_table.h"
#include "io/load_unaligned.h"
#include "io/protobuf_wire.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/files.h"
#include "util/float16.h"

namespace tinylm {

// Tensor bytes are little-endian in the file and copied with memcpy.
static_assert(std::endian::native == std::endian::little, "tf_bundle assumes little-endian");

namespace {

// The bundle format version tinylm reads (TensorFlow's kTensorBundleVersion).
constexpr int32_t kBundleVersion = 1;

// ---- dtypes ----------------------------------------------------------------------

struct DTypeInfo {
  TfDType dtype;
  const char* name;
  int64_t size;  // bytes per element; 0: no fixed size
};

constexpr DTypeInfo kDTypes[] = {
    {TfDType::kInvalid, "invalid", 0},     {TfDType::kFloat, "float32", 4},
    {TfDType::kDouble, "float64", 8},      {TfDType::kInt32, "int32", 4},
    {TfDType::kUInt8, "uint8", 1},         {TfDType::kInt16, "int16", 2},
    {TfDType::kInt8, "int8", 1},           {TfDType::kString, "string", 0},
    {TfDType::kComplex64, "complex64", 8}, {TfDType::kInt64, "int64", 8},
    {TfDType::kBool, "bool", 1},           {TfDType::kBFloat16, "bfloat16", 2},
    {TfDType::kUInt16, "uint16", 2},       {TfDType::kComplex128, "complex128", 16},
    {TfDType::kHalf, "float16", 2},        {TfDType::kUInt32, "uint32", 4},
    {TfDType::kUInt64, "uint64", 8},
};

const DTypeInfo* dtype_info(TfDType dtype) {
  for (const DTypeInfo& d : kDTypes)
    if (d.dtype == dtype) return &d;
  return nullptr;
}

// ---- the header ----------------------------------------------------------------------

void parse_version(std::string_view bytes, const std::string& what, TfBundleHeader& h) {
  ProtoReader in(bytes, what);
  for (ProtoField f; in.next(f);) {
    if (f.number == 1) h.producer = proto_int32(f, what);
    if (f.number == 2) h.min_consumer = proto_int32(f, what);
  }
}

TfBundleHeader parse_bundle_header(std::string_view bytes, const std::string& what) {
  const std::string where = what + ": header";
  TfBundleHeader h;
  ProtoReader in(bytes, where);
  for (ProtoField f; in.next(f);) {
    if (f.number == 1) h.num_shards = proto_int32(f, where);
    if (f.number == 2) h.endianness = proto_int32(f, where);
    if (f.number == 3) parse_version(proto_bytes(f, where), where + ": version", h);
  }
  require(h.endianness != 1, where +
                                 ": written on a big-endian machine; tinylm reads "
                                 "little-endian checkpoints");
  require(h.endianness == 0, where + ": unknown endianness " + std::to_string(h.endianness));
  require(h.num_shards >= 1, where + ": " + std::to_string(h.num_shards) + " shards");
  require(h.min_consumer <= kBundleVersion, where + ": needs a newer reader (min_consumer " +
                                                std::to_string(h.min_consumer) +
                                                "; tinylm reads bundle format version 1)");
  return h;
}

// ---- one entry -----------------------------------------------------------------------

// TensorShapeProto.Dim: int64 size = 1 (name = 2 is skipped).
int64_t parse_dim(std::string_view bytes, const std::string& what) {
  int64_t size = 0;
  ProtoReader in(bytes, what);
  for (ProtoField f; in.next(f);)
    if (f.number == 1) size = proto_int64(f, what);
  require(size >= 0, what + ": dimension of unknown size " + std::to_string(size));
  return size;
}

// TensorShapeProto: repeated Dim dim = 2; bool unknown_rank = 3. Appends to `shape`, as
// protobuf merges a message field that occurs twice.
void parse_shape(std::string_view bytes, const std::string& what, Shape& shape) {
  ProtoReader in(bytes, what);
  for (ProtoField f; in.next(f);) {
    if (f.number == 2) {
      require(shape.size() < Shape::kMaxDims, what + ": more than 8 dimensions");
      shape.push_back(parse_dim(proto_bytes(f, what), what));
    } else if (f.number == 3) {
      require(proto_int64(f, what) == 0, what + ": unknown rank (not a stored tensor)");
    }
  }
}

// The fields of a BundleEntryProto, unchecked against each other.
TfBundleEntry parse_entry_fields(const std::string& name, std::string_view bytes,
                                 const std::string& where) {
  TfBundleEntry e;
  e.name = name;
  ProtoReader in(bytes, where);
  for (ProtoField f; in.next(f);) {
    switch (f.number) {
      case 1:
        e.dtype = static_cast<TfDType>(proto_int32(f, where));
        break;
      case 2:
        parse_shape(proto_bytes(f, where), where + ": shape", e.shape);
        break;
      case 3:
        e.shard_id = proto_int32(f, where);
        break;
      case 4:
        e.offset = proto_int64(f, where);
        break;
      case 5:
        e.size = proto_int64(f, where);
        break;
      case 6:
        e.masked_crc32c = proto_fixed32(f, where);
        break;
      case 7:
        proto_bytes(f, where);  // a TensorSliceProto: its content is not needed
        e.sliced = true;
        break;
      default:
        break;  // unknown fields are skipped
    }
  }
  return e;
}

// The entry's shard, byte range and size against its dtype and shape.
void check_entry(const TfBundleEntry& e, const TfBundleHeader& h, const std::string& where) {
  int64_t numel = 1;
  for (const int64_t d : e.shape) numel = checked_mul(numel, d, where + ": shape");
  if (e.sliced) return;  // the slices' own entries hold the bytes
  require(e.shard_id >= 0 && e.shard_id < h.num_shards,
          where + ": shard " + std::to_string(e.shard_id) + " of a bundle of " +
              std::to_string(h.num_shards));
  require(e.offset >= 0 && e.size >= 0, where + ": negative offset or size");
  checked_add(e.offset, e.size, where + ": offset + size");
  const int64_t item = tf_dtype_size(e.dtype);
  if (item == 0) return;  // strings, variants, unknown dtypes: checked when read
  const int64_t expected = checked_mul(numel, item, where + ": size");
  require(e.size == expected, where + ": " + std::to_string(e.size) + " bytes do not hold a " +
                                  tf_dtype_name(e.dtype) + " tensor of shape " +
                                  shape_str(e.shape) + " (" + std::to_string(expected) + " bytes)");
}

// ---- reading bytes -------------------------------------------------------------------

// bytes [offset, offset + size) of the file at path, which open_tf_bundle found that long.
std::string read_range(const std::string& path, int64_t offset, int64_t size) {
  std::ifstream in(path, std::ios::binary);
  require(in.good(), path + ": cannot open the data file");
  std::string out(static_cast<size_t>(size), '\0');
  in.seekg(offset);
  in.read(out.data(), size);
  require(in.gcount() == size, path + ": truncated (shorter than when it was opened)");
  return out;
}

template <class Convert>
void convert_all(std::string_view bytes, int64_t item, float* out, Convert convert) {
  const int64_t n = static_cast<int64_t>(bytes.size()) / item;
  for (int64_t i = 0; i < n; ++i) out[i] = convert(bytes.data() + i * item);
}

// The checks of tf_tensor_to_float that need no bytes: done before reading them.
void require_float_readable(const TfBundleEntry& e, const std::string& where) {
  const TfDType d = e.dtype;
  require(d == TfDType::kFloat || d == TfDType::kHalf || d == TfDType::kBFloat16 ||
              d == TfDType::kDouble,
          where + ": dtype " + tf_dtype_name(d) +
              "; tinylm reads float32, float16, bfloat16 and float64 tensors as float32");
  require(e.shape.size() <= 4, where + ": shape " + shape_str(e.shape) +
                                   " has more than 4 dimensions (tinylm's tensors have at most 4)");
}

}  // namespace

std::string tf_dtype_name(TfDType dtype) {
  const DTypeInfo* d = dtype_info(dtype);
  return d ? d->name : "dtype " + std::to_string(static_cast<int32_t>(dtype));
}

int64_t tf_dtype_size(TfDType dtype) {
  const DTypeInfo* d = dtype_info(dtype);
  return d ? d->size : 0;
}

const TfBundleEntry* TfBundleIndex::find(std::string_view name) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), name,
                             [](const TfBundleEntry& e, std::string_view n) { return e.name < n; });
  return it != entries.end() && it->name == name ? &*it : nullptr;
}

TfBundleIndex parse_tf_bundle_index(std::string_view bytes, const std::string& what) {
  const std::vector<TableEntry> table = read_leveldb_table(bytes, what);
  require(!table.empty() && table.front().key.empty(),
          what +
              ": no header entry (the first key must be empty): not a TensorFlow "
              "checkpoint index");
  TfBundleIndex index;
  index.header = parse_bundle_header(table.front().value, what);
  index.entries.reserve(table.size() - 1);
  for (size_t i = 1; i < table.size(); ++i) {
    const std::string where = what + ": tensor " + table[i].key;
    index.entries.push_back(parse_entry_fields(table[i].key, table[i].value, where));
    check_entry(index.entries.back(), index.header, where);
  }
  return index;
}

std::string tf_bundle_data_path(const std::string& prefix, int32_t shard, int32_t num_shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", static_cast<int>(shard),
                static_cast<int>(num_shards));
  return prefix + suffix;
}

void check_tf_tensor_bytes(const TfBundleEntry& e, std::string_view bytes,
                           const std::string& what) {
  const std::string where = what + ": tensor " + e.name;
  require(!e.sliced, where + ": a partitioned (sliced) tensor; tinylm does not read those");
  require(static_cast<int64_t>(bytes.size()) == e.size,
          where + ": " + std::to_string(bytes.size()) + " bytes, the index says " +
              std::to_string(e.size));
  require(crc32c(bytes) == crc32c_unmask(e.masked_crc32c),
          where + ": checksum mismatch (the file is corrupt)");
}

Tensor tf_tensor_to_float(const TfBundleEntry& e, std::string_view bytes, const std::string& what) {
  require_float_readable(e, what + ": tensor " + e.name);
  check_tf_tensor_bytes(e, bytes, what);
  const TfDType d = e.dtype;
  Tensor t = Tensor::empty(e.shape);
  const int64_t item = tf_dtype_size(d);
  if (d == TfDType::kFloat && !bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());
  if (d == TfDType::kHalf)
    convert_all(bytes, item, t.data(),
                [](const char* p) { return half_to_float(load_unaligned<uint16_t>(p)); });
  if (d == TfDType::kBFloat16)
    convert_all(bytes, item, t.data(),
                [](const char* p) { return bf16_to_float(load_unaligned<uint16_t>(p)); });
  if (d == TfDType::kDouble)
    convert_all(bytes, item, t.data(),
                [](const char* p) { return static_cast<float>(load_unaligned<double>(p)); });
  return t;
}

const TfBundleEntry& TfBundle::get(std::string_view name) const {
  const TfBundleEntry* e = index.find(name);
  require(e != nullptr, prefix + ".index: no tensor named " + std::string(name));
  return *e;
}

std::string TfBundle::read_bytes(std::string_view name) const {
  const TfBundleEntry& e = get(name);
  const std::string path = tf_bundle_data_path(prefix, e.shard_id, index.header.num_shards);
  require(!e.sliced, path + ": tensor " + e.name +
                         ": a partitioned (sliced) tensor; tinylm does not read those");
  require(tf_dtype_size(e.dtype) > 0,
          path + ": tensor " + e.name + ": dtype " + tf_dtype_name(e.dtype) + " is not supported");
  std::string bytes = read_range(path, e.offset, e.size);
  check_tf_tensor_bytes(e, bytes, path);
  return bytes;
}

Tensor TfBundle::read_float(std::string_view name) const {
  const TfBundleEntry& e = get(name);
  const std::string path = tf_bundle_data_path(prefix, e.shard_id, index.header.num_shards);
  require_float_readable(e, path + ": tensor " + e.name);
  return tf_tensor_to_float(e, read_bytes(name), path);
}

namespace {

// The size of a shard's data file; InputError if it is missing or not a file.
int64_t data_file_size(const std::string& path, const std::string& index_path) {
  require(file_exists(path),
          path + ": data file missing (" + index_path + " stores tensors in it)");
  require_readable_file(path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  require(!ec, path + ": cannot read its size: " + ec.message());
  return static_cast<int64_t>(size);
}

// Every tensor's bytes lie within its shard's data file.
void check_data_files(const TfBundle& b, const std::string& index_path) {
  std::map<int32_t, int64_t> sizes;  // shard -> data file size
  for (const TfBundleEntry& e : b.index.entries) {
    if (e.sliced) continue;
    const std::string path = tf_bundle_data_path(b.prefix, e.shard_id, b.index.header.num_shards);
    if (!sizes.count(e.shard_id)) sizes[e.shard_id] = data_file_size(path, index_path);
    const int64_t size = sizes[e.shard_id];
    require(e.offset + e.size <= size, [&] {
      return path + ": tensor " + e.name + ": bytes [" + std::to_string(e.offset) + ", " +
             std::to_string(e.offset + e.size) + ") lie beyond the end of the data file (" +
             std::to_string(size) + " bytes; truncated?)";
    });
  }
}

}  // namespace

TfBundle open_tf_bundle(const std::string& prefix) {
  TfBundle b;
  const std::string_view suffix = ".index";
  b.prefix = prefix;
  if (prefix.size() > suffix.size() && prefix.ends_with(suffix))
    b.prefix.resize(prefix.size() - suffix.size());
  const std::string index_path = b.prefix + ".index";
  b.index = parse_tf_bundle_index(read_file(index_path), index_path);
  check_data_files(b, index_path);
  return b;
}

}  // namespace tinylm
