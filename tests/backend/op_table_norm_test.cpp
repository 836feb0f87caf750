// Layer norm, activations and softmax: the cases of the op table test.
#include "op_table.h"
#include "ops/bf16.h"
#include "ops/rope.h"
#include "util/ignore_index.h"

namespace tinylm::op_table {

namespace {
// Layer norm, activations, softmax

Inputs layernorm_inputs(int64_t N, int64_t C, Rng& rng) {
  Inputs in;
  in.f["x"] = random_vec(N * C, rng, 2.0f);
  in.f["w"] = random_vec(C, rng);
  in.f["b"] = random_vec(C, rng);
  return in;
}

Case layernorm_forward_case(int64_t N, int64_t C, bool bias) {
  auto make = [=](Rng& rng) { return layernorm_inputs(N, C, rng); };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), w = upload(in["w"], d), bb = upload(in["b"], d);
    Tensor y = fresh(N * C, d), mean = fresh(N, d), rstd = fresh(N, d);
    b.layernorm_forward(x.data(), w.data(), bias ? bb.data() : nullptr, y.data(), mean.data(),
                        rstd.data(), N, C, 1e-5f);
    return Outputs().add("y", y).add("mean", mean).add("rstd", rstd);
  };
  return {"layernorm_forward " + dims({{"N", N}, {"C", C}}) + (bias ? " bias" : " no-bias"),
          ENTRY(layernorm_forward),
          make,
          run,
          {1e-5, 1e-5},
          {{"mean", {1e-5, 1e-6}}, {"rstd", {1e-5, 1e-6}}}};
}

// dw and db accumulate onto random values; mean and rstd are what ref's forward wrote.
Case layernorm_backward_case(int64_t N, int64_t C, Grads g) {
  auto make = [=](Rng& rng) {
    Inputs in = layernorm_inputs(N, C, rng);
    in.f["dy"] = random_vec(N * C, rng);
    in.f["dw"] = random_vec(C, rng);
    in.f["db"] = random_vec(C, rng);
    std::vector<float> y(N * C), mean(N), rstd(N);
    host_ref().layernorm_forward(in["x"].data(), in["w"].data(), in["b"].data(), y.data(),
                                 mean.data(), rstd.data(), N, C, 1e-5f);
    in.f["mean"] = mean;
    in.f["rstd"] = rstd;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor dy = upload(in["dy"], d), x = upload(in["x"], d), w = upload(in["w"], d),
                 mean = upload(in["mean"], d), rstd = upload(in["rstd"], d);
    Tensor dx = fresh(N * C, d), dw = upload(in["dw"], d), db = upload(in["db"], d);
    b.layernorm_backward(dy.data(), x.data(), w.data(), mean.data(), rstd.data(), dx.data(),
                         g.dw ? dw.data() : nullptr, g.db ? db.data() : nullptr, N, C);
    Outputs out;
    out.add("dx", dx);
    if (g.dw) out.add("dw", dw);
    if (g.db) out.add("db", db);
    return out;
  };
  // dx is a difference of O(1) terms: an absolute tolerance
  return {"layernorm_backward " + dims({{"N", N}, {"C", C}}) + " " + g.label,
          ENTRY(layernorm_backward),
          make,
          run,
          {1e-5, 1e-5}};
}

}  // namespace

void add_layernorm_cases(std::vector<Case>& cases) {
  // odd widths, one row, many rows; the CUDA kernels take a warp per row holding 4, 8, 12,
  // 16, 24 or 32 values a lane up to 1024 columns (1031: a block per row), and sum dw, db
  // over chunks of 512 rows (1300 rows: three chunks, the last one short)
  using Dims = std::pair<int64_t, int64_t>;
  const Dims shapes[] = {{1, 1}, {7, 33}, {33, 7}, {65, 65}, {1, 768}, {300, 128}, {300, 200}};
  const Dims cuda_test_shapes[] = {{1, 3},    {7, 77},  {9, 65},   {33, 768},  {5, 1031},
                                   {17, 384}, {9, 500}, {5, 1000}, {1300, 96}, {3, 1024}};
  const Grads grads[] = {{true, true, true, "dw db"},
                         {true, true, false, "no-db"},
                         {true, false, false, "no-dw no-db"}};
  for (bool bias : {true, false}) {
    for (auto [N, C] : shapes) cases.push_back(layernorm_forward_case(N, C, bias));
    for (auto [N, C] : cuda_test_shapes)
      cases.push_back(bounded(layernorm_forward_case(N, C, bias), 1e-6));
  }
  for (const Grads& g : grads) {
    for (auto [N, C] : shapes) cases.push_back(layernorm_backward_case(N, C, g));
    for (auto [N, C] : cuda_test_shapes) {
      Case c = bounded(layernorm_backward_case(N, C, g), 1e-5);
      if (N > 1000)  // float sums of 1,300 rows that cancel to ~0.03: each within 5e-4
        for (const char* sum : {"dw", "db"}) c.tol_for[sum] = {1e-5, 5e-4, false, 1e-5};
      cases.push_back(c);
    }
  }
}

namespace {

Case rmsnorm_forward_case(int64_t N, int64_t C, float eps) {
  auto make = [=](Rng& rng) { return layernorm_inputs(N, C, rng); };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), w = upload(in["w"], d);
    Tensor y = fresh(N * C, d), rstd = fresh(N, d);
    b.rmsnorm_forward(x.data(), w.data(), y.data(), rstd.data(), N, C, eps);
    return Outputs().add("y", y).add("rstd", rstd);
  };
  return {"rmsnorm_forward " + dims({{"N", N}, {"C", C}}) + " eps " + std::to_string(eps),
          ENTRY(rmsnorm_forward),
          make,
          run,
          {1e-5, 1e-5},
          {{"rstd", {1e-5, 1e-6}}}};
}

// dw accumulates onto random values; rstd is what ref's forward wrote.
Case rmsnorm_backward_case(int64_t N, int64_t C, bool dw_too) {
  auto make = [=](Rng& rng) {
    Inputs in = layernorm_inputs(N, C, rng);
    in.f["dy"] = random_vec(N * C, rng);
    in.f["dw"] = random_vec(C, rng);
    std::vector<float> y(N * C), rstd(N);
    host_ref().rmsnorm_forward(in["x"].data(), in["w"].data(), y.data(), rstd.data(), N, C, 1e-6f);
    in.f["rstd"] = rstd;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor dy = upload(in["dy"], d), x = upload(in["x"], d), w = upload(in["w"], d),
                 rstd = upload(in["rstd"], d);
    Tensor dx = fresh(N * C, d), dw = upload(in["dw"], d);
    b.rmsnorm_backward(dy.data(), x.data(), w.data(), rstd.data(), dx.data(),
                       dw_too ? dw.data() : nullptr, N, C);
    Outputs out;
    out.add("dx", dx);
    if (dw_too) out.add("dw", dw);
    return out;
  };
  return {"rmsnorm_backward " + dims({{"N", N}, {"C", C}}) + (dw_too ? " dw" : " no-dw"),
          ENTRY(rmsnorm_backward),
          make,
          run,
          {1e-5, 1e-5}};
}

}  // namespace

// Odd widths, one row, many rows, and the widths of the family's norms: SmolLM2's 576,
// a head of 64 or 128 (Qwen3's q and k norms).
void add_rmsnorm_cases(std::vector<Case>& cases) {
  using Dims = std::pair<int64_t, int64_t>;
  const Dims shapes[] = {{1, 1},   {7, 33},   {33, 7},   {65, 65},
                         {1, 576}, {300, 64}, {97, 128}, {300, 200}};
  for (auto [N, C] : shapes) {
    cases.push_back(rmsnorm_forward_case(N, C, 1e-6f));
    for (bool dw : {true, false}) cases.push_back(rmsnorm_backward_case(N, C, dw));
  }
  cases.push_back(rmsnorm_forward_case(9, 48, 1e-5f));
}

namespace {

// Tables for n_pos positions of a head of width D (theta 10000, Llama 3's scaling when
// asked, as Llama-3.2 sets it).
void rope_table_inputs(Inputs& in, int64_t D, int64_t n_pos, bool llama3) {
  const ops::Llama3RopeScaling scaling{32.0f, 1.0f, 4.0f, 8192};
  std::vector<float> inv(D / 2), cos(n_pos * D / 2), sin(n_pos * D / 2);
  ops::rope_inv_freq(llama3 ? 500000.0f : 10000.0f, D, llama3 ? &scaling : nullptr, inv.data());
  ops::rope_tables(inv.data(), D / 2, n_pos, cos.data(), sin.data());
  in.f["cos"] = cos;
  in.f["sin"] = sin;
}

Case rope_case(int64_t S, int64_t T, int64_t D, int64_t pos0, bool backward, bool llama3) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(S * T * D, rng, 2.0f);
    rope_table_inputs(in, D, pos0 + T, llama3);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor x = upload(in["x"], d), cos = upload(in["cos"], d), sin = upload(in["sin"], d);
    Tensor y = fresh(S * T * D, d);
    if (backward)
      b.rope_backward(x.data(), cos.data(), sin.data(), y.data(), S, T, D, pos0);
    else
      b.rope_forward(x.data(), cos.data(), sin.data(), y.data(), S, T, D, pos0);
    return Outputs().add(backward ? "dx" : "y", y);
  };
  return {std::string(backward ? "rope_backward " : "rope_forward ") +
              dims({{"S", S}, {"T", T}, {"D", D}, {"pos0", pos0}}) + (llama3 ? " llama3" : ""),
          backward ? ENTRY(rope_backward) : ENTRY(rope_forward),
          make,
          run,
          {1e-5, 1e-6}};
}

}  // namespace

// One row, odd row counts, head widths 2, 6 (not a multiple of 8), 64 and 128, positions
// from 0 and from an offset (a KV cache's next rows).
void add_rope_cases(std::vector<Case>& cases) {
  struct Shape {
    int64_t S, T, D, pos0;
  };
  const Shape shapes[] = {{1, 1, 2, 0},   {3, 7, 6, 0},    {12, 33, 64, 0},
                          {5, 1, 64, 40}, {9, 17, 128, 3}, {2, 300, 64, 0}};
  for (bool backward : {false, true})
    for (const Shape& s : shapes)
      for (bool llama3 : {false, true})
        cases.push_back(rope_case(s.S, s.T, s.D, s.pos0, backward, llama3));
}

namespace {

Case swiglu_case(int64_t n, bool backward) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["gate"] = random_vec(n, rng, 4.0f);  // deep into both tails of the sigmoid
    in.f["up"] = random_vec(n, rng);
    in.f["dh"] = random_vec(n, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor gate = upload(in["gate"], d), up = upload(in["up"], d), dh = upload(in["dh"], d);
    if (!backward) {
      Tensor h = fresh(n, d);
      b.swiglu_forward(gate.data(), up.data(), h.data(), n);
      return Outputs().add("h", h);
    }
    Tensor dgate = fresh(n, d), dup = fresh(n, d);
    b.swiglu_backward(dh.data(), gate.data(), up.data(), dgate.data(), dup.data(), n);
    return Outputs().add("dgate", dgate).add("dup", dup);
  };
  return {std::string(backward ? "swiglu_backward " : "swiglu_forward ") + dims({{"n", n}}),
          backward ? ENTRY(swiglu_backward) : ENTRY(swiglu_forward),
          make,
          run,
          {1e-5, 1e-6}};
}

}  // namespace

void add_swiglu_cases(std::vector<Case>& cases) {
  for (bool backward : {false, true})
    for (int64_t n : {1, 7, 33, 1536, 3 * 16384 + 5}) cases.push_back(swiglu_case(n, backward));
}

namespace {

Case activation_case(ops::Activation a, int64_t N, bool backward) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N, rng, 3.0f);
    in.f["dy"] = random_vec(N, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor x = upload(in["x"], b.device), dy = upload(in["dy"], b.device);
    Tensor out = fresh(N, b.device);
    if (backward)
      b.activation_backward(a, dy.data(), x.data(), out.data(), N);
    else
      b.activation_forward(a, x.data(), out.data(), N);
    return Outputs().add(backward ? "dx" : "y", out);
  };
  const std::string op = backward ? "activation_backward " : "activation_forward ";
  return {op + ops::activation_name(a) + " " + dims({{"N", N}}),
          backward ? ENTRY(activation_backward) : ENTRY(activation_forward),
          make,
          run,
          {1e-5, 1e-6}};
}

}  // namespace

void add_activation_cases(std::vector<Case>& cases) {
  for (bool backward : {false, true})
    for (auto a : {ops::Activation::GeluTanh, ops::Activation::GeluErf, ops::Activation::Relu})
      for (int64_t N : {1, 7, 33, 65, 3 * 257 + 5, 100000}) {
        const Case c = activation_case(a, N, backward);
        cases.push_back(N == 3 * 257 + 5 ? bounded(c, backward ? 1e-5 : 1e-6) : c);
      }
}

namespace {

// How a softmax case's rows look.
enum class Rows {
  kRandom,   // normal, scale 3
  kMasked,   // about a third -inf, and row 1 entirely -inf (weights 0, not NaN)
  kShifted,  // rows shifted by +1000 and -1000 (exp must not overflow)
};

std::vector<float> softmax_rows(int64_t N, int64_t D, Rows rows, Rng& rng) {
  auto x = random_vec(N * D, rng, 3.0f);
  for (int64_t i = 0; i < N * D; ++i) {
    if (rows == Rows::kMasked && (i / D == 1 || rng.uniform() < 0.3f))
      x[i] = -std::numeric_limits<float>::infinity();
    if (rows == Rows::kShifted) x[i] += (i / D) % 2 ? -1000.0f : 1000.0f;
  }
  return x;
}

const char* rows_label(Rows rows) {
  return rows == Rows::kMasked ? " -inf entries and rows" : rows == Rows::kShifted ? " +-1000" : "";
}

Case softmax_forward_case(int64_t N, int64_t D, Rows rows = Rows::kRandom) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = softmax_rows(N, D, rows, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor x = upload(in["x"], b.device);
    Tensor y = fresh(N * D, b.device);
    b.softmax_forward(x.data(), y.data(), N, D);
    return Outputs().add("y", y);
  };
  return {"softmax_forward " + dims({{"N", N}, {"D", D}}) + rows_label(rows),
          ENTRY(softmax_forward),
          make,
          run,
          {1e-5, 1e-7}};
}

// y is what ref's forward wrote.
Case softmax_backward_case(int64_t N, int64_t D, Rows rows = Rows::kRandom) {
  auto make = [=](Rng& rng) {
    Inputs in;
    const auto x = softmax_rows(N, D, rows, rng);
    in.f["dy"] = random_vec(N * D, rng);
    std::vector<float> y(N * D);
    host_ref().softmax_forward(x.data(), y.data(), N, D);
    in.f["y"] = y;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor dy = upload(in["dy"], b.device), y = upload(in["y"], b.device);
    Tensor dx = fresh(N * D, b.device);
    b.softmax_backward(dy.data(), y.data(), dx.data(), N, D);
    return Outputs().add("dx", dx);
  };
  return {"softmax_backward " + dims({{"N", N}, {"D", D}}) + rows_label(rows),
          ENTRY(softmax_backward),
          make,
          run,
          {1e-5, 1e-6}};
}

}  // namespace

void add_softmax_cases(std::vector<Case>& cases) {
  for (int64_t N : {1, 7, 33, 300})
    for (int64_t D : {1, 7, 33, 65, 1000}) cases.push_back(softmax_forward_case(N, D));
  cases.push_back(softmax_forward_case(5, 33, Rows::kMasked));
  cases.push_back(softmax_forward_case(4, 65, Rows::kShifted));
  for (int64_t N : {1, 7, 65, 300})
    for (int64_t D : {1, 7, 33, 65, 513}) cases.push_back(softmax_backward_case(N, D));
  cases.push_back(softmax_backward_case(5, 33, Rows::kMasked));
}

}  // namespace tinylm::op_table
