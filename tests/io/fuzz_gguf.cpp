// libFuzzer entry point for the GGUF reader (io/gguf.h). CMake builds it with g++ as a
// deterministic mutation loop that ctest runs (tests/common/mutation_fuzzer_main.cpp,
// seeds in tests/fuzz_seeds/fuzz_gguf: small files written by tinylm), or, configured with
// clang, with libFuzzer (build and run it as tests/io/fuzz_safetensors.cpp says, with
// src/io/gguf.cpp src/io/ggml_types.cpp src/util/float16.cpp added).
//
// Property checked: for any bytes, parse_gguf either returns or throws InputError
// (anything else -- a crash, a sanitizer report, another exception, a huge allocation --
// is a bug). What it accepts converts to float32, and written back and read again gives
// the same metadata and tensors (a version 2 file comes back as version 3).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/gguf.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tinylm;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Gguf g;
  try {
    g = parse_gguf(bytes, "fuzz");
  } catch (const InputError&) {
    return 0;  // rejected cleanly
  }
  for (const GgufTensor& t : g.tensors) t.to_float();
  Gguf again;
  try {
    again = parse_gguf(serialize_gguf(g), "again");
  } catch (const InputError&) {
    std::abort();  // what was read must be written and read back
  }
  if (again.metadata.size() != g.metadata.size() || again.tensors.size() != g.tensors.size())
    std::abort();
  for (size_t i = 0; i < g.metadata.size(); ++i) {
    const GgufValue &a = again.metadata[i].second, &b = g.metadata[i].second;
    if (again.metadata[i].first != g.metadata[i].first || a.type != b.type ||
        a.is_array != b.is_array || a.ints != b.ints || a.strings != b.strings ||
        a.floats.size() != b.floats.size())
      std::abort();
  }
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const GgufTensor &a = again.tensors[i], &b = g.tensors[i];
    if (a.name != b.name || a.ne != b.ne || a.type != b.type || a.bytes != b.bytes) std::abort();
  }
  return 0;
}
