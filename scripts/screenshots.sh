#!/usr/bin/env bash
# Remakes the screenshots in docs/screenshots/ with the app's own --screenshot option,
# under a virtual X server, from an existing build (bash scripts/run.sh builds one).
#   usage: scripts/screenshots.sh [BUILD_DIR]
# ONLY=REGEX remakes only the pictures whose file name matches (ONLY='^(explorer|lesson-logit)').
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
app="${1:-$root/build}/app/transformer-explorer"
out="$root/docs/screenshots"
export XDG_CONFIG_HOME="$(mktemp -d)"   # the user's saved layout must not change the pictures
shot() {   # file, then app arguments
    local file=$1; shift
    if [[ -n "${ONLY:-}" && ! "$file" =~ $ONLY ]]; then return 0; fi
    xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --size 1600x1000 --screenshot "$out/$file" "$@"
}
# The opening view: the everyday model. Most pictures below are of the small-grammar model, which the
# text of docs/explorer.md describes ("the row ▁perros writes ▁blancos").
grammar=(--checkpoint "$root/assets/models/grammar.safetensors")
shot explorer.png
# The "it" pair on the everyday model's cross-attention head that best follows the referent (docs/models.md).
shot everyday-it-tired.png --layout attention --sentence "The animal didn't cross the street because it was too tired." \
    --step decoder.layers.3.cross_attn.probs --head 7
shot everyday-it-wide.png --layout attention --sentence "The animal didn't cross the street because it was too wide." \
    --step decoder.layers.3.cross_attn.probs --head 7
shot step-through.png "${grammar[@]}" --layout steps --sentence "The small white dogs will not sleep in the old house." \
    --sentence "I see the dog." --step decoder.layers.2.cross_attn.probs
shot attention.png "${grammar[@]}" --layout attention --step decoder.layers.2.cross_attn.probs
shot alignment-lines.png "${grammar[@]}" --layout attention --attention-lines --step decoder.layers.2.cross_attn.probs
shot beam.png "${grammar[@]}" --layout attention --beam 4 --sentence "Will your bird sing behind the castle?" \
    --step decoder.layers.2.cross_attn.probs
shot masks.png "${grammar[@]}" --layout masks --sentence "I see the dog." --sentence "The small white dogs will not sleep in the old house."
shot positional.png "${grammar[@]}" --layout positional
shot copy-model.png --layout attention --checkpoint "$root/assets/models/copy.safetensors" \
    --sentence "Seven quiet foxes jumped over two lazy dogs." --step decoder.layers.1.cross_attn.probs
shot training.png --train 1000 --panel training
shot decoding.png "${grammar[@]}" --layout decoding --beam 4 --sentence "I was not happy."
shot decoding-speculative.png --layout decoding --speculative 4 --frames 20 \
     --sentence "My little brother never eats his vegetables at dinner."
shot lessons.png --lesson 11,1
shot lesson-heads-off.png --lesson 7,4
shot lesson-temperature.png --lesson 15,3
shot lesson-logit-lens.png --lesson 18,3
shot lesson-precision.png --lesson 19,1
shot lesson-variants.png --lesson 20,2
shot lesson-patching.png --lesson 21,2
shot lesson-chat-models.png --lesson 22,2
shot lesson-attention-length.png --lesson 23,2 --frames 90
shot neuron.png "${grammar[@]}" --layout neuron --sentence "The red car is big." --step decoder.layers.2.cross_attn.context \
    --neuron 2,1 --head 0
shot training-translate.png --train 1500 --train-task translate --panel training
shot input-help.png "${grammar[@]}" --panel input --sentence "The red zorblax is big." --sentence "Will the lawyers sleep in the old house?"
shot generate.png "${grammar[@]}" --layout generate --sentence "My brother reads a long book every night." --generate 6 \
    --sample-temperature 1.2 --top-k 10 --top-p 0.95 --seed 3
# The Positional panel for two other position schemes, on fresh models written here: RoPE's
# relative-position property and ALiBi's bias hold for any weights, so untrained models show them as well.
variants="$(mktemp -d)"
"${1:-$root/build}/app/txcli" init --out "$variants/rope.safetensors" --positional rope --d-model 128 --heads 4 >/dev/null
"${1:-$root/build}/app/txcli" init --out "$variants/alibi.safetensors" --positional alibi --heads 4 >/dev/null
shot positional-rope.png --layout positional --checkpoint "$variants/rope.safetensors" --sentence "the cat sat on the mat"
shot positional-alibi.png --layout positional --checkpoint "$variants/alibi.safetensors" --sentence "the cat sat on the mat"
# Grouped-query attention: 4 query heads sharing 1 key/value head, and the KV cache it shrinks.
"${1:-$root/build}/app/txcli" init --out "$variants/mqa.safetensors" --arch decoder-only --positional rope --ffn swiglu \
    --norm-kind rmsnorm --norm pre --heads 4 --kv-heads 1 >/dev/null
shot variants-gqa.png --layout generate --checkpoint "$variants/mqa.safetensors" --sentence "the cat sat on the" --generate 4
# A low-rank FFN: the step that squeezes each position to r = 16 numbers, between the wide ones.
"${1:-$root/build}/app/txcli" init --out "$variants/low-rank.safetensors" --d-model 128 --heads 4 --ffn-rank 16 >/dev/null
shot variants-low-rank.png --layout steps --checkpoint "$variants/low-rank.safetensors" --sentence "the cat sat on the mat" \
    --step encoder.layers.0.ffn.rank1
# A dilated window with a global position (Longformer): the Masks panel's encoder and decoder maps.
"${1:-$root/build}/app/txcli" init --out "$variants/window.safetensors" --d-model 128 --heads 4 --window 4 \
    --window-dilation 2 --global-positions 0 --max-len 12 >/dev/null
shot variants-window.png --panel masks --checkpoint "$variants/window.safetensors" \
    --sentence "the old man sat by the fire with his dog"
# T5's relative bias, trained for 600 steps on the copy task: the encoder's table and each head's bias.
"${1:-$root/build}/app/txcli" train --task copy --positional relative --steps 600 --threads 1 --quiet \
    --save "$variants/relative.safetensors" >/dev/null
shot variants-relative.png --panel positional --checkpoint "$variants/relative.safetensors" --sentence "3 1 4 1 5 9 2 6"
rm -rf "$variants"
# A decoder-only model: the typed sentences are prompts it continues. The shipped language model
# where there is one; else fresh weights from txcli init (LLaMA-like variants).
lm="$root/assets/models/lm.safetensors"
if [ ! -f "$lm" ]; then
    lm="$(mktemp -d)/decoder-only.safetensors"
    "${1:-$root/build}/app/txcli" init --arch decoder-only --positional rope --ffn swiglu --norm-kind rmsnorm --norm pre \
        --out "$lm" > /dev/null
fi
shot decoder-only.png --layout attention --checkpoint "$lm" --sentence "My brother reads a long" --sentence "Will the dogs"
# One thread, as the decoding benchmark of docs/speed.md: a second one shared with other programs mostly adds noise.
OMP_NUM_THREADS=1 shot backend-cache.png "${grammar[@]}" --layout backend --cache-timing --sentence "My brother reads a long book every night."
shot training-induction.png --train 800 --train-task induction --panel training
shot training-compare.png --train 2000 --train-row copy-sinusoidal-relu-kv1-s1 --panel training
# The Look inside panel (docs/look-inside.md) on the everyday model, named by its path, with the
# pronoun pair: "it" is the tired animal or the wide street (estaba cansado / era ancha).
everyday="$root/assets/models/everyday.safetensors"
tired="The animal didn't cross the street because it was too tired."
wide="The animal didn't cross the street because it was too wide."
for view in lens patch heads rollout entropy attribution; do
    shot "look-inside-$view.png" --panel inspect --checkpoint "$everyday" --sentence "$tired" --corrupt "$wide" --look-inside "$view"
done
# The Precision panel (docs/precision.md) on the everyday model's default sentence: BF16 autocast, and
# FP16 "everything low" with the embeddings x100, where the first overflow shows.
shot precision-bf16.png --panel precision --checkpoint "$everyday" --sentence "$tired" --precision bf16
shot precision-fp16-all-low.png --panel precision --checkpoint "$everyday" --sentence "$tired" --precision fp16 --all-low \
    --embedding-scale 100
# The generation benchmark's figures (bench/run_generate_bench.sh's JSON) in the Backend panel.
(cd "$root" && shot generation-bench.png --layout backend --generation-bench docs/bench/generation-bench.json)
