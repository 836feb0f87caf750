"""Compares the float32 tensors two safetensors files share, by name, in plain Python
(the format is an 8-byte header length, a JSON header, then raw little-endian data), and
prints the worst relative error. Exit 0 if every shared tensor is within 1e-6 and the
files hold the same names (Hugging Face's tied lm_head.weight may be absent from one)."""
import array
import json
import math
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        values = array.array("f")
        values.frombytes(data[start:end])
        out[name] = (tuple(info["shape"]), values)
    return out


a, b = read(sys.argv[1]), read(sys.argv[2])
names = sorted(set(a) & set(b))
only = sorted((set(a) ^ set(b)) - {"lm_head.weight"})
worst, worst_name = 0.0, "(none)"
for name in names:
    (shape_a, x), (shape_b, y) = a[name], b[name]
    if shape_a != shape_b:
        print(f"{name}: shapes {shape_a} and {shape_b}")
        sys.exit(1)
    diff = math.sqrt(sum((p - q) * (p - q) for p, q in zip(x, y)))
    norm = math.sqrt(sum(q * q for q in y))
    err = diff / norm if norm > 0 else diff
    if err >= worst:
        worst, worst_name = err, name
print(f"{len(names)} tensors compared, worst relative error {worst:.2e} ({worst_name}); "
      f"names in one file only: {only if only else 'none'}")
sys.exit(0 if worst < 1e-6 and not only else 1)
