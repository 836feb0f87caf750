// Mixed-precision products, fast version (see matmul_bf16.h):
//   C [M, N] = alpha * bf16(op(A)) [M, K] @ bf16(op(B)) [K, N] + beta * C, float32 sums
// Through oneDNN's matmul primitive: source bf16 [M, K], weights bf16 [K, N], destination
// f32 [M, N]; a transposed operand is the same stored array described by its strides, so
// each operand is rounded as stored (ops::to_bf16) into this thread's buffer. alpha is the
// primitive's output scale, beta its sum post-op (none when beta == 0: C is overwritten).
// Each thread keeps its primitives by (M, N, K, transposes, alpha, beta); a thread meeting
// a shape another thread made gets it from oneDNN's own primitive cache. The primitives'
// scratchpads (the operands' blocked copies) are ours, one per thread kept at its largest:
// in oneDNN's default mode each execution allocates and frees its own, and the fresh pages
// cost more than the bf16 product saves (a 10.65M training step twice as slow). oneDNN requests
// the AMX tile permission (arch_prctl(ARCH_REQ_XCOMP_PERM)) itself, in
// dnnl::impl::cpu::x64::amx::is_available(), before it picks an AMX kernel.
#include "ops/matmul_bf16.h"

#if TINYLM_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "ops/bf16.h"
#include "ops/matmul.h"
#include "util/aligned.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

MatmulPrecision g_cpu_precision = MatmulPrecision::kFp32;

// op(X) rounded to bf16 values, kept float32 (the fallback's operands): [n] -> [n]
void round_to_bf16_values(const float* x, float* out, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_float(float_to_bf16(x[i]));
}

// Without a bf16 primitive: the same arithmetic through the float32 sgemm.
void matmul_bf16_by_sgemm(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                          bool trans_a, bool trans_b, float alpha, float beta) {
  thread_local std::vector<float> a_rounded, b_rounded;
  if (a_rounded.size() < static_cast<size_t>(M * K)) a_rounded.resize(M * K);
  if (b_rounded.size() < static_cast<size_t>(K * N)) b_rounded.resize(K * N);
  round_to_bf16_values(A, a_rounded.data(), M * K);
  round_to_bf16_values(B, b_rounded.data(), K * N);
  matmul(a_rounded.data(), b_rounded.data(), C, M, N, K, trans_a, trans_b, alpha, beta);
}

#if TINYLM_HAVE_DNNL

using Shape = std::tuple<int64_t, int64_t, int64_t, bool, bool, uint32_t, uint32_t>;

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// One shape's primitive and its three memory objects (data handles set per call); no
// primitive when oneDNN has no bf16 matmul here.
struct Product {
  dnnl::matmul primitive;
  dnnl::memory a, b, c, scratch;
  size_t scratch_bytes = 0;
  std::string kernel;  // oneDNN's name of the implementation, "brg:avx512_core_bf16"
  bool usable = false;
};

Product make_product(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b, float alpha,
                     float beta) {
  using dt = dnnl::memory::data_type;
  using dims = dnnl::memory::dims;
  const dnnl::memory::desc a_md({M, K}, dt::bf16, trans_a ? dims{1, M} : dims{K, 1});
  const dnnl::memory::desc b_md({K, N}, dt::bf16, trans_b ? dims{1, K} : dims{N, 1});
  const dnnl::memory::desc c_md({M, N}, dt::f32, dims{N, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops sum;
    sum.append_sum(beta);
    attr.set_post_ops(sum);
  }
  Product p;
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, cpu_engine());
    p.primitive = dnnl::matmul(pd);
    p.kernel = pd.impl_info_str();
    p.scratch = dnnl::memory(pd.scratchpad_desc(), cpu_engine(), nullptr);
    p.scratch_bytes = pd.scratchpad_desc().get_size();
    p.usable = true;
  } catch (const dnnl::error&) {  // no bf16 matmul on this CPU (oneDNN 2.6: no AVX-512)
    return p;
  }
  p.a = dnnl::memory(a_md, cpu_engine(), nullptr);
  p.b = dnnl::memory(b_md, cpu_engine(), nullptr);
  p.c = dnnl::memory(c_md, cpu_engine(), nullptr);
  return p;
}

Product& product_for(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b, float alpha,
                     float beta) {
  thread_local std::map<Shape, Product> products;
  const Shape key{M, N, K, trans_a, trans_b, bits_of(alpha), bits_of(beta)};
  auto it = products.find(key);
  if (it == products.end())
    it = products.emplace(key, make_product(M, N, K, trans_a, trans_b, alpha, beta)).first;
  return it->second;
}

// The operands rounded into this thread's buffers, then the primitive (C API execute: no
// argument map to build).
void run_product(Product& p, const float* A, const float* B, float* C, int64_t M, int64_t N,
                 int64_t K) {
  thread_local std::vector<uint16_t> a16, b16;
  thread_local AlignedVector<uint8_t> scratch;
  if (a16.size() < static_cast<size_t>(M * K)) a16.resize(M * K);
  if (b16.size() < static_cast<size_t>(K * N)) b16.resize(K * N);
  if (scratch.size() < p.scratch_bytes) scratch.resize(p.scratch_bytes);
  to_bf16(A, a16.data(), M * K);
  to_bf16(B, b16.data(), K * N);
  p.a.set_data_handle(a16.data());
  p.b.set_data_handle(b16.data());
  p.c.set_data_handle(C);
  p.scratch.set_data_handle(scratch.data());
  thread_local const dnnl::stream stream(cpu_engine());
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, p.a.get()},
                                  {DNNL_ARG_WEIGHTS, p.b.get()},
                                  {DNNL_ARG_DST, p.c.get()},
                                  {DNNL_ARG_SCRATCHPAD, p.scratch.get()}};
  const dnnl_status_t status = dnnl_primitive_execute(p.primitive.get(), stream.get(), 4, args);
  if (status != dnnl_success)
    throw std::runtime_error("matmul_bf16: oneDNN matmul failed (status " + std::to_string(status) +
                             ") for M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             " K=" + std::to_string(K));
}

// "AMX", "AVX512_BF16" or "emulated on AVX-512", from oneDNN's kernel name.
const char* isa_of(const std::string& kernel) {
  if (kernel.find("amx") != std::string::npos) return "AMX";
  if (kernel.find("bf16") != std::string::npos) return "AVX512_BF16";
  return "bf16 emulated, no bf16 instructions";
}

#endif  // TINYLM_HAVE_DNNL

}  // namespace

void matmul_bf16(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                 bool trans_a, bool trans_b, float alpha, float beta) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return matmul(A, B, C, M, N, 0, trans_a, trans_b, alpha, beta);  // C = beta C
#if TINYLM_HAVE_DNNL
  Product& p = product_for(M, N, K, trans_a, trans_b, alpha, beta);
  if (p.usable) return run_product(p, A, B, C, M, N, K);
#endif
  matmul_bf16_by_sgemm(A, B, C, M, N, K, trans_a, trans_b, alpha, beta);
}

const std::string& matmul_bf16_kernel() {
  static const std::string name = [] {
#if TINYLM_HAVE_DNNL
    const Product& p = product_for(64, 64, 64, false, false, 1.0f, 0.0f);
    if (p.usable) return "oneDNN " + p.kernel + " (" + isa_of(p.kernel) + ")";
    return std::string("sgemm on bf16-rounded operands (oneDNN has no bf16 matmul on this CPU)");
#else
    return std::string("sgemm on bf16-rounded operands (built without oneDNN)");
#endif
  }();
  return name;
}

void set_cpu_matmul_precision(MatmulPrecision p) {
  require(p != MatmulPrecision::kTf32,
          "--precision tf32: the cpu backend computes fp32 or bf16 (tf32 needs --device cuda)");
  g_cpu_precision = p;
}

MatmulPrecision cpu_matmul_precision() {
  return g_cpu_precision;
}

}  // namespace tinylm::ops
