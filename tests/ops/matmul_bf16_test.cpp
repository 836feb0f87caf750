// The CPU's bf16 precision (ops/matmul_bf16.h): the linear layer's three products go
// through matmul_bf16 at bf16 and are float32 sgemm products, bit for bit, at fp32; tf32
// is refused; the kernel that runs is named. matmul_bf16 itself against its reference on
// odd shapes: the op table test (tests/backend/op_table_matmul_bf16_test.cpp).
#include "ops/matmul_bf16.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ops/gradcheck.h"
#include "ops/matmul.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::random_vec;

// The precision set for one test, fp32 again after it.
struct Bf16Products {
  Bf16Products() { set_cpu_matmul_precision(MatmulPrecision::kBf16); }
  ~Bf16Products() { set_cpu_matmul_precision(MatmulPrecision::kFp32); }
};

// x [N, C], W [OC, C], b [OC], dy [N, OC], and the old dW, db that backward adds to
struct LinearData {
  int64_t N, C, OC;
  std::vector<float> x, W, b, dy, dW, db;
  LinearData(int64_t n, int64_t c, int64_t oc, Rng& rng)
      : N(n),
        C(c),
        OC(oc),
        x(random_vec(n * c, rng)),
        W(random_vec(oc * c, rng, 0.2f)),
        b(random_vec(oc, rng)),
        dy(random_vec(n * oc, rng)),
        dW(random_vec(oc * c, rng)),
        db(random_vec(oc, rng)) {}
};

TEST(MatmulBf16, LinearProductsGoThroughMatmulBf16) {
  Rng rng(5);
  for (int64_t N : {3, 16, 17, 70}) {  // rows under and over kRowInvariantMaxRows
    const LinearData d(N, 33, 19, rng);
    std::vector<float> y(N * d.OC), dx(N * d.C), dW = d.dW, db = d.db;
    {
      Bf16Products bf16;
      linear_forward(d.x.data(), d.W.data(), d.b.data(), y.data(), N, d.C, d.OC);
      linear_backward(d.dy.data(), d.x.data(), d.W.data(), dx.data(), dW.data(), db.data(), N, d.C,
                      d.OC);
    }
    std::vector<float> y_want(N * d.OC), dx_want(N * d.C), dW_want = d.dW;
    for (int64_t i = 0; i < N; ++i) std::copy(d.b.begin(), d.b.end(), y_want.begin() + i * d.OC);
    matmul_bf16(d.x.data(), d.W.data(), y_want.data(), N, d.OC, d.C, false, true, 1.0f, 1.0f);
    matmul_bf16(d.dy.data(), d.W.data(), dx_want.data(), N, d.C, d.OC);
    matmul_bf16(d.dy.data(), d.x.data(), dW_want.data(), d.OC, d.C, N, true, false, 1.0f, 1.0f);
    EXPECT_EQ(y, y_want) << "N=" << N;
    EXPECT_EQ(dx, dx_want) << "N=" << N;
    EXPECT_EQ(dW, dW_want) << "N=" << N;
    // db is float32 column sums, at either precision
    std::vector<float> db_fp32 = d.db;
    linear_backward(d.dy.data(), d.x.data(), d.W.data(), nullptr, nullptr, db_fp32.data(), N, d.C,
                    d.OC);
    EXPECT_EQ(db, db_fp32) << "N=" << N;
  }
}

TEST(MatmulBf16, Fp32IsTheSgemmBitForBit) {
  Rng rng(6);
  const LinearData d(40, 24, 20, rng);
  { Bf16Products bf16; }  // and back
  EXPECT_EQ(cpu_matmul_precision(), MatmulPrecision::kFp32);
  std::vector<float> y(d.N * d.OC), y_want(d.N * d.OC), dx(d.N * d.C), dx_want(d.N * d.C);
  linear_forward(d.x.data(), d.W.data(), nullptr, y.data(), d.N, d.C, d.OC);
  matmul(d.x.data(), d.W.data(), y_want.data(), d.N, d.OC, d.C, false, true);
  EXPECT_EQ(y, y_want);
  linear_backward(d.dy.data(), d.x.data(), d.W.data(), dx.data(), nullptr, nullptr, d.N, d.C, d.OC);
  matmul(d.dy.data(), d.W.data(), dx_want.data(), d.N, d.C, d.OC);
  EXPECT_EQ(dx, dx_want);
}

TEST(MatmulBf16, Tf32IsRefused) {
  EXPECT_THROW(set_cpu_matmul_precision(MatmulPrecision::kTf32), InputError);
  EXPECT_EQ(cpu_matmul_precision(), MatmulPrecision::kFp32);
}

// Which kernel runs, printed; under DNNL_MAX_CPU_ISA=AVX2 (no bf16 matmul in oneDNN 2.6)
// the sgemm on rounded operands.
TEST(MatmulBf16, SaysWhichKernelRuns) {
  const std::string& kernel = matmul_bf16_kernel();
  std::printf("matmul_bf16: %s\n", kernel.c_str());
  EXPECT_FALSE(kernel.empty());
  const char* isa = std::getenv("DNNL_MAX_CPU_ISA");
  if (isa && std::string(isa) == "AVX2") {
    EXPECT_NE(kernel.find("sgemm"), std::string::npos);
  }
}

}  // namespace
}  // namespace tinylm::ops
