// libFuzzer entry point for the safetensors parser. CMake builds it with g++ as a
// deterministic mutation loop that ctest runs (tests/common/mutation_fuzzer_main.cpp,
// seeds in tests/fuzz_seeds/fuzz_safetensors), or, configured with clang, with libFuzzer.
//
// Property checked: for any bytes, parse_safetensors either returns or throws InputError
// (anything else -- a crash, a sanitizer report, another exception, a huge allocation --
// is a bug). When it returns, the converters must also only ever throw InputError, and
// writing the parsed tensors back and parsing that again must give the same tensors.
//
// By hand with libFuzzer (clang 14, apt-get install clang-14 libclang-rt-14-dev; each
// command is one line, shown folded):
//
//   mkdir -p build-fuzz/corpus
//   clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined
//       -fno-sanitize-recover=undefined -Isrc tests/io/fuzz_safetensors.cpp
//       src/io/safetensors.cpp src/tensor/tensor.cpp src/util/files.cpp
//       -o build-fuzz/fuzz_safetensors
//
// Seed the corpus with small valid files (the fixtures are large; small seeds mutate
// faster), e.g. the files the unit tests build, or a fixture:
//
//   cp tests/fixtures/gpt2-micro/reference.safetensors build-fuzz/corpus/
//
// Run for ten minutes on two cores, with a dictionary of the header's tokens, and at most
// 2 GB of memory (a larger allocation is reported as a bug):
//
//   build-fuzz/fuzz_safetensors build-fuzz/corpus -dict=tests/io/safetensors.dict
//       -max_len=4096 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_total_time=600
//       -jobs=2 -workers=2
//
// A crash leaves crash-<sha1> in the current folder; replay it with
//   build-fuzz/fuzz_safetensors crash-<sha1>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/safetensors.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tinylm;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  SafeTensors f;
  try {
    f = parse_safetensors(bytes, "fuzz");
  } catch (const InputError&) {
    return 0;  // rejected cleanly
  }
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  for (const std::string& name : f.names) {
    const SafeTensorEntry& e = f.get(name);
    try {
      e.to_float();
    } catch (const InputError&) {  // more than 4 dimensions
    }
    try {
      e.to_int64();
    } catch (const InputError&) {  // a float dtype, or a U64 above INT64_MAX
    }
    entries.emplace_back(name, e);
  }
  // Round trip: what we accepted, we can write, and read back unchanged.
  const SafeTensors again =
      parse_safetensors(serialize_safetensor_entries(entries, f.metadata), "again");
  if (again.names != f.names || again.metadata != f.metadata) std::abort();
  for (const auto& [name, e] : f.tensors) {
    const SafeTensorEntry& a = again.get(name);
    if (a.dtype != e.dtype || a.shape != e.shape || a.bytes != e.bytes) std::abort();
  }
  return 0;
}
