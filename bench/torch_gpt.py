"""nanoGPT's model (pre-LN, GELU, learned positions, tied head, bias=False) in PyTorch,
the peer that the benchmark scripts in bench/ compare tinylm with. Attention is written
out because PyTorch 1.13 (Debian's python3-torch) has no fused scaled_dot_product_attention.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h, exact_gelu=False):
        super().__init__()
        self.h = h
        self.approximate = "none" if exact_gelu else "tanh"
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
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate=self.approximate))


class GPT(nn.Module):
    def __init__(self, vocab, block, layers, heads, d, exact_gelu=False):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList(Block(d, heads, exact_gelu) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.ln_f.bias = None
        for m in self.modules():  # GPT-2 / nanoGPT initialisation
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
        for name, p in self.named_parameters():  # residual projections, scaled as GPT-2
            if name.endswith("c_proj.weight") or name.endswith("mlp_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * layers))

    def hidden(self, idx):
        """The final hidden states [B, T, d] (after ln_f)."""
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x)
        return self.ln_f(x)

    def forward(self, idx, targets):
        logits = self.hidden(idx) @ self.wte.weight.t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
