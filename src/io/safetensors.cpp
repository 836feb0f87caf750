#include "io/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/load_unaligned.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

// The data buffer is read and written with memcpy in host byte order.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes little-endian");

namespace {

// The parsed header: nlohmann::json (keys in a std::map, found in log time). Its key
// order is recorded by the parser (Header::order); ordered_json would keep it too, but
// finds keys by a linear search, which made a header of n keys take n^2 steps.
using Json = nlohmann::json;

// Hugging Face's reader refuses headers above 100 MB; so do we.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// A valid header nests at most 3 deep (object > entry > shape array); allow some slack for
// unknown fields, but stop pathological nesting early.
constexpr int kMaxHeaderDepth = 16;

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL, Unknown };

DType parse_dtype(std::string_view s) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"F64", DType::F64},  {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16},
      {"I64", DType::I64},  {"I32", DType::I32}, {"I16", DType::I16}, {"I8", DType::I8},
      {"U64", DType::U64},  {"U32", DType::U32}, {"U16", DType::U16}, {"U8", DType::U8},
      {"BOOL", DType::BOOL}};
  for (const auto& [name, dtype] : kNames)
    if (name == s) return dtype;
  return DType::Unknown;
}

int64_t dtype_size(DType d) {
  switch (d) {
    case DType::F64:
    case DType::I64:
    case DType::U64:
      return 8;
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16:
    case DType::U16:
      return 2;
    case DType::I8:
    case DType::U8:
    case DType::BOOL:
      return 1;
    case DType::Unknown:
      break;
  }
  return 0;
}

std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

// Sizes, element counts and dimensions must fit in int64 (Shape and Tensor use int64_t).
constexpr uint64_t kMaxSize = std::numeric_limits<int64_t>::max();

// numel(shape) * itemsize(d), or nullopt if a dimension is negative or a partial product
// exceeds kMaxSize. As in Hugging Face's reader, an overflowing product is an error even
// when a later dimension is 0.
std::optional<uint64_t> byte_size(const Shape& shape, DType d) {
  uint64_t n = 1;
  for (const int64_t dim : shape) {
    if (dim < 0) return std::nullopt;
    const uint64_t u = static_cast<uint64_t>(dim);
    if (u != 0 && n > kMaxSize / u) return std::nullopt;
    n *= u;
  }
  const uint64_t item = static_cast<uint64_t>(dtype_size(d));
  if (n > kMaxSize / item) return std::nullopt;
  return n * item;
}

// Throws InputError unless `entry` holds exactly numel * itemsize bytes of a known dtype
// (entries built by hand may not); returns the dtype.
DType checked_dtype(const SafeTensorEntry& e) {
  const std::string who = e.label.empty() ? "safetensors entry" : e.label;
  const DType d = parse_dtype(e.dtype);
  require(d != DType::Unknown, who + ": unsupported dtype " + in_quotes(e.dtype));
  const std::optional<uint64_t> size = byte_size(e.shape, d);
  require(size.has_value() && *size == e.bytes.size(),
          who + ": " + std::to_string(e.bytes.size()) + " bytes do not hold a " + e.dtype +
              " tensor of shape " + shape_str(e.shape));
  return d;
}

// Converts n elements at p to Out with `convert(const char* element)`.
template <class Out, class Convert>
void convert_all(const char* p, int64_t n, int64_t size, Out* out, Convert convert) {
  for (int64_t i = 0; i < n; ++i) out[i] = convert(p + i * size);
}

// ---- header parsing ------------------------------------------------------------------

// The header, and its top-level keys in file order.
struct Header {
  Json json;
  std::vector<std::string> order;
};

// Counts the keys of a header as the parser meets them, and refuses a header past the
// bounds on tensors and __metadata__ entries at the first key too many.
class KeyCounter {
 public:
  explicit KeyCounter(const std::string& what) : what_(what) {}

  // key: an object's key at depth (1: a top-level key, 2: a key inside its value).
  void count(const std::string& key, int depth, std::vector<std::string>& order) {
    if (depth == 1) {
      in_metadata_ = key == "__metadata__";
      if (!in_metadata_) ++tensors_;
      require(tensors_ <= kMaxSafetensorsTensors, what_ + ": header has more than " +
                                                      std::to_string(kMaxSafetensorsTensors) +
                                                      " tensors, the most tinylm reads");
      order.push_back(key);
    } else if (depth == 2 && in_metadata_) {
      ++metadata_;
      require(metadata_ <= kMaxSafetensorsMetadata, what_ + ": __metadata__ has more than " +
                                                        std::to_string(kMaxSafetensorsMetadata) +
                                                        " entries, the most tinylm reads");
    }
  }

 private:
  const std::string& what_;
  bool in_metadata_ = false;  // inside the value of the top-level "__metadata__"
  int64_t tensors_ = 0, metadata_ = 0;
};

// Parses the JSON header through the checked reader (duplicate keys refused in any
// object), with the header's own depth and key bounds. Time n log n in the keys.
Header parse_header(std::string_view text, const std::string& what) {
  // nlohmann's lexer takes a NUL byte for the end of the input; JSON text never holds one
  // (strings escape it as \u0000), so refuse it here rather than ignore what follows.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw InputError(what + ": header is not valid JSON (NUL byte at header offset " +
                     std::to_string(nul) + ")");
  Header header;
  KeyCounter counter(what);
  JsonRules rules;
  rules.max_depth = kMaxHeaderDepth;
  rules.on_key = [&](const std::string& key, int depth) {
    counter.count(key, depth, header.order);
  };
  header.json = parse_json(text, what + ": header", rules);
  return header;
}

void parse_metadata(const Json& meta, const std::string& what, SafeTensors& out) {
  if (meta.is_null()) return;
  require(meta.is_object(), what + ": __metadata__ must be an object of strings");
  for (const auto& [key, value] : meta.items()) {
    require(value.is_string(),
            what + ": __metadata__ value of " + in_quotes(key) + " must be a string");
    out.metadata[key] = value.get<std::string>();
  }
}

// A tensor's header entry, checked against itself (not yet against the other tensors).
struct Span {
  uint64_t begin = 0, end = 0;
  const std::string* name = nullptr;
};

// Fills entry.dtype/shape/label from the header entry and returns its data_offsets.
Span parse_entry(const std::string& name, const Json& j, uint64_t data_size,
                 const std::string& what, SafeTensorEntry& entry) {
  const std::string t = what + ": tensor " + in_quotes(name);
  entry.label = t;
  require(j.is_object(), t + ": header entry must be an object");
  const auto field = [&](const char* key) -> const Json& {
    auto it = j.find(key);
    require(it != j.end(), t + ": header entry has no \"" + std::string(key) + "\"");
    return *it;
  };
  const Json& dtype = field("dtype");
  const Json& shape = field("shape");
  const Json& offsets = field("data_offsets");

  require(dtype.is_string(), t + ": dtype must be a string");
  entry.dtype = dtype.get<std::string>();
  const DType d = parse_dtype(entry.dtype);
  require(d != DType::Unknown,
          t + ": unsupported dtype " + in_quotes(entry.dtype) +
              " (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL)");

  require(shape.is_array(), t + ": shape must be an array of non-negative integers");
  require(shape.size() <= Shape::kMaxDims, t + ": shape " + shape.dump() + " has more than " +
                                               std::to_string(Shape::kMaxDims) +
                                               " dimensions (tinylm reads at most that many)");
  for (const Json& dim : shape) {
    require(dim.is_number_unsigned(),
            t + ": shape must be an array of non-negative integers, got " +
                (dim.is_number() ? dim.dump() : std::string(dim.type_name())));
    const uint64_t n = dim.get<uint64_t>();
    require(n <= kMaxSize, t + ": shape " + shape.dump() + " too large");
    entry.shape.push_back(static_cast<int64_t>(n));
  }
  const std::optional<uint64_t> size = byte_size(entry.shape, d);
  require(size.has_value(), t + ": shape " + shape.dump() + " too large");
  const uint64_t nbytes = *size;

  require(offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() &&
              offsets[1].is_number_unsigned(),
          t + ": data_offsets must be [begin, end] with non-negative integers");
  Span span{offsets[0].get<uint64_t>(), offsets[1].get<uint64_t>(), &name};
  const std::string range =
      "[" + std::to_string(span.begin) + ", " + std::to_string(span.end) + "]";
  require(span.begin <= span.end, t + ": data_offsets " + range + " end before they begin");
  require(span.end <= data_size, t + ": data_offsets " + range + " outside the data buffer (" +
                                     std::to_string(data_size) + " bytes)");
  require(span.end - span.begin == nbytes,
          t + ": data_offsets " + range + " hold " + std::to_string(span.end - span.begin) +
              " bytes, but shape " + shape_str(entry.shape) + " of " + entry.dtype + " needs " +
              std::to_string(nbytes));
  return span;
}

// ---- writing -------------------------------------------------------------------------

// A tensor to write: its bytes are borrowed from a Tensor or an entry, not copied.
struct WriteItem {
  const std::string* name;
  std::string_view dtype;
  const Shape* shape;
  std::string_view bytes;
};

// The compact JSON text "key":value, appended to out with a comma before all but the first.
void append_member(std::string& out, const std::string& key, const nlohmann::ordered_json& value) {
  out += out.size() > 1 ? "," : "";
  out += nlohmann::json(key).dump() + ":" + value.dump();
}

std::string serialize(const std::vector<WriteItem>& items,
                      const std::map<std::string, std::string>& metadata) {
  // The header is written member by member, in the given order, in linear time (an
  // ordered_json object finds each key by a linear search).
  std::unordered_set<std::string_view> seen;
  std::string json = "{";
  uint64_t offset = 0;
  try {
    if (!metadata.empty()) append_member(json, "__metadata__", metadata);  // sorted keys
    for (const WriteItem& it : items) {
      if (*it.name == "__metadata__")
        throw std::invalid_argument("safetensors: \"__metadata__\" cannot name a tensor");
      if (!seen.insert(*it.name).second)
        throw std::invalid_argument("safetensors: tensor name '" + *it.name + "' given twice");
      const uint64_t end = offset + it.bytes.size();
      append_member(
          json, *it.name,
          {{"dtype", it.dtype}, {"shape", it.shape->to_vector()}, {"data_offsets", {offset, end}}});
      offset = end;
    }
  } catch (const nlohmann::json::exception& e) {  // a name or metadata string that is not UTF-8
    throw std::invalid_argument(std::string("safetensors: cannot write the header: ") + e.what());
  }
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' ');  // the data buffer starts 8-byte aligned

  std::string out;
  out.reserve(8 + json.size() + offset);
  const uint64_t header_len = json.size();
  out.append(reinterpret_cast<const char*>(&header_len), 8);
  out += json;
  for (const WriteItem& it : items) out += it.bytes;
  return out;
}

std::vector<WriteItem> items_of(const std::vector<std::pair<std::string, Tensor>>& tensors) {
  std::vector<WriteItem> items;
  items.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    if (!t.defined())
      throw std::invalid_argument("safetensors: tensor '" + name + "' is undefined");
    items.push_back({&name,
                     "F32",
                     &t.shape(),
                     {reinterpret_cast<const char*>(t.data()), sizeof(float) * t.numel()}});
  }
  return items;
}

std::vector<WriteItem> items_of(
    const std::vector<std::pair<std::string, SafeTensorEntry>>& entries) {
  std::vector<WriteItem> items;
  items.reserve(entries.size());
  for (const auto& [name, e] : entries) {
    try {
      checked_dtype(e);
    } catch (const InputError& err) {
      throw std::invalid_argument("safetensors: tensor '" + name + "': " + err.what());
    }
    items.push_back({&name, e.dtype, &e.shape, e.bytes});
  }
  return items;
}

}  // namespace

// ---- public API ----------------------------------------------------------------------

int64_t safetensors_dtype_size(std::string_view dtype) {
  return dtype_size(parse_dtype(dtype));
}

Tensor SafeTensorEntry::to_float() const {
  const DType d = checked_dtype(*this);
  if (shape.size() > 4)
    throw InputError(label + ": shape " + shape_str(shape) +
                     " has more than 4 dimensions, the most a Tensor holds");
  Tensor t = Tensor::empty(shape);
  const int64_t n = t.numel();
  const char* p = bytes.data();
  float* out = t.data();
  switch (d) {
    case DType::F32:
      if (n) std::memcpy(out, p, sizeof(float) * n);
      break;
    case DType::F64:
      convert_all(p, n, 8, out,
                  [](const char* q) { return static_cast<float>(load_unaligned<double>(q)); });
      break;
    case DType::F16:
      convert_all(p, n, 2, out,
                  [](const char* q) { return half_to_float(load_unaligned<uint16_t>(q)); });
      break;
    case DType::BF16:
      convert_all(p, n, 2, out,
                  [](const char* q) { return bf16_to_float(load_unaligned<uint16_t>(q)); });
      break;
    case DType::U64:  // may exceed int64, so not through to_int64
      convert_all(p, n, 8, out,
                  [](const char* q) { return static_cast<float>(load_unaligned<uint64_t>(q)); });
      break;
    default: {
      const std::vector<int64_t> v = to_int64();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(v[i]);
    }
  }
  return t;
}

std::vector<int64_t> SafeTensorEntry::to_int64() const {
  const DType d = checked_dtype(*this);
  const int64_t n = numel();
  std::vector<int64_t> out(n);
  const char* p = bytes.data();
  int64_t* o = out.data();
  switch (d) {
    case DType::I64:
      if (n) std::memcpy(o, p, sizeof(int64_t) * n);
      break;
    case DType::I32:
      convert_all(p, n, 4, o, [](const char* q) { return int64_t{load_unaligned<int32_t>(q)}; });
      break;
    case DType::I16:
      convert_all(p, n, 2, o, [](const char* q) { return int64_t{load_unaligned<int16_t>(q)}; });
      break;
    case DType::I8:
      convert_all(p, n, 1, o, [](const char* q) { return int64_t{load_unaligned<int8_t>(q)}; });
      break;
    case DType::U32:
      convert_all(p, n, 4, o, [](const char* q) { return int64_t{load_unaligned<uint32_t>(q)}; });
      break;
    case DType::U16:
      convert_all(p, n, 2, o, [](const char* q) { return int64_t{load_unaligned<uint16_t>(q)}; });
      break;
    case DType::U8:
      convert_all(p, n, 1, o, [](const char* q) { return int64_t{load_unaligned<uint8_t>(q)}; });
      break;
    case DType::BOOL:
      convert_all(p, n, 1, o, [](const char* q) { return int64_t{*q != 0}; });
      break;
    case DType::U64:
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = load_unaligned<uint64_t>(p + 8 * i);
        require(v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                label + ": U64 value " + std::to_string(v) + " does not fit in int64");
        o[i] = static_cast<int64_t>(v);
      }
      break;
    default:
      throw InputError(label + ": " + dtype + " is not an integer dtype");
  }
  return out;
}

const SafeTensorEntry& SafeTensors::get(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw InputError(source + ": no tensor named " + in_quotes(name));
  return it->second;
}

SafeTensors parse_safetensors(std::string_view bytes, const std::string& what) {
  SafeTensors f;
  f.source = what;
  const std::string size = std::to_string(bytes.size()) + " bytes";
  require(bytes.size() >= 8, what + ": too short for a safetensors file (" + size + ")");
  const uint64_t header_len = load_unaligned<uint64_t>(bytes.data());
  require(header_len <= bytes.size() - 8, what + ": header length " + std::to_string(header_len) +
                                              " runs past the end of the file (" + size + ")");
  require(header_len <= kMaxHeaderBytes,
          what + ": header length " + std::to_string(header_len) + " above the 100 MB limit");
  const Header parsed = parse_header(bytes.substr(8, header_len), what);
  const Json& header = parsed.json;
  require(header.is_object(), what + ": header is not a JSON object");
  const std::string_view data = bytes.substr(8 + header_len);

  // Pass 1: check every entry on its own. Nothing is copied yet, so a header whose
  // entries overlap cannot make us allocate more than the file holds.
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  std::vector<Span> spans;
  entries.reserve(header.size());
  spans.reserve(header.size());
  for (const std::string& name : parsed.order) {
    const Json& value = *header.find(name);
    if (name == "__metadata__") {
      parse_metadata(value, what, f);
      continue;
    }
    entries.emplace_back(name, SafeTensorEntry{});
    spans.push_back(parse_entry(name, value, data.size(), what, entries.back().second));
  }
  for (size_t i = 0; i < spans.size(); ++i) spans[i].name = &entries[i].first;

  // Pass 2: sorted by offset, the tensors must tile the data buffer exactly.
  std::vector<Span> sorted = spans;
  std::sort(sorted.begin(), sorted.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected = 0;
  for (const Span& s : sorted) {
    require(s.begin == expected,
            what + ": tensor " + in_quotes(*s.name) + ": data_offsets begin at " +
                std::to_string(s.begin) + ", but the previous tensor ends at " +
                std::to_string(expected) + (s.begin < expected ? " (overlap)" : " (hole)"));
    expected = s.end;
  }
  require(expected == data.size(), what + ": the data buffer has " +
                                       std::to_string(data.size() - expected) +
                                       " bytes after the last tensor");

  // Pass 3: copy the bytes (in total exactly the data buffer).
  f.names.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    auto& [name, entry] = entries[i];
    entry.bytes.assign(data.substr(spans[i].begin, spans[i].end - spans[i].begin));
    f.names.push_back(name);
    f.tensors.emplace(name, std::move(entry));
  }
  return f;
}

SafeTensors load_safetensors(const std::string& path) {
  return parse_safetensors(read_file(path), path);
}

SafeTensorEntry float32_entry(const Tensor& t) {
  if (!t.defined()) throw std::invalid_argument("float32_entry: undefined tensor");
  return {"F32", t.shape(),
          std::string(reinterpret_cast<const char*>(t.data()), sizeof(float) * t.numel()), ""};
}

SafeTensorEntry int64_entry(const Shape& shape, const std::vector<int64_t>& values) {
  if (shape_numel(shape) != static_cast<int64_t>(values.size()))
    throw std::invalid_argument("int64_entry: " + std::to_string(values.size()) +
                                " values for shape " + shape_str(shape));
  return {
      "I64", shape,
      std::string(reinterpret_cast<const char*>(values.data()), sizeof(int64_t) * values.size()),
      ""};
}

std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  return serialize(items_of(tensors), metadata);
}

std::string serialize_safetensor_entries(
    const std::vector<std::pair<std::string, SafeTensorEntry>>& entries,
    const std::map<std::string, std::string>& metadata) {
  return serialize(items_of(entries), metadata);
}

void save_safetensors(const std::string& path,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, serialize_safetensors(tensors, metadata));
}

void save_safetensor_entries(const std::string& path,
                             const std::vector<std::pair<std::string, SafeTensorEntry>>& entries,
                             const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, serialize_safetensor_entries(entries, metadata));
}

}  // namespace tinylm
