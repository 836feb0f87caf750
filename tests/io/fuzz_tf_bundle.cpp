// libFuzzer entry point for the TensorFlow checkpoint index reader (io/tf_bundle.h,
// io/leveldb_table.h, io/protobuf_wire.h). CMake builds it with g++ as a deterministic
// mutation loop that ctest runs (tests/common/mutation_fuzzer_main.cpp, seeds in
// tests/fuzz_seeds/fuzz_tf_bundle: small indexes written by tests/io/tf_bundle_writer.h),
// or with libFuzzer by hand:
//
//   tests/common/build_libfuzzer.sh fuzz_tf_bundle src/io/tf_bundle.cpp
//       src/io/leveldb_table.cpp src/io/protobuf_wire.cpp src/io/crc32c.cpp
//
// (one line; then run it as that script says).
//
// Property checked: for any bytes taken as an index file, parse_tf_bundle_index either
// returns or throws InputError (anything else -- a crash, a sanitizer report, another
// exception, a huge allocation -- is a bug). When it returns, reading any tensor whose
// byte range lies within the input (taken as its data file too), with its checksum as
// stored and made to match, only ever throws InputError, and the entries written again as
// an index (the test writer) read back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/byte_cursor.h"
#include "io/crc32c.h"
#include "io/leveldb_table.h"
#include "io/tf_bundle.h"
#include "io/tf_bundle_writer.h"
#include "util/error.h"

namespace {

using namespace tinylm;

bool same_entry(const TfBundleEntry& a, const TfBundleEntry& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.shard_id == b.shard_id &&
         a.offset == b.offset && a.size == b.size && a.masked_crc32c == b.masked_crc32c &&
         a.sliced == b.sliced;
}

void try_to_float(const TfBundleEntry& e, std::string_view bytes) {
  try {
    tf_tensor_to_float(e, bytes, "data");
  } catch (const InputError&) {  // checksum, dtype, more than 4 dimensions
  }
}

// Reads every tensor that lies within `data` as float32, as stored and with its checksum
// made to match (so that the conversion runs too); only InputError may come out.
void read_tensors(const TfBundleIndex& index, std::string_view data) {
  for (const TfBundleEntry& e : index.entries) {
    if (e.sliced || e.offset > static_cast<int64_t>(data.size()) ||
        e.size > static_cast<int64_t>(data.size()) - e.offset)
      continue;
    const std::string_view bytes =
        data.substr(static_cast<size_t>(e.offset), static_cast<size_t>(e.size));
    TfBundleEntry matching = e;
    matching.masked_crc32c = crc32c_mask(crc32c(bytes));
    try_to_float(e, bytes);
    try_to_float(matching, bytes);
  }
}

// ---- checksums made right ------------------------------------------------------------
// Nearly every mutation breaks a block's checksum, which the reader checks first; to reach
// the entries and protobufs behind it, each input is also parsed with the checksums of its
// blocks (the footer's index block, and the data blocks it points to) recomputed.

// Rewrites the trailer of the block [offset, offset + size) if it lies within the file.
void fix_trailer(std::string& file, uint64_t offset, uint64_t size) {
  const uint64_t n = file.size();
  if (offset > n || size > n - offset || n - offset - size < kBlockTrailerSize) return;
  const uint32_t masked = crc32c_mask(crc32c(std::string_view(file).substr(offset, size + 1)));
  for (int i = 0; i < 4; ++i) file[offset + size + 1 + i] = static_cast<char>(masked >> (8 * i));
}

// The data blocks' handles in an index block (restart every entry: nothing shared), as far
// as they can be read.
void fix_data_blocks(std::string& file, uint64_t offset, uint64_t size) {
  if (offset > file.size() || size > file.size() - offset || size < 4) return;
  const std::string block(file, offset, size - 4);  // a copy: file changes below
  ByteCursor in(block, "index");
  while (!in.at_end()) {
    in.varint32();  // shared
    const uint32_t key_size = in.varint32();
    const uint32_t value_size = in.varint32();
    in.bytes(key_size);
    ByteCursor handle(in.bytes(value_size), "handle");
    const uint64_t block_offset = handle.varint64();
    fix_trailer(file, block_offset, handle.varint64());
  }
}

std::string with_checksums_fixed(std::string file) {
  if (file.size() < kTableFooterSize) return file;
  try {
    const std::string handles(file, file.size() - kTableFooterSize, 40);
    ByteCursor footer(handles, "footer");
    footer.varint64();  // the metaindex block, not read
    footer.varint64();
    const uint64_t offset = footer.varint64(), size = footer.varint64();
    fix_data_blocks(file, offset, size);
    fix_trailer(file, offset, size);  // last: a data block may overlap it
  } catch (const InputError&) {       // as far as it could be read
  }
  return file;
}

// ---- the round trip ------------------------------------------------------------------

// The index rebuilt from what was read, by the test writer.
std::string rewrite(const TfBundleIndex& index) {
  const TfBundleHeader& h = index.header;
  std::vector<std::pair<std::string, std::string>> table{
      {"", tfw::header_proto({h.num_shards, h.endianness, h.producer, h.min_consumer})}};
  for (const TfBundleEntry& e : index.entries) table.emplace_back(e.name, tfw::entry_proto(e));
  return tfw::build_table(table);
}

// Parses bytes as an index; what it accepts must read its tensors and round-trip.
void check(std::string_view bytes) {
  TfBundleIndex index;
  try {
    index = parse_tf_bundle_index(bytes, "fuzz");
  } catch (const InputError&) {
    return;  // rejected cleanly
  }
  read_tensors(index, bytes);
  TfBundleIndex again;
  try {
    again = parse_tf_bundle_index(rewrite(index), "again");
  } catch (const InputError&) {
    std::abort();  // what was read must be written and read back
  }
  const TfBundleHeader &a = again.header, &b = index.header;
  if (a.num_shards != b.num_shards || a.endianness != b.endianness || a.producer != b.producer ||
      a.min_consumer != b.min_consumer || again.entries.size() != index.entries.size())
    std::abort();
  for (size_t i = 0; i < index.entries.size(); ++i)
    if (!same_entry(again.entries[i], index.entries[i])) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  const std::string fixed = with_checksums_fixed(bytes);
  if (fixed != bytes) check(fixed);
  return 0;
}
