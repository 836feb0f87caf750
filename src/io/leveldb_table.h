// LevelDB's table format (the "SSTable"), read: the format of TensorFlow's checkpoint
// index (io/tf_bundle.h), written by TensorFlow's copy of LevelDB's table builder.
//
// A table is a sorted list of (key, value) byte strings, stored as (all integers
// little-endian; varints as in protocol buffers, io/protobuf_wire.h):
//
//   [data block 0][trailer] ... [data block N-1][trailer]
//   [metaindex block][trailer] [index block][trailer]
//   [footer: 48 bytes]
//
// footer:   metaindex BlockHandle, index BlockHandle (each varint64 offset, varint64 size),
//           zero padding to 40 bytes, then the magic number 0xdb4775248b80fb57 (fixed64)
// trailer:  1 byte compression type (0 none, 1 snappy), then the masked CRC-32C
//           (io/crc32c.h) of the block's bytes followed by that type byte (fixed32)
// block:    entries, then restarts (fixed32 each: offsets of entries), then num_restarts
//           (fixed32). An entry is varint32 shared, varint32 non_shared, varint32
//           value_length, non_shared bytes of key, value_length bytes of value; its key is
//           the first `shared` bytes of the previous key followed by those non_shared bytes.
//           An entry at a restart offset has shared == 0 (writers restart every 16 entries).
// index:    one entry per data block, in order: a key >= every key of that block and below
//           every key of the next one, and the block's BlockHandle as the value.
// metaindex: names meta blocks (a filter); TensorFlow writes it empty and reads it not at
//           all, and neither does this reader.
//
// Everything is checked: InputError("<what>: ...") for a file shorter than a footer, a bad
// magic number, a block handle outside the file, a block checksum mismatch, a compressed
// block (snappy: TensorFlow writes checkpoint indexes uncompressed), a malformed entry or
// restart array, keys out of order. Decoding is bounded: no key longer than
// kMaxTableKeyBytes, no more than kMaxTableDecodedBytes of keys and values in all (prefix
// compression could otherwise make a small crafted file expand quadratically).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

inline constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr size_t kTableFooterSize = 48;
inline constexpr size_t kBlockTrailerSize = 5;
// Keys of checkpoint indexes are tensor names, a few dozen bytes.
inline constexpr size_t kMaxTableKeyBytes = size_t{1} << 16;
inline constexpr size_t kMaxTableDecodedBytes = size_t{256} << 20;

struct TableEntry {
  std::string key;
  std::string value;
};

// Every entry of the table held in `file`, in key order (strictly increasing, bytewise);
// `what` names the file in messages.
std::vector<TableEntry> read_leveldb_table(std::string_view file, const std::string& what);

}  // namespace tinylm
