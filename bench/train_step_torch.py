"""One training step (forward + backward + AdamW) of the same GPT in PyTorch, timed.

The model is nanoGPT's (pre-LN, GELU tanh, learned positions, tied head, bias=False),
with attention written out (PyTorch 1.13 has no fused scaled_dot_product_attention).
Usage: train_step_torch.py --layers 4 --heads 4 --d-model 128 --block 64 --batch 12 --vocab 65
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln_1 = nn.LayerNorm(d, elementwise_affine=True)
        self.ln_1.bias = None
        self.c_attn = nn.Linear(d, 3 * d, bias=False)
        self.c_proj = nn.Linear(d, d, bias=False)
        self.ln_2 = nn.LayerNorm(d)
        self.ln_2.bias = None
        self.c_fc = nn.Linear(d, 4 * d, bias=False)
        self.mlp_proj = nn.Linear(4 * d, d, bias=False)

    def attn(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, block, layers, heads, d):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.ln_f.bias = None
        for m in self.modules():  # GPT-2 / nanoGPT initialisation
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    p = argparse.ArgumentParser()
    for name, default in [("layers", 4), ("heads", 4), ("d-model", 128), ("block", 64),
                          ("batch", 12), ("vocab", 65), ("steps", 10), ("warmup", 2),
                          ("threads", 0)]:
        p.add_argument("--" + name, type=int, default=default)
    a = p.parse_args()
    torch.set_num_threads(a.threads or os.cpu_count())
    torch.manual_seed(1)
    model = GPT(a.vocab, a.block, a.layers, a.heads, a.d_model)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99))
    data = torch.randint(0, a.vocab, (a.batch * a.block + 1,))
    x = data[:-1].view(a.batch, a.block)
    y = data[1:].view(a.batch, a.block)
    total = 0.0
    for s in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        dt = time.perf_counter() - t0
        if s >= a.warmup:
            total += dt
    ms = total / a.steps * 1000
    n = sum(p.numel() for p in model.parameters())
    print(f"pytorch params {n / 1e6:.2f}M  threads {torch.get_num_threads()}  {ms:.1f} ms/step  "
          f"{a.batch * a.block / (ms / 1000):.0f} tokens/s  (loss {loss.item():.3f}, "
          f"torch {torch.__version__})")


if __name__ == "__main__":
    main()
