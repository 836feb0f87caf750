#!/usr/bin/env bash
# Builds, on this machine, what a GPU machine lent through the device tool runs, into
# .gpu/ (git-ignored), which its `carry` takes along:
#   .gpu/bin/test_cuda     the CUDA device tests (tests/cuda)
#   .gpu/bin/test_backend  the op table test (tests/backend): every kernel of every
#                          backend, the cuda table's included, against ops::ref
#   .gpu/lib/*.so*         the shared libraries they need besides glibc, libstdc++ and
#                          CUDA's own (cuBLAS, cuBLASLt, the runtime if it is shared)
# The GPU machine has CUDA 13.0, CMake and PyTorch but none of tinylm's Debian libraries,
# and the device tool carries at most 64 MiB: hence OpenBLAS without oneDNN (40 MB),
# x86-64-v3 (AVX2) code instead of -march=native, since its CPU is not this one, and
# cuBLAS (over 500 MB with cuBLASLt) left to the GPU machine's CUDA, found there through
# LD_LIBRARY_PATH.
# There:   export LD_LIBRARY_PATH=.gpu/lib:/usr/local/cuda/lib64
#          .gpu/bin/test_cuda && .gpu/bin/test_backend
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DTINYLM_USE_DNNL=OFF \
  -DCMAKE_CXX_FLAGS_RELEASE="-O3 -march=x86-64-v3 -DNDEBUG" > build-gpu.configure.log 2>&1 ||
  { cat build-gpu.configure.log; exit 1; }
grep -q "CUDA backend: ON" build-gpu.configure.log ||
  { echo "gpu-bundle: nvcc not found, the CUDA backend is not built" >&2; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target test_cuda test_backend
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp build-gpu/test_cuda build-gpu/test_backend .gpu/bin/
ldd .gpu/bin/test_backend | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    libcublas*.so*|libcublasLt*.so*|libcudart*.so*) ;;  # the GPU machine's CUDA has them
    *) cp -L "$lib" .gpu/lib/ ;;
  esac
done
du -sh .gpu
echo "gpu-bundle: .gpu ready (carry it; run LD_LIBRARY_PATH=.gpu/lib:/usr/local/cuda/lib64 .gpu/bin/test_backend)"
