// Tests of reading TensorFlow checkpoints (io/tf_bundle.h) from files that the test writer
// (tests/io/tf_bundle_writer.h) makes: round trips of odd shapes, scalars, empty and rank-3
// and rank-4 tensors in float32, float16, bfloat16 and float64; many tensors over many
// blocks; several shards; and one test per error: corrupt data (checksum), corrupt index
// (every single flipped byte is caught or harmless), truncation, wrong magic, missing
// files, sizes and offsets that lie, unsupported dtypes, sliced tensors, bad headers.
#include "io/tf_bundle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "io/tf_bundle_writer.h"
#include "util/files.h"
#include "util/float16.h"

namespace tinylm {
namespace {

using testing::input_error;

// A fresh folder per test, removed afterwards; prefix() is FOLDER/model.ckpt.
class TfBundleFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("tinylm_tf_bundle_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string prefix() const { return (dir_ / "model.ckpt").string(); }
  std::string data_path() const { return prefix() + ".data-00000-of-00001"; }
  TfBundle write_and_open(const tfw::Files& files) {
    tfw::write_files(prefix(), files);
    return open_tf_bundle(prefix());
  }
  std::string open_error() {
    return input_error([&] { open_tf_bundle(prefix()); });
  }

  std::filesystem::path dir_;
};

std::vector<float> bundle_values(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(gen);
  return v;
}

std::vector<float> as_floats(const std::string& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

tfw::BundleTensor random_tensor(const std::string& name, const Shape& shape, uint32_t seed) {
  return tfw::float_tensor(name, shape, bundle_values(shape_numel(shape), seed));
}

// A float16 / bfloat16 / float64 tensor holding `values` (exact in every one of them).
tfw::BundleTensor typed_tensor(const std::string& name, TfDType dtype, const Shape& shape,
                               const std::vector<float>& values) {
  std::string bytes;
  for (const float v : values) {
    if (dtype == TfDType::kDouble) {
      const double d = v;
      bytes.append(reinterpret_cast<const char*>(&d), 8);
    } else {
      const uint16_t h = dtype == TfDType::kHalf ? float_to_half(v) : float_to_bf16(v);
      bytes.append(reinterpret_cast<const char*>(&h), 2);
    }
  }
  return {name, dtype, shape, bytes, 0};
}

TEST_F(TfBundleFiles, RoundTripOfShapesAndDtypes) {
  const std::vector<float> small = {0.5f, -1.25f, 3.0f, 0.0f, -0.0f, 1024.0f};
  std::vector<tfw::BundleTensor> tensors = {
      random_tensor("model/h0/attn/c_attn/w", {1, 8, 24}, 1),  // GPT-2's [1, 768, 2304]
      random_tensor("model/wte", {11, 8}, 2),
      random_tensor("model/h0/attn/c_attn/b", {24}, 3),
      tfw::float_tensor("model/scalar", {}, {2.5f}),
      tfw::float_tensor("model/empty", {0, 4}, {}),
      random_tensor("model/rank4", {2, 1, 3, 2}, 4),
      typed_tensor("half", TfDType::kHalf, {2, 3}, small),
      typed_tensor("bf16", TfDType::kBFloat16, {6}, small),
      typed_tensor("f64", TfDType::kDouble, {3, 2}, small),
  };
  const TfBundle b = write_and_open(tfw::build_bundle(tensors));
  ASSERT_EQ(b.tensors().size(), tensors.size());
  for (size_t i = 1; i < b.tensors().size(); ++i)
    EXPECT_LT(b.tensors()[i - 1].name, b.tensors()[i].name);  // in key order
  for (const tfw::BundleTensor& t : tensors) {
    SCOPED_TRACE(t.name);
    const TfBundleEntry& e = b.get(t.name);
    EXPECT_EQ(e.dtype, t.dtype);
    EXPECT_EQ(e.shape, t.shape);
    EXPECT_EQ(b.read_bytes(t.name), t.bytes);
    const Tensor f = b.read_float(t.name);
    EXPECT_EQ(f.shape(), t.shape);
    EXPECT_EQ(f.to_vector(), t.dtype == TfDType::kFloat ? as_floats(t.bytes) : small);
  }
  EXPECT_EQ(tf_dtype_name(b.get("half").dtype), "float16");
}

TEST_F(TfBundleFiles, ManyTensorsOverManyBlocks) {
  std::vector<tfw::BundleTensor> tensors;
  for (int i = 0; i < 200; ++i)
    tensors.push_back(random_tensor("model/h" + std::to_string(i) + "/mlp/c_fc/w", {3, 5},
                                    static_cast<uint32_t>(i)));
  const TfBundle b = write_and_open(tfw::build_bundle(tensors, {}, {.block_size = 700}));
  ASSERT_EQ(b.tensors().size(), 200u);
  for (const tfw::BundleTensor& t : tensors) ASSERT_EQ(b.read_bytes(t.name), t.bytes) << t.name;
}

TEST_F(TfBundleFiles, SeveralShards) {
  std::vector<tfw::BundleTensor> tensors;
  for (int i = 0; i < 6; ++i) {
    tensors.push_back(random_tensor("t" + std::to_string(i), {i + 1}, static_cast<uint32_t>(i)));
    tensors.back().shard = i % 3;
  }
  const TfBundle b = write_and_open(tfw::build_bundle(tensors, {.num_shards = 3}));
  EXPECT_EQ(b.index.header.num_shards, 3);
  EXPECT_TRUE(std::filesystem::exists(prefix() + ".data-00002-of-00003"));
  for (const tfw::BundleTensor& t : tensors) {
    EXPECT_EQ(b.get(t.name).shard_id, t.shard);
    EXPECT_EQ(b.read_bytes(t.name), t.bytes);
  }
}

TEST_F(TfBundleFiles, DataPathsAndTheIndexPathAsPrefix) {
  EXPECT_EQ(tf_bundle_data_path("a/model.ckpt", 2, 15), "a/model.ckpt.data-00002-of-00015");
  write_and_open(tfw::build_bundle({random_tensor("w", {2}, 1)}));
  EXPECT_EQ(open_tf_bundle(prefix() + ".index").prefix, prefix());
}

TEST_F(TfBundleFiles, OtherDtypesAreListedAndReadAsBytes) {
  tfw::BundleTensor step{"global_step", TfDType::kInt64, {}, std::string(8, '\0'), 0};
  step.bytes[0] = 42;
  const TfBundle b = write_and_open(tfw::build_bundle({step}));
  EXPECT_EQ(b.get("global_step").dtype, TfDType::kInt64);
  EXPECT_EQ(b.read_bytes("global_step"), step.bytes);
  const std::string err = input_error([&] { b.read_float("global_step"); });
  EXPECT_NE(err.find(data_path() + ": tensor global_step: dtype int64; tinylm reads float32"),
            std::string::npos)
      << err;
}

TEST_F(TfBundleFiles, FlippedDataByteIsAChecksumMismatch) {
  const TfBundle b = write_and_open(tfw::build_bundle(
      {random_tensor("model/wpe", {4, 3}, 1), random_tensor("model/wte", {5, 3}, 2)}));
  std::string data = read_file(data_path());
  data[b.get("model/wte").offset + 7] ^= 0x10;
  write_file_atomic(data_path(), data);
  EXPECT_EQ(b.read_bytes("model/wpe").size(), 48u);  // the other tensor is intact
  const std::string err = input_error([&] { b.read_float("model/wte"); });
  EXPECT_NE(err.find("model.ckpt.data-00000-of-00001: tensor model/wte: checksum mismatch (the "
                     "file is corrupt)"),
            std::string::npos)
      << err;
}

bool same_entry(const TfBundleEntry& a, const TfBundleEntry& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.shard_id == b.shard_id &&
         a.offset == b.offset && a.size == b.size && a.masked_crc32c == b.masked_crc32c &&
         a.sliced == b.sliced;
}

// Every single-byte change of an index is refused with InputError, or reads back the
// same entries (a changed byte in the footer's padding or the metaindex block, which
// TensorFlow ignores too).
TEST_F(TfBundleFiles, EveryFlippedIndexByteIsCaughtOrHarmless) {
  std::vector<tfw::BundleTensor> tensors;
  for (int i = 0; i < 40; ++i)
    tensors.push_back(random_tensor("layer" + std::to_string(i) + "/w", {2}, 1));
  const tfw::Files files = tfw::build_bundle(tensors, {}, {.block_size = 300});
  const TfBundleIndex good = parse_tf_bundle_index(files.index, "good");
  int caught = 0;
  for (size_t i = 0; i < files.index.size(); ++i) {
    std::string bad = files.index;
    bad[i] ^= 0x04;
    try {
      const TfBundleIndex read = parse_tf_bundle_index(bad, "bad");
      ASSERT_EQ(read.entries.size(), good.entries.size()) << "byte " << i;
      for (size_t k = 0; k < read.entries.size(); ++k)
        ASSERT_TRUE(same_entry(read.entries[k], good.entries[k])) << "byte " << i;
    } catch (const InputError&) {
      ++caught;
    }
  }
  // Harmless: at most the 13 bytes of the metaindex block and the footer's first 40 bytes
  // (the metaindex handle and the padding); everything else is caught.
  EXPECT_GE(caught,
            static_cast<int>(files.index.size()) - 13 - 40);  // all but footer padding, metaindex
}

TEST_F(TfBundleFiles, FlippedIndexByteIsABlockChecksumMismatch) {
  tfw::Files files = tfw::build_bundle({random_tensor("model/wte", {2}, 1)});
  files.index[12] ^= 0x01;  // inside the first data block
  tfw::write_files(prefix(), files);
  EXPECT_NE(open_error().find("model.ckpt.index: block at offset 0: checksum mismatch (the file "
                              "is corrupt)"),
            std::string::npos)
      << open_error();
}

TEST_F(TfBundleFiles, TruncatedIndexAtEveryLength) {
  const tfw::Files files =
      tfw::build_bundle({random_tensor("a", {2}, 1), random_tensor("b", {3}, 2)});
  for (size_t n = 0; n < files.index.size(); ++n)
    EXPECT_FALSE(
        input_error([&] { parse_tf_bundle_index(files.index.substr(0, n), "cut"); }).empty())
        << n;
}

TEST_F(TfBundleFiles, WrongMagic) {
  tfw::Files files = tfw::build_bundle({random_tensor("a", {2}, 1)});
  files.index[files.index.size() - 8] = 'X';
  tfw::write_files(prefix(), files);
  EXPECT_NE(open_error().find("model.ckpt.index: bad magic number"), std::string::npos);
}

TEST_F(TfBundleFiles, TruncatedDataFile) {
  tfw::Files files = tfw::build_bundle({random_tensor("a", {2}, 1), random_tensor("b", {4}, 2)});
  files.data[0].resize(files.data[0].size() - 1);
  tfw::write_files(prefix(), files);
  const std::string err = open_error();
  EXPECT_NE(err.find(data_path() + ": tensor b: bytes [8, 24) lie beyond the end of the data "
                                   "file (23 bytes; truncated?)"),
            std::string::npos)
      << err;
}

TEST_F(TfBundleFiles, MissingFiles) {
  EXPECT_NE(open_error().find("model.ckpt.index"), std::string::npos);  // no index at all
  tfw::write_files(prefix(), tfw::build_bundle({random_tensor("a", {2}, 1)}));
  std::filesystem::remove(data_path());
  EXPECT_NE(open_error().find(data_path() + ": data file missing (" + prefix() + ".index"),
            std::string::npos)
      << open_error();
  const TfBundle empty = write_and_open(tfw::build_bundle({}));  // no tensors: no data needed
  EXPECT_TRUE(empty.tensors().empty());
  EXPECT_NE(input_error([&] { empty.get("a"); }).find("model.ckpt.index: no tensor named a"),
            std::string::npos);
}

// An index with the given entry (its value bytes) after a default header.
tfw::Files with_entry(const TfBundleEntry& e, const std::string& data) {
  tfw::Files files;
  files.index = tfw::build_table({{"", tfw::header_proto()}, {e.name, tfw::entry_proto(e)}});
  files.data = {data};
  return files;
}

TEST_F(TfBundleFiles, EntriesThatLie) {
  TfBundleEntry e{"t", TfDType::kFloat, {2, 3}, 0, 0, 20, 0, false};
  tfw::write_files(prefix(), with_entry(e, std::string(24, '\0')));
  EXPECT_NE(open_error().find("model.ckpt.index: tensor t: 20 bytes do not hold a float32 tensor "
                              "of shape [2, 3] (24 bytes)"),
            std::string::npos)
      << open_error();

  e.size = 24, e.offset = 100;
  tfw::write_files(prefix(), with_entry(e, std::string(24, '\0')));
  EXPECT_NE(open_error().find("bytes [100, 124) lie beyond the end"), std::string::npos);

  e.offset = 0, e.shard_id = 1;
  tfw::write_files(prefix(), with_entry(e, std::string(24, '\0')));
  EXPECT_NE(open_error().find("tensor t: shard 1 of a bundle of 1"), std::string::npos);

  e.shard_id = 0, e.offset = -4;
  tfw::write_files(prefix(), with_entry(e, std::string(24, '\0')));
  EXPECT_NE(open_error().find("negative offset"), std::string::npos);

  e.offset = 0, e.shape = {int64_t{1} << 40, int64_t{1} << 40};
  tfw::write_files(prefix(), with_entry(e, std::string(24, '\0')));
  EXPECT_NE(open_error().find("too large"), std::string::npos);
}

TEST_F(TfBundleFiles, ShapesTinylmDoesNotRead) {
  std::string shape;  // a dimension of size -1 (unknown)
  std::string dim;
  tfw::put_int_field(dim, 1, -1);
  tfw::put_bytes_field(shape, 2, dim);
  std::string entry;
  tfw::put_int_field(entry, 1, 1);
  tfw::put_bytes_field(entry, 2, shape);
  tfw::Files files{tfw::build_table({{"", tfw::header_proto()}, {"t", entry}}), {""}};
  tfw::write_files(prefix(), files);
  EXPECT_NE(open_error().find("tensor t: shape: dimension of unknown size -1"), std::string::npos)
      << open_error();

  std::string unknown_rank, entry2;
  tfw::put_int_field(unknown_rank, 3, 1);
  tfw::put_bytes_field(entry2, 2, unknown_rank);
  files.index = tfw::build_table({{"", tfw::header_proto()}, {"t", entry2}});
  tfw::write_files(prefix(), files);
  EXPECT_NE(open_error().find("unknown rank"), std::string::npos);

  const TfBundle b = write_and_open(tfw::build_bundle({random_tensor("r5", {1, 2, 1, 2, 1}, 1)}));
  EXPECT_EQ(b.read_bytes("r5").size(), 16u);  // listed and readable as bytes
  EXPECT_NE(input_error([&] { b.read_float("r5"); }).find("more than 4 dimensions"),
            std::string::npos);
  std::string nine_dims, entry3;  // Shape holds at most 8: built field by field
  for (int i = 0; i < 9; ++i) tfw::put_bytes_field(nine_dims, 2, "\x08\x01");
  tfw::put_int_field(entry3, 1, 1);
  tfw::put_bytes_field(entry3, 2, nine_dims);
  files.index = tfw::build_table({{"", tfw::header_proto()}, {"r9", entry3}});
  tfw::write_files(prefix(), files);
  EXPECT_NE(open_error().find("tensor r9: shape: more than 8 dimensions"), std::string::npos);
}

TEST_F(TfBundleFiles, UnsupportedDtypesAndSlicedTensors) {
  TfBundleEntry s{"names", TfDType::kString, {2}, 0, 0, 10, 0, false};
  tfw::write_files(prefix(), with_entry(s, std::string(10, 'x')));
  const TfBundle b = open_tf_bundle(prefix());
  EXPECT_EQ(tf_dtype_name(b.get("names").dtype), "string");
  EXPECT_NE(input_error([&] { b.read_bytes("names"); }).find("dtype string is not supported"),
            std::string::npos);
  EXPECT_NE(input_error([&] { b.read_float("names"); }).find("dtype string; tinylm reads"),
            std::string::npos);
  EXPECT_EQ(tf_dtype_name(static_cast<TfDType>(77)), "dtype 77");

  const std::string sliced = tfw::entry_proto({"part", TfDType::kFloat, {4}, 0, 0, 0, 0, true});
  tfw::write_files(prefix(),
                   {tfw::build_table({{"", tfw::header_proto()}, {"part", sliced}}), {""}});
  const TfBundle p = open_tf_bundle(prefix());
  EXPECT_TRUE(p.get("part").sliced);
  EXPECT_NE(input_error([&] { p.read_float("part"); }).find("partitioned (sliced)"),
            std::string::npos);
}

TEST_F(TfBundleFiles, BadHeaders) {
  auto header_error = [&](const tfw::HeaderFields& h) {
    return input_error([&] {
      parse_tf_bundle_index(tfw::build_table({{"", tfw::header_proto(h)}}), "x.index");
    });
  };
  EXPECT_NE(header_error({.endianness = 1}).find("x.index: header: written on a big-endian"),
            std::string::npos);
  EXPECT_NE(header_error({.endianness = 5}).find("unknown endianness 5"), std::string::npos);
  EXPECT_NE(header_error({.num_shards = 0}).find("header: 0 shards"), std::string::npos);
  EXPECT_NE(header_error({.num_shards = -3}).find("header: -3 shards"), std::string::npos);
  EXPECT_NE(header_error({.min_consumer = 2}).find("needs a newer reader"), std::string::npos);

  const std::string no_header = tfw::build_table({{"t", "\x08\x01"}});
  EXPECT_NE(input_error([&] {
              parse_tf_bundle_index(no_header, "x.index");
            }).find("x.index: no header entry"),
            std::string::npos);
  EXPECT_NE(input_error([&] {
              parse_tf_bundle_index(tfw::build_table({}), "x.index");
            }).find("no header entry"),
            std::string::npos);
  const std::string bad_header = tfw::build_table({{"", "\x08"}});  // a truncated varint
  EXPECT_NE(input_error([&] {
              parse_tf_bundle_index(bad_header, "x.index");
            }).find("x.index: header: truncated varint"),
            std::string::npos);
  const std::string wrong_type =
      tfw::build_table({{"", std::string("\x0d\x01\x00\x00\x00", 5)}});  // fixed32
  EXPECT_NE(input_error([&] {
              parse_tf_bundle_index(wrong_type, "x.index");
            }).find("field 1 has wire type 5, expected 0"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
