// Tests of the bytes of TensorFlow's checkpoint index (io/leveldb_table.h,
// io/protobuf_wire.h, io/tf_bundle.h) and of the test writer (tests/io/tf_bundle_writer.h):
//
//   - a 121-byte index assembled by hand from the format, byte by byte with its layout
//     in comments, which the writer must reproduce exactly and the reader must read;
//   - varints and protobuf fields (unknown fields of every wire type skipped, groups
//     refused), LevelDB's shortest separator and successor keys;
//   - many entries: several data blocks, several restart points, several index entries,
//     counted from the raw bytes of the file;
//   - malformed tables built block by block: keys out of order or repeated, a restart
//     offset inside an entry, a shared prefix longer than the previous key, a snappy or
//     unknown block type, block handles outside the file or out of order, keys beyond
//     their index entry, an overlong key.
// (The writer was also checked, outside this repository, against two index files that
// TensorFlow 1.x wrote: rebuilt from the entries the reader read, they came out byte for
// byte the same.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "io/byte_cursor.h"
#include "io/crc32c.h"
#include "io/leveldb_table.h"
#include "io/protobuf_wire.h"
#include "io/tf_bundle.h"
#include "io/tf_bundle_writer.h"

namespace tinylm {
namespace {

using testing::input_error;

// The index of a checkpoint holding one float32 tensor "w" of shape [2] = {1, -2} (data
// file: 00 00 80 3f 00 00 00 c0), assembled by hand. The four CRCs were computed by a
// separate bit-by-bit CRC-32C (a few lines of Python), not by io/crc32c.
const unsigned char kOneTensorIndex[] = {
    // [0, 36) data block 0.
    // Entry: shared 0, non_shared 0, value 6 bytes; key ""; the BundleHeaderProto:
    //   08 01 = num_shards (field 1, varint) 1; 1a 02 = version (field 3, 2 bytes):
    //   08 01 = producer (field 1) 1. Endianness 0 and min_consumer 0 are omitted.
    0x00, 0x00, 0x06, 0x08, 0x01, 0x1a, 0x02, 0x08, 0x01,
    // Entry: shared 0, non_shared 1, value 15 bytes; key "w"; the BundleEntryProto:
    //   08 01 = dtype 1 (DT_FLOAT); 12 04 = shape (field 2, 4 bytes): 12 02 = dim
    //   (field 2, 2 bytes): 08 02 = size 2; shard_id 0 and offset 0 omitted;
    //   28 08 = size (field 5) 8 bytes; 35 = crc32c (field 6, fixed32) 0x88163f45, the
    //   masked CRC-32C of the 8 data bytes.
    0x00, 0x01, 0x0f, 'w', 0x08, 0x01, 0x12, 0x04, 0x12, 0x02, 0x08, 0x02, 0x28, 0x08, 0x35, 0x45,
    0x3f, 0x16, 0x88,
    // Restart offsets [0] and their count 1 (fixed32 each).
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    // [36, 41) trailer: type 0 (none), masked CRC-32C of the 36 bytes and the type byte.
    0x00, 0x88, 0xef, 0x43, 0xba,
    // [41, 54) metaindex block, empty: restart offsets [0], count 1; its trailer.
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xf2, 0xa1, 0xb0,
    // [54, 73) index block: one entry, shared 0, non_shared 1, value 2 bytes; key "x" (the
    // shortest key above "w", the last key); value: BlockHandle offset 0, size 36 (0x24).
    // Restart offsets [0], count 1; trailer.
    0x00, 0x01, 0x02, 'x', 0x00, 0x24, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xab,
    0x30, 0x70, 0x7f,
    // [73, 121) footer: metaindex handle (41 = 0x29, 8), index handle (54 = 0x36, 14 = 0x0e),
    // zeros up to 40 bytes, then the magic 0xdb4775248b80fb57 little-endian.
    0x29, 0x08, 0x36, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};

std::string one_tensor_index() {
  return std::string(reinterpret_cast<const char*>(kOneTensorIndex), sizeof kOneTensorIndex);
}

TEST(TfBundleFormat, HandAssembledIndexHasTheDocumentedLayout) {
  const std::string index = one_tensor_index();
  ASSERT_EQ(index.size(), 121u);  // 41 + 13 + 19 blocks with trailers, 48 footer
  ByteCursor magic(std::string_view(index).substr(121 - 8), "magic");
  EXPECT_EQ(magic.fixed64(), kTableMagic);
  const std::vector<TableEntry> table = read_leveldb_table(index, "one.index");
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].key, "");
  EXPECT_EQ(table[1].key, "w");
  EXPECT_EQ(table[1].value.size(), 15u);
}

TEST(TfBundleFormat, WriterWritesTheHandAssembledIndex) {
  const tfw::Files files = tfw::build_bundle({tfw::float_tensor("w", {2}, {1.0f, -2.0f})});
  EXPECT_EQ(files.index, one_tensor_index());
  ASSERT_EQ(files.data.size(), 1u);
  EXPECT_EQ(files.data[0], std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8));
}

TEST(TfBundleFormat, ReaderReadsTheHandAssembledIndex) {
  const TfBundleIndex index = parse_tf_bundle_index(one_tensor_index(), "one.index");
  EXPECT_EQ(index.header.num_shards, 1);
  EXPECT_EQ(index.header.endianness, 0);
  EXPECT_EQ(index.header.producer, 1);
  EXPECT_EQ(index.header.min_consumer, 0);
  ASSERT_EQ(index.entries.size(), 1u);
  const TfBundleEntry& w = index.entries[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.dtype, TfDType::kFloat);
  EXPECT_EQ(w.shape, Shape({2}));
  EXPECT_EQ(w.shard_id, 0);
  EXPECT_EQ(w.offset, 0);
  EXPECT_EQ(w.size, 8);
  EXPECT_EQ(w.masked_crc32c, 0x88163f45u);
  EXPECT_FALSE(w.sliced);
  const Tensor t =
      tf_tensor_to_float(w, std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8), "one.data");
  EXPECT_EQ(t.to_vector(), (std::vector<float>{1.0f, -2.0f}));
}

TEST(TfBundleFormat, Varints) {
  std::string s;
  tfw::put_varint(s, 300);  // 300 = 0b10_0101100: low 7 bits first, continuation bit set
  EXPECT_EQ(s, "\xac\x02");
  tfw::put_varint(s, UINT64_MAX);  // 64 bits take 9 * 7 + 1: ten bytes, the last 0x01
  EXPECT_EQ(s.size(), 12u);
  EXPECT_EQ(s.back(), '\x01');
  ByteCursor in(s, "v");
  EXPECT_EQ(in.varint64(), 300u);
  EXPECT_EQ(in.varint64(), UINT64_MAX);
  EXPECT_TRUE(in.at_end());

  auto read64 = [](const std::string& bytes) {
    return input_error([&] { ByteCursor(bytes, "v").varint64(); });
  };
  EXPECT_NE(read64(std::string(9, '\xff') + '\x02').find("overflows 64 bits"), std::string::npos);
  EXPECT_NE(read64(std::string(10, '\x80') + '\x00').find("overflows"), std::string::npos);
  EXPECT_NE(read64("\x80\x80").find("v: truncated varint"), std::string::npos);
  const std::string two_to_32("\x80\x80\x80\x80\x10", 5);
  EXPECT_NE(input_error([&] { ByteCursor(two_to_32, "v").varint32(); }).find("32 bits"),
            std::string::npos);
}

TEST(TfBundleFormat, ProtoReaderSkipsUnknownFieldsOfEveryWireType) {
  std::string m;
  tfw::put_int_field(m, 1, -1);  // a negative int32: ten bytes
  tfw::put_key(m, 9, 1);         // fixed64
  tfw::put_fixed(m, 0x0102030405060708ull, 8);
  tfw::put_bytes_field(m, 200, "skipped");
  tfw::put_fixed32_field(m, 3, 0xdeadbeef);
  ProtoReader in(m, "m");
  std::vector<uint32_t> numbers;
  ProtoField f;
  ASSERT_TRUE(in.next(f));
  EXPECT_EQ(proto_int32(f, "m"), -1);
  numbers.push_back(f.number);
  while (in.next(f)) numbers.push_back(f.number);
  EXPECT_EQ(numbers, (std::vector<uint32_t>{1, 9, 200, 3}));
  EXPECT_EQ(f.value, 0xdeadbeefu);

  const std::string group("\x0b\x0c", 2);  // field 1, wire type 3 (start group)
  EXPECT_NE(input_error([&] { ProtoReader(group, "m").next(f); }).find("wire type 3"),
            std::string::npos);
  const std::string long_bytes(
      "\x12\x05"
      "ab",
      4);  // 5 bytes announced, 2 there
  EXPECT_NE(input_error([&] { ProtoReader(long_bytes, "m").next(f); }).find("m: truncated"),
            std::string::npos);
  const std::string field_zero("\x00\x01", 2);
  EXPECT_NE(input_error([&] { ProtoReader(field_zero, "m").next(f); }).find("bad field key"),
            std::string::npos);
}

TEST(TfBundleFormat, UnknownFieldsOfEntriesAndHeaderAreSkipped) {
  std::string header = tfw::header_proto();
  tfw::put_bytes_field(header, 4, "a newer field");
  std::string dim;  // Dim { size 3, name "rows" }
  tfw::put_int_field(dim, 1, 3);
  tfw::put_bytes_field(dim, 2, "rows");
  std::string shape;
  tfw::put_bytes_field(shape, 2, dim);
  tfw::put_int_field(shape, 3, 0);  // unknown_rank false
  std::string entry;
  tfw::put_int_field(entry, 1, 1);
  tfw::put_fixed32_field(entry, 30, 7);  // unknown, before the known ones too
  tfw::put_bytes_field(entry, 2, shape);
  tfw::put_int_field(entry, 5, 12);
  tfw::put_key(entry, 31, 1);
  tfw::put_fixed(entry, 0, 8);
  tfw::put_fixed32_field(entry, 6, 99);
  tfw::put_int_field(entry, 8, 5);
  const std::string index = tfw::build_table({{"", header}, {"t", entry}});
  const TfBundleIndex parsed = parse_tf_bundle_index(index, "x.index");
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].shape, Shape({3}));
  EXPECT_EQ(parsed.entries[0].size, 12);
  EXPECT_EQ(parsed.entries[0].masked_crc32c, 99u);
}

TEST(TfBundleFormat, SeparatorKeysAsLevelDbMakesThem) {
  EXPECT_EQ(tfw::shortest_separator("abcd", "abzz"), "abd");  // 'c' + 1 < 'z'
  EXPECT_EQ(tfw::shortest_separator("abcd", "abd"), "abcd");  // 'c' + 1 == 'd': kept
  EXPECT_EQ(tfw::shortest_separator("ab", "abc"), "ab");      // a prefix: kept
  EXPECT_EQ(tfw::short_successor("model/wte"), "n");
  EXPECT_EQ(tfw::short_successor("\xff\xff"
                                 "a"),
            "\xff\xff"
            "b");
  EXPECT_EQ(tfw::short_successor("\xff"), "\xff");
  EXPECT_EQ(tfw::short_successor(""), "");
}

// The handles in the footer, read from the raw bytes.
struct FooterHandles {
  uint64_t index_offset = 0, index_size = 0;
};
FooterHandles footer_handles(const std::string& file) {
  ByteCursor in(std::string_view(file).substr(file.size() - kTableFooterSize), "footer");
  in.varint64();
  in.varint64();
  FooterHandles h;
  h.index_offset = in.varint64();
  h.index_size = in.varint64();
  return h;
}

uint32_t restart_count(std::string_view block) {
  ByteCursor in(block.substr(block.size() - 4), "block");
  return in.fixed32();
}

// The size of the data block that the first entry of an index block points to.
uint64_t first_block_size(std::string_view index_block) {
  ByteCursor in(index_block, "index");
  in.varint32();                     // shared
  const uint32_t n = in.varint32();  // non_shared
  in.varint32();                     // value length
  in.bytes(n);                       // key
  in.varint64();                     // offset
  return in.varint64();
}

TEST(TfBundleFormat, ManyEntriesMakeBlocksRestartsAndIndexEntries) {
  std::vector<tfw::BundleTensor> tensors;
  for (int i = 0; i < 300; ++i)
    tensors.push_back(tfw::float_tensor("model/h" + std::to_string(i) + "/attn/c_attn/w", {1},
                                        {static_cast<float>(i)}));
  const tfw::Files files = tfw::build_bundle(tensors, {}, {.block_size = 1024});
  const FooterHandles h = footer_handles(files.index);
  const std::string_view index_block =
      std::string_view(files.index).substr(h.index_offset, h.index_size);
  const uint32_t data_blocks = restart_count(index_block);  // one restart per index entry
  EXPECT_GT(data_blocks, 10u);
  const std::string_view first_block =
      std::string_view(files.index).substr(0, first_block_size(index_block));
  EXPECT_GT(restart_count(first_block), 1u);  // a restart every 16 entries

  const TfBundleIndex parsed = parse_tf_bundle_index(files.index, "many.index");
  ASSERT_EQ(parsed.entries.size(), 300u);
  for (size_t i = 1; i < parsed.entries.size(); ++i)
    EXPECT_LT(parsed.entries[i - 1].name, parsed.entries[i].name);
  const TfBundleEntry* e = parsed.find("model/h123/attn/c_attn/w");
  ASSERT_NE(e, nullptr);
  const std::string bytes = files.data[0].substr(e->offset, e->size);
  EXPECT_EQ(tf_tensor_to_float(*e, bytes, "many.data")[0], 123.0f);
}

// ---- malformed tables, block by block --------------------------------------------------

// Appends block + a trailer of the given type with a correct checksum; returns its handle.
std::string append_typed_block(std::string& file, std::string_view block, char type) {
  std::string handle;
  tfw::put_varint(handle, file.size());
  tfw::put_varint(handle, block.size());
  const std::string typed = std::string(block) + type;
  file += typed;
  tfw::put_fixed(file, crc32c_mask(crc32c(typed)), 4);
  return handle;
}

// A table of the given (finished) data blocks, the i-th indexed under index_keys[i].
std::string table_of(const std::vector<std::string>& blocks,
                     const std::vector<std::string>& index_keys, char type = 0) {
  std::string file;
  tfw::BlockBuilder index(1);
  for (size_t i = 0; i < blocks.size(); ++i)
    index.add(index_keys[i], append_typed_block(file, blocks[i], type));
  const std::string meta = tfw::append_block(file, tfw::BlockBuilder(16).finish());
  const std::string idx = tfw::append_block(file, index.finish());
  return file + tfw::footer(meta, idx);
}

std::string block_of(const std::vector<std::string>& keys) {
  tfw::BlockBuilder b(16);
  for (const std::string& k : keys) b.add(k, "v");
  return b.finish();
}

std::string table_error(const std::string& file) {
  return input_error([&] { read_leveldb_table(file, "bad.index"); });
}

TEST(TfBundleFormat, WellFormedHandBuiltTableReads) {
  const std::string file = table_of({block_of({"a", "b"}), block_of({"c"})}, {"b", "d"});
  const std::vector<TableEntry> t = read_leveldb_table(file, "ok.index");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2].key, "c");
  EXPECT_EQ(t[2].value, "v");
}

TEST(TfBundleFormat, KeysOutOfOrderOrRepeated) {
  EXPECT_NE(table_error(table_of({block_of({"b", "a"})}, {"c"})).find("keys out of order"),
            std::string::npos);
  EXPECT_NE(table_error(table_of({block_of({"a", "a"})}, {"c"})).find("keys out of order"),
            std::string::npos);
  const std::string across = table_of({block_of({"b"}), block_of({"a"})}, {"b", "c"});
  EXPECT_NE(table_error(across).find("out of order with the previous block"), std::string::npos);
  const std::string beyond = table_of({block_of({"a", "m"})}, {"b"});
  EXPECT_NE(table_error(beyond).find("beyond its index entry"), std::string::npos);
}

TEST(TfBundleFormat, MalformedBlockStructure) {
  // Entries "ab" (shared 0) and "ac" (shared 1, at offset 6); restarts [0, 7]: 7 is inside.
  std::string entries(
      "\x00\x02\x01"
      "ab"
      "v"
      "\x01\x01\x01"
      "c"
      "v",
      11);
  std::string block = entries;
  tfw::put_fixed(block, 0, 4);
  tfw::put_fixed(block, 7, 4);
  tfw::put_fixed(block, 2, 4);
  EXPECT_NE(table_error(table_of({block}, {"b"})).find("restart offset 7"), std::string::npos);

  block = entries;  // a restart at 6, an entry that shares a byte with the previous key
  tfw::put_fixed(block, 0, 4);
  tfw::put_fixed(block, 6, 4);
  tfw::put_fixed(block, 2, 4);
  EXPECT_NE(table_error(table_of({block}, {"b"})).find("restart offset 6"), std::string::npos);

  block = entries;
  tfw::put_fixed(block, 1000, 4);  // more restarts than the block has bytes
  EXPECT_NE(table_error(table_of({block}, {"b"})).find("restart count 1000"), std::string::npos);

  block = std::string(
      "\x00\x01\x01"
      "a"
      "v"
      "\x03\x01\x01"
      "b"
      "v",
      10);
  tfw::put_fixed(block, 0, 4);
  tfw::put_fixed(block, 1, 4);
  EXPECT_NE(table_error(table_of({block}, {"b"})).find("shares 3 bytes of a 1-byte"),
            std::string::npos);

  EXPECT_NE(table_error(table_of({std::string("\x01\x00", 2)}, {"b"})).find("too short"),
            std::string::npos);
  tfw::BlockBuilder big(16);
  big.add(std::string(kMaxTableKeyBytes + 1, 'k'), "");
  EXPECT_NE(table_error(table_of({big.finish()}, {"l"})).find("key longer than 65536"),
            std::string::npos);
}

TEST(TfBundleFormat, CompressedBlocksAreRefused) {
  const std::string snappy = table_of({block_of({"a"})}, {"b"}, '\x01');
  EXPECT_NE(table_error(snappy).find("bad.index: block at offset 0: snappy-compressed"),
            std::string::npos);
  const std::string zstd = table_of({block_of({"a"})}, {"b"}, '\x02');
  EXPECT_NE(table_error(zstd).find("unknown compression type 2"), std::string::npos);
}

TEST(TfBundleFormat, BlockHandlesOutsideTheFileOrOutOfOrder) {
  std::string file;  // an index whose one entry points past the end of the file
  tfw::BlockBuilder index(1);
  index.add("b", std::string("\x00\xff\x01", 3));  // offset 0, size 255
  const std::string meta = tfw::append_block(file, tfw::BlockBuilder(16).finish());
  const std::string idx = tfw::append_block(file, index.finish());
  EXPECT_NE(table_error(file + tfw::footer(meta, idx)).find("runs past the end of the file"),
            std::string::npos);

  // Two index entries for the same block: the second does not follow the first.
  std::string twice;
  const std::string h = tfw::append_block(twice, block_of({"a"}));
  tfw::BlockBuilder index2(1);
  index2.add("a", h);
  index2.add("b", h);
  const std::string meta2 = tfw::append_block(twice, tfw::BlockBuilder(16).finish());
  const std::string idx2 = tfw::append_block(twice, index2.finish());
  EXPECT_NE(table_error(twice + tfw::footer(meta2, idx2)).find("bad block handle"),
            std::string::npos);

  std::string trailing = h + "x";  // a handle with a byte after it
  std::string file3;
  tfw::append_block(file3, block_of({"a"}));
  tfw::BlockBuilder index3(1);
  index3.add("a", trailing);
  const std::string meta3 = tfw::append_block(file3, tfw::BlockBuilder(16).finish());
  const std::string idx3 = tfw::append_block(file3, index3.finish());
  EXPECT_NE(table_error(file3 + tfw::footer(meta3, idx3)).find("bad block handle"),
            std::string::npos);
}

TEST(TfBundleFormat, FooterErrors) {
  EXPECT_NE(table_error("").find("bad.index: truncated (0 bytes"), std::string::npos);
  EXPECT_NE(table_error(std::string(47, '\0')).find("truncated (47 bytes"), std::string::npos);
  std::string wrong = one_tensor_index();
  wrong[wrong.size() - 1] ^= 1;
  EXPECT_NE(table_error(wrong).find("bad.index: bad magic number"), std::string::npos);
  EXPECT_NE(table_error(std::string(48, '\0')).find("bad magic number"), std::string::npos);
}

}  // namespace
}  // namespace tinylm
