// The layout kernels (ops/layout.h: sums, scaling, copies, heads, positions): the cases
// of the op table test. Moving numbers must give the same bits; the sums of
// sum_over_batch differ in their last bits (ref sums in double, cpu in float).
#include "op_table.h"

namespace tinylm::op_table {

namespace {

// add, scale, copy over n elements; in_place: add writes y over a.
enum class Elementwise { kAdd, kAddInPlace, kScale, kCopy };

Case elementwise_case(Elementwise op, int64_t n, float s = 1.0f) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["a"] = random_vec(n, rng);
    in.f["b"] = random_vec(n, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    Tensor a = upload(in["a"], d);
    const Tensor bb = upload(in["b"], d);
    Tensor y = fresh(n, d);
    switch (op) {
      case Elementwise::kAdd:
        b.add(a.data(), bb.data(), y.data(), n);
        break;
      case Elementwise::kAddInPlace:
        b.add(a.data(), bb.data(), a.data(), n);
        return Outputs().add("y", a);
      case Elementwise::kScale:
        b.scale(a.data(), n, s);
        return Outputs().add("x", a);
      case Elementwise::kCopy:
        b.copy(a.data(), y.data(), n);
        break;
    }
    return Outputs().add("y", y);
  };
  switch (op) {
    case Elementwise::kAdd:
      return {"add " + dims({{"n", n}}), ENTRY(add), make, run, kExact};
    case Elementwise::kAddInPlace:
      return {"add " + dims({{"n", n}}) + " in-place", ENTRY(add), make, run, kExact};
    case Elementwise::kScale:
      return {"scale " + dims({{"n", n}}) + " s=" + num(s), ENTRY(scale), make, run, kExact};
    case Elementwise::kCopy:
      break;
  }
  return {"copy " + dims({{"n", n}}), ENTRY(copy), make, run, kExact};
}

struct Heads {
  int64_t B, T, H, dh;
};

std::string heads_name(const char* op, const Heads& s) {
  return std::string(op) + " " + dims({{"B", s.B}, {"T", s.T}, {"H", s.H}, {"dh", s.dh}});
}

// split_heads and its inverse join_heads: qkv [B, T, 3C] <-> q, k, v [B, H, T, dh].
Case qkv_heads_case(const Heads& s, bool join) {
  const int64_t n = s.B * s.H * s.T * s.dh;  // one of q, k, v
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["qkv"] = random_vec(3 * n, rng);
    in.f["q"] = random_vec(n, rng);
    in.f["k"] = random_vec(n, rng);
    in.f["v"] = random_vec(n, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    if (join) {
      const Tensor q = upload(in["q"], d), k = upload(in["k"], d), v = upload(in["v"], d);
      Tensor qkv = fresh(3 * n, d);
      b.join_heads(q.data(), k.data(), v.data(), qkv.data(), s.B, s.T, s.H, s.dh);
      return Outputs().add("qkv", qkv);
    }
    const Tensor qkv = upload(in["qkv"], d);
    Tensor q = fresh(n, d), k = fresh(n, d), v = fresh(n, d);
    b.split_heads(qkv.data(), q.data(), k.data(), v.data(), s.B, s.T, s.H, s.dh);
    return Outputs().add("q", q).add("k", k).add("v", v);
  };
  return {heads_name(join ? "join_heads" : "split_heads", s),
          join ? ENTRY(join_heads) : ENTRY(split_heads), make, run, kExact};
}

// heads_to_rows and its inverse rows_to_heads: y [B, H, T, dh] <-> rows [B, T, C].
Case rows_heads_case(const Heads& s, bool to_rows) {
  const int64_t n = s.B * s.H * s.T * s.dh;
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["in"] = random_vec(n, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor x = upload(in["in"], b.device);
    Tensor out = fresh(n, b.device);
    if (to_rows)
      b.heads_to_rows(x.data(), out.data(), s.B, s.T, s.H, s.dh);
    else
      b.rows_to_heads(x.data(), out.data(), s.B, s.T, s.H, s.dh);
    return Outputs().add(to_rows ? "rows" : "y", out);
  };
  return {heads_name(to_rows ? "heads_to_rows" : "rows_to_heads", s),
          to_rows ? ENTRY(heads_to_rows) : ENTRY(rows_to_heads), make, run, kExact};
}

// x [B, T, C] = tok + pos [T, C]
Case add_positions_case(int64_t B, int64_t T, int64_t C) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["tok"] = random_vec(B * T * C, rng);
    in.f["pos"] = random_vec(T * C, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor tok = upload(in["tok"], d), pos = upload(in["pos"], d);
    Tensor x = fresh(B * T * C, d);
    b.add_positions(tok.data(), pos.data(), x.data(), B, T, C);
    return Outputs().add("x", x);
  };
  return {"add_positions " + dims({{"B", B}, {"T", T}, {"C", C}}), ENTRY(add_positions), make, run,
          kExact};
}

// dpos [TC] = sum over b of dx [B, TC]: B terms of size ~1, a float sum off by ~B ulp.
Case sum_over_batch_case(int64_t B, int64_t TC) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["dx"] = random_vec(B * TC, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor dx = upload(in["dx"], b.device);
    Tensor dpos = fresh(TC, b.device);
    b.sum_over_batch(dx.data(), dpos.data(), B, TC);
    return Outputs().add("dpos", dpos);
  };
  return {"sum_over_batch " + dims({{"B", B}, {"TC", TC}}),
          ENTRY(sum_over_batch),
          make,
          run,
          {1e-5, 1e-6 * static_cast<double>(B)}};
}

// Grouped-query attention's kv heads: repeat_kv kv [B, KV, n] -> [B, KV*g, n] (moves: the
// same bits), and sum_kv_groups d [B, KV*g, n] -> [B, KV, n] (g terms: ~g ulp apart).
Case kv_groups_case(int64_t B, int64_t KV, int64_t g, int64_t n, bool sum) {
  const int64_t small = B * KV * n, big = small * g;
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["in"] = random_vec(sum ? big : small, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor x = upload(in["in"], b.device);
    Tensor out = fresh(sum ? small : big, b.device);
    if (sum)
      b.sum_kv_groups(x.data(), out.data(), B, KV, g, n);
    else
      b.repeat_kv(x.data(), out.data(), B, KV, g, n);
    return Outputs().add(sum ? "dkv" : "out", out);
  };
  const std::string shape = dims({{"B", B}, {"KV", KV}, {"g", g}, {"n", n}});
  if (sum)
    return {"sum_kv_groups " + shape,
            ENTRY(sum_kv_groups),
            make,
            run,
            {1e-5, 1e-6 * static_cast<double>(g)}};
  return {"repeat_kv " + shape, ENTRY(repeat_kv), make, run, kExact};
}

}  // namespace

void add_layout_cases(std::vector<Case>& cases) {
  for (int64_t n : {1, 7, 1000, 100003}) {
    cases.push_back(elementwise_case(Elementwise::kAdd, n));
    cases.push_back(elementwise_case(Elementwise::kScale, n, 0.125f));
    cases.push_back(elementwise_case(Elementwise::kScale, n, -1.3f));
    cases.push_back(elementwise_case(Elementwise::kCopy, n));
  }
  cases.push_back(elementwise_case(Elementwise::kAddInPlace, 1031));
  // odd sizes, T = 1 (decoding), one head, dh = 64 (GPT-2), GPT-2's 12 heads
  const Heads heads[] = {{1, 1, 1, 1},  {3, 5, 3, 7},    {2, 1, 4, 64},
                         {1, 33, 1, 5}, {2, 17, 12, 64}, {4, 64, 6, 32}};
  for (const Heads& s : heads)
    for (bool inverse : {false, true}) {
      cases.push_back(qkv_heads_case(s, inverse));
      cases.push_back(rows_heads_case(s, inverse));
    }
  // group sizes 1 (multi-head) .. all heads in one group (multi-query), odd head widths
  using Groups = std::array<int64_t, 4>;
  for (const Groups& s : {Groups{1, 1, 1, 1},
                          {2, 2, 2, 11 * 12},
                          {1, 3, 3, 7 * 64},
                          {3, 1, 4, 5 * 13},
                          {2, 4, 1, 9},
                          {1, 2, 7, 1000},
                          {2, 3, 5, 4099}})
    for (bool sum : {false, true}) cases.push_back(kv_groups_case(s[0], s[1], s[2], s[3], sum));
  using Dims = std::array<int64_t, 3>;
  for (const Dims& s : {Dims{1, 1, 1}, {3, 5, 7}, {2, 1, 768}, {4, 64, 65}, {8, 33, 128}})
    cases.push_back(add_positions_case(s[0], s[1], s[2]));
  for (auto [B, TC] :
       {std::pair<int64_t, int64_t>{1, 7}, {3, 35}, {8, 1025}, {5, 100003}, {64, 129}, {0, 9}})
    cases.push_back(sum_over_batch_case(B, TC));
}

}  // namespace tinylm::op_table
