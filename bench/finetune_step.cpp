// Times one fine-tuning step of the course's chapter 6 classifier (GPT-2 124M body, a new
// Linear(768, 2) head on the last position, cross-entropy, AdamW lr 5e-5 wd 0.1 on every
// trainable tensor) with a trainable set, and prints ms/step. The GPT is nanoGPT's
// bias-free shape, as bench/finetune_step_torch.py builds it; bench/run.sh runs both.
//   finetune_step --trainable last:1 --batch 8 --tokens 120 [--steps 5 --warmup 1 --threads 0]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "model/classifier.h"
#include "optim/adamw.h"
#include "run/trainable.h"
#include "tensor/threads.h"

using namespace tinylm;

int main(int argc, char** argv) {
  std::string trainable = "last:1";
  int64_t batch = 8, tokens = 120, steps = 5, warmup = 1, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--trainable")
      trainable = value;
    else if (flag == "--batch")
      batch = std::atoll(value.c_str());
    else if (flag == "--tokens")
      tokens = std::atoll(value.c_str());
    else if (flag == "--steps")
      steps = std::atoll(value.c_str());
    else if (flag == "--warmup")
      warmup = std::atoll(value.c_str());
    else if (flag == "--threads")
      threads = std::atoll(value.c_str());
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(static_cast<int>(threads));
  GPTConfig c;  // GPT-2 124M: 12 layers, 12 heads, d 768, 1,024 positions, 50,257 tokens
  c.n_layer = 12, c.n_head = 12, c.d_model = 768, c.block_size = 1024, c.vocab_size = 50257;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;  // nanoGPT bias=False
  auto body = std::make_unique<GPT>(c);
  Rng rng(1);
  body->init(rng);
  ClassifierConfig cc;
  cc.num_labels = 2;
  cc.head_bias = true;  // the course's torch.nn.Linear(768, 2)
  cc.pooling = Pooling::Last;
  SequenceClassifier model(std::move(body), cc);
  model.init_head(rng);
  apply_trainable(model, TrainableSet::parse(trainable));
  const ParameterList params = model.parameters();
  for (const auto& p : params) p.param->decay = true;  // torch.optim.AdamW(model.parameters())
  AdamW opt(params, AdamWConfig{5e-5f, 0.9f, 0.999f, 1e-8f, 0.1f});
  const ParameterCounts counts = count_parameters(params);

  std::vector<int32_t> ids(batch * tokens), labels(batch);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(c.vocab_size));
  for (auto& l : labels) l = static_cast<int32_t>(rng.below(2));
  double total_ms = 0, loss = 0;
  for (int64_t s = 0; s < warmup + steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    model.zero_grad();
    loss = model.forward_loss(ids.data(), labels.data(), batch, tokens);
    model.backward();
    opt.step(5e-5f);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (s >= warmup) total_ms += ms;
  }
  const double ms = total_ms / steps;
  std::printf(
      "tinylm  trainable %s: %.2fM of %.2fM parameters  threads %d  %.1f ms/step  %.0f "
      "tokens/s  (loss %.3f)\n",
      trainable.c_str(), counts.trainable / 1e6, (counts.trainable + counts.frozen) / 1e6,
      num_threads(), ms, batch * tokens / (ms / 1000.0), loss);
  return 0;
}
