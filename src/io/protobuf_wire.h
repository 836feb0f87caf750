// The protocol buffer wire format, read by hand: enough to decode the small messages that
// TensorFlow checkpoints store (io/tf_bundle.h) without linking protobuf.
//
// A message is a sequence of fields, each a varint key (field_number << 3 | wire_type)
// and a value:
//   wire type 0  varint   (int32, int64, uint64, bool, enum; a negative int32 takes
//                          10 bytes, its 64-bit two's complement)
//   wire type 1  fixed64  (8 bytes, little-endian)
//   wire type 2  bytes    (varint length, then that many bytes: strings, sub-messages,
//                          packed repeated fields)
//   wire type 5  fixed32  (4 bytes, little-endian)
// Wire types 3 and 4 (the deprecated groups) and 6, 7 are refused. A reader skips the fields
// it does not know, as protobuf does, so newer writers' extra fields are harmless.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "io/byte_cursor.h"

namespace tinylm {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// One field as it lies on the wire.
struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;      // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kBytes
};

// Reads the fields of one message in order:
//   ProtoReader r(bytes, "model.ckpt.index: tensor w");
//   for (ProtoField f; r.next(f);) ...
// InputError("<what>: ...") for a truncated field, a field number 0, or a wire type other
// than 0, 1, 2, 5.
class ProtoReader {
 public:
  ProtoReader(std::string_view message, const std::string& what);
  // The next field into `field`; false at the end of the message.
  bool next(ProtoField& field);

 private:
  ByteCursor cursor_;
  std::string what_;
};

// The value of a field as its type; InputError("<what>: field N has wire type T,
// expected E") when the field's wire type is not that type's.
int64_t proto_int64(const ProtoField& field, const std::string& what);  // int64 (varint)
// int32 and enum (varint): protobuf keeps the low 32 bits.
int32_t proto_int32(const ProtoField& field, const std::string& what);
uint32_t proto_fixed32(const ProtoField& field, const std::string& what);
// Strings, sub-messages, packed repeated fields.
std::string_view proto_bytes(const ProtoField& field, const std::string& what);

}  // namespace tinylm
