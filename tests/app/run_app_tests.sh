#!/usr/bin/env bash
# App tests under a virtual X server (xvfb-run): a screenshot of the default layout, of every
# panel, of a batch stepped to the middle, and of the launch options' effects. Each screenshot is
# checked by tx-png-check: not blank, panels show content. The self-test, which drives every
# panel, step and toggle, is a program of its own (tests/app/run_self_test.sh).
# usage: run_app_tests.sh APP PNG_CHECK OUT_DIR
set -u
app=${1:?usage: run_app_tests.sh APP PNG_CHECK OUT_DIR}
check=${2:?}
out=${3:?}
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"   # never touch the user's settings
xvfb=(xvfb-run -a -s "-screen 0 1920x1200x24")
failures=0

run() {   # name, then app arguments
    local name=$1; shift
    if ! timeout 300 "${xvfb[@]}" "$app" "$@" > "$out/$name.log" 2>&1; then
        echo "FAIL $name: the app exited non-zero"; cat "$out/$name.log"; failures=$((failures + 1)); return 1
    fi
    echo "ok   $name"
}

shot() {   # name, regions..., -- app arguments
    local name=$1; shift
    local regions=()
    while [ "$1" != "--" ]; do regions+=(--region "$1"); shift; done; shift
    run "$name" --screenshot "$out/$name.png" "$@" || return
    if ! "$check" "$out/$name.png" "${regions[@]}" > "$out/$name.check" 2>&1; then
        echo "FAIL $name: screenshot check"; cat "$out/$name.check"; failures=$((failures + 1))
    fi
}

# Default layout: the input column and the main area both show content.
shot default 0,0.03,0.33,0.5:20 0.34,0.1,1,0.9:40 -- --frames 6
# Every panel alone, filling the window: its body (below the explanation) shows content.
panels=$("$app" --list-panels) || { echo "FAIL --list-panels"; exit 1; }
[ "$(wc -l <<< "$panels")" -ge 11 ] || { echo "FAIL --list-panels printed: $panels"; exit 1; }
for p in $panels; do
    shot "panel-$p" 0,0.1,1,0.9:12 -- --panel "$p"
done
# A padded batch, the cursor in the first encoder layer's attention.
shot batch-step 0.34,0.1,1,0.9:40 -- --sentence "The animal didn't cross the street because it was too tired." \
    --sentence "The cat sat." --step encoder.layers.0.self_attn.probs
shot layout-windows 0,0.03,1,0.97:40 -- --layout windows
# Every shipped model of File > Models opens on its catalog sentence and steps to its last
# cross-attention; the translation model also decodes with beam search.
models="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../assets/models" && pwd)"
for m in copy reverse sort; do
    shot "model-$m" 0.34,0.1,1,0.9:40 -- --checkpoint "$models/$m.safetensors" --step decoder.layers.1.cross_attn.probs \
        --layout attention
done
# The app's beam search output (K = 4, alpha 0.6) is txcli decode --beam 4's, text for text, on
# sentences where it differs from greedy decoding (the first two) and where it does not.
txcli="$(dirname "$app")/txcli"
for s in "Seven quiet foxes jumped over two lazy dogs." "I was not happy." "I see the dog."; do
    want=$("$txcli" decode --checkpoint "$models/grammar.safetensors" --beam 4 --src "$s" 2>&1)
    shot decode-beam 0,0.1,1,0.9:12 -- --checkpoint "$models/grammar.safetensors" --beam 4 --sentence "$s" \
        --panel decoding --print-decoded || continue
    got=$(sed -n 's/^decoded 1: //p' "$out/decode-beam.log")
    if [ -z "$want" ] || [ "$got" != "$want" ]; then
        echo "FAIL decode-beam \"$s\": app '$got', txcli '$want'"; failures=$((failures + 1))
    else
        echo "ok   decode-beam \"$s\": app and txcli both '$got'"
    fi
done
# The Generate panel's sampled output (seeded) is txcli decode --sample's, text for text, and its
# greedy output is greedy decoding's; the panel opens at the token --generate names.
for mode in "--sample-temperature 0.8 --top-k 10 --top-p 0.9 --seed 3|--sample --temperature 0.8 --top-k 10 --top-p 0.9 --seed 3" \
    "--sample-temperature 1.5 --seed 7|--sample --temperature 1.5 --seed 7" "--generate 2|"; do
    app_args=${mode%%|*}; cli_args=${mode#*|}
    s="My brother reads a long book every night."
    # shellcheck disable=SC2086  # split the option lists
    want=$("$txcli" decode --checkpoint "$models/grammar.safetensors" $cli_args --src "$s" 2>&1)
    # shellcheck disable=SC2086
    shot generate 0,0.1,1,0.9:12 -- --checkpoint "$models/grammar.safetensors" --sentence "$s" --panel generate \
        $app_args --print-decoded || continue
    got=$(sed -n 's/^generated: //p' "$out/generate.log")
    if [ -z "$want" ] || [ "$got" != "$want" ]; then
        echo "FAIL generate ($app_args): app '$got', txcli '$want'"; failures=$((failures + 1))
    else
        echo "ok   generate ($app_args): app and txcli both '$got'"
    fi
done
# A decoder-only model (fresh weights from txcli init): the typed sentences are prompts, and the
# app's continuations (a right-padded batch of two, and the Generate panel's) are txcli decode's.
dec="$out/decoder-only.safetensors"
if "$txcli" init --arch decoder-only --positional rope --ffn swiglu --norm-kind rmsnorm --norm pre --out "$dec" > "$out/decoder-only-init.log" 2>&1; then
    want=$("$txcli" decode --checkpoint "$dec" --src "The cat sat on the" --src "I see" 2>&1)
    if shot decoder-only 0,0.03,0.33,0.5:20 0.34,0.1,1,0.9:40 -- --checkpoint "$dec" --sentence "The cat sat on the" \
        --sentence "I see" --layout attention --print-decoded; then
        got=$(sed -n 's/^decoded [12]: //p' "$out/decoder-only.log")
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            echo "FAIL decoder-only: app '$got', txcli '$want'"; failures=$((failures + 1))
        else
            echo "ok   decoder-only: app and txcli continue both prompts alike"
        fi
    fi
    want=$("$txcli" decode --checkpoint "$dec" --src "The cat sat on the" 2>&1)
    if shot decoder-only-generate 0,0.1,1,0.9:12 -- --checkpoint "$dec" --sentence "The cat sat on the" --panel generate \
        --print-decoded; then
        got=$(sed -n 's/^generated: //p' "$out/decoder-only-generate.log")
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            echo "FAIL decoder-only generate: app '$got', txcli '$want'"; failures=$((failures + 1))
        else
            echo "ok   decoder-only generate: app and txcli both '$got'"
        fi
    fi
else
    echo "FAIL txcli init --arch decoder-only"; cat "$out/decoder-only-init.log"; failures=$((failures + 1))
fi
# Attention as lines, on a padded batch (the second row's PAD positions get no label arrow).
shot attention-lines 0.55,0.2,1,0.6:20 -- --attention-lines --layout attention --sentence "I see the dog." \
    --sentence "The small white dogs will not sleep in the old house." --step decoder.layers.2.cross_attn.probs
shot translate-beam 0,0.03,0.33,0.5:20 0.34,0.1,1,0.9:40 -- --beam 4 --step decoder.layers.2.cross_attn.probs --layout attention
# The Neuron view on a cross-attention cell ("_coche", which writes "_rojo", reading "_red"): the
# vector bars (left), the softmax row (right) and the weighted sum (bottom) are drawn.
shot neuron 0.34,0.2,0.66,0.45:20 0.67,0.2,1,0.4:20 0.34,0.7,1,0.9:20 -- --layout neuron --sentence "The red car is big." \
    --step decoder.layers.2.cross_attn.context --neuron 2,1 --head 0
# Training from launch (tiny copy task), paused after 200 steps: the plots and probe heatmap are drawn.
shot training-live 0.34,0.15,1,0.6:40 -- --train 200 --layout training
# Translation training from fresh weights, paused after 100 steps (the corpus is read and its
# subword pieces learnt first): the losses, samples and the probe sentence's cross-attention are drawn.
shot training-translate 0.34,0.15,1,0.6:40 -- --train 100 --train-task translate --layout training
# An unseen word in the input: pieces grouped under their words, the word flagged.
shot input-help 0,0.2,0.33,0.45:20 -- --sentence "The red zorblax is big." --layout attention
# Mid-lesson (cross-attention, first step done): the lesson below Input, the Attention tab framed.
shot lesson 0,0.55,0.33,0.95:20 0.34,0.1,1,0.9:40 -- --lesson 11,1
# Induction from launch (decoder-only, 2 layers), paused after 300 steps: the plots, the halves'
# losses and the last layer's self-attention of the probe sequence are drawn.
shot training-induction 0.34,0.15,1,0.6:40 -- --train 300 --train-task induction --layout training
# The shipped decoder-only models open and step to their last layer's self-attention.
for m in induction lm; do
    shot "model-$m" 0.34,0.1,1,0.9:40 -- --checkpoint "$models/$m.safetensors" --step decoder.layers.1.self_attn.probs \
        --layout attention
done
# A malformed lesson file: the app still opens and says which file is wrong and how.
mkdir -p "$out/bad-lessons"
printf '%s\n' '{"title": "T", "paragraphs": ["P."], "steps": [{"text": "x", "actions": [{"do": "jump"}]}],' \
    '"question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 0, "explanation": "E."}}' > "$out/bad-lessons/01-bad.json"
if run bad-lesson --screenshot "$out/bad-lesson.png" --lessons "$out/bad-lessons" --layout lessons; then
    if grep -qF "bad-lessons/01-bad.json: step 1, action 1: unknown action \"jump\"" "$out/bad-lesson.log"; then
        echo "ok   a malformed lesson file is named with its problem"
    else
        echo "FAIL bad lesson: no clear message"; cat "$out/bad-lesson.log"; failures=$((failures + 1))
    fi
fi
# Bad arguments: one-line reason, exit 2.
for bad in --no-such-option "--train 0" "--frames x" --print-decoded "--lesson 0" "--lesson 2,x" "--neuron 3" "--neuron a,1" "--head -1" \
    "--train 5 --train-task nope" "--train-task translate" "--train 5 --train-from default" "--generate 0" \
    "--sample-temperature 0" "--sample-temperature x" "--top-p 1.5" "--top-k -1" "--seed -2" \
    "--quiz-seed 0" "--quiz-seed x"; do
    # shellcheck disable=SC2086  # split "--train 0" into option and value
    "$app" $bad > /dev/null 2>&1; rc=$?
    if [ "$rc" -ne 2 ]; then echo "FAIL bad argument $bad: exit $rc, want 2"; failures=$((failures + 1)); else echo "ok   bad argument $bad exits 2"; fi
done
# A variant comparison row: an id of txcli compare-variants --list, with --train N and nothing else
# that sets the task.
for bad in "--train 5 --train-row nope" "--train-row copy-rope-relu-s1" "--train 5 --train-task sort --train-row copy-rope-relu-s1"; do
    # shellcheck disable=SC2086
    msg=$("$app" $bad 2>&1 > /dev/null); rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "--train-row" <<< "$msg"; then
        echo "FAIL bad argument $bad: exit $rc, message: $msg"; failures=$((failures + 1))
    else
        echo "ok   bad argument $bad exits 2: $msg"
    fi
done
# Values checked against the loaded model (a cell or head outside it): one line, exit 2.
for bad in "--neuron 99,0" "--head 9" "--generate 999"; do
    # shellcheck disable=SC2086
    msg=$(timeout 120 "${xvfb[@]}" "$app" $bad 2>&1 > /dev/null); rc=$?
    # xvfb-run itself exits 5 when it races the closing X server while removing its temporary
    # folder ("problem while cleaning up temporary directory"): that is not the app's answer; ask again.
    if [ "$rc" -eq 5 ] && grep -q "problem while cleaning up" <<< "$msg"; then
        # shellcheck disable=SC2086
        msg=$(timeout 120 "${xvfb[@]}" "$app" $bad 2>&1 > /dev/null); rc=$?
    fi
    if [ "$rc" -ne 2 ] || [ "$(wc -l <<< "$msg")" -ne 1 ]; then
        echo "FAIL model-checked argument $bad: exit $rc, message: $msg"; failures=$((failures + 1))
    else
        echo "ok   model-checked argument $bad exits 2: $msg"
    fi
done
# No display: a clear message, exit 1.
msg=$(env -u DISPLAY -u WAYLAND_DISPLAY "$app" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "cannot open a window" <<< "$msg"; then
    echo "FAIL no display: exit $rc, message: $msg"; failures=$((failures + 1))
else
    echo "ok   no display exits 1 with a message"
fi
# A generation benchmark file (--generation-bench): the Backend panel plots it; a missing or
# malformed file is reported by name and the app carries on (exit 0, screenshot written).
bench_json="$(cd "$(dirname "$0")/../.." && pwd)/docs/bench/generation-bench.json"
shot generation-bench 0.34,0.2,1,0.6:40 -- --layout backend --generation-bench "$bench_json"
if grep -q "error" "$out/generation-bench.log"; then
    echo "FAIL generation-bench: $(cat "$out/generation-bench.log")"; failures=$((failures + 1))
fi
printf '{"format": "transformer-explorer/generation-bench/1", "machine": "m", "model": "m", "settings": "s",
 "date": "d", "lengths": [32, 128], "series": [{"key": "cached", "name": "n", "median": [1], "min": [1], "max": [1]}]}' \
    > "$out/bad-bench.json"
for bad in "$out/no-such-bench.json:cannot open" "$out/bad-bench.json:has 1 values for 2 lengths"; do
    file=${bad%%:*}; want=${bad#*:}
    if run "generation-bench-bad-$(basename "$file" .json)" --screenshot "$out/bench-bad.png" --frames 3 \
        --generation-bench "$file"; then
        if ! grep -q "generation benchmark $file[:,] .*$want" "$out/generation-bench-bad-$(basename "$file" .json).log"; then
            echo "FAIL bad benchmark file $file: no message naming it ($want)"; failures=$((failures + 1))
        fi
    fi
done
# The app no longer has a self-test option: the self-test is a program of its own.
"$app" --self-test > "$out/no-self-test.log" 2>&1; rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "unknown argument '--self-test'" "$out/no-self-test.log"; then
    echo "FAIL --self-test is still an option of the app: $(cat "$out/no-self-test.log")"; failures=$((failures + 1))
else
    echo "ok   --self-test is refused as an unknown option"
fi
if [ -e "$out/config/transformer-explorer" ] && [ -n "$(ls -A "$out/config/transformer-explorer" 2>/dev/null)" ]; then
    echo "FAIL headless runs wrote settings"; failures=$((failures + 1))
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
