// Matrix products, the linear layer and bf16 weights: the cases of the op table test.
#include "op_table.h"
#include "ops/bf16.h"
#include "ops/f16.h"
#include "ops/linear_packed.h"
#include "ops/q8_0.h"
#include "util/ignore_index.h"

namespace tinylm::op_table {

namespace {
// Matrix products and the linear layer (ops/matmul.h, ops/bf16.h)

struct Product {
  bool ta, tb;
  float alpha, beta;
};

// "C = 0.75 A^T B + 0.5 C"
std::string product_name(const Product& p) {
  return "C = " + num(p.alpha) + (p.ta ? " A^T" : " A") + (p.tb ? " B^T" : " B") + " + " +
         num(p.beta) + " C";
}

std::vector<Product> all_transposes(float alpha, float beta) {
  return {{false, false, alpha, beta},
          {true, false, alpha, beta},
          {false, true, alpha, beta},
          {true, true, alpha, beta}};
}

// One shape, several products of the same A [M*K], B [K*N] and old C [M*N]. beta == 0
// must ignore the old C (as BLAS does), so there C starts as NaN.
Case matmul_case(int64_t M, int64_t N, int64_t K, std::vector<Product> products, Tol tol,
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
    for (const Product& p : products) {
      Tensor C = p.beta == 0.0f ? fresh(M * N, b.device) : upload(in["C"], b.device);
      b.matmul(A.data(), B.data(), C.data(), M, N, K, p.ta, p.tb, p.alpha, p.beta);
      out.add(product_name(p), C);
    }
    return out;
  };
  return {"matmul " + dims({{"M", M}, {"N", N}, {"K", K}}) + suffix, ENTRY(matmul), make, run, tol};
}

// The panels of W [OC, C], zeros past OC included.
Case pack_linear_case(int64_t OC, int64_t C) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["W"] = random_vec(OC * C, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor W = upload(in["W"], b.device);
    Tensor P = fresh(ops::packed_floats(OC, C), b.device);
    b.pack_linear(W.data(), P.data(), OC, C);
    return Outputs().add("P", P);
  };
  return {"pack_linear " + dims({{"OC", OC}, {"C", C}}), ENTRY(pack_linear), make, run, kExact};
}

// W packed by the reference on every backend, so that a case checks the product alone.
Case linear_forward_packed_case(int64_t N, int64_t C, int64_t OC, bool bias) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N * C, rng);
    std::vector<float> P(ops::packed_floats(OC, C));
    ops::ref::pack_linear(random_vec(OC * C, rng, 0.1f).data(), P.data(), OC, C);
    in.f["P"] = P;
    in.f["b"] = random_vec(OC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), P = upload(in["P"], d), bb = upload(in["b"], d);
    Tensor y = fresh(N * OC, d);
    b.linear_forward_packed(x.data(), P.data(), bias ? bb.data() : nullptr, y.data(), N, C, OC);
    return Outputs().add("y", y);
  };
  // The same order of operations on both sides: equal bits where the build fuses the
  // multiply-adds (the reference calls std::fma), rounding apart where it cannot.
  return {"linear_forward_packed " + dims({{"N", N}, {"C", C}, {"OC", OC}}) +
              (bias ? " bias" : " no-bias"),
          ENTRY(linear_forward_packed),
          make,
          run,
          {1e-5, 1e-5}};
}

}  // namespace

void add_matmul_cases(std::vector<Case>& cases) {
  // Odd sizes around the register blocks (AVX-512 rows of 16, AVX2 rows of 8) and the
  // cache blocks. A float sum of K products may be off by ~K ulp of 1 even when the sum
  // is small (cancellation): the absolute tolerance grows with K.
  const int64_t odd[] = {1, 7, 17, 33, 65, 129};
  for (int64_t M : odd)
    for (int64_t N : odd)
      for (int64_t K : odd)
        cases.push_back(matmul_case(M, N, K, all_transposes(0.75f, 0.5f), {1e-5, 1e-6 * K}));
  // alpha and beta: the plain product, accumulation into C, both scaled.
  for (int64_t M : {1, 7, 33, 65})
    for (int64_t N : {1, 7, 33, 65})
      for (int64_t K : {1, 7, 65}) {
        std::vector<Product> products;
        for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}})
          for (const Product& p : all_transposes(alpha, beta)) products.push_back(p);
        cases.push_back(matmul_case(M, N, K, products, {1e-5, 1e-5}, " alpha/beta"));
      }
  // Shapes of a training step, large enough that the library blocks and threads them.
  cases.push_back(matmul_case(1000, 67, 384, {{false, true, 1, 0}}, {1e-5, 1e-6 * 384}));
  cases.push_back(matmul_case(515, 384, 130, {{false, false, 1, 0}}, {1e-5, 1e-6 * 130}));
  cases.push_back(matmul_case(65, 96, 3001, {{true, false, 1, 0}}, {1e-5, 1e-6 * 3001}));
  cases.push_back(matmul_case(1, 1153, 385, {{false, true, 1, 0}}, {1e-5, 1e-6 * 385}));
  // K = 0: C = beta C
  cases.push_back(matmul_case(2, 3, 0, {{false, false, 1, 0.5f}, {false, false, 1, 0}}, {}));
}

namespace {

Case linear_forward_case(int64_t N, int64_t C, int64_t OC, bool bias) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N * C, rng);
    in.f["W"] = random_vec(OC * C, rng, 0.2f);
    in.f["b"] = random_vec(OC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), W = upload(in["W"], d), bb = upload(in["b"], d);
    Tensor y = fresh(N * OC, d);
    b.linear_forward(x.data(), W.data(), bias ? bb.data() : nullptr, y.data(), N, C, OC);
    return Outputs().add("y", y);
  };
  return {
      "linear_forward " + dims({{"N", N}, {"C", C}, {"OC", OC}}) + (bias ? " bias" : " no-bias"),
      ENTRY(linear_forward),
      make,
      run,
      {1e-5, 1e-5}};
}

Case linear_backward_case(int64_t N, int64_t C, int64_t OC, Grads g) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N * C, rng);
    in.f["W"] = random_vec(OC * C, rng, 0.2f);
    in.f["dy"] = random_vec(N * OC, rng);
    in.f["dW"] = random_vec(OC * C, rng);  // accumulated into
    in.f["db"] = random_vec(OC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), W = upload(in["W"], d), dy = upload(in["dy"], d);
    Tensor dx = fresh(N * C, d), dW = upload(in["dW"], d), db = upload(in["db"], d);
    b.linear_backward(dy.data(), x.data(), W.data(), g.dx ? dx.data() : nullptr,
                      g.dw ? dW.data() : nullptr, g.db ? db.data() : nullptr, N, C, OC);
    Outputs out;
    if (g.dx) out.add("dx", dx);
    if (g.dw) out.add("dW", dW);
    if (g.db) out.add("db", db);
    return out;
  };
  return {"linear_backward " + dims({{"N", N}, {"C", C}, {"OC", OC}}) + " " + g.label,
          ENTRY(linear_backward),
          make,
          run,
          {},
          {{"dx", {1e-5, 1e-6 * OC}}, {"dW", {1e-5, 1e-6 * N}}, {"db", {1e-5, 1e-6 * N}}}};
}

}  // namespace

void add_linear_cases(std::vector<Case>& cases) {
  using Dims = std::array<int64_t, 3>;
  for (const Dims& s : {Dims{1, 1, 1}, {7, 33, 65}, {65, 7, 33}, {33, 65, 7}, {128, 96, 384}})
    for (bool bias : {true, false}) cases.push_back(linear_forward_case(s[0], s[1], s[2], bias));
  for (const Dims& s : {Dims{1, 1, 1}, {7, 33, 65}, {65, 7, 33}, {33, 65, 7}, {256, 64, 200}})
    for (const Grads& g : {kAllGrads, Grads{true, true, false, "no-db"},  // no bias
                           Grads{false, true, false, "no-dx no-db"},      // the first layer
                           Grads{true, false, true, "no-dW"}})            // frozen weight
      cases.push_back(linear_backward_case(s[0], s[1], s[2], g));
}

namespace {

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Rounding's corner cases: zeros, ties (to even, down and up), just off a tie, the
// largest float (rounds to inf), the smallest normal and subnormals, infinities, NaNs
// (quiet, signalling, negative, with payloads that rounding could carry into inf).
std::vector<float> bf16_special_values() {
  const uint32_t bits[] = {0x00000000, 0x80000000, 0x3f800000, 0xc0000000, 0x3f808000,
                           0x3f818000, 0x3f808001, 0x3f807fff, 0x3f7fffff, 0x7f7fffff,
                           0xff7fffff, 0x00800000, 0x00000001, 0x807fffff, 0x7f800000,
                           0xff800000, 0x7fc00000, 0x7f800001, 0xffa12345, 0x7f80ffff};
  std::vector<float> v;
  for (uint32_t b : bits) v.push_back(from_bits(b));
  return v;
}

// The two 16-bit weight formats (ops/bf16.h, ops/f16.h), as the cases below use them.
using ToHalf = Kernel<void(const float*, uint16_t*, int64_t)>;
using LinearHalf =
    Kernel<void(const float*, const uint16_t*, const float*, float*, int64_t, int64_t, int64_t)>;
struct Format16 {
  const char* name;  // "bf16", "f16"
  uint16_t (*narrow)(float);
  ToHalf Backend::*to;
  LinearHalf Backend::*linear;
  Entry to_entry, linear_entry;
  float lowest_power;  // random magnitudes 10^lowest_power .. 10^(lowest_power + powers - 1)
  int powers;
  uint16_t unwritten;  // a NaN the conversion never writes
  Tol linear_tol;
};
// bf16 keeps float32's range; halves overflow past 65504 and go subnormal below 6e-5.
const Format16 kBf16Format{"bf16",
                           ops::float_to_bf16,
                           &Backend::to_bf16,
                           &Backend::linear_forward_bf16,
                           ENTRY(to_bf16),
                           ENTRY(linear_forward_bf16),
                           -6,
                           13,
                           0x7fbf,
                           {1e-5, 1e-6}};
// 17 rows of 769 sums reach 1e-6 of cancellation error; 1e-5 absolute
const Format16 kF16Format{"f16",
                          float_to_half,
                          &Backend::to_f16,
                          &Backend::linear_forward_f16,
                          ENTRY(to_f16),
                          ENTRY(linear_forward_f16),
                          -9,
                          15,
                          0x7d01,
                          {1e-5, 1e-5}};

// The special values, then numbers of many magnitudes and random bit patterns.
Case to_16bit_case(const Format16& f, int64_t n) {
  auto make = [=](Rng& rng) {
    std::vector<float> w = bf16_special_values();
    w.resize(std::min<size_t>(w.size(), n));
    for (int64_t i = static_cast<int64_t>(w.size()); i < n; ++i)
      w.push_back(i % 2 ? std::pow(10.0f, float(i % f.powers) + f.lowest_power) * rng.normal()
                        : from_bits(static_cast<uint32_t>(rng.next_u64())));
    Inputs in;
    in.f["w"] = w;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor w = upload(in["w"], b.device);
    DeviceArray<uint16_t> out(std::vector<uint16_t>(n, f.unwritten), b.device);
    (b.*f.to)(w.data(), out.data(), n);
    std::vector<float> bits;
    for (uint16_t h : out.download()) bits.push_back(h);
    return Outputs().add(std::string(f.name) + " bits", bits);
  };
  return {std::string("to_") + f.name + " " + dims({{"n", n}}), f.to_entry, make, run, kExact};
}

Case linear_forward_16bit_case(const Format16& f, int64_t N, int64_t C, int64_t OC, bool bias) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N * C, rng);
    in.f["W"] = random_vec(OC * C, rng, 0.1f);  // rounded to the format in run
    in.f["b"] = random_vec(OC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    std::vector<uint16_t> W16;
    for (float w : in["W"]) W16.push_back(f.narrow(w));
    const Device d = b.device;
    const DeviceArray<uint16_t> W(W16, d);
    const Tensor x = upload(in["x"], d), bb = upload(in["b"], d);
    Tensor y = fresh(N * OC, d);
    (b.*f.linear)(x.data(), W.data(), bias ? bb.data() : nullptr, y.data(), N, C, OC);
    return Outputs().add("y", y);
  };
  return {std::string("linear_forward_") + f.name + " " + dims({{"N", N}, {"C", C}, {"OC", OC}}) +
              (bias ? " bias" : " no-bias"),
          f.linear_entry, make, run, f.linear_tol};
}

// Rows of many magnitudes, an all-zero block, and one with a single non-zero value.
Case quantize_q8_0_case(int64_t OC, int64_t C) {
  auto make = [=](Rng& rng) {
    Inputs in;
    std::vector<float> w(OC * C);
    for (int64_t i = 0; i < OC * C; ++i)
      w[i] = std::pow(10.0f, float(i / kQ8Block % 9) - 5) * rng.normal();
    if (OC * C >= 3 * kQ8Block) {
      std::fill(w.begin() + kQ8Block, w.begin() + 3 * kQ8Block, 0.0f);
      w[2 * kQ8Block + 7] = -3.5f;
    }
    in.f["w"] = w;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor w = upload(in["w"], b.device);
    // 0x7fff: a NaN scale, and -128: a value, that quantize_q8_0 never writes
    DeviceArray<int8_t> q(std::vector<int8_t>(OC * C, -128), b.device);
    DeviceArray<uint16_t> d(std::vector<uint16_t>(OC * C / kQ8Block, 0x7fff), b.device);
    b.quantize_q8_0(w.data(), q.data(), d.data(), OC, C);
    const std::vector<int8_t> qs = q.download();
    const std::vector<uint16_t> ds = d.download();
    return Outputs()
        .add("values", std::vector<float>(qs.begin(), qs.end()))
        .add("half scales", std::vector<float>(ds.begin(), ds.end()));
  };
  return {"quantize_q8_0 " + dims({{"OC", OC}, {"C", C}}), ENTRY(quantize_q8_0), make, run, kExact};
}

Case linear_forward_q8_0_case(int64_t N, int64_t C, int64_t OC, bool bias) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N * C, rng);
    in.f["W"] = random_vec(OC * C, rng, 0.1f);  // quantised in run
    in.f["b"] = random_vec(OC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    std::vector<int8_t> q(OC * C);
    std::vector<uint16_t> scales(OC * C / kQ8Block);
    ops::ref::quantize_q8_0(in["W"].data(), q.data(), scales.data(), OC, C);
    const Device d = b.device;
    const DeviceArray<int8_t> Wq(q, d);
    const DeviceArray<uint16_t> Wd(scales, d);
    const Tensor x = upload(in["x"], d), bb = upload(in["b"], d);
    Tensor y = fresh(N * OC, d);
    b.linear_forward_q8_0(x.data(), Wq.data(), Wd.data(), bias ? bb.data() : nullptr, y.data(), N,
                          C, OC);
    return Outputs().add("y", y);
  };
  // The integer products are exact on both sides; the sums differ in rounding only (float
  // lanes against the reference's double).
  return {"linear_forward_q8_0 " + dims({{"N", N}, {"C", C}, {"OC", OC}}) +
              (bias ? " bias" : " no-bias"),
          ENTRY(linear_forward_q8_0),
          make,
          run,
          {1e-4, 1e-4}};
}

}  // namespace

void add_f16_cases(std::vector<Case>& cases) {
  for (int64_t n : {1, 20, 1031, (1 << 16) + 3}) cases.push_back(to_16bit_case(kF16Format, n));
  // rows of whole 8-lane steps and not; 4 outputs at a time and not
  for (int64_t N : {1, 3, 17})
    for (int64_t C : {1, 7, 8, 17, 64, 769})
      for (int64_t OC : {1, 5, 130})
        for (bool bias : {false, true})
          cases.push_back(linear_forward_16bit_case(kF16Format, N, C, OC, bias));
}

void add_q8_0_cases(std::vector<Case>& cases) {
  for (auto [OC, C] : {std::pair<int64_t, int64_t>{1, 32}, {3, 32}, {5, 96}, {2049, 64}})
    cases.push_back(quantize_q8_0_case(OC, C));
  // 1, 3 and 17 rows (above ops::kRowInvariantMaxRows); outputs in groups of 4 and not;
  // rows of 1, 3, 8 (a whole group of scales), 11 and 24 blocks
  for (int64_t N : {1, 3, 17})
    for (int64_t C : {32, 96, 256, 352, 768})
      for (int64_t OC : {1, 5, 130})
        for (bool bias : {false, true}) cases.push_back(linear_forward_q8_0_case(N, C, OC, bias));
}

void add_bf16_cases(std::vector<Case>& cases) {
  for (int64_t n : {1, 20, 1031, (1 << 16) + 3}) cases.push_back(to_16bit_case(kBf16Format, n));
  // rows of 16 lanes and not; C = 769 leaves a remainder after the vectorised part
  for (int64_t N : {1, 3})
    for (int64_t C : {1, 15, 16, 17, 64, 769})
      for (int64_t OC : {1, 5, 130})
        for (bool bias : {false, true})
          cases.push_back(linear_forward_16bit_case(kBf16Format, N, C, OC, bias));
}

void add_packed_cases(std::vector<Case>& cases) {
  for (auto [OC, C] : {std::pair<int64_t, int64_t>{1, 1}, {5, 3}, {16, 7}, {33, 64}, {130, 17}})
    cases.push_back(pack_linear_case(OC, C));
  // rows: one, a partial tile, whole tiles of 6 and 12, and more; outputs: a partial
  // panel, whole panels of 16 and 32, and some over
  for (int64_t N : {1, 5, 12, 17, 64})
    for (int64_t C : {1, 7, 64, 769})
      for (int64_t OC : {1, 32, 130})
        for (bool bias : {false, true}) cases.push_back(linear_forward_packed_case(N, C, OC, bias));
  // more than one group of row tiles (72 rows on AVX-512 builds), C in blocks of 512 and a
  // remainder, C = 0 (the bias alone)
  for (auto [N, C] : {std::pair<int64_t, int64_t>{150, 100}, {77, 1100}, {64, 1024}, {20, 0}})
    cases.push_back(linear_forward_packed_case(N, C, 130, true));
}

}  // namespace tinylm::op_table
