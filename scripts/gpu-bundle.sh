#!/usr/bin/env bash
# Builds, on this machine, what a GPU machine lent through the device tool runs, packed
# as .gpu/bundle.tar.xz (git-ignored; the device tool carries at most 64 MiB with the
# working tree, so the bundle travels compressed), which unpacks to gpu/:
#   gpu/bin/test_cuda     the CUDA device tests (tests/cuda)
#   gpu/bin/test_backend  the op table test (tests/backend): every kernel of every
#                         backend, the cuda table's included, against ops::ref
#   gpu/bin/test_train    the trainer's tests, the model on the GPU against the CPU among them
#   gpu/bin/tinylm        the command line (train, verify, generate with --device cuda)
#   gpu/lib/*.so*         the shared libraries they need besides glibc, libstdc++ and
#                         CUDA's own (cuBLAS: the GPU machine's CUDA 13 has them)
# The GPU machine has CUDA, CMake and PyTorch but none of tinylm's Debian libraries, and
# the device tool carries at most 64 MiB: hence OpenBLAS without oneDNN (40 MB), and
# x86-64-v3 (AVX2) code instead of -march=native, since its CPU is not this one.
# There:   tar -xJf .gpu/bundle.tar.xz -C /tmp && LD_LIBRARY_PATH=/tmp/gpu/lib:/usr/local/cuda/lib64 /tmp/gpu/bin/test_cuda
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DTINYLM_USE_DNNL=OFF \
  -DCMAKE_CXX_FLAGS_RELEASE="-O3 -march=x86-64-v3 -DNDEBUG" > build-gpu.configure.log 2>&1 ||
  { cat build-gpu.configure.log; exit 1; }
grep -q "CUDA backend: ON" build-gpu.configure.log ||
  { echo "gpu-bundle: nvcc not found, the CUDA backend is not built" >&2; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target test_cuda test_backend test_train tinylm
stage=build-gpu/stage/gpu
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib"
cp build-gpu/test_cuda build-gpu/test_backend build-gpu/test_train build-gpu/tinylm "$stage/bin/"
strip "$stage"/bin/*
ldd "$stage"/bin/* | awk '$3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    libcublas*|libcudart*) ;;  # the GPU machine's own CUDA 13 (/usr/local/cuda/lib64 there)
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
rm -rf .gpu && mkdir -p .gpu
tar -C build-gpu/stage -cJf .gpu/bundle.tar.xz gpu
du -sh .gpu/bundle.tar.xz
echo "gpu-bundle: .gpu/bundle.tar.xz ready (carry .gpu; see the top of this script)"
