# The checks both llama.cpp tests run (sourced by run.sh and tokenizer_json.sh, which set
# bin (the tinylm binary), count (greedy tokens to compare) and status (0; set to 1 by a
# failed check), and run from this folder).

# The smallest top-2 margin (logit units) at which a file of each type must choose tinylm's
# token: about twice the largest logit error llama.cpp shows on the gpt2-tiny
# fixture (a flip needs the two logits' errors to differ by the margin): F32 4e-3,
# through its fp16 GELU table; F16 0.008; BF16 0.057; Q8_0 0.19, with llama.cpp's own
# 8-bit activations; the same on Zen and on AMX hosts (batches under 32).
declare -A greedy_tolerance=([f32]=0.01 [f16]=0.02 [bf16]=0.12 [q8_0]=0.4)

# compare_greedy LABEL THEIRS OURS MARGINS TOL: THEIRS must equal OURS token by token; the
# first token where they differ may only be one whose margin in MARGINS is below TOL (a
# near tie: either may come out), and past it nothing is compared (the contexts differ).
compare_greedy() {
  awk -v label="$1" -v theirs="$2" -v ours="$3" -v margins="$4" -v tol="$5" 'BEGIN {
    n = split(ours, o, ","); split(theirs, t, ","); split(margins, m, ",")
    for (i = 1; i <= n; ++i) {
      if (t[i] == o[i]) continue
      if (m[i] + 0 < tol + 0) {
        printf "%s: greedy equal for %d tokens, then parted at token %d, where tinylm'"'"'s " \
               "top-2 margin %.4g is below %s (the type'"'"'s logit error); not compared past it\n",
               label, i - 1, i, m[i], tol
        exit 0
      }
      printf "%s: llama.cpp'"'"'s greedy continuation differs from tinylm'"'"'s at token %d " \
             "(%s, tinylm %s, whose top-2 margin there is %.4g)\n", label, i, t[i], o[i], m[i]
      exit 1
    }
    printf "%s: greedy equal for all %d tokens\n", label, n
  }'
}

# check LABEL FILE CASES PROMPT OURS MARGINS TYPE: llama.cpp tokenizes CASES with FILE's
# tokenizer and continues PROMPT greedily; its continuation must equal OURS, tinylm's
# (compare_greedy with TYPE's tolerance). A failure sets status 1.
check() {
  local out theirs
  if ! out=$(node check.mjs "$2" "$3" "$4" "$count"); then
    echo "$1: $out"
    status=1
    return
  fi
  theirs=$(sed -n 's/^greedy: //p' <<<"$out")
  echo "$1: $(grep '^llama.cpp CPU variant:' <<<"$out"); $(grep '^tokenize:' <<<"$out")"
  echo "$1: llama.cpp greedy: $theirs"
  compare_greedy "$1" "$theirs" "$5" "$6" "${greedy_tolerance[$7]}" || status=1
}

# train_small DIR DATA TOKENIZER STEPS [MODEL]: a 2-layer GPT (block 64, d_model 64), or
# the MODEL JSON given, trained on DATA into DIR/run.
train_small() {
  local model=${5:-'{"block_size": 64, "n_layer": 2, "n_head": 4, "d_model": 64, "dropout": 0.0}'}
  cat >"$1/config.json" <<EOF
{
  "model": $model,
  "data": {"path": "$2", "tokenizer": "$3"},
  "train": {"batch_size": 16, "max_steps": $4, "lr": 3e-3, "warmup_steps": 20,
            "eval_interval": $4, "eval_iters": 2, "log_interval": 200,
            "checkpoint_interval": $4, "seed": 3},
  "sample": {"max_new_tokens": 0}
}
EOF
  "$bin" train --quiet --config "$1/config.json" --out "$1/run" >/dev/null
}

# greedy MODEL PROMPT: tinylm's greedy continuation on one line and each of its tokens'
# top-2 margin (logit units: top logprob - second) on the next, both comma-separated.
greedy() {
  "$bin" generate --model "$1" --prompt-ids "$2" --max-new-tokens "$count" --greedy \
    --print-ids --logprobs 2 |
    awk '/^logprobs: / { split($0, a, "; top "); split(a[2], t, /[ ,]+/)
                         margins = margins sep (t[2] - t[4]); sep = ","; next }
         { ids = $0 }
         END { print ids; print margins }'
}
