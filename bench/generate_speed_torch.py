"""Generation speed of GPT-2 124M's shape in PyTorch (Debian's python3-torch 1.13), the
peer of bench/generate_speed.cpp: random weights, batch 1, prefill of the prompt, then
greedy decoding with a KV cache (keys and values kept per layer, one new position per
step), written out as Hugging Face's GPT2LMHeadModel computes it (biases, tied head,
tanh GELU). Transformers is not a Debian package, so the model is defined here.

    /usr/bin/python3 bench/generate_speed_torch.py --prompt 64 --new 128 --threads 2
    python3 bench/generate_speed_torch.py --device cuda   (on a GPU machine: bench/gpu/run.sh;
                                                           one untimed round first, then timed)
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, cache):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
        S = k.size(2)  # keys so far; the queries are the last T of them
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.c_proj(y)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x, (k, v)


class GPT2(nn.Module):
    def __init__(self, vocab=50257, block=1024, layers=12, heads=12, d=768):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, idx, caches, pos):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(pos, pos + T, device=idx.device))
        new = []
        for b, c in zip(self.blocks, caches):
            x, kv = b(x, c)
            new.append(kv)
        return self.ln_f(x[:, -1]) @ self.wte.weight.t(), new


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--new", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = GPT2().eval().to(a.device)
    params = sum(p.numel() for p in model.parameters())
    prompt = torch.randint(0, 50257, (1, a.prompt), device=a.device)
    rounds = 2 if a.device != "cpu" else 1  # a GPU's first round holds its start-up
    for _ in range(rounds):
        prefill, decode = run(model, prompt, a.new, a.device)
    where = f"{a.threads} threads" if a.device == "cpu" else a.device
    print(f"PyTorch  gpt2-124m {params / 1e6:.1f}M params, {where}: prefill "
          f"{a.prompt} tokens {prefill * 1000:.0f} ms; KV cache {a.new / decode:.1f} tokens/s "
          f"({decode * 1000 / a.new:.1f} ms/token, {a.new} tokens)")


def run(model, prompt, new, device):
    sync = torch.cuda.synchronize if device != "cpu" else (lambda: None)
    with torch.inference_mode():
        t0 = time.perf_counter()
        logits, caches = model(prompt, [None] * len(model.blocks), 0)
        sync()
        prefill = time.perf_counter() - t0
        pos = prompt.shape[1]
        t0 = time.perf_counter()
        for _ in range(new):
            nxt = logits.argmax(dim=-1, keepdim=True)
            logits, caches = model(nxt, caches, pos)
            pos += 1
        sync()
        decode = time.perf_counter() - t0
    return prefill, decode


if __name__ == "__main__":
    main()
