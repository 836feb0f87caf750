"""One fine-tuning step of the course's chapter 6 classifier in PyTorch, timed: the GPT-2
124M shape (bench/torch_gpt.py, bias-free as nanoGPT), frozen except the trainable set,
a new Linear(768, 2) head on the last position's hidden state, cross-entropy, and
torch.optim.AdamW(lr=5e-5, weight_decay=0.1) over the parameters that need gradients.
Usage: finetune_step_torch.py --trainable last:1|all --batch 8 --tokens 120 --threads 2
"""
import argparse
import os
import time

import torch
import torch.nn.functional as F

from torch_gpt import GPT


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trainable", default="last:1", choices=["last:1", "all"])
    for name, default in [("batch", 8), ("tokens", 120), ("steps", 5), ("warmup", 1),
                          ("threads", 0)]:
        p.add_argument("--" + name, type=int, default=default)
    a = p.parse_args()
    torch.set_num_threads(a.threads or os.cpu_count())
    torch.manual_seed(1)
    model = GPT(50257, 1024, 12, 12, 768)
    head = torch.nn.Linear(768, 2)
    if a.trainable == "last:1":  # the course: the last block, the final norm, the head
        for q in model.parameters():
            q.requires_grad = False
        for q in list(model.blocks[-1].parameters()) + list(model.ln_f.parameters()):
            q.requires_grad = True
    params = [q for q in list(model.parameters()) + list(head.parameters()) if q.requires_grad]
    opt = torch.optim.AdamW(params, lr=5e-5, weight_decay=0.1)
    x = torch.randint(0, 50257, (a.batch, a.tokens))
    y = torch.randint(0, 2, (a.batch,))
    total = 0.0
    for s in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        logits = head(model.hidden(x)[:, -1, :])
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        if s >= a.warmup:
            total += time.perf_counter() - t0
    ms = total / a.steps * 1000
    n = sum(q.numel() for q in params)
    print(f"pytorch trainable {a.trainable}: {n / 1e6:.2f}M parameters  "
          f"threads {torch.get_num_threads()}  {ms:.1f} ms/step  "
          f"{a.batch * a.tokens / (ms / 1000):.0f} tokens/s  (loss {loss.item():.3f}, "
          f"torch {torch.__version__})")


if __name__ == "__main__":
    main()
