#!/usr/bin/env bash
# App tests under a virtual X server (xvfb-run): a screenshot of the default layout, of every
# panel, of a batch stepped to the middle; then --self-test (every panel, step and toggle, 20
# training steps). Each screenshot is checked by tx-png-check: not blank, panels show content.
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
for p in input steps attention masks positional shapes model backend training; do
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
# Attention as lines, on a padded batch (the second row's PAD positions get no label arrow).
shot attention-lines 0.55,0.2,1,0.6:20 -- --attention-lines --layout attention --sentence "I see the dog." \
    --sentence "The small white dogs will not sleep in the old house." --step decoder.layers.2.cross_attn.probs
shot translate-beam 0,0.03,0.33,0.5:20 0.34,0.1,1,0.9:40 -- --beam 4 --step decoder.layers.2.cross_attn.probs --layout attention
# Training from launch (tiny copy task), paused after 200 steps: the plots and probe heatmap are drawn.
shot training-live 0.34,0.15,1,0.6:40 -- --train 200 --layout training
# Translation training from fresh weights, paused after 100 steps (the corpus is read and its
# subword pieces learnt first): the losses, samples and the probe sentence's cross-attention are drawn.
shot training-translate 0.34,0.15,1,0.6:40 -- --train 100 --train-task translate --layout training
# An unseen word in the input: pieces grouped under their words, the word flagged.
shot input-help 0,0.2,0.33,0.45:20 -- --sentence "The red zorblax is big." --layout attention
# Bad arguments: one-line reason, exit 2.
for bad in --no-such-option "--train 0" "--frames x" "--train 5 --train-task nope" "--train-task translate" \
    "--train 5 --train-from default"; do
    # shellcheck disable=SC2086  # split "--train 0" into option and value
    "$app" $bad > /dev/null 2>&1; rc=$?
    if [ "$rc" -ne 2 ]; then echo "FAIL bad argument $bad: exit $rc, want 2"; failures=$((failures + 1)); else echo "ok   bad argument $bad exits 2"; fi
done
# No display: a clear message, exit 1.
msg=$(env -u DISPLAY -u WAYLAND_DISPLAY "$app" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "cannot open a window" <<< "$msg"; then
    echo "FAIL no display: exit $rc, message: $msg"; failures=$((failures + 1))
else
    echo "ok   no display exits 1 with a message"
fi
# The self-test drives every panel, step and toggle and trains 20 steps.
if run self-test --self-test --screenshot "$out/self-test.png"; then
    "$check" "$out/self-test.png" > "$out/self-test.check" 2>&1 || { echo "FAIL self-test screenshot"; failures=$((failures + 1)); }
fi
if [ -e "$out/config/transformer-explorer" ] && [ -n "$(ls -A "$out/config/transformer-explorer" 2>/dev/null)" ]; then
    echo "FAIL headless runs wrote settings"; failures=$((failures + 1))
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
