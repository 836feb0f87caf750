// Tests of the safetensors reader/writer: round trips, deterministic output, the Hugging
// Face fixture files, one test per kind of malformed file, a randomized robustness test,
// and the F16/BF16/F64/integer converters.
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

const std::string kFixtures = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro/";

// A safetensors file from its header text and data buffer, built by hand.
std::string make_file(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

// A file whose 8-byte length field says `header_len` whatever follows.
std::string with_length(uint64_t header_len, const std::string& rest) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &header_len, 8);
  return out + rest;
}

template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), sizeof(T) * values.size());
}

// Expects parse_safetensors to throw an InputError whose message holds every fragment.
void expect_error(const std::string& bytes, const std::vector<std::string>& fragments) {
  try {
    parse_safetensors(bytes, "bad.safetensors");
    ADD_FAILURE() << "parsed without error; expected: " << fragments.front();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.safetensors"), std::string::npos) << msg;
    for (const std::string& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << msg;
  }
}

// A header with one F32 tensor "t" of the given shape/offsets JSON and an 8-byte buffer.
std::string one_tensor(const std::string& fields, const std::string& data = std::string(8, 'x')) {
  return make_file("{\"t\": {" + fields + "}}", data);
}

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), sizeof(float) * a.numel()) == 0;
}

std::vector<std::pair<std::string, Tensor>> sample_tensors() {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  auto random = [&](const Shape& shape) {
    Tensor t = Tensor::empty(shape);
    for (int64_t i = 0; i < t.numel(); ++i) t[i] = normal(gen);
    return t;
  };
  Tensor special = Tensor::from({6}, {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::denorm_min(), -1e38f});
  return {{"wte.weight", random({16, 8})},
          {"h.0.attn.c_attn.weight", random({8, 24})},
          {"scalar", Tensor::full({}, 3.5f)},
          {"empty", Tensor::zeros({0, 4})},
          {"four.d", random({2, 3, 1, 2})},
          {"special", special},
          {"a.bias", random({8})}};
}

}  // namespace

// ---- writing and round trips ---------------------------------------------------------

TEST(SafeTensors, RoundTripIsBitIdentical) {
  const auto tensors = sample_tensors();
  const std::map<std::string, std::string> meta = {{"format", "pt"}, {"step", "12"}, {"ü", "ß"}};
  const std::string path =
      (std::filesystem::temp_directory_path() / "tinylm_io_roundtrip.safetensors").string();
  save_safetensors(path, tensors, meta);
  EXPECT_FALSE(file_exists(path + ".tmp"));
  const SafeTensors f = load_safetensors(path);
  std::filesystem::remove(path);

  EXPECT_EQ(f.metadata, meta);
  ASSERT_EQ(f.names.size(), tensors.size());
  ASSERT_EQ(f.tensors.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, t] = tensors[i];
    EXPECT_EQ(f.names[i], name);  // header order is the order given
    const SafeTensorEntry& e = f.get(name);
    EXPECT_EQ(e.dtype, "F32");
    EXPECT_EQ(e.shape, t.shape()) << name;
    EXPECT_TRUE(bit_equal(e.to_float(), t)) << name;
    EXPECT_TRUE(bit_equal(f.get_float(name), t)) << name;
  }
}

TEST(SafeTensors, WriterIsDeterministicAndAligned) {
  const auto tensors = sample_tensors();
  const std::string a = serialize_safetensors(tensors, {{"format", "pt"}});
  const std::string b = serialize_safetensors(tensors, {{"format", "pt"}});
  EXPECT_EQ(a, b);

  // Saved twice: identical files.
  const auto dir = std::filesystem::temp_directory_path();
  const std::string p1 = (dir / "tinylm_io_det1.safetensors").string();
  const std::string p2 = (dir / "tinylm_io_det2.safetensors").string();
  save_safetensors(p1, tensors, {{"format", "pt"}});
  save_safetensors(p2, tensors, {{"format", "pt"}});
  EXPECT_EQ(read_file(p1), a);
  EXPECT_EQ(read_file(p2), a);
  std::filesystem::remove(p1);
  std::filesystem::remove(p2);

  // The data buffer starts on an 8-byte boundary; the padding is spaces.
  uint64_t n;
  std::memcpy(&n, a.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
  EXPECT_NE(a[8 + n - 1], '\0');
}

TEST(SafeTensors, WriterExactBytes) {
  // What PyTorch/HF's safetensors reads: compact JSON, offsets contiguous, padded header.
  const std::string bytes = serialize_safetensors(
      {{"b", Tensor::from({2}, {1.0f, -2.0f})}, {"a", Tensor::full({1, 1}, 0.5f)}},
      {{"format", "pt"}});
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("a":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}})";
  std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  EXPECT_EQ(bytes, make_file(padded, raw_bytes<float>({1.0f, -2.0f, 0.5f})));

  // No metadata: no "__metadata__" key at all.
  const std::string plain = serialize_safetensors({}, {});
  EXPECT_EQ(plain, make_file("{}      "));
  const SafeTensors f = parse_safetensors(plain, "plain");
  EXPECT_TRUE(f.tensors.empty());
  EXPECT_TRUE(f.metadata.empty());
}

TEST(SafeTensors, WritesInt64AndMixedEntries) {
  const std::vector<int64_t> ids = {0, 1, -5, std::numeric_limits<int64_t>::max(), 511, 7};
  const Tensor w = Tensor::from({2, 2}, {1, 2, 3, 4});
  const std::string bytes = serialize_safetensor_entries(
      {{"input_ids", int64_entry({2, 3}, ids)}, {"w", float32_entry(w)}}, {});
  const SafeTensors f = parse_safetensors(bytes, "mixed");
  EXPECT_EQ(f.get("input_ids").dtype, "I64");
  EXPECT_EQ(f.get("input_ids").shape, (Shape{2, 3}));
  EXPECT_EQ(f.get_int64("input_ids"), ids);
  EXPECT_TRUE(bit_equal(f.get_float("w"), w));
  // A loaded entry writes back to the same bytes.
  std::vector<std::pair<std::string, SafeTensorEntry>> again;
  for (const std::string& name : f.names) again.emplace_back(name, f.get(name));
  EXPECT_EQ(serialize_safetensor_entries(again, {}), bytes);
}

TEST(SafeTensors, WriterRejectsBadInput) {
  const Tensor t = Tensor::zeros({2});
  EXPECT_THROW(serialize_safetensors({{"a", t}, {"a", t}}, {}), std::invalid_argument);
  EXPECT_THROW(serialize_safetensors({{"__metadata__", t}}, {}), std::invalid_argument);
  EXPECT_THROW(serialize_safetensors({{"a", Tensor()}}, {}), std::invalid_argument);
  EXPECT_THROW(serialize_safetensors({{"\xff", t}}, {}), std::invalid_argument);  // not UTF-8
  SafeTensorEntry short_entry{"F32", {3}, std::string(8, '\0'), ""};
  EXPECT_THROW(serialize_safetensor_entries({{"a", short_entry}}, {}), std::invalid_argument);
  SafeTensorEntry unknown{"F8_E4M3", {1}, std::string(1, '\0'), ""};
  EXPECT_THROW(serialize_safetensor_entries({{"a", unknown}}, {}), std::invalid_argument);
  EXPECT_THROW(int64_entry({2, 2}, {1, 2, 3}), std::invalid_argument);
}

// ---- Hugging Face files ----------------------------------------------------------------

TEST(SafeTensors, ReadsHuggingFaceModel) {
  const SafeTensors f = load_safetensors(kFixtures + "model.safetensors");
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
  EXPECT_EQ(f.tensors.size(), 40u);
  ASSERT_EQ(f.names.size(), 40u);
  EXPECT_EQ(f.names.front(), "transformer.h.0.attn.c_attn.bias");
  EXPECT_EQ(f.names.back(), "transformer.wte.weight");

  const SafeTensorEntry& wte = f.get("transformer.wte.weight");
  EXPECT_EQ(wte.dtype, "F32");
  EXPECT_EQ(wte.shape, (Shape{512, 48}));
  const Tensor w = wte.to_float();
  EXPECT_EQ(w[0], -0x1.3bd80ep-7f);
  EXPECT_EQ(w[1], 0x1.2ebf7cp-7f);
  EXPECT_EQ(w[2], -0x1.93b2ap-4f);
  double sum = 0;
  for (int64_t i = 0; i < w.numel(); ++i) sum += w[i];
  EXPECT_NEAR(sum, 5.194365437036367, 1e-9);

  const Tensor qkv = f.get_float("transformer.h.0.attn.c_attn.weight");
  EXPECT_EQ(qkv.shape(), (Shape{48, 144}));
  EXPECT_EQ(qkv[0], 0x1.873cb4p-6f);
  EXPECT_EQ(f.get("transformer.wpe.weight").shape, (Shape{32, 48}));

  try {
    f.get("lm_head.weight");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("lm_head.weight"), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
  }

  // Written back with our writer (in header order), it reads back the same.
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  for (const std::string& name : f.names) entries.emplace_back(name, f.get(name));
  const SafeTensors again =
      parse_safetensors(serialize_safetensor_entries(entries, f.metadata), "again");
  EXPECT_EQ(again.names, f.names);
  EXPECT_EQ(again.metadata, f.metadata);
  for (const auto& [name, e] : f.tensors) EXPECT_EQ(again.get(name).bytes, e.bytes) << name;
}

TEST(SafeTensors, ReadsHuggingFaceReference) {
  const SafeTensors f = load_safetensors(kFixtures + "reference.safetensors");
  EXPECT_TRUE(f.metadata.empty());
  const SafeTensorEntry& ids = f.get("input_ids");
  EXPECT_EQ(ids.dtype, "I64");
  EXPECT_EQ(ids.shape, (Shape{3, 11}));
  const std::vector<int64_t> v = ids.to_int64();
  ASSERT_EQ(v.size(), 33u);
  EXPECT_EQ(std::vector<int64_t>(v.begin(), v.begin() + 6),
            (std::vector<int64_t>{362, 152, 249, 131, 440, 456}));
  for (int64_t id : v) EXPECT_TRUE(id >= 0 && id < 512) << id;
  EXPECT_EQ(f.get_float("input_ids")[0], 362.0f);  // integers convert to float too
  EXPECT_EQ(f.get_int64("targets")[0], 152);

  const SafeTensorEntry& logits = f.get("logits");
  EXPECT_EQ(logits.dtype, "F32");
  EXPECT_EQ(logits.shape, (Shape{3, 11, 512}));
  const Tensor l = logits.to_float();
  EXPECT_EQ(l[0], 0x1.883df4p-2f);
  EXPECT_EQ(l[2], -0x1.48ab4cp-1f);
  EXPECT_THROW(logits.to_int64(), InputError);  // not an integer tensor
}

// ---- malformed files: each gives one clear InputError ----------------------------------

TEST(SafeTensorsMalformed, FileShorterThanEightBytes) {
  expect_error("", {"too short", "0 bytes"});
  expect_error("1234567", {"too short", "7 bytes"});
}

TEST(SafeTensorsMalformed, HeaderLengthLargerThanFile) {
  expect_error(with_length(100, "{}"), {"header length 100", "10 bytes"});
  expect_error(with_length(std::numeric_limits<uint64_t>::max(), "{}"), {"header length"});
  expect_error(with_length(1ull << 63, ""), {"header length"});
}

TEST(SafeTensorsMalformed, HeaderNotJson) {
  expect_error(make_file("{\"t\": "), {"not valid JSON"});
  expect_error(make_file("nope"), {"not valid JSON"});
  expect_error(make_file(""), {"not valid JSON"});
  expect_error(make_file("{} x"), {"not valid JSON"});  // trailing garbage
  expect_error(make_file(std::string("{}\0\0\0\0", 6)),
               {"not valid JSON"});  // NUL padding is not JSON
  expect_error(make_file(std::string("{\"\xff\": 1}")), {"not valid JSON"});  // not UTF-8
}

TEST(SafeTensorsMalformed, HeaderNotAnObject) {
  expect_error(make_file("[1, 2]"), {"not a JSON object"});
  expect_error(make_file("\"str\""), {"not a JSON object"});
  expect_error(make_file("null"), {"not a JSON object"});
}

TEST(SafeTensorsMalformed, DuplicateKeysAndDeepNesting) {
  expect_error(make_file(R"({"t": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]},)"
                         R"( "t": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]}})",
                         "x"),
               {"header: duplicate key \"t\" on line 1"});
  expect_error(
      one_tensor(R"("dtype": "F32", "dtype": "I32", "shape": [2], "data_offsets": [0, 8])"),
      {"duplicate key \"dtype\""});
  expect_error(make_file("{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}"),
               {"header: JSON nested deeper than 16 levels"});
}

TEST(SafeTensorsMalformed, EntryNotAnObject) {
  expect_error(make_file(R"({"t": [1, 2]})"), {"tensor 't'", "must be an object"});
}

TEST(SafeTensorsMalformed, EntryMissingFields) {
  expect_error(one_tensor(R"("shape": [2], "data_offsets": [0, 8])"), {"tensor 't'", "\"dtype\""});
  expect_error(one_tensor(R"("dtype": "F32", "data_offsets": [0, 8])"),
               {"tensor 't'", "\"shape\""});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2])"), {"tensor 't'", "\"data_offsets\""});
}

TEST(SafeTensorsMalformed, EntryFieldsOfWrongType) {
  expect_error(one_tensor(R"("dtype": 32, "shape": [2], "data_offsets": [0, 8])"),
               {"tensor 't'", "dtype must be a string"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": "2", "data_offsets": [0, 8])"),
               {"tensor 't'", "shape"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": ["2"], "data_offsets": [0, 8])"),
               {"tensor 't'", "shape"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2.0], "data_offsets": [0, 8])"),
               {"tensor 't'", "shape"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2], "data_offsets": {"a": 0})"),
               {"tensor 't'", "data_offsets"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2], "data_offsets": [0, 8, 8])"),
               {"tensor 't'", "data_offsets"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2], "data_offsets": ["0", "8"])"),
               {"tensor 't'", "data_offsets"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [2], "data_offsets": [-8, 8])"),
               {"tensor 't'", "data_offsets"});
}

TEST(SafeTensorsMalformed, UnknownDtype) {
  expect_error(one_tensor(R"("dtype": "F8_E4M3", "shape": [8], "data_offsets": [0, 8])"),
               {"tensor 't'", "unsupported dtype 'F8_E4M3'"});
  expect_error(one_tensor(R"("dtype": "f32", "shape": [2], "data_offsets": [0, 8])"),
               {"tensor 't'", "unsupported dtype 'f32'"});
}

TEST(SafeTensorsMalformed, NegativeOrHugeShape) {
  expect_error(one_tensor(R"("dtype": "F32", "shape": [-2], "data_offsets": [0, 8])"),
               {"tensor 't'", "non-negative"});
  expect_error(
      one_tensor(R"("dtype": "U8", "shape": [9223372036854775808], "data_offsets": [0, 8])"),
      {"tensor 't'", "too large"});
  expect_error(
      one_tensor(R"("dtype": "U8", "shape": [99999999999999999999], "data_offsets": [0, 8])"),
      {"tensor 't'", "shape"});
  // The product overflows (even though a later dimension is 0).
  expect_error(
      one_tensor(R"("dtype": "U8", "shape": [4294967296, 4294967296, 0], "data_offsets": [0, 0])",
                 ""),
      {"tensor 't'", "too large"});
  // numel fits, numel * itemsize does not.
  expect_error(
      one_tensor(R"("dtype": "F64", "shape": [2305843009213693952], "data_offsets": [0, 8])"),
      {"tensor 't'", "too large"});
  // Large but representable: rejected because the data is not there.
  expect_error(one_tensor(R"("dtype": "F32", "shape": [1000000, 1000000], "data_offsets": [0, 8])"),
               {"tensor 't'", "needs 4000000000000"});
}

TEST(SafeTensorsMalformed, DataOffsetsOutsideTheBuffer) {
  expect_error(one_tensor(R"("dtype": "U8", "shape": [999999], "data_offsets": [0, 999999])"),
               {"tensor 't'", "data_offsets [0, 999999] outside the data buffer (8 bytes)"});
  expect_error(
      one_tensor(R"("dtype": "U8", "shape": [1], "data_offsets": [18446744073709551615, 0])"),
      {"tensor 't'", "end before they begin"});
}

TEST(SafeTensorsMalformed, DataOffsetsEndBeforeBegin) {
  expect_error(one_tensor(R"("dtype": "U8", "shape": [0], "data_offsets": [8, 0])"),
               {"tensor 't'", "data_offsets [8, 0] end before they begin"});
}

TEST(SafeTensorsMalformed, SizeDoesNotMatchShape) {
  expect_error(one_tensor(R"("dtype": "F32", "shape": [3], "data_offsets": [0, 8])"),
               {"tensor 't'", "hold 8 bytes", "needs 12"});
  expect_error(one_tensor(R"("dtype": "F32", "shape": [], "data_offsets": [0, 8])"),
               {"tensor 't'", "needs 4"});
}

TEST(SafeTensorsMalformed, MoreDimensionsThanAShapeHolds) {
  expect_error(
      one_tensor(R"("dtype": "U8", "shape": [1, 1, 1, 1, 1, 1, 1, 1, 1], "data_offsets": [0, 8])"),
      {"tensor 't'", "more than 8 dimensions"});
}

TEST(SafeTensorsMalformed, OverlappingTensors) {
  expect_error(make_file(R"({"a": {"dtype": "U8", "shape": [6], "data_offsets": [0, 6]},)"
                         R"( "b": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})",
                         std::string(8, 'x')),
               {"tensor 'b'", "overlap"});
  // Two tensors on the same bytes.
  expect_error(make_file(R"({"a": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]},)"
                         R"( "b": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]}})",
                         std::string(8, 'x')),
               {"overlap"});
}

TEST(SafeTensorsMalformed, HolesInTheBuffer) {
  expect_error(make_file(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},)"
                         R"( "b": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})",
                         std::string(8, 'x')),
               {"tensor 'b'", "hole"});
  expect_error(one_tensor(R"("dtype": "U8", "shape": [4], "data_offsets": [4, 8])"),
               {"tensor 't'", "hole"});
  expect_error(one_tensor(R"("dtype": "U8", "shape": [4], "data_offsets": [0, 4])"),
               {"4 bytes after the last tensor"});
  expect_error(make_file("{}", "xyz"), {"3 bytes after the last tensor"});
}

TEST(SafeTensorsMalformed, BadMetadata) {
  expect_error(make_file(R"({"__metadata__": ["a"]})"), {"__metadata__ must be an object"});
  expect_error(make_file(R"({"__metadata__": {"step": 12}})"),
               {"__metadata__", "'step'", "string"});
}

// A header of `tensors` zero-sized tensors named "t<n-1>" .. "t0" (not in sorted order)
// and `metadata` __metadata__ entries "k0" .. "k<n-1>".
std::string many_keys(int64_t tensors, int64_t metadata) {
  std::string h = "{";
  if (metadata > 0) {
    h += "\"__metadata__\": {";
    for (int64_t i = 0; i < metadata; ++i)
      h += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": \"v\"";
    h += "}";
  }
  for (int64_t i = tensors - 1; i >= 0; --i)
    h += (h.size() > 1 ? ", \"t" : "\"t") + std::to_string(i) +
         R"(": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]})";
  return make_file(h + "}");
}

// 100,000 metadata keys once took 14 s (each key was looked up in a list).
// The keys are now bounded and found in log time; the test checks the bounds, not time.
TEST(SafeTensorsMalformed, TooManyKeys) {
  expect_error(many_keys(0, 200'000), {"__metadata__ has more than 10000 entries"});
  expect_error(many_keys(0, kMaxSafetensorsMetadata + 1), {"more than 10000 entries"});
  expect_error(many_keys(200'000, 0), {"header has more than 100000 tensors"});
  expect_error(many_keys(kMaxSafetensorsTensors + 1, 3), {"more than 100000 tensors"});
}

TEST(SafeTensors, ReadsHeadersAtTheBounds) {
  const SafeTensors f = parse_safetensors(
      many_keys(kMaxSafetensorsTensors, kMaxSafetensorsMetadata), "many.safetensors");
  ASSERT_EQ(static_cast<int64_t>(f.names.size()), kMaxSafetensorsTensors);
  EXPECT_EQ(static_cast<int64_t>(f.metadata.size()), kMaxSafetensorsMetadata);
  // Header order is kept: "t99999" first, "t0" last.
  EXPECT_EQ(f.names.front(), "t" + std::to_string(kMaxSafetensorsTensors - 1));
  EXPECT_EQ(f.names[1], "t" + std::to_string(kMaxSafetensorsTensors - 2));
  EXPECT_EQ(f.names.back(), "t0");
  EXPECT_EQ(f.metadata.at("k9999"), "v");
}

// ---- valid but unusual files -----------------------------------------------------------

TEST(SafeTensors, AcceptsUnusualButValidFiles) {
  // Header padded with spaces; offsets not in header order; zero-sized tensors; an unknown
  // extra field (ignored, as Hugging Face does); a null __metadata__; a 5-D tensor.
  const std::string header =
      R"({"__metadata__": null, "b": {"dtype": "U8", "shape": [2, 1], "data_offsets": [3, 5]},)"
      R"( "z": {"dtype": "F32", "shape": [0, 7], "data_offsets": [3, 3], "extra": {"k": [1]}},)"
      R"( "a": {"dtype": "I8", "shape": [1, 1, 1, 1, 3], "data_offsets": [0, 3]}})"
      "      ";
  const SafeTensors f = parse_safetensors(make_file(header, "\x01\xff\x02\x05\x06"), "odd");
  EXPECT_EQ(f.names, (std::vector<std::string>{"b", "z", "a"}));
  EXPECT_EQ(f.get_int64("b"), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(f.get_int64("a"), (std::vector<int64_t>{1, -1, 2}));
  EXPECT_EQ(f.get_float("z").shape(), (Shape{0, 7}));
  // More than 4 dimensions: readable as raw/int data, not as a Tensor.
  EXPECT_THROW(f.get("a").to_float(), InputError);
  EXPECT_TRUE(f.metadata.empty());
}

// ---- randomized robustness -------------------------------------------------------------

// Mutates a valid file thousands of ways: parse must either succeed (with consistent
// results) or throw InputError; never crash, hang, or throw anything else.
TEST(SafeTensors, SurvivesRandomMutations) {
  std::vector<std::pair<std::string, SafeTensorEntry>> entries = {
      {"ids", int64_entry({2, 3}, {1, 2, 3, 4, 5, 6})},
      {"w", float32_entry(Tensor::from({2, 2}, {1, 2, 3, 4}))},
      {"h", SafeTensorEntry{"F16", {3}, raw_bytes<uint16_t>({0x3C00, 0xC000, 0x7C00}), ""}},
      {"b", SafeTensorEntry{"BOOL", {2}, std::string("\x01\x00", 2), ""}},
      {"s", SafeTensorEntry{"BF16", {}, raw_bytes<uint16_t>({0x3F80}), ""}},
  };
  const std::string valid = serialize_safetensor_entries(entries, {{"format", "pt"}});
  ASSERT_NO_THROW(parse_safetensors(valid, "valid"));
  uint64_t header_len;
  std::memcpy(&header_len, valid.data(), 8);

  std::mt19937_64 gen(20240611);
  auto pick = [&](uint64_t n) { return n ? gen() % n : 0; };
  const std::string interesting[] = {"0",
                                     "-1",
                                     "9",
                                     "99999999999999999999",
                                     "18446744073709551615",
                                     "[",
                                     "]",
                                     "{",
                                     "}",
                                     ",",
                                     "\"",
                                     ":",
                                     "F32",
                                     "BOOL",
                                     "null",
                                     "1e3",
                                     "4294967296",
                                     " ",
                                     "\\u0000",
                                     "\xff"};
  int parsed_ok = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = valid;
    const int mutations = 1 + static_cast<int>(pick(4));
    for (int m = 0; m < mutations; ++m) {
      // Mostly mutate the header, where the interesting checks are.
      const uint64_t span = pick(3) ? 8 + header_len : s.size();
      switch (pick(7)) {
        case 0:  // flip a byte
          if (!s.empty())
            s[pick(std::min<uint64_t>(span, s.size()))] ^= static_cast<char>(1 + pick(255));
          break;
        case 1:  // truncate
          s.resize(pick(s.size() + 1));
          break;
        case 2:  // delete a range
          if (!s.empty()) {
            const uint64_t at = pick(std::min<uint64_t>(span, s.size()));
            s.erase(at, 1 + pick(8));
          }
          break;
        case 3:  // insert a token
          s.insert(pick(std::min<uint64_t>(span, s.size()) + 1),
                   interesting[pick(std::size(interesting))]);
          break;
        case 4: {  // change a digit in the header (shapes, offsets)
          const uint64_t at = pick(std::min<uint64_t>(span, s.size()));
          for (uint64_t i = at; i < s.size() && i < 8 + header_len; ++i)
            if (s[i] >= '0' && s[i] <= '9') {
              s[i] = static_cast<char>('0' + pick(10));
              break;
            }
          break;
        }
        case 5: {  // rewrite the length field
          if (s.size() >= 8) {
            const uint64_t n = pick(2) ? header_len + pick(17) - 8 : gen();
            std::memcpy(s.data(), &n, 8);
          }
          break;
        }
        default:  // append junk
          s.append(pick(16), static_cast<char>(pick(256)));
      }
    }
    try {
      const SafeTensors f = parse_safetensors(s, "mutated");
      ++parsed_ok;
      size_t total = 0;
      for (const auto& [name, e] : f.tensors) {
        total += e.bytes.size();
        EXPECT_EQ(static_cast<uint64_t>(e.numel()) * safetensors_dtype_size(e.dtype),
                  e.bytes.size());
        try {  // conversions may refuse (e.g. to_int64 of floats) but only with InputError
          e.to_float();
          e.to_int64();
        } catch (const InputError&) {
        }
      }
      EXPECT_LE(total, s.size());
    } catch (const InputError&) {
      ++rejected;
    }
  }
  EXPECT_GT(parsed_ok, 0);
  EXPECT_GT(rejected, 0);
}

// ---- dtype converters ------------------------------------------------------------------

TEST(SafeTensorsConvert, HalfKnownValues) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x3555), 0x1.554p-2f);   // 0.333251953125, nearest half to 1/3
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);      // largest finite
  EXPECT_EQ(half_to_float(0x0400), 0x1p-14f);      // smallest normal
  EXPECT_EQ(half_to_float(0x03FF), 0x1.ff8p-15f);  // largest subnormal
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);      // smallest subnormal
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_EQ(std::bit_cast<uint32_t>(half_to_float(0x8000)), 0x80000000u);  // -0
}

TEST(SafeTensorsConvert, HalfAllValuesMatchTheDefinition) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    if (exp == 0x1F) {
      EXPECT_EQ(std::isnan(half_to_float(h)), mant != 0) << h;
      continue;
    }
    // value = (-1)^s * (exp ? 1024 + mant : mant) * 2^(max(exp, 1) - 25)
    const double v =
        std::ldexp(exp ? 1024.0 + mant : mant, static_cast<int>(std::max(exp, 1u)) - 25);
    EXPECT_EQ(half_to_float(static_cast<uint16_t>(h)), static_cast<float>(h & 0x8000 ? -v : v))
        << h;
  }
}

TEST(SafeTensorsConvert, BFloat16KnownValues) {
  EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xC040), -3.0f);
  EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(bf16_to_float(0x7F7F), 0x1.fep127f);  // largest finite
  EXPECT_EQ(bf16_to_float(0x0001), 0x1p-133f);    // smallest subnormal
  EXPECT_EQ(bf16_to_float(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bf16_to_float(0x7FC0)));
}

TEST(SafeTensorsConvert, EveryDtypeFromAFile) {
  // One tensor of each dtype, built by hand, read back through to_float / to_int64.
  struct Case {
    std::string dtype, bytes;
    std::vector<float> floats;
  };
  const std::vector<Case> cases = {
      {"F64",
       raw_bytes<double>({1.5, -0.1, 1e300}),
       {1.5f, -0.1f, std::numeric_limits<float>::infinity()}},
      {"F32", raw_bytes<float>({1.5f, -0.1f, 7.0f}), {1.5f, -0.1f, 7.0f}},
      {"F16", raw_bytes<uint16_t>({0x3E00, 0xB800, 0x4700}), {1.5f, -0.5f, 7.0f}},
      {"BF16", raw_bytes<uint16_t>({0x3FC0, 0xBF00, 0x40E0}), {1.5f, -0.5f, 7.0f}},
      {"I64", raw_bytes<int64_t>({-3, 0, 1ll << 40}), {-3.0f, 0.0f, 0x1p40f}},
      {"I32", raw_bytes<int32_t>({-3, 0, 2147483647}), {-3.0f, 0.0f, 2147483648.0f}},
      {"I16", raw_bytes<int16_t>({-3, 0, 32767}), {-3.0f, 0.0f, 32767.0f}},
      {"I8", raw_bytes<int8_t>({-3, 0, 127}), {-3.0f, 0.0f, 127.0f}},
      {"U64", raw_bytes<uint64_t>({3, 0, 1ull << 63}), {3.0f, 0.0f, 0x1p63f}},
      {"U32", raw_bytes<uint32_t>({3, 0, 4294967295u}), {3.0f, 0.0f, 4294967296.0f}},
      {"U16", raw_bytes<uint16_t>({3, 0, 65535}), {3.0f, 0.0f, 65535.0f}},
      {"U8", raw_bytes<uint8_t>({3, 0, 255}), {3.0f, 0.0f, 255.0f}},
      {"BOOL", raw_bytes<uint8_t>({1, 0, 1}), {1.0f, 0.0f, 1.0f}},
  };
  for (const Case& c : cases) {
    const std::string header = R"({"x": {"dtype": ")" + c.dtype +
                               R"(", "shape": [3], "data_offsets": [0, )" +
                               std::to_string(c.bytes.size()) + "]}}";
    const SafeTensors f = parse_safetensors(make_file(header, c.bytes), c.dtype);
    EXPECT_EQ(f.get_float("x").to_vector(), c.floats) << c.dtype;
    EXPECT_EQ(safetensors_dtype_size(c.dtype) * 3, static_cast<int64_t>(c.bytes.size()));
    const bool is_float = c.dtype[0] == 'F' || c.dtype == "BF16";
    if (is_float) {
      EXPECT_THROW(f.get_int64("x"), InputError) << c.dtype;
    } else if (c.dtype == "U64") {
      EXPECT_THROW(f.get_int64("x"), InputError);  // 2^63 does not fit in int64
    } else {
      std::vector<int64_t> expected;
      for (float v : c.floats) expected.push_back(static_cast<int64_t>(v));
      if (c.dtype == "I32") expected[2] = 2147483647;
      if (c.dtype == "U32") expected[2] = 4294967295;
      EXPECT_EQ(f.get_int64("x"), expected) << c.dtype;
    }
  }
  // Hand-built entries whose bytes do not match the shape are refused, not over-read.
  SafeTensorEntry bad{"F32", {4}, std::string(8, '\0'), "bad"};
  EXPECT_THROW(bad.to_float(), InputError);
  EXPECT_THROW(SafeTensorEntry({"I64", {4}, std::string(8, '\0'), "bad"}).to_int64(), InputError);
}

}  // namespace tinylm
