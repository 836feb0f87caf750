"""The GPU peer of tinylm's Shakespeare step (configs/shakespeare-char.json: 6 layers,
6 heads, d 384, context 256, batch 64, dropout 0.2, vocabulary 65, bias=False, tied
head): nanoGPT's model and training step at nanoGPT's best settings on one GPU, that is
torch.compile, bf16 autocast, fused scaled-dot-product attention (flash), fused AdamW.
Prints the median milliseconds per training step (forward, backward, clipping, AdamW),
for bf16 and for float32 (TF32 off: the arithmetic of tinylm's exact mode).
Usage (on the GPU machine): python3 bench/gpu/shakespeare_step_torch.py [--steps 50]
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h, p):
        super().__init__()
        self.h, self.p = h, p
        self.ln_1 = nn.LayerNorm(d, bias=False)
        self.c_attn = nn.Linear(d, 3 * d, bias=False)
        self.c_proj = nn.Linear(d, d, bias=False)
        self.ln_2 = nn.LayerNorm(d, bias=False)
        self.c_fc = nn.Linear(d, 4 * d, bias=False)
        self.mlp_proj = nn.Linear(4 * d, d, bias=False)
        self.drop = nn.Dropout(p)

    def attn(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.p if self.training else 0.0,
                                           is_causal=True)
        return self.drop(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.drop(self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)))))


class GPT(nn.Module):
    def __init__(self, V=65, T=256, L=6, H=6, d=384, p=0.2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
        self.drop = nn.Dropout(p)
        self.h = nn.ModuleList(Block(d, H, p) for _ in range(L))
        self.ln_f = nn.LayerNorm(d, bias=False)
        self.head = nn.Linear(d, V, bias=False)
        self.head.weight = self.wte.weight
        for name, w in self.named_parameters():
            if w.dim() == 2:
                std = 0.02 / math.sqrt(2 * L) if name.endswith(("c_proj.weight", "mlp_proj.weight")) else 0.02
                nn.init.normal_(w, 0.0, std)

    def forward(self, idx, targets):
        T = idx.size(1)
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(T, device=idx.device)))
        for block in self.h:
            x = block(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def time_steps(bf16, steps, B=64, T=256, V=65):
    torch.manual_seed(1337)
    model = GPT().cuda()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), fused=True)
    cmodel = torch.compile(model)
    x = torch.randint(0, V, (B, T), device="cuda")
    y = torch.randint(0, V, (B, T), device="cuda")
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if bf16 else torch.autocast("cuda", enabled=False)

    def step():
        with ctx:
            loss = cmodel(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(10):  # compilation and warm-up
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step().item()  # nanoGPT reads the loss every step
        times.append(time.perf_counter() - start)
    times.sort()
    return 1000 * times[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=50)
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for bf16 in (True, False):
        ms = time_steps(bf16, a.steps)
        print(f"nanoGPT step (torch.compile, {'bf16 autocast' if bf16 else 'float32, no TF32'}, "
              f"flash attention, fused AdamW): {ms:.2f} ms/iter")


if __name__ == "__main__":
    main()
