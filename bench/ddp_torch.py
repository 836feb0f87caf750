"""PyTorch's DistributedDataParallel (Debian's PyTorch 1.13, gloo, 2 processes) beside
`mpirun -np 2 tinylm train` on the same model, weights, data and optimizer: the losses of
every step agree within float tolerance (bench/distributed.sh; docs/distributed.md).

  python3 bench/ddp_torch.py --tinylm build/tinylm [--steps 8]

- the model: tests/fixtures/gpt2-tiny (a Hugging Face GPT-2 folder: 2 layers, d 32,
  4 heads, context 64, GPT-2's 50257 ids), read here from its model.safetensors and by
  tinylm through train.init_from;
- the data: data/the-verdict.txt as GPT-2 ids (tinylm prepare), cut into windows of 64
  tokens at stride 64, in order; step s trains windows 8s .. 8s + 7, 4 on each rank;
- AdamW (lr 1e-3 constant, betas 0.9 / 0.99, eps 1e-8, weight decay 0.1 on the matrices
  and embeddings), global-norm clipping at 1, no dropout, one thread per rank.
Prints both loss curves and the largest relative difference; exits 1 above --tolerance.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

FIXTURE = "tests/fixtures/gpt2-tiny"
BATCH, RANKS = 8, 2


def read_safetensors(path):
    """{name: float32 tensor} of a safetensors file (F32 tensors only)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", name
        start, end = t["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[start:end], dtype="<f4").copy()).view(t["shape"])
    return out


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.attn_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")).softmax(-1)
        x = x + self.attn_proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT2LMHeadModel's computation (tied head), loaded from its safetensors."""

    def __init__(self, config, weights):
        super().__init__()
        d, V, T = config["n_embd"], config["vocab_size"], config["n_positions"]
        self.wte, self.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
        self.h = nn.ModuleList(Block(d, config["n_head"]) for _ in range(config["n_layer"]))
        self.ln_f = nn.LayerNorm(d)
        w = {k.removeprefix("transformer."): v for k, v in weights.items()}
        with torch.no_grad():
            self.wte.weight.copy_(w["wte.weight"])
            self.wpe.weight.copy_(w["wpe.weight"])
            self.ln_f.weight.copy_(w["ln_f.weight"])
            self.ln_f.bias.copy_(w["ln_f.bias"])
            for i, b in enumerate(self.h):
                p = f"h.{i}."
                for ln in ("ln_1", "ln_2"):
                    getattr(b, ln).weight.copy_(w[p + ln + ".weight"])
                    getattr(b, ln).bias.copy_(w[p + ln + ".bias"])
                for mine, theirs in (("c_attn", "attn.c_attn"), ("attn_proj", "attn.c_proj"),
                                     ("c_fc", "mlp.c_fc"), ("mlp_proj", "mlp.c_proj")):
                    getattr(b, mine).weight.copy_(w[p + theirs + ".weight"].t())  # Conv1D
                    getattr(b, mine).bias.copy_(w[p + theirs + ".bias"])

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.h:
            x = b(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def windows(ids, T):
    starts = range(0, len(ids) - T, T)  # while start + T < n, as tinylm's sliding windows
    return [(ids[s:s + T], ids[s + 1:s + T + 1]) for s in starts]


def ddp_rank(rank, args, config, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=RANKS)
    model = GPT2(config, read_safetensors(os.path.join(FIXTURE, "model.safetensors")))
    ddp = DistributedDataParallel(model)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    ids = np.fromfile(args.train_bin, dtype="<u2").astype(np.int64)
    wins = windows(ids, config["n_positions"])
    per_rank = BATCH // RANKS
    losses = []
    for step in range(args.steps):
        mine = wins[step * BATCH + rank * per_rank:step * BATCH + (rank + 1) * per_rank]
        x = torch.tensor(np.stack([w[0] for w in mine]))
        y = torch.tensor(np.stack([w[1] for w in mine]))
        opt.zero_grad(set_to_none=True)
        loss = ddp(x, y)
        loss.backward()  # DDP averages the gradients over the ranks
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        losses.append(mean.item() / RANKS)
    if rank == 0:
        with open(out, "w") as f:
            json.dump(losses, f)
    dist.destroy_process_group()


def tinylm_losses(args, work, prepared):
    config = {
        "model": {"dropout": 0.0},
        "data": {"path": prepared, "windows": "sliding", "shuffle": False},
        "train": {"batch_size": BATCH // RANKS, "global_batch": BATCH, "max_steps": args.steps,
                  "lr": 1e-3, "min_lr": 1e-3, "warmup_steps": 0, "beta1": 0.9, "beta2": 0.99,
                  "eps": 1e-8, "weight_decay": 0.1, "grad_clip": 1.0, "init_from": FIXTURE,
                  "eval_interval": 100000, "eval_iters": 1, "log_interval": 1,
                  "checkpoint_interval": 100000, "seed": 1, "threads": 1},
        "sample": {"max_new_tokens": 0},
    }
    path = os.path.join(work, "ddp-check.json")
    with open(path, "w") as f:
        json.dump(config, f)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    run = os.path.join(work, "run")
    subprocess.run(["mpirun", "-np", str(RANKS), "--oversubscribe", args.tinylm, "train", "--quiet",
                    "--config", path, "--out", run], check=True, env=env)
    with open(os.path.join(run, "log.jsonl")) as f:
        return [json.loads(line)["loss"] for line in f if '"loss"' in line]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tinylm", default="build/tinylm")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--port", type=int, default=29517)
    p.add_argument("--tolerance", type=float, default=1e-5, help="largest relative difference")
    args = p.parse_args()
    with open(os.path.join(FIXTURE, "config.json")) as f:
        config = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        prepared = os.path.join(work, "verdict-gpt2")
        subprocess.run([args.tinylm, "prepare", "--tokenizer", "gpt2", "--input",
                        "data/the-verdict.txt", "--out", prepared], check=True,
                       stdout=subprocess.DEVNULL)
        args.train_bin = os.path.join(prepared, "train.bin")
        theirs = tinylm_losses(args, work, prepared)
        out = os.path.join(work, "torch-losses.json")
        mp.spawn(ddp_rank, args=(args, config, out), nprocs=RANKS, join=True)
        with open(out) as f:
            torch_losses = json.load(f)
    worst = 0.0
    print("step  tinylm (mpirun -np 2)  PyTorch DDP (gloo, 2 processes)")
    for i, (a, b) in enumerate(zip(theirs, torch_losses)):
        worst = max(worst, abs(a - b) / abs(b))
        print(f"{i + 1:4d}  {a:.6f}              {b:.6f}")
    print(f"largest relative difference over {len(theirs)} steps: {worst:.2e} "
          f"(tolerance {args.tolerance:.0e})")
    return 0 if len(theirs) == len(torch_losses) == args.steps and worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
