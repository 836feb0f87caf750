// Mixed-precision products (ops/matmul_bf16.h): the cases of the op table test.
// Both sides round the operands to the same bf16 values, and a product of two bf16 values
// is exact in float32, so what differs is the sum alone: float32 (oneDNN, in its blocking
// order) against the reference's float64. Tolerance: 1e-5 relative plus 1e-6 K absolute,
// the float32 sgemm's own (op_table_linear_test.cpp). With normal inputs the partial sums
// are about sqrt(k) in size, so K float32 roundings add up to about 2^-24 K / sqrt(2)
// (random walk), some ten times below 1e-6 K; the worst case K 2^-24 sum |a b| is not
// reached by these inputs.
#include <array>

#include "op_table.h"

namespace tinylm::op_table {

namespace {

struct Bf16Product {
  bool ta, tb;
  float alpha, beta;
};

std::string bf16_product_name(const Bf16Product& p) {
  return "C = " + num(p.alpha) + (p.ta ? " A^T" : " A") + (p.tb ? " B^T" : " B") + " + " +
         num(p.beta) + " C";
}

std::vector<Bf16Product> bf16_transposes(float alpha, float beta) {
  return {{false, false, alpha, beta},
          {true, false, alpha, beta},
          {false, true, alpha, beta},
          {true, true, alpha, beta}};
}

// One shape, several products of the same A [M*K], B [K*N] and old C [M*N] (NaN where
// beta == 0: it must be ignored).
Case matmul_bf16_case(int64_t M, int64_t N, int64_t K, std::vector<Bf16Product> products,
                      const std::string& suffix = "") {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["A"] = random_vec(M * K, rng);
    in.f["B"] = random_vec(K * N, rng);
    in.f["C"] = random_vec(M * N, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor A = upload(in["A"], b.device), B = upload(in["B"], b.device);
    Outputs out;
    for (const Bf16Product& p : products) {
      Tensor C = p.beta == 0.0f ? fresh(M * N, b.device) : upload(in["C"], b.device);
      b.matmul_bf16(A.data(), B.data(), C.data(), M, N, K, p.ta, p.tb, p.alpha, p.beta);
      out.add(bf16_product_name(p), C);
    }
    return out;
  };
  const Tol tol{1e-5, 1e-6 * std::max<int64_t>(K, 1)};
  return {"matmul_bf16 " + dims({{"M", M}, {"N", N}, {"K", K}}) + suffix, ENTRY(matmul_bf16), make,
          run, tol};
}

}  // namespace

void add_matmul_bf16_cases(std::vector<Case>& cases) {
  // Odd sizes, K off the multiples of 16 and 32 (the bf16 pairs and the kernels' blocks).
  using Dims = std::array<int64_t, 3>;
  for (const Dims& s : {Dims{1, 1, 1},
                        {7, 13, 5},
                        {33, 65, 17},
                        {17, 7, 33},
                        {65, 33, 31},
                        {13, 129, 47},
                        {129, 17, 65},
                        {2, 3, 2}})
    cases.push_back(matmul_bf16_case(s[0], s[1], s[2], bf16_transposes(0.75f, 0.5f)));
  for (const Dims& s : {Dims{7, 13, 5}, {33, 65, 17}}) {
    std::vector<Bf16Product> products;
    for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, {1.0f, 1.0f}, {-2.0f, 0.25f}})
      for (const Bf16Product& p : bf16_transposes(alpha, beta)) products.push_back(p);
    cases.push_back(matmul_bf16_case(s[0], s[1], s[2], products, " alpha/beta"));
  }
  // The linear layer's three products at training shapes: forward x W^T, dx = dy W,
  // dW += dy^T x; then a long K.
  cases.push_back(matmul_bf16_case(1000, 67, 384, {{false, true, 1, 0}}));
  cases.push_back(matmul_bf16_case(515, 384, 130, {{false, false, 1, 0}}));
  cases.push_back(matmul_bf16_case(96, 65, 515, {{true, false, 1, 1}}));
  cases.push_back(matmul_bf16_case(65, 96, 3001, {{true, false, 1, 0}}));
  // K = 0: C = beta C
  cases.push_back(matmul_bf16_case(2, 3, 0, {{false, false, 1, 0.5f}, {false, false, 1, 0}}));
}

}  // namespace tinylm::op_table
