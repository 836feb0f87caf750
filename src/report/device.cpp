// The device table and the CPU probe (see device.h).
#include "report/device.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "ops/matmul.h"
#include "tensor/threads.h"
#include "util/error.h"

namespace tinylm::report {

std::vector<Device> known_devices() {
  const double GB = 1e9, GiB = 1024.0 * 1024 * 1024, T = 1e12;
  return {
      {"rtx4060-laptop",
       "NVIDIA RTX 4060 Laptop GPU (3,072 CUDA cores, 1,890 MHz boost, 8 GB GDDR6)",
       3072 * 1.89e9 * 2, 2 * 3072 * 1.89e9 * 2, 256 * GB, 8 * GiB},
      {"a100", "NVIDIA A100 SXM 80 GB", 19.5 * T, 312 * T, 2039 * GB, 80 * GiB},
      {"h100", "NVIDIA H100 SXM 80 GB", 67 * T, 989 * T, 3350 * GB, 80 * GiB},
      {"h200", "NVIDIA H200 SXM 141 GB", 67 * T, 989 * T, 4800 * GB, 141 * GB},
  };
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Device probe_cpu(int threads) {
  const int saved = num_threads();
  if (threads > 0) set_num_threads(threads);
  Device d;
  d.name = "cpu";
  d.measured = true;
  d.cores = num_threads();
#if defined(__AVX512F__)
  d.simd_floats = 16;
#elif defined(__AVX2__) || defined(__AVX__)
  d.simd_floats = 8;
#else
  d.simd_floats = 4;
#endif
  // sgemm: 1024^3 products for 0.15 s (after one warm-up); the fastest one counts, so
  // that another program busy on the same cores lowers the peak less (a peak measured
  // low would show an MFU above 100 %).
  const int64_t n = 1024;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  ops::matmul(a.data(), b.data(), c.data(), n, n, n);
  double fastest = 1e30;
  auto t0 = std::chrono::steady_clock::now();
  do {
    const auto r0 = std::chrono::steady_clock::now();
    ops::matmul(a.data(), b.data(), c.data(), n, n, n);
    fastest = std::min(fastest, seconds_since(r0));
  } while (seconds_since(t0) < 0.15);
  d.fp32_flops = 2.0 * n * n * n / fastest;
  d.bf16_flops = 0;  // tinylm's CPU path computes in float32 only
  // Bandwidth: copies of 64 MiB (each reads and writes it).
  const size_t bytes = 64u << 20;
  std::vector<char> src(bytes, 1), dst(bytes);
  std::memcpy(dst.data(), src.data(), bytes);
  int reps = 0;
  t0 = std::chrono::steady_clock::now();
  do {
    std::memcpy(dst.data(), src.data(), bytes);
    ++reps;
  } while (seconds_since(t0) < 0.1);
  d.bandwidth = 2.0 * static_cast<double>(bytes) * reps / seconds_since(t0);
  d.memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  d.description = "this machine: " + std::to_string(d.cores) + " threads, " +
                  std::to_string(d.simd_floats * 32) + "-bit SIMD (" +
                  std::to_string(d.simd_floats) + " floats), measured sgemm and copy";
  if (threads > 0) set_num_threads(saved);
  return d;
}

Device find_device(const std::string& name) {
  if (name == "cpu") return probe_cpu();
  std::string names = "cpu";
  for (const Device& d : known_devices()) {
    if (d.name == name) return d;
    names += ", " + d.name;
  }
  throw InputError("--device: unknown device '" + name + "' (" + names + ")");
}

}  // namespace tinylm::report
