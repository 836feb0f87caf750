// The GGUF reader and writer: round trips of every value type and tensor type, the layout
// byte for byte where the format fixes it (header, offsets, alignment), and one test per
// kind of malformed file (each an InputError naming the problem).
#include "io/gguf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "util/error.h"

namespace tinylm {
namespace {

Gguf sample_file() {
  Gguf g;
  g.metadata = {
      {"general.architecture", GgufValue::string("gpt2")},
      {"gpt2.block_count", GgufValue::u32(2)},
      {"gpt2.layer_norm_epsilon", GgufValue::f32(1e-5f)},
      {"tokenizer.ggml.tokens", GgufValue::strings_of({"a", "b", "\xc4\xa0the", ""})},
      {"tokenizer.ggml.token_type", GgufValue::i32s({1, 1, 1, 3})},
      {"general.size", GgufValue::u64(1ull << 40)},
      {"flag", GgufValue::boolean(true)},
  };
  const Tensor m = Tensor::from({2, 32}, std::vector<float>(64, 0.25f));
  g.tensors = {gguf_tensor("w.f32", Tensor::from({3}, {1.0f, -2.0f, 3.5f}), GgmlType::kF32),
               gguf_tensor("w.f16", m, GgmlType::kF16), gguf_tensor("w.bf16", m, GgmlType::kBF16),
               gguf_tensor("w.q8", m, GgmlType::kQ8_0)};
  return g;
}

std::string message_of(const std::string& bytes) {
  try {
    parse_gguf(bytes, "bad.gguf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(parsed)";
}

template <typename T>
void poke(std::string& bytes, size_t at, T v) {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

TEST(Gguf, RoundTripsMetadataAndTensors) {
  const Gguf g = sample_file();
  const std::string bytes = serialize_gguf(g);
  const Gguf back = parse_gguf(bytes, "sample.gguf");
  ASSERT_EQ(back.metadata.size(), g.metadata.size());
  for (size_t i = 0; i < g.metadata.size(); ++i) {
    EXPECT_EQ(back.metadata[i].first, g.metadata[i].first);
    const GgufValue &a = back.metadata[i].second, &b = g.metadata[i].second;
    EXPECT_EQ(a.type, b.type);
    EXPECT_EQ(a.is_array, b.is_array);
    EXPECT_EQ(a.ints, b.ints);
    EXPECT_EQ(a.strings, b.strings);
    ASSERT_EQ(a.floats.size(), b.floats.size());
    for (size_t j = 0; j < a.floats.size(); ++j) EXPECT_EQ(float(a.floats[j]), float(b.floats[j]));
  }
  ASSERT_EQ(back.tensors.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back.tensors[i].name, g.tensors[i].name);
    EXPECT_EQ(back.tensors[i].ne, g.tensors[i].ne);
    EXPECT_EQ(back.tensors[i].type, g.tensors[i].type);
    EXPECT_EQ(back.tensors[i].bytes, g.tensors[i].bytes);
  }
  EXPECT_EQ(back.tensor("w.q8").ne, (std::vector<int64_t>{32, 2}));  // innermost first
  EXPECT_EQ(back.tensor("w.f32").to_float().to_vector(), (std::vector<float>{1, -2, 3.5f}));
  EXPECT_EQ(back.tensor("w.f16").to_float().shape(), (Shape{2, 32}));
  EXPECT_EQ(back.get_string("general.architecture"), "gpt2");
  EXPECT_EQ(back.get_integer("gpt2.block_count"), 2);
  EXPECT_EQ(back.get_integer("general.size"), int64_t{1} << 40);
  EXPECT_FLOAT_EQ(static_cast<float>(back.get_number("gpt2.layer_norm_epsilon")), 1e-5f);
  EXPECT_EQ(serialize_gguf(back), bytes);  // a pure function of the contents
}

TEST(Gguf, HeaderAndDataAreAlignedAsGgmlExpects) {
  const std::string bytes = serialize_gguf(sample_file());
  EXPECT_EQ(bytes.substr(0, 4), "GGUF");
  uint32_t version;
  uint64_t tensors, kvs;
  std::memcpy(&version, bytes.data() + 4, 4);
  std::memcpy(&tensors, bytes.data() + 8, 8);
  std::memcpy(&kvs, bytes.data() + 16, 8);
  EXPECT_EQ(version, 3u);
  EXPECT_EQ(tensors, 4u);
  EXPECT_EQ(kvs, 7u);
  EXPECT_EQ(bytes.size() % 32, 0u);
  // The last tensor (Q8_0, 2 blocks of 34 bytes, padded to 96) ends the file.
  const Gguf g = sample_file();
  EXPECT_EQ(bytes.substr(bytes.size() - 96, 68), g.tensors[3].bytes);
}

TEST(Gguf, ACustomAlignmentIsHonoured) {
  Gguf g = sample_file();
  g.metadata.emplace_back("general.alignment", GgufValue::u32(64));
  const std::string bytes = serialize_gguf(g);
  EXPECT_EQ(bytes.size() % 64, 0u);
  EXPECT_EQ(parse_gguf(bytes, "a.gguf").tensor("w.q8").bytes, g.tensors[3].bytes);
  g.metadata.back().second = GgufValue::u32(48);
  EXPECT_THROW(serialize_gguf(g), InputError);
}

TEST(GgufMalformed, WrongMagicOrVersion) {
  std::string bytes = serialize_gguf(sample_file());
  std::string wrong = bytes;
  wrong[0] = 'X';
  EXPECT_NE(message_of(wrong).find("not a GGUF file"), std::string::npos);
  poke<uint32_t>(bytes, 4, 1);
  EXPECT_NE(message_of(bytes).find("version 1 is not supported"), std::string::npos);
}

TEST(GgufMalformed, TruncatedAnywhere) {
  const std::string bytes = serialize_gguf(sample_file());
  for (size_t n : {size_t{0}, size_t{3}, size_t{20}, size_t{60}, bytes.size() / 2,
                   bytes.size() - 97}) {
    const std::string m = message_of(bytes.substr(0, n));
    EXPECT_NE(m.find("bad.gguf: "), std::string::npos) << n << ": " << m;
    EXPECT_EQ(m.find("(parsed)"), std::string::npos) << n;
  }
}

TEST(GgufMalformed, HugeCountsAreRefusedBeforeAllocating) {
  std::string bytes = serialize_gguf(sample_file());
  poke<uint64_t>(bytes, 16, uint64_t{1} << 60);
  EXPECT_NE(message_of(bytes).find("cannot fit in the file"), std::string::npos);
}

// A file with one metadata value or one tensor, built by hand around `body`.
std::string one_tensor_file(uint32_t type, uint64_t ne0, uint64_t offset, size_t data_bytes) {
  std::string out = "GGUF";
  auto put32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  auto put64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  put32(3);
  put64(1);
  put64(0);
  put64(1);
  out += "t";
  put32(1);
  put64(ne0);
  put32(type);
  put64(offset);
  out.resize((out.size() + 31) / 32 * 32, '\0');
  return out + std::string(data_bytes, '\0');
}

TEST(GgufMalformed, TensorTypesOffsetsAndEnds) {
  EXPECT_EQ(message_of(one_tensor_file(0, 4, 0, 16)), "(parsed)");
  EXPECT_NE(message_of(one_tensor_file(2, 32, 0, 18)).find("unknown tensor type 2"),
            std::string::npos);
  EXPECT_NE(message_of(one_tensor_file(0, 4, 32, 64)).find("has offset 32, expected 0"),
            std::string::npos);
  EXPECT_NE(message_of(one_tensor_file(0, 4, 0, 15)).find("run past the end"), std::string::npos);
  EXPECT_NE(message_of(one_tensor_file(8, 31, 0, 34)).find("not whole blocks"), std::string::npos);
  EXPECT_NE(message_of(one_tensor_file(0, 0, 0, 0)).find("empty"), std::string::npos);
}

TEST(GgufMalformed, UnknownValueTypesAndDuplicates) {
  Gguf g = sample_file();
  std::string bytes = serialize_gguf(g);
  // The first value's type follows the magic, version, counts and the first key.
  const size_t type_at = 24 + 8 + std::string("general.architecture").size();
  std::string bad = bytes;
  poke<uint32_t>(bad, type_at, 13);
  EXPECT_NE(message_of(bad).find("unknown value type 13"), std::string::npos);

  g.metadata.push_back(g.metadata.front());
  EXPECT_THROW(serialize_gguf(g), std::invalid_argument);
  bytes = serialize_gguf(sample_file());
  // A tensor renamed to its neighbour's name (same length): "w.f16" -> "w.f32".
  const size_t at = bytes.find("w.f16");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "w.f32");
  EXPECT_NE(message_of(bytes).find("duplicate tensor name 'w.f32'"), std::string::npos);
}

TEST(GgufTypedReads, NameTheKeyAndTheKind) {
  const Gguf g = parse_gguf(serialize_gguf(sample_file()), "s.gguf");
  EXPECT_THROW(g.get_integer("general.architecture"), InputError);
  EXPECT_THROW(g.get_string("missing"), InputError);
  EXPECT_THROW(g.tensor("missing"), InputError);
  try {
    g.get_number("gpt2.block_count");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gpt2.block_count"), std::string::npos);
  }
}

}  // namespace
}  // namespace tinylm
