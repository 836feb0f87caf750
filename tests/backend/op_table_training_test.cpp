// Embedding, dropout, cross-entropy, AdamW and clipping: the cases of the op table test.
#include "op_table.h"
#include "ops/bf16.h"
#include "util/ignore_index.h"

namespace tinylm::op_table {

namespace {
// Embedding, dropout (ops/embedding.h, ops/dropout.h)

// ids in [0, V): repeated whenever N > V
std::vector<int32_t> random_ids(int64_t N, int64_t V, Rng& rng) {
  std::vector<int32_t> ids(N);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(V));
  return ids;
}

Case embedding_case(int64_t N, int64_t V, int64_t C, bool backward) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["table"] = random_vec(V * C, rng);  // forward's table, backward's old dtable
    in.f["dy"] = random_vec(N * C, rng);
    in.ids["ids"] = random_ids(N, V, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const DeviceArray<int32_t> ids(in.ids.at("ids"), d);
    Tensor table = upload(in["table"], d);
    if (backward) {
      const Tensor dy = upload(in["dy"], d);
      b.embedding_backward(dy.data(), ids.data(), table.data(), N, V, C);
      return Outputs().add("dtable", table);
    }
    Tensor y = fresh(N * C, d);
    b.embedding_forward(ids.data(), table.data(), y.data(), N, V, C);
    return Outputs().add("y", y);
  };
  // both add the rows of each id in order: the same bits
  return {(backward ? "embedding_backward " : "embedding_forward ") +
              dims({{"N", N}, {"V", V}, {"C", C}}),
          backward ? ENTRY(embedding_backward) : ENTRY(embedding_forward), make, run, kExact};
}

// The dropout key, the same on every backend: ref and fast draw the same mask from it.
constexpr uint64_t kDropoutKey = 123;

Case dropout_forward_case(int64_t N, float p) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["x"] = random_vec(N, rng);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor x = upload(in["x"], b.device);
    Tensor y = fresh(N, b.device), mask = fresh(N, b.device);
    b.dropout_forward(x.data(), y.data(), mask.data(), N, p, kDropoutKey);
    return Outputs().add("y", y).add("mask", mask);
  };
  return {"dropout_forward " + dims({{"N", N}}) + " p=" + num(p), ENTRY(dropout_forward), make, run,
          kExact};
}

// mask is what ref's forward drew with p = 0.4.
Case dropout_backward_case(int64_t N) {
  auto make = [=](Rng& rng) {
    Inputs in;
    const auto x = random_vec(N, rng);
    in.f["dy"] = random_vec(N, rng);
    std::vector<float> y(N), mask(N);
    host_ref().dropout_forward(x.data(), y.data(), mask.data(), N, 0.4f, kDropoutKey);
    in.f["mask"] = mask;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Tensor dy = upload(in["dy"], b.device), mask = upload(in["mask"], b.device);
    Tensor dx = fresh(N, b.device);
    b.dropout_backward(dy.data(), mask.data(), dx.data(), N);
    return Outputs().add("dx", dx);
  };
  return {"dropout_backward " + dims({{"N", N}}), ENTRY(dropout_backward), make, run, kExact};
}

}  // namespace

void add_embedding_and_dropout_cases(std::vector<Case>& cases) {
  using Dims = std::array<int64_t, 3>;
  for (bool backward : {false, true})
    for (const Dims& s :
         {Dims{1, 1, 1}, {7, 5, 33}, {65, 7, 65}, {33, 100, 7}, {2048, 50, 768}, {5000, 3, 100}})
      cases.push_back(embedding_case(s[0], s[1], s[2], backward));
  for (int64_t N : {1, 7, 33, 65, 100000})
    for (float p : {0.1f, 0.5f, 0.9f}) cases.push_back(dropout_forward_case(N, p));
  cases.push_back(dropout_forward_case(1001, 0.0f));  // a copy; draws nothing
  cases.push_back(dropout_forward_case(3, 1.0f));     // drops everything
  for (int64_t N : {1, 777, 100000}) cases.push_back(dropout_backward_case(N));
}

namespace {

// Cross-entropy, AdamW, clipping (ops/cross_entropy.h, ops/adamw.h, ops/clip.h)

enum class Targets { kAllKept, kEveryThirdIgnored, kAllIgnored };

// grad: whether dlogits is asked for (else null: the loss alone).
Case cross_entropy_case(int64_t N, int64_t V, Targets targets, bool grad = true,
                        int32_t ignore_index = kIgnoreIndex) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["logits"] = random_vec(N * V, rng, 3.0f);
    auto t = random_ids(N, V, rng);
    for (int64_t i = 0; i < N; ++i)
      if (targets == Targets::kAllIgnored || (targets == Targets::kEveryThirdIgnored && i % 3 == 0))
        t[i] = ignore_index;
    in.ids["targets"] = t;
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    const Tensor logits = upload(in["logits"], d);
    const DeviceArray<int32_t> t(in.ids.at("targets"), d);
    Tensor dlogits = fresh(N * V, d);
    Outputs out;
    out.returned = b.cross_entropy(logits.data(), t.data(), grad ? dlogits.data() : nullptr, N, V,
                                   ignore_index);
    if (grad) out.add("dlogits", dlogits);
    return out;
  };
  std::string name = "cross_entropy " + dims({{"N", N}, {"V", V}});
  if (targets == Targets::kEveryThirdIgnored) name += " every-third-ignored";
  if (targets == Targets::kAllIgnored) name += " all-ignored";
  if (!grad) name += " no-dlogits";
  if (ignore_index != kIgnoreIndex) name += " ignore_index=" + std::to_string(ignore_index);
  // The cpu kernel sums a row's exps in float, one sum per SIMD lane: over GPT-2's 50,257
  // logits (~6,300 terms a lane with AVX2) some rows' softmax is off by ~7e-5 relative
  // (the whole array by ~7e-6 in norm).
  const double rel = V > 10000 ? 1e-4 : 1e-5;
  return {name, ENTRY(cross_entropy), make, run, {rel, 1e-7}, {{"returned", {1e-5, 1e-6}}}};
}

}  // namespace

void add_cross_entropy_cases(std::vector<Case>& cases) {
  for (int64_t N : {1, 7, 33, 256})
    for (int64_t V : {1, 7, 65, 1000})
      for (Targets t : {Targets::kAllKept, Targets::kEveryThirdIgnored})
        cases.push_back(cross_entropy_case(N, V, t));
  // vocabularies larger than a CUDA block (GPT-2's), few rows
  cases.push_back(cross_entropy_case(6, 1031, Targets::kEveryThirdIgnored));
  for (auto [N, V] : {std::pair<int64_t, int64_t>{6, 65}, {4, 1}, {13, 50257}}) {
    Case c = bounded(cross_entropy_case(N, V, Targets::kEveryThirdIgnored), 1e-5);
    c.tol_for["returned"] = {1e-5, 0.0};  // and the loss within 1e-5 relative
    cases.push_back(c);
  }
  cases.push_back(cross_entropy_case(2, 2, Targets::kAllIgnored));  // loss 0, dlogits 0
  cases.push_back(cross_entropy_case(5, 1031, Targets::kAllIgnored));
  cases.push_back(cross_entropy_case(33, 1000, Targets::kEveryThirdIgnored, false));
  cases.push_back(cross_entropy_case(13, 50257, Targets::kEveryThirdIgnored, false));
  cases.push_back(cross_entropy_case(7, 65, Targets::kEveryThirdIgnored, true, -1));
}

namespace {

// p, m, v after AdamW steps `steps` with one gradient per step: gradients g0, g1, ...
// (or g0 at every step when `one_gradient`); m and v start as given.
struct AdamWRun {
  int64_t N;
  ops::AdamWHyper h;
  std::vector<int64_t> steps;
  bool one_gradient = false;  // the same g at every step
  bool zero_moments = false;  // m = v = 0 at the start (a fresh optimizer)
  float g_scale = 1.0f;       // of the gradients' normal numbers
  std::string label;
};

Case adamw_case(const AdamWRun& r) {
  auto make = [=](Rng& rng) {
    Inputs in;
    in.f["p"] = random_vec(r.N, rng);
    in.f["m"] = r.zero_moments ? std::vector<float>(r.N, 0.0f) : random_vec(r.N, rng, 0.01f);
    in.f["v"] = r.zero_moments ? std::vector<float>(r.N, 0.0f) : random_vec(r.N, rng, 0.01f);
    for (float& x : in.f["v"]) x = x * x;  // second moments are not negative
    const size_t grads = r.one_gradient ? 1 : r.steps.size();
    for (size_t i = 0; i < grads; ++i) in.f[numbered("g", i)] = random_vec(r.N, rng, r.g_scale);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    const Device d = b.device;
    Tensor p = upload(in["p"], d), m = upload(in["m"], d), v = upload(in["v"], d);
    for (size_t i = 0; i < r.steps.size(); ++i) {
      const Tensor g = upload(in[numbered("g", r.one_gradient ? 0 : i)], d);
      b.adamw_update(p.data(), g.data(), m.data(), v.data(), r.N, r.h, r.steps[i]);
    }
    return Outputs().add("p", p).add("m", m).add("v", v);
  };
  return {"adamw_update " + dims({{"N", r.N}}) + " wd=" + num(r.h.weight_decay) + " " + r.label,
          ENTRY(adamw_update),
          make,
          run,
          {1e-5, 1e-6},
          {{"m", {1e-5, 1e-7}}, {"v", {1e-5, 1e-9}}}};
}

}  // namespace

void add_adamw_cases(std::vector<Case>& cases) {
  for (int64_t N : {1, 7, 65, 100001})
    for (float wd : {0.0f, 0.01f})
      cases.push_back(adamw_case({.N = N,
                                  .h = {1e-3f, 0.9f, 0.999f, 1e-8f, wd},
                                  .steps = {1, 2, 10, 1000},
                                  .one_gradient = true,
                                  .label = "steps 1,2,10,1000"}));
  // a fresh optimizer over five steps with new gradients (GPT-2's betas, decay 0.1)
  const Case fresh_steps = adamw_case({.N = 1003,
                                       .h = {3e-3f, 0.9f, 0.95f, 1e-8f, 0.1f},
                                       .steps = {1, 2, 3, 4, 5},
                                       .zero_moments = true,
                                       .g_scale = 0.1f,
                                       .label = "steps 1-5 fresh"});
  cases.push_back(bounded(fresh_steps, 1e-6, {{"v", 1e-5}}));
}

namespace {

// Two AdamW steps of spans of the given sizes in one call each (the trainer's), every
// other span without weight decay; each span's p, m, v compared.
Case adamw_spans_case(std::vector<int64_t> sizes) {
  auto make = [=](Rng& rng) {
    Inputs in;
    for (size_t i = 0; i < sizes.size(); ++i) {
      for (const char* what : {"p", "g"}) in.f[numbered(what, i)] = random_vec(sizes[i], rng);
      in.f[numbered("m", i)] = random_vec(sizes[i], rng, 0.01f);
      in.f[numbered("v", i)] = random_vec(sizes[i], rng, 0.01f);
      for (float& x : in.f[numbered("v", i)]) x = x * x;  // second moments are not negative
    }
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    struct State {
      Tensor p, g, m, v;
    };
    std::vector<State> st;
    for (size_t i = 0; i < sizes.size(); ++i)
      st.push_back({upload(in[numbered("p", i)], b.device), upload(in[numbered("g", i)], b.device),
                    upload(in[numbered("m", i)], b.device),
                    upload(in[numbered("v", i)], b.device)});
    std::vector<ops::AdamWSpan> spans;
    for (size_t i = 0; i < sizes.size(); ++i)
      spans.push_back(
          {st[i].p.data(), st[i].g.data(), st[i].m.data(), st[i].v.data(), sizes[i], i % 2 == 0});
    const ops::AdamWHyper h{3e-3f, 0.9f, 0.95f, 1e-8f, 0.1f};
    for (int64_t step : {1, 2}) b.adamw_update_spans(spans, h, step);
    Outputs out;
    for (size_t i = 0; i < sizes.size(); ++i)
      out.add(numbered("p", i), st[i].p)
          .add(numbered("m", i), st[i].m)
          .add(numbered("v", i), st[i].v);
    return out;
  };
  std::string name = "adamw_update_spans spans=" + std::to_string(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) name += (i ? "," : " n=") + std::to_string(sizes[i]);
  std::map<std::string, Tol> tol_for;  // the moments' sizes: as adamw_update's cases
  for (size_t i = 0; i < sizes.size(); ++i) {
    tol_for[numbered("m", i)] = {1e-5, 1e-7};
    tol_for[numbered("v", i)] = {1e-5, 1e-9};
  }
  return {name, ENTRY(adamw_update_spans), make, run, {1e-5, 1e-6}, tol_for};
}

}  // namespace

void add_adamw_spans_cases(std::vector<Case>& cases) {
  cases.push_back(adamw_spans_case({1, 7, 65, 100003, 0, 33, 50000, 256}));
  cases.push_back(adamw_spans_case({300}));
  cases.push_back(adamw_spans_case({0, 9}));  // an empty span first
}

namespace {

// One call over gradient spans of the given sizes (scale 0.1: global norm ~39 for the
// sizes below), clipped when max_norm is below the norm.
Case clip_case(std::vector<int64_t> sizes, double max_norm) {
  auto make = [=](Rng& rng) {
    Inputs in;
    for (size_t i = 0; i < sizes.size(); ++i)
      in.f[numbered("g", i)] = random_vec(sizes[i], rng, 0.1f);
    return in;
  };
  auto run = [=](const Backend& b, const Inputs& in) {
    std::vector<Tensor> grads;
    std::vector<ops::GradSpan> spans;
    for (size_t i = 0; i < sizes.size(); ++i) {
      grads.push_back(upload(in[numbered("g", i)], b.device));
      spans.push_back({grads.back().data(), sizes[i]});
    }
    Outputs out;
    out.returned = b.clip_grad_norm(spans, max_norm);
    for (size_t i = 0; i < sizes.size(); ++i) out.add(numbered("g", i), grads[i]);
    return out;
  };
  std::string name = "clip_grad_norm spans=" + std::to_string(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) name += (i ? "," : " n=") + std::to_string(sizes[i]);
  return {name + " max_norm=" + num(max_norm), ENTRY(clip_grad_norm), make, run, {1e-6, 1e-9},
          {{"returned", {1e-12, 0.0}}}};
}

}  // namespace

void add_clip_cases(std::vector<Case>& cases) {
  const std::vector<int64_t> sizes = {1, 7, 65, 100003, 33, 50000};
  cases.push_back(clip_case(sizes, 1e6));  // not clipped
  cases.push_back(clip_case(sizes, 1.0));  // clipped
  cases.push_back(clip_case({}, 1.0));     // nothing: norm 0
}

}  // namespace tinylm::op_table
