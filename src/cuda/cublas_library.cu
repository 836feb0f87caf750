// Loads cuBLAS on first use (see cublas_library.h).
#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "cuda/cublas_library.h"

namespace tinylm::cuda {
namespace {

const std::string kSoname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);

void* open_library() {
  if (void* h = dlopen(kSoname.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const std::string first_error = dlerror();
  const std::string in_toolkit = std::string(TINYLM_CUDA_LIBRARY_DIR) + "/" + kSoname;
  if (void* h = dlopen(in_toolkit.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  throw std::runtime_error("cuBLAS: cannot load " + kSoname + " (" + first_error + "), nor " +
                           in_toolkit + " (" + dlerror() + ")");
}

template <class F>
void resolve(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (!f) throw std::runtime_error("cuBLAS: " + kSoname + " has no " + name);
}

CublasLibrary load() {
  void* h = open_library();  // kept for the program's life, as the handle
  CublasLibrary l{};
  resolve(h, "cublasCreate_v2", l.create);
  resolve(h, "cublasSetStream_v2", l.set_stream);
  resolve(h, "cublasSetMathMode", l.set_math_mode);
  resolve(h, "cublasSetWorkspace_v2", l.set_workspace);
  resolve(h, "cublasGetStatusString", l.status_string);
  resolve(h, "cublasGemmEx", l.gemm_ex);
  resolve(h, "cublasGemmStridedBatchedEx", l.gemm_strided_batched_ex);
  return l;
}

}  // namespace

const CublasLibrary& cublas() {
  static const CublasLibrary library = load();
  return library;
}

}  // namespace tinylm::cuda
