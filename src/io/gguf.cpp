#include "io/gguf.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "util/error.h"
#include "util/files.h"

namespace tinylm {
namespace {

constexpr uint32_t kDefaultAlignment = 32;
constexpr int64_t kMaxAlignment = 1 << 16;  // files use 32 or 64; more only wastes space
constexpr int kMaxDims = 4;  // ggml's GGML_MAX_DIMS

uint64_t align_up(uint64_t n, uint64_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

bool value_type_known(uint32_t t) {
  return t <= static_cast<uint32_t>(GgufType::kF64);
}

// Bytes of one element of a fixed-size type; 0 for strings and arrays.
uint64_t fixed_size(GgufType t) {
  switch (t) {
    case GgufType::kU8:
    case GgufType::kI8:
    case GgufType::kBool:
      return 1;
    case GgufType::kU16:
    case GgufType::kI16:
      return 2;
    case GgufType::kU32:
    case GgufType::kI32:
    case GgufType::kF32:
      return 4;
    case GgufType::kU64:
    case GgufType::kI64:
    case GgufType::kF64:
      return 8;
    case GgufType::kString:
    case GgufType::kArray:
      return 0;
  }
  return 0;
}

// Little-endian reads from the file's bytes, each checked against what is left.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& what) : bytes_(bytes), what_(what) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(what_ + ": " + message);
  }
  uint64_t left() const { return bytes_.size() - pos_; }
  uint64_t pos() const { return pos_; }
  void need(uint64_t n, const std::string& field) const {
    if (n > left())
      fail(field + " needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
           ", but the file ends " + std::to_string(left()) + " bytes later");
  }
  template <typename T>
  T read(const std::string& field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string read_string(const std::string& field) {
    const auto n = read<uint64_t>(field + " (length)");
    need(n, field);
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::string_view slice(uint64_t begin, uint64_t n) const { return bytes_.substr(begin, n); }
  uint64_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
  const std::string& what_;
  uint64_t pos_ = 0;
};

void read_element(Reader& r, GgufType t, GgufValue& v, const std::string& field) {
  switch (t) {
    case GgufType::kU8:
      v.ints.push_back(r.read<uint8_t>(field));
      break;
    case GgufType::kI8:
      v.ints.push_back(r.read<int8_t>(field));
      break;
    case GgufType::kU16:
      v.ints.push_back(r.read<uint16_t>(field));
      break;
    case GgufType::kI16:
      v.ints.push_back(r.read<int16_t>(field));
      break;
    case GgufType::kU32:
      v.ints.push_back(r.read<uint32_t>(field));
      break;
    case GgufType::kI32:
      v.ints.push_back(r.read<int32_t>(field));
      break;
    case GgufType::kU64:
      v.ints.push_back(static_cast<int64_t>(r.read<uint64_t>(field)));
      break;
    case GgufType::kI64:
      v.ints.push_back(r.read<int64_t>(field));
      break;
    case GgufType::kBool:
      v.ints.push_back(r.read<uint8_t>(field) != 0);
      break;
    case GgufType::kF32:
      v.floats.push_back(r.read<float>(field));
      break;
    case GgufType::kF64:
      v.floats.push_back(r.read<double>(field));
      break;
    case GgufType::kString:
      v.strings.push_back(r.read_string(field));
      break;
    case GgufType::kArray:
      r.fail(field + ": arrays of arrays are not supported");
  }
}

GgufValue read_value(Reader& r, const std::string& key) {
  const std::string field = "metadata '" + key + "'";
  const auto type = r.read<uint32_t>(field + " (type)");
  if (!value_type_known(type)) r.fail(field + ": unknown value type " + std::to_string(type));
  GgufValue v;
  v.type = static_cast<GgufType>(type);
  if (v.type != GgufType::kArray) {
    read_element(r, v.type, v, field);
    return v;
  }
  const auto element = r.read<uint32_t>(field + " (element type)");
  if (!value_type_known(element) || element == static_cast<uint32_t>(GgufType::kArray))
    r.fail(field + ": unsupported array element type " + std::to_string(element));
  v.type = static_cast<GgufType>(element);
  v.is_array = true;
  const auto count = r.read<uint64_t>(field + " (count)");
  // Every element takes at least its fixed size (a string at least its 8-byte length).
  const uint64_t least = std::max<uint64_t>(fixed_size(v.type), 8 * (v.type == GgufType::kString));
  if (count > r.left() / std::max<uint64_t>(least, 1))
    r.fail(field + ": " + std::to_string(count) + " elements cannot fit in the " +
           std::to_string(r.left()) + " bytes left");
  for (uint64_t i = 0; i < count; ++i) read_element(r, v.type, v, field);
  return v;
}

struct TensorInfo {
  GgufTensor tensor;
  uint64_t offset = 0;
};

TensorInfo read_tensor_info(Reader& r, size_t index) {
  TensorInfo info;
  GgufTensor& t = info.tensor;
  t.name = r.read_string("tensor " + std::to_string(index) + " (name)");
  const std::string field = "tensor '" + t.name + "'";
  const auto dims = r.read<uint32_t>(field + " (dimensions)");
  if (dims < 1 || dims > kMaxDims)
    r.fail(field + ": " + std::to_string(dims) + " dimensions (1 to 4 are allowed)");
  uint64_t numel = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    const auto ne = r.read<uint64_t>(field + " (size)");
    if (ne == 0 || ne > r.size() * 8 / numel)  // no tensor holds more values than 8 per byte
      r.fail(field + ": dimension " + std::to_string(d) + " of size " + std::to_string(ne) +
             " is empty or larger than the file can hold");
    numel *= ne;
    t.ne.push_back(static_cast<int64_t>(ne));
  }
  const auto type = r.read<uint32_t>(field + " (type)");
  if (!ggml_type_known(type))
    r.fail(field + ": unknown tensor type " + std::to_string(type) +
           " (tinylm reads F32, F16, BF16 and Q8_0)");
  t.type = static_cast<GgmlType>(type);
  if (t.ne[0] % ggml_block_size(t.type) != 0)
    r.fail(field + ": " + ggml_type_name(type) + " rows of " + std::to_string(t.ne[0]) +
           " values are not whole blocks of " + std::to_string(ggml_block_size(t.type)));
  info.offset = r.read<uint64_t>(field + " (offset)");
  return info;
}

uint32_t alignment_of(const Gguf& g, const std::string& what) {
  const GgufValue* a = g.find("general.alignment");
  if (!a) return kDefaultAlignment;
  if (a->type != GgufType::kU32 || a->is_array || a->ints[0] == 0 ||
      (a->ints[0] & (a->ints[0] - 1)) != 0 || a->ints[0] > kMaxAlignment)
    throw InputError(what + ": general.alignment must be a uint32 power of two, at most " +
                     std::to_string(kMaxAlignment));
  return static_cast<uint32_t>(a->ints[0]);
}

}  // namespace

GgufValue GgufValue::u32(uint32_t v) {
  return {GgufType::kU32, false, {v}, {}, {}};
}
GgufValue GgufValue::u64(uint64_t v) {
  return {GgufType::kU64, false, {static_cast<int64_t>(v)}, {}, {}};
}
GgufValue GgufValue::i32(int32_t v) {
  return {GgufType::kI32, false, {v}, {}, {}};
}
GgufValue GgufValue::f32(float v) {
  return {GgufType::kF32, false, {}, {v}, {}};
}
GgufValue GgufValue::boolean(bool v) {
  return {GgufType::kBool, false, {v}, {}, {}};
}
GgufValue GgufValue::string(std::string v) {
  return {GgufType::kString, false, {}, {}, {std::move(v)}};
}
GgufValue GgufValue::strings_of(std::vector<std::string> v) {
  return {GgufType::kString, true, {}, {}, std::move(v)};
}
GgufValue GgufValue::i32s(const std::vector<int32_t>& v) {
  return {GgufType::kI32, true, {v.begin(), v.end()}, {}, {}};
}
GgufValue GgufValue::f32s(const std::vector<float>& v) {
  return {GgufType::kF32, true, {}, {v.begin(), v.end()}, {}};
}

size_t GgufValue::size() const {
  return ints.size() + floats.size() + strings.size();
}

int64_t GgufTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : ne) n *= d;
  return n;
}

Tensor GgufTensor::to_float() const {
  Shape shape;
  for (auto it = ne.rbegin(); it != ne.rend(); ++it) shape.push_back(*it);
  Tensor t = Tensor::empty(shape);
  ggml_to_float(type, bytes.data(), numel(), t.data());
  return t;
}

const GgufValue* Gguf::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const GgufValue& Gguf::get(std::string_view key) const {
  const GgufValue* v = find(key);
  require(v != nullptr, [&] { return source + ": no metadata " + std::string(key); });
  return *v;
}

const GgufTensor& Gguf::tensor(std::string_view name) const {
  for (const GgufTensor& t : tensors)
    if (t.name == name) return t;
  throw InputError(source + ": no tensor " + std::string(name));
}

std::string Gguf::get_string(std::string_view key) const {
  const GgufValue& v = get(key);
  require(v.type == GgufType::kString && !v.is_array,
          [&] { return source + ": metadata " + std::string(key) + " must be a string"; });
  return v.strings[0];
}

int64_t Gguf::get_integer(std::string_view key) const {
  const GgufValue& v = get(key);
  require(!v.is_array && !v.ints.empty() && v.type != GgufType::kBool,
          [&] { return source + ": metadata " + std::string(key) + " must be an integer"; });
  return v.ints[0];
}

double Gguf::get_number(std::string_view key) const {
  const GgufValue& v = get(key);
  require(!v.is_array && !v.floats.empty(),
          [&] { return source + ": metadata " + std::string(key) + " must be a float"; });
  return v.floats[0];
}

void add_quantization_version(Gguf& gguf) {
  const bool quantized = std::any_of(gguf.tensors.begin(), gguf.tensors.end(),
                                     [](const GgufTensor& t) { return ggml_block_size(t.type) > 1; });
  if (!quantized || gguf.find("general.quantization_version")) return;
  auto at = std::find_if(gguf.metadata.begin(), gguf.metadata.end(),
                         [](const auto& kv) { return kv.first == "general.file_type"; });
  if (at != gguf.metadata.end()) ++at;
  gguf.metadata.insert(at, {"general.quantization_version", GgufValue::u32(kGgmlQuantizationVersion)});
}

GgufTensor gguf_tensor(const std::string& name, const Tensor& values, GgmlType type) {
  GgufTensor t;
  t.name = name;
  for (int i = values.ndim() - 1; i >= 0; --i) t.ne.push_back(values.dim(i));
  t.type = type;
  t.bytes = ggml_from_float(type, values.data(), values.numel());
  return t;
}

Gguf parse_gguf(std::string_view bytes, const std::string& what) {
  Reader r(bytes, what);
  const auto magic = r.read<uint32_t>("the magic");
  if (magic != 0x46554747u) r.fail("not a GGUF file (it does not start with \"GGUF\")");
  const auto version = r.read<uint32_t>("the version");
  if (version != 2 && version != 3)
    r.fail("GGUF version " + std::to_string(version) + " is not supported (2 or 3)");
  const auto tensor_count = r.read<uint64_t>("the tensor count");
  const auto metadata_count = r.read<uint64_t>("the metadata count");
  if (metadata_count > r.left() / 12 || tensor_count > r.left() / 24)
    r.fail("counts of " + std::to_string(metadata_count) + " metadata and " +
           std::to_string(tensor_count) + " tensors cannot fit in the file");
  Gguf g;
  g.source = what;
  std::set<std::string> keys, names;
  for (uint64_t i = 0; i < metadata_count; ++i) {
    std::string key = r.read_string("metadata " + std::to_string(i) + " (key)");
    if (!keys.insert(key).second) r.fail("duplicate metadata key '" + key + "'");
    GgufValue value = read_value(r, key);
    g.metadata.emplace_back(std::move(key), std::move(value));
  }
  std::vector<TensorInfo> infos;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    infos.push_back(read_tensor_info(r, i));
    if (!names.insert(infos.back().tensor.name).second)
      r.fail("duplicate tensor name '" + infos.back().tensor.name + "'");
  }
  const uint64_t alignment = alignment_of(g, what);
  const uint64_t data_start = align_up(r.pos(), alignment);
  const uint64_t data_size = data_start <= r.size() ? r.size() - data_start : 0;
  uint64_t expected = 0;  // where the next tensor must begin, from data_start
  for (TensorInfo& info : infos) {
    GgufTensor& t = info.tensor;
    const std::string field = "tensor '" + t.name + "'";
    if (info.offset != expected)
      r.fail(field + " has offset " + std::to_string(info.offset) + ", expected " +
             std::to_string(expected) + " (tensors follow each other, aligned to " +
             std::to_string(alignment) + ")");
    const auto n = static_cast<uint64_t>(ggml_bytes(t.type, t.numel()));
    if (info.offset > data_size || n > data_size - info.offset)
      r.fail(field + ": its " + std::to_string(n) + " bytes run past the end of the file");
    t.bytes = std::string(r.slice(data_start + info.offset, n));
    expected = align_up(info.offset + n, alignment);
    g.tensors.push_back(std::move(t));
  }
  return g;
}

Gguf load_gguf(const std::string& path) {
  return parse_gguf(read_file(path), path);
}

namespace {

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_string(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

void put_element(std::string& out, const GgufValue& v, size_t i) {
  switch (v.type) {
    case GgufType::kU8:
      put<uint8_t>(out, static_cast<uint8_t>(v.ints[i]));
      break;
    case GgufType::kI8:
      put<int8_t>(out, static_cast<int8_t>(v.ints[i]));
      break;
    case GgufType::kU16:
      put<uint16_t>(out, static_cast<uint16_t>(v.ints[i]));
      break;
    case GgufType::kI16:
      put<int16_t>(out, static_cast<int16_t>(v.ints[i]));
      break;
    case GgufType::kU32:
      put<uint32_t>(out, static_cast<uint32_t>(v.ints[i]));
      break;
    case GgufType::kI32:
      put<int32_t>(out, static_cast<int32_t>(v.ints[i]));
      break;
    case GgufType::kU64:
      put<uint64_t>(out, static_cast<uint64_t>(v.ints[i]));
      break;
    case GgufType::kI64:
      put<int64_t>(out, v.ints[i]);
      break;
    case GgufType::kBool:
      put<uint8_t>(out, v.ints[i] != 0);
      break;
    case GgufType::kF32:
      put<float>(out, static_cast<float>(v.floats[i]));
      break;
    case GgufType::kF64:
      put<double>(out, v.floats[i]);
      break;
    case GgufType::kString:
      put_string(out, v.strings[i]);
      break;
    case GgufType::kArray:
      throw std::invalid_argument("gguf: arrays of arrays are not supported");
  }
}

void put_value(std::string& out, const GgufValue& v) {
  if (v.is_array) {
    put<uint32_t>(out, static_cast<uint32_t>(GgufType::kArray));
    put<uint32_t>(out, static_cast<uint32_t>(v.type));
    put<uint64_t>(out, v.size());
  } else {
    if (v.size() != 1) throw std::invalid_argument("gguf: a single value holds one element");
    put<uint32_t>(out, static_cast<uint32_t>(v.type));
  }
  for (size_t i = 0; i < v.size(); ++i) put_element(out, v, i);
}

}  // namespace

std::string serialize_gguf(const Gguf& g) {
  std::string out;
  put<uint32_t>(out, 0x46554747u);
  put<uint32_t>(out, 3);
  put<uint64_t>(out, g.tensors.size());
  put<uint64_t>(out, g.metadata.size());
  std::set<std::string> keys, names;
  for (const auto& [key, value] : g.metadata) {
    if (!keys.insert(key).second) throw std::invalid_argument("gguf: duplicate key " + key);
    put_string(out, key);
    put_value(out, value);
  }
  const uint64_t alignment = alignment_of(g, "gguf");
  uint64_t offset = 0;
  for (const GgufTensor& t : g.tensors) {
    if (!names.insert(t.name).second)
      throw std::invalid_argument("gguf: duplicate tensor " + t.name);
    if (t.ne.empty() || t.ne.size() > kMaxDims || t.ne[0] % ggml_block_size(t.type) != 0 ||
        static_cast<int64_t>(t.bytes.size()) != ggml_bytes(t.type, t.numel()))
      throw std::invalid_argument("gguf: tensor " + t.name + " does not match its type and ne");
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.ne.size()));
    for (int64_t d : t.ne) put<uint64_t>(out, static_cast<uint64_t>(d));
    put<uint32_t>(out, static_cast<uint32_t>(t.type));
    put<uint64_t>(out, offset);
    offset = align_up(offset + t.bytes.size(), alignment);
  }
  out.resize(align_up(out.size(), alignment), '\0');
  for (const GgufTensor& t : g.tensors) {
    out += t.bytes;
    out.resize(align_up(out.size(), alignment), '\0');
  }
  return out;
}

void save_gguf(const std::string& path, const Gguf& g) {
  write_file_atomic(path, serialize_gguf(g));
}

}  // namespace tinylm
