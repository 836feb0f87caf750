"""configs/shakespeare-char-cpu.json trained in PyTorch, the way nanoGPT trains it, to
compare the final validation loss with tinylm's on the same machine and data split.

Same model (bench/torch_gpt.py, exact GELU as nanoGPT's nn.GELU), same data (first 90%
of data/tinyshakespeare.txt for training), same schedule (warmup 100, cosine 1e-3 ->
1e-4 over 2000 steps), AdamW (0.9, 0.99), weight decay 0.1 on 2-D tensors, clipping 1.0,
batch 12 x 64, evaluation on 20 random batches per split.
Usage: /usr/bin/python3 bench/shakespeare_char_torch.py [--seed 1337] [--steps 2000]
"""
import argparse
import math
import os
import time

import torch

from torch_gpt import GPT


def lr_at(it, lr=1e-3, min_lr=1e-4, warmup=100, decay=2000):
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    if it > decay:
        return min_lr
    ratio = (it - warmup) / (decay - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--steps", type=int, default=2000)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(os.cpu_count())
    root = os.path.join(os.path.dirname(__file__), "..")
    text = open(os.path.join(root, "data", "tinyshakespeare.txt"), encoding="utf-8").read()
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(c) for c in text], dtype=torch.long)
    n = int(len(ids) * 0.9)
    splits = {"train": ids[:n], "val": ids[n:]}
    B, T = 12, 64

    def batch(split):
        data = splits[split]
        ix = torch.randint(len(data) - T, (B,))
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix])
        return x, y

    model = GPT(len(chars), T, 4, 4, 128, exact_gelu=True)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99))

    @torch.no_grad()
    def estimate(split):
        return sum(model(*batch(split)).item() for _ in range(20)) / 20

    start = time.time()
    for it in range(a.steps + 1):
        if it % 250 == 0 or it == a.steps:
            print(f"step {it}: train loss {estimate('train'):.4f}, val loss {estimate('val'):.4f}"
                  f"  ({time.time() - start:.0f} s)", flush=True)
        if it == a.steps:
            break
        for g in opt.param_groups:
            g["lr"] = lr_at(it)
        loss = model(*batch("train"))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()


if __name__ == "__main__":
    main()
