#include "io/protobuf_wire.h"

#include "util/error.h"

namespace tinylm {

ProtoReader::ProtoReader(std::string_view message, const std::string& what)
    : cursor_(message, what), what_(what) {}

bool ProtoReader::next(ProtoField& field) {
  if (cursor_.at_end()) return false;
  const uint64_t key = cursor_.varint64();
  require(key <= UINT32_MAX && (key >> 3) != 0,
          [&] { return what_ + ": bad field key " + std::to_string(key); });
  field = ProtoField{};
  field.number = static_cast<uint32_t>(key >> 3);
  const uint32_t type = static_cast<uint32_t>(key & 7u);
  switch (type) {
    case 0:
      field.value = cursor_.varint64();
      break;
    case 1:
      field.value = cursor_.fixed64();
      break;
    case 2:
      field.bytes = cursor_.bytes(cursor_.varint64());
      break;
    case 5:
      field.value = cursor_.fixed32();
      break;
    default:
      throw InputError(what_ + ": field " + std::to_string(field.number) +
                       " has unsupported wire type " + std::to_string(type));
  }
  field.type = static_cast<WireType>(type);
  return true;
}

namespace {

void require_wire_type(const ProtoField& field, WireType type, const std::string& what) {
  require(field.type == type, [&] {
    return what + ": field " + std::to_string(field.number) + " has wire type " +
           std::to_string(static_cast<int>(field.type)) + ", expected " +
           std::to_string(static_cast<int>(type));
  });
}

}  // namespace

int64_t proto_int64(const ProtoField& field, const std::string& what) {
  require_wire_type(field, WireType::kVarint, what);
  return static_cast<int64_t>(field.value);
}

int32_t proto_int32(const ProtoField& field, const std::string& what) {
  require_wire_type(field, WireType::kVarint, what);
  return static_cast<int32_t>(static_cast<uint32_t>(field.value));
}

uint32_t proto_fixed32(const ProtoField& field, const std::string& what) {
  require_wire_type(field, WireType::kFixed32, what);
  return static_cast<uint32_t>(field.value);
}

std::string_view proto_bytes(const ProtoField& field, const std::string& what) {
  require_wire_type(field, WireType::kBytes, what);
  return field.bytes;
}

}  // namespace tinylm
