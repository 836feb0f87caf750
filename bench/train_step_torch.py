"""One training step (forward + backward + AdamW) of the same GPT in PyTorch, timed.

The model is nanoGPT's (bench/torch_gpt.py; GELU tanh as tinylm's default).
Usage: train_step_torch.py --layers 4 --heads 4 --d-model 128 --block 64 --batch 12 --vocab 65
"""
import argparse
import os
import time

import torch

from torch_gpt import GPT


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
