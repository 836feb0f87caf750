"""The proof with the real libraries, step 2 of 3 (see prepare.sh): run where
transformers and peft are installed, from the repository root, as
    python3 scripts/hf-proof/check.py OUT_DIR
It checks, and prints one line per check:
  1. transformers loads tinylm's GPT2ForSequenceClassification folder and gives tinylm's
     label and probability for each case (tinylm prints 4 decimals);
  2. peft loads tinylm's adapter onto the base (PeftModel.from_pretrained) and its logits
     equal those of tinylm's merged folder;
  3. an adapter made and saved by peft (B drawn at random so that it is not a no-op),
     with peft's own merge, for finish.sh to load into tinylm: OUT_DIR/peft-adapter/
     and OUT_DIR/peft-merged/.
Exit code 0 only if checks 1 and 2 pass."""
import json
import os
import sys

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import GPT2ForSequenceClassification, GPT2LMHeadModel

P = ".proof"
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
report = []
ok = True


def line(text):
    print(text, flush=True)
    report.append(text)


torch.manual_seed(0)

# 1. The classifier folder.
clf = GPT2ForSequenceClassification.from_pretrained(f"{P}/clf/hf").eval()
worst = 0.0
with open(f"{P}/clf-cases.tsv") as f:
    for row in f:
        ids, label, prob = row.rstrip("\n").split("\t")
        x = torch.tensor([[int(i) for i in ids.split(",")]])
        with torch.no_grad():
            p = torch.softmax(clf(input_ids=x).logits[0], -1)
        best = int(p.argmax())
        name = clf.config.id2label[best]
        diff = abs(float(p[best]) - float(prob))
        worst = max(worst, diff)
        same = name == label and diff < 1.5e-4
        ok &= same
        line(f"classify: transformers {name} {float(p[best]):.6f}, tinylm {label} {prob}: "
             f"{'same' if same else 'DIFFERENT'}")
line(f"classify: worst probability difference {worst:.2e} (tinylm prints 4 decimals)")

# 2. tinylm's adapter in peft, against tinylm's merge.
ids = torch.tensor([[int(i) for i in open(f"{P}/lm-ids.txt").read().split()]])
base = GPT2LMHeadModel.from_pretrained(f"{P}/base").eval()
with torch.no_grad():
    plain = base(input_ids=ids).logits
peft_model = PeftModel.from_pretrained(base, f"{P}/lm/adapter").eval()
ours = GPT2LMHeadModel.from_pretrained(f"{P}/lm-merged").eval()
with torch.no_grad():
    a = peft_model(input_ids=ids).logits
    b = ours(input_ids=ids).logits
rel = float((a - b).norm() / b.norm())
moved = float((a - plain).norm() / plain.norm())
same = rel < 1e-5 and moved > 1e-4
ok &= same
line(f"lora: PeftModel(base, tinylm adapter) vs tinylm's merged folder: relative error {rel:.2e} "
     f"(the adapter moves the logits by {moved:.2e}): {'same' if same else 'DIFFERENT'}")

# 3. An adapter from peft, for tinylm.
base2 = GPT2LMHeadModel.from_pretrained(f"{P}/base")
config = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_proj"], fan_in_fan_out=True,
                    lora_dropout=0.0, bias="none", task_type="CAUSAL_LM")
made = get_peft_model(base2, config)
with torch.no_grad():
    for name, param in made.named_parameters():
        if "lora_B" in name:
            param.normal_(0.0, 0.05)
made.save_pretrained(f"{out}/peft-adapter")
made.merge_and_unload().save_pretrained(f"{out}/peft-merged")
line("peft: adapter (r 4, alpha 8, c_attn and c_proj) saved to peft-adapter/, "
     "its merge to peft-merged/")

with open(f"{out}/report.txt", "w") as f:
    f.write("\n".join(report) + "\n")
sys.exit(0 if ok else 1)
