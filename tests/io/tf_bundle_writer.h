// A TensorFlow checkpoint (tensor bundle) writer, for tests only: it writes what the
// reader (io/tf_bundle.h) reads, following the format as TensorFlow writes it:
//
//   - the index is a LevelDB table built as TensorFlow's table builder builds one: entries
//     sorted by key, prefix-compressed against the previous key with a restart point every
//     16 entries; a data block is closed once its estimated size (bytes + 4 per restart + 4)
//     reaches 256 KiB (TableOptions::block_size; tests use small blocks to get many), and
//     before an entry of twice that size; each block is followed by its type byte 0 (no
//     compression) and the masked CRC-32C of its bytes and that type byte; then an empty
//     metaindex block, the index block (one entry per data block, restart every entry,
//     keyed by the shortest key between the block's last key and the next block's first
//     key, or the shortest key above the last key of the last block), and the 48-byte
//     footer (the two block handles, zero padding, magic 0xdb4775248b80fb57);
//   - the first entry, key "", is the BundleHeaderProto, then one BundleEntryProto per
//     tensor, serialized as protobuf does (fields in number order, zero values omitted, the
//     shape always present);
//   - tensors' bytes lie back to back in PREFIX.data-<shard>-of-<num_shards>, in name order.
// Checked outside this repository on two index files that TensorFlow 1.x wrote: the
// entries the reader read, written again by build_table, gave the same bytes.
//
// The building blocks (varints, protobuf fields, blocks, tables) are exposed so that tests
// can build malformed files: unknown fields, bad headers, corrupt blocks.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/crc32c.h"
#include "io/leveldb_table.h"
#include "io/tf_bundle.h"
#include "util/files.h"

namespace tinylm::tfw {

// ---- integers ------------------------------------------------------------------------

inline void put_varint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7F) | 0x80));
  out.push_back(static_cast<char>(v));
}

inline void put_fixed(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// ---- protobuf fields -----------------------------------------------------------------

inline void put_key(std::string& out, uint32_t field, uint32_t wire_type) {
  put_varint(out, uint64_t{field} << 3 | wire_type);
}
// An int32, int64 or enum field (a negative int32 as its 64-bit two's complement).
inline void put_int_field(std::string& out, uint32_t field, int64_t v) {
  put_key(out, field, 0);
  put_varint(out, static_cast<uint64_t>(v));
}
inline void put_bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  put_key(out, field, 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}
inline void put_fixed32_field(std::string& out, uint32_t field, uint32_t v) {
  put_key(out, field, 5);
  put_fixed(out, v, 4);
}

// ---- LevelDB blocks and tables -------------------------------------------------------

struct TableOptions {
  size_t block_size = 256 * 1024;  // TensorFlow's default
  int restart_interval = 16;
};

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval) : interval_(restart_interval) {}

  void add(std::string_view key, std::string_view value) {
    size_t shared = 0;
    if (count_ < interval_) {
      const size_t n = std::min(key.size(), last_key_.size());
      while (shared < n && key[shared] == last_key_[shared]) ++shared;
    } else {
      restarts_.push_back(static_cast<uint32_t>(bytes_.size()));
      count_ = 0;
    }
    put_varint(bytes_, shared);
    put_varint(bytes_, key.size() - shared);
    put_varint(bytes_, value.size());
    bytes_.append(key.substr(shared));
    bytes_.append(value);
    last_key_.assign(key);
    ++count_;
  }
  bool empty() const { return bytes_.empty(); }
  size_t size_estimate() const { return bytes_.size() + 4 * restarts_.size() + 4; }
  // The block's bytes (entries, restart offsets, their count); the builder starts anew.
  std::string finish() {
    std::string out = std::move(bytes_);
    for (const uint32_t r : restarts_) put_fixed(out, r, 4);
    put_fixed(out, restarts_.size(), 4);
    *this = BlockBuilder(interval_);
    return out;
  }

 private:
  int interval_;
  std::string bytes_;
  std::vector<uint32_t> restarts_{0};
  int count_ = 0;
  std::string last_key_;
};

// Appends block + its trailer to file; returns its encoded BlockHandle.
inline std::string append_block(std::string& file, std::string_view block) {
  std::string handle;
  put_varint(handle, file.size());
  put_varint(handle, block.size());
  file.append(block);
  file.push_back('\0');  // no compression
  const uint32_t crc = crc32c(std::string_view(file).substr(file.size() - block.size() - 1));
  put_fixed(file, crc32c_mask(crc), 4);
  return handle;
}

// The shortest key k with a <= k < b (LevelDB's separator): a's first differing byte
// raised by one, if that stays below b's.
inline std::string shortest_separator(std::string a, std::string_view b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i >= a.size() || i >= b.size()) return a;  // one is a prefix of the other
  const auto ai = static_cast<unsigned char>(a[i]), bi = static_cast<unsigned char>(b[i]);
  if (ai < 0xFF && ai + 1 < bi) {
    a[i] = static_cast<char>(ai + 1);
    a.resize(i + 1);
  }
  return a;
}

// The shortest key >= a: its first byte below 0xFF raised by one.
inline std::string short_successor(std::string a) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (static_cast<unsigned char>(a[i]) != 0xFF) {
      a[i] = static_cast<char>(static_cast<unsigned char>(a[i]) + 1);
      a.resize(i + 1);
      return a;
    }
  }
  return a;
}

inline std::string footer(std::string_view metaindex_handle, std::string_view index_handle) {
  std::string out(metaindex_handle);
  out.append(index_handle);
  out.resize(kTableFooterSize - 8, '\0');
  put_fixed(out, kTableMagic, 8);
  return out;
}

// A table of (key, value) pairs, sorted by key by the caller.
inline std::string build_table(const std::vector<std::pair<std::string, std::string>>& entries,
                               const TableOptions& options = {}) {
  std::string file, last_key, pending_handle;
  BlockBuilder data(options.restart_interval), index(1);
  auto flush = [&] {
    if (!data.empty()) pending_handle = append_block(file, data.finish());
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    if (i > 0 && key.size() + value.size() >= 2 * options.block_size) flush();
    if (!pending_handle.empty()) {
      index.add(shortest_separator(last_key, key), pending_handle);
      pending_handle.clear();
    }
    last_key = key;
    data.add(key, value);
    if (data.size_estimate() >= options.block_size) flush();
  }
  flush();
  const std::string metaindex_handle = append_block(file, BlockBuilder(16).finish());
  if (!pending_handle.empty()) index.add(short_successor(last_key), pending_handle);
  const std::string index_handle = append_block(file, index.finish());
  return file + footer(metaindex_handle, index_handle);
}

// ---- bundle protos -------------------------------------------------------------------

struct HeaderFields {
  int32_t num_shards = 1;
  int32_t endianness = 0;
  int32_t producer = 1;  // TensorFlow's kTensorBundleVersion
  int32_t min_consumer = 0;
};

inline std::string header_proto(const HeaderFields& h = {}) {
  std::string version, out;
  if (h.producer) put_int_field(version, 1, h.producer);
  if (h.min_consumer) put_int_field(version, 2, h.min_consumer);
  if (h.num_shards) put_int_field(out, 1, h.num_shards);
  if (h.endianness) put_int_field(out, 2, h.endianness);
  put_bytes_field(out, 3, version);
  return out;
}

inline std::string shape_proto(const Shape& shape) {
  std::string out;
  for (const int64_t d : shape) {
    std::string dim;
    if (d) put_int_field(dim, 1, d);
    put_bytes_field(out, 2, dim);
  }
  return out;
}

inline std::string entry_proto(const TfBundleEntry& e) {
  std::string out;
  if (e.dtype != TfDType::kInvalid) put_int_field(out, 1, static_cast<int32_t>(e.dtype));
  put_bytes_field(out, 2, shape_proto(e.shape));
  if (e.shard_id) put_int_field(out, 3, e.shard_id);
  if (e.offset) put_int_field(out, 4, e.offset);
  if (e.size) put_int_field(out, 5, e.size);
  if (e.masked_crc32c) put_fixed32_field(out, 6, e.masked_crc32c);
  if (e.sliced) put_bytes_field(out, 7, "");  // one (empty) TensorSliceProto
  return out;
}

// ---- bundles -------------------------------------------------------------------------

struct BundleTensor {
  std::string name;
  TfDType dtype = TfDType::kFloat;
  Shape shape;
  std::string bytes;  // raw little-endian
  int32_t shard = 0;
};

// A float32 tensor of `shape` holding `values`.
inline BundleTensor float_tensor(std::string name, const Shape& shape,
                                 const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return {std::move(name), TfDType::kFloat, shape, std::move(bytes), 0};
}

struct Files {
  std::string index;
  std::vector<std::string> data;  // one per shard
};

// The index and data files of `tensors` (any order; names unique and not empty).
// header.num_shards data files are made; every tensor's shard must be below it.
inline Files build_bundle(std::vector<BundleTensor> tensors, const HeaderFields& header = {},
                          const TableOptions& options = {}) {
  std::sort(tensors.begin(), tensors.end(),
            [](const BundleTensor& a, const BundleTensor& b) { return a.name < b.name; });
  Files files;
  files.data.resize(static_cast<size_t>(std::max(header.num_shards, 1)));
  std::vector<std::pair<std::string, std::string>> entries{{"", header_proto(header)}};
  for (const BundleTensor& t : tensors) {
    std::string& data = files.data.at(static_cast<size_t>(t.shard));
    TfBundleEntry e{t.name,
                    t.dtype,
                    t.shape,
                    t.shard,
                    static_cast<int64_t>(data.size()),
                    static_cast<int64_t>(t.bytes.size()),
                    crc32c_mask(crc32c(t.bytes)),
                    false};
    data.append(t.bytes);
    entries.emplace_back(t.name, entry_proto(e));
  }
  files.index = build_table(entries, options);
  return files;
}

// Writes files as the checkpoint `prefix` (PREFIX.index, PREFIX.data-*).
inline void write_files(const std::string& prefix, const Files& files) {
  write_file_atomic(prefix + ".index", files.index);
  const auto n = static_cast<int32_t>(files.data.size());
  for (int32_t s = 0; s < n; ++s)
    write_file_atomic(tf_bundle_data_path(prefix, s, n), files.data[static_cast<size_t>(s)]);
}

}  // namespace tinylm::tfw
