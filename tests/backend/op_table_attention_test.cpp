// Attention (materialised and tiled): the cases of the op table test.
#include "op_table.h"
#include "ops/bf16.h"
#include "util/ignore_index.h"

namespace tinylm::op_table {

namespace {
// Attention (ops/attention.h)

// One attention call: the shape, the masks, attention dropout.
struct Attn {
  AttentionShape s;
  bool causal = false;
  int64_t sets = 0;         // additive 0 / -inf padding mask of M sets (padding_mask); 0: none
  bool float_bias = false;  // instead: one set of normal numbers added to the scores
  float p = 0.0f;           // attention dropout
};

// A padding-style mask [sets, Tq, Tk]: set m hides the last (m + 1) keys from every query,
// and, in set 0, every key from query row 1 (a fully masked row).
std::vector<float> padding_mask(const AttentionShape& s, int64_t sets) {
  std::vector<uint8_t> keep(sets * s.Tq * s.Tk, 1);
  for (int64_t m = 0; m < sets; ++m)
    for (int64_t i = 0; i < s.Tq; ++i)
      for (int64_t j = 0; j < s.Tk; ++j)
        if (j >= s.Tk - (m + 1) || (m == 0 && i == 1)) keep[(m * s.Tq + i) * s.Tk + j] = 0;
  return ops::mask_from_bool(keep.data(), keep.size());
}

std::string attn_name(const char* op, const Attn& a) {
  const auto& s = a.s;
  std::string name = std::string(op) + " " +
                     dims({{"N", s.N}, {"Tq", s.Tq}, {"Tk", s.Tk}, {"Dk", s.Dk}, {"Dv", s.Dv}});
  if (a.causal) name += " causal";
  if (a.sets) name += " sets=" + std::to_string(a.sets);
  if (a.float_bias) name += " float-bias";
  if (a.p > 0) name += " p=" + num(a.p);
  return name;
}

float attn_scale(const Attn& a) {
  return 1.0f / std::sqrt(static_cast<float>(a.s.Dk));
}

// q, k, v, dy, and the additive mask if there is one.
Inputs attn_inputs(const Attn& a, Rng& rng) {
  const auto& s = a.s;
  Inputs in;
  in.f["q"] = random_vec(s.N * s.Tq * s.Dk, rng);
  in.f["k"] = random_vec(s.N * s.Tk * s.Dk, rng);
  in.f["v"] = random_vec(s.N * s.Tk * s.Dv, rng);
  in.f["dy"] = random_vec(s.N * s.Tq * s.Dv, rng);
  if (a.sets) in.f["mask"] = padding_mask(s, a.sets);
  if (a.float_bias) in.f["mask"] = random_vec(s.Tq * s.Tk, rng);
  return in;
}

// The mask of `a` whose additive part is `additive` (memory of the backend's device).
AttentionMask attn_mask(const Attn& a, const float* additive) {
  return {a.causal, additive, a.sets ? a.sets : 1};
}

// The key of attention dropout, the same on every backend (ref and fast draw alike).
constexpr uint64_t kDropKey = 77;

Case attention_forward_case(const Attn& a) {
  auto make = [=](Rng& rng) { return attn_inputs(a, rng); };
  auto run = [=](const Backend& b, const Inputs& in) {
    const auto& s = a.s;
    const Device d = b.device;
    const Tensor q = upload(in["q"], d), k = upload(in["k"], d), v = upload(in["v"], d);
    const Tensor add = in.has("mask") ? upload(in["mask"], d) : Tensor();
    Tensor y = fresh(s.N * s.Tq * s.Dv, d), att = fresh(s.N * s.Tq * s.Tk, d),
           drop = fresh(s.N * s.Tq * s.Tk, d);
    b.attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, attn_scale(a),
                        attn_mask(a, add.data()), a.p, a.p > 0 ? drop.data() : nullptr, kDropKey);
    Outputs out;
    out.add("y", y).add("att", att);
    if (a.p > 0) out.add("drop_mask", drop);
    return out;
  };
  return {attn_name("attention_forward", a),
          ENTRY(attention_forward),
          make,
          run,
          {1e-5, 1e-6},
          {{"drop_mask", kExact}}};
}

// att and drop_mask are what ref's forward wrote.
Case attention_backward_case(const Attn& a) {
  auto make = [=](Rng& rng) {
    const auto& s = a.s;
    Inputs in = attn_inputs(a, rng);
    std::vector<float> y(s.N * s.Tq * s.Dv), att(s.N * s.Tq * s.Tk), drop(att.size());
    host_ref().attention_forward(
        in["q"].data(), in["k"].data(), in["v"].data(), y.data(), att.data(), s, attn_scale(a),
        attn_mask(a, in.has("mask") ? in["mask"].data() : nullptr), a.p, drop.data(), kDropKey);
    in.f["att"] = att;
    if (a.p > 0) in.f["drop_mask"] = drop;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const auto& s = a.s;
    const Device d = b.device;
    const Tensor dy = upload(in["dy"], d), q = upload(in["q"], d), k = upload(in["k"], d),
                 v = upload(in["v"], d), att = upload(in["att"], d);
    const Tensor drop = a.p > 0 ? upload(in["drop_mask"], d) : Tensor();
    Tensor dq = fresh(in["q"].size(), d), dk = fresh(in["k"].size(), d),
           dv = fresh(in["v"].size(), d);
    b.attention_backward(dy.data(), q.data(), k.data(), v.data(), att.data(), drop.data(),
                         dq.data(), dk.data(), dv.data(), s, attn_scale(a));
    return Outputs().add("dq", dq).add("dk", dk).add("dv", dv);
  };
  return {attn_name("attention_backward", a), ENTRY(attention_backward), make, run, {1e-5, 2e-6}};
}

Case attention_forward_tiled_case(const Attn& a) {
  auto make = [=](Rng& rng) { return attn_inputs(a, rng); };
  auto run = [=](const Backend& b, const Inputs& in) {
    const auto& s = a.s;
    const Device d = b.device;
    const Tensor q = upload(in["q"], d), k = upload(in["k"], d), v = upload(in["v"], d);
    const Tensor add = in.has("mask") ? upload(in["mask"], d) : Tensor();
    Tensor y = fresh(s.N * s.Tq * s.Dv, d), lse = fresh(s.N * s.Tq, d);
    b.attention_forward_tiled(q.data(), k.data(), v.data(), y.data(), lse.data(), s, attn_scale(a),
                              attn_mask(a, add.data()), a.p, kDropKey);
    return Outputs().add("y", y).add("lse", lse);
  };
  // lse: -inf on a fully masked row (equal infinities compare equal)
  return {attn_name("attention_forward_tiled", a),
          ENTRY(attention_forward_tiled),
          make,
          run,
          {1e-5, 2e-6},
          {{"lse", {1e-5, 1e-5}}}};
}

// y and lse are what ref's tiled forward wrote.
Case attention_backward_tiled_case(const Attn& a) {
  auto make = [=](Rng& rng) {
    const auto& s = a.s;
    Inputs in = attn_inputs(a, rng);
    std::vector<float> y(s.N * s.Tq * s.Dv), lse(s.N * s.Tq);
    host_ref().attention_forward_tiled(
        in["q"].data(), in["k"].data(), in["v"].data(), y.data(), lse.data(), s, attn_scale(a),
        attn_mask(a, in.has("mask") ? in["mask"].data() : nullptr), a.p, kDropKey);
    in.f["y"] = y;
    in.f["lse"] = lse;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const auto& s = a.s;
    const Device d = b.device;
    const Tensor dy = upload(in["dy"], d), q = upload(in["q"], d), k = upload(in["k"], d),
                 v = upload(in["v"], d), y = upload(in["y"], d), lse = upload(in["lse"], d);
    const Tensor add = in.has("mask") ? upload(in["mask"], d) : Tensor();
    Tensor dq = fresh(in["q"].size(), d), dk = fresh(in["k"].size(), d),
           dv = fresh(in["v"].size(), d);
    b.attention_backward_tiled(dy.data(), q.data(), k.data(), v.data(), y.data(), lse.data(),
                               dq.data(), dk.data(), dv.data(), s, attn_scale(a),
                               attn_mask(a, add.data()), a.p, kDropKey);
    return Outputs().add("dq", dq).add("dk", dk).add("dv", dv);
  };
  return {attn_name("attention_backward_tiled", a),
          ENTRY(attention_backward_tiled),
          make,
          run,
          {1e-5, 2e-6 * std::sqrt(static_cast<double>(a.s.Tk))}};
}

}  // namespace

void add_attention_cases(std::vector<Case>& cases) {
  // {shape N, Tq, Tk, Dk, Dv}, causal, padding sets, float bias, dropout
  const Attn weights_kept[] = {
      {{1, 1, 1, 1, 1}},
      {{6, 7, 7, 5, 4}, true},
      {{6, 7, 7, 5, 4}, true, 3},  // a padding mask per batch element of 2 heads
      {{4, 33, 33, 16, 16}, true, 1},
      {{2, 7, 65, 8, 3}, true},  // Tq < Tk (KV cache): the last query sees every key
      {{4, 3, 8, 5, 6}, true, 2},
      {{2, 6, 4, 3, 3}, true},  // Tq > Tk: the first queries see no key at all
      {{6, 6, 6, 4, 4}, true, 0, true},
      {{8, 16, 16, 8, 8}, true, 1, false, 0.2f},
      {{3, 5, 9, 4, 6}, false, 1, false, 0.5f},
      {{1, 200, 200, 16, 16}, true},  // one big set: the row-parallel path
      {{1, 150, 150, 8, 8}, true, 1, false, 0.1f},
  };
  for (const Attn& a : weights_kept) cases.push_back(attention_forward_case(a));
  for (const Attn& a : weights_kept) cases.push_back(attention_backward_case(a));

  const Attn tiled[] = {
      {{1, 1, 1, 1, 1}},
      {{6, 7, 7, 5, 4}, true},
      {{4, 33, 33, 16, 16}, true, 2},
      {{2, 7, 65, 8, 3}, true},  // Tq < Tk
      {{3, 5, 9, 4, 6}, false, 3},
      {{2, 200, 200, 16, 16}, true},
      {{4, 129, 300, 8, 8}, true, 2},
      {{2, 150, 150, 64, 64}, false, 1},
      {{2, 256, 256, 64, 64}, true},  // the 10.65M model's per-head shape
      {{6, 6, 6, 4, 4}, true, 0, true},
      // attention dropout, the mask drawn again in backward
      {{8, 16, 16, 8, 8}, true, 1, false, 0.2f},
      {{3, 5, 9, 4, 6}, false, 3, false, 0.5f},
      {{2, 150, 150, 64, 64}, true, 0, false, 0.1f},
      {{2, 130, 200, 16, 16}, true, 2, false, 1.0f},  // everything dropped
  };
  for (const Attn& a : tiled) cases.push_back(attention_forward_tiled_case(a));
  for (const Attn& a : tiled) cases.push_back(attention_backward_tiled_case(a));
}

}  // namespace tinylm::op_table
