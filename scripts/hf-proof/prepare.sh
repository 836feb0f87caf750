#!/usr/bin/env bash
# The proof with the real libraries (docs/finetune.md, "Checked with transformers and
# peft"), step 1 of 3, on this machine: makes .proof/ (git-ignored) with
#   base/          tests/fixtures/gpt2-tiny, a Hugging Face GPT-2 folder (vocab 50,257)
#   clf/hf/        a GPT2ForSequenceClassification folder exported by `tinylm finetune
#                  --task classify` (20 steps on the spam data, pooling last_non_pad)
#   clf-cases.tsv  texts' GPT-2 ids and tinylm's label and probability for each
#   lm/adapter/    a PEFT adapter written by `tinylm train` (LoRA r 4 on c_attn, c_fc)
#   lm-merged/     the base with that adapter folded in by `tinylm lora merge`
#   lm-ids.txt     GPT-2 ids of a text, for logits on both sides
# Step 2 (check.py) runs where transformers and peft are installed; step 3 (finish.sh)
# here again, on what step 2 wrote.
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TINYLM:-build/tinylm}
rm -rf .proof && mkdir -p .proof
cp -r tests/fixtures/gpt2-tiny .proof/base
rm -f .proof/base/reference.*

"$T" finetune --task classify --base .proof/base --data data/sms-spam.tsv --out .proof/clf \
  --set finetune.max_steps=20 --set finetune.pooling=last_non_pad --set finetune.lr=1e-3 \
  --set finetune.eval_interval=10 --quiet
test -f .proof/clf/hf/config.json
: > .proof/clf-cases.tsv
for text in "Free entry! Call now to claim your prize" "Are we still meeting for lunch today?" \
            "URGENT: your account has been selected, text WIN to 80086"; do
  ids=$(printf '%s' "$text" | "$T" tokenize --tokenizer gpt2 --ordinary | tr ' ' ',')
  verdict=$("$T" classify --run .proof/clf --text "$text" | head -1 | cut -f1,2)
  printf '%s\t%s\n' "$ids" "$verdict" >> .proof/clf-cases.tsv
done

cat > .proof/lora.json <<'JSON'
{
  "model": {"block_size": 32},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"init_from": ".proof/base", "trainable": "lora", "batch_size": 4, "max_steps": 20,
            "lr": 1e-2, "warmup_steps": 2, "eval_interval": 10, "eval_iters": 2, "seed": 5},
  "lora": {"r": 4, "alpha": 8, "targets": ["c_attn", "c_fc"]},
  "sample": {"max_new_tokens": 0}
}
JSON
"$T" train --config .proof/lora.json --out .proof/lm --quiet
"$T" lora merge --base .proof/base --adapter .proof/lm/adapter --out .proof/lm-merged
printf '%s' "I had always thought Jack Gisburn rather a cheap genius" |
  "$T" tokenize --tokenizer gpt2 --ordinary > .proof/lm-ids.txt
# Only what check.py reads travels (the device call carries at most 64 MiB with the repo).
rm -f .proof/clf/*.safetensors .proof/clf/report.html .proof/lm/*.safetensors .proof/lm/report.html
du -sh .proof
echo "prepare: .proof ready; run check.py where transformers and peft are installed"
