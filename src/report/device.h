// Devices to analyse a model on (tinylm info --device NAME): peak FLOP/s per precision,
// memory bandwidth and memory size. "cpu" is this machine, measured by a short probe
// (about 0.3 s): cores, SIMD width, the sgemm rate tinylm's BLAS reaches on 1024 x 1024
// products (its real peak), and the bandwidth of a large copy. The others come from
// their makers' data sheets (dense tensor-core rates, no sparsity):
//   rtx4060-laptop  3,072 CUDA cores x 1,890 MHz boost x 2 = 11.6 TFLOP/s fp32; bf16 on
//                   tensor cores with fp32 accumulation 2x that (Ada GeForce); 8 GB
//                   GDDR6, 7.6 GiB of it usable (what the system shows), at 256 GB/s
//                   (the 288 GB/s figure is the desktop RTX 4060's)
//   a100            A100 SXM 80 GB: 19.5 TFLOP/s fp32, 312 bf16, 2,039 GB/s
//   h100            H100 SXM 80 GB: 67 TFLOP/s fp32, 989 bf16, 3,350 GB/s
//   h200            H200 SXM 141 GB: 67 TFLOP/s fp32, 989 bf16, 4,800 GB/s
#pragma once
#include <string>
#include <vector>

namespace tinylm::report {

struct Device {
  std::string name, description;
  double fp32_flops = 0;           // peak FLOP/s, float32
  double bf16_flops = 0;           // peak FLOP/s, bfloat16 inputs (fp32 accumulation)
  double bandwidth = 0;            // bytes/s
  double memory = 0;               // bytes
  bool measured = false;           // true for the probed CPU
  int cores = 0, simd_floats = 0;  // cpu only
};

// The data-sheet devices (not the CPU).
std::vector<Device> known_devices();
// This machine, measured now on `threads` threads (0: tinylm's current thread count).
Device probe_cpu(int threads = 0);
// "cpu" (probed) or a known device; InputError listing the names otherwise.
Device find_device(const std::string& name);

}  // namespace tinylm::report
