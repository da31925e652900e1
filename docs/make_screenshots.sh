#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the explorer screenshots in docs/screenshots/ from a built pe-explorer.
# Usage: docs/make_screenshots.sh [path/to/pe-explorer]   (default: build/release, then build/dev)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
exe="${1:-}"
if [[ -z "$exe" ]]; then
  for c in "$root/build/release/src/app/pe-explorer" "$root/build/dev/src/app/pe-explorer"; do
    [[ -x "$c" ]] && exe="$c" && break
  done
fi
[[ -x "$exe" ]] || { echo "pe-explorer not found; build it first" >&2; exit 2; }
out="$here/screenshots"
mkdir -p "$out"
shoot() { # file, then pe-explorer options
  local file="$1"; shift
  xvfb-run -a -s '-screen 0 1600x1000x24' "$exe" "$@" --screenshot "$out/$file"
  echo "wrote $out/$file"
}
run() { shoot "$3" --scheme "$1" --tab "$2"; } # scheme tab file
# tabs: 0 encoding, 1 relative, 2 logit terms, 3 attention
run sinusoidal 0 sinusoidal-encoding.png
run sinusoidal 3 sinusoidal-attention.png
run learned 0 learned-encoding.png
run mlp 0 mlp-encoding.png
run shaw 0 shaw-encoding.png
run t5 0 t5-encoding.png
run rope 0 rope-encoding.png
run alibi 0 alibi-encoding.png
run deberta 0 deberta-encoding.png
run shaw 1 shaw-relative.png
run txl 2 txl-terms.png
run t5 1 t5-relative.png
run deberta 2 deberta-terms.png
run sinusoidal 2 sinusoidal-terms.png
run rope 3 rope-attention.png
run alibi 1 alibi-relative.png
run urpe 3 urpe-attention.png
run sinusoidal 4 compare-sinusoidal-rope.png
# the whole window on a small and a large screen (README: "fits a 1280 × 720 screen")
xvfb-run -a -s '-screen 0 1920x1080x24' "$exe" --tab 3 --size 1280x720 \
  --screenshot "$out/window-1280x720.png" && echo "wrote $out/window-1280x720.png"
xvfb-run -a -s '-screen 0 1920x1080x24' "$exe" --tab 3 --size 1280x720 --language zh_CN \
  --screenshot "$out/window-1280x720-zh_CN.png" && echo "wrote $out/window-1280x720-zh_CN.png"
xvfb-run -a -s '-screen 0 1920x1080x24' "$exe" --tab 0 --size 1920x1080 \
  --screenshot "$out/window-1920x1080.png" && echo "wrote $out/window-1920x1080.png"
# a short sentence with [CLS]/[SEP] and a causal mask: token labels on the axes
shoot shaw-tokens-attention.png --open "$here/sessions/shaw-tokens.json" --tab 3
# pooled mode (n = 16,384): the Relative tab's maps pooled from T5's tables by distance
shoot t5-relative-pooled.png --open "$here/sessions/t5-long.json" --tab 1
# the stepper: a sentence with [CLS], padding and a causal mask, at the logits stage
shoot stepper.png --open "$here/sessions/stepper-shaw.json" --tab 5 --stage 6
# identity projections on n identical tokens: the attention is the pure position effect (alibi)
shoot alibi-identity-attention.png --open "$here/sessions/alibi-identity.json" --tab 3
# the Insights tab, one page each (cost with this machine's measured attention time)
shoot insights-binary.png --scheme sinusoidal --insight binary
shoot insights-offset.png --scheme sinusoidal --insight offset
shoot insights-cost.png --scheme sinusoidal --insight cost --measure
shoot insights-distance.png --scheme alibi --insight distance
shoot insights-depth.png --scheme sinusoidal --insight depth

# Single figures need no window: pe-explorer-cli render draws them headlessly (next to the app).
cli="$(dirname "$exe")/../cli/pe-explorer-cli"
if [[ -x "$cli" ]]; then
  figure() { # file, then render options
    local file="$1"; shift
    "$cli" render "$@" --dpi 96 -o "$out/$file"
    echo "wrote $out/$file"
  }
  figure render-shaw-attention-head.png --session "$here/sessions/shaw-tokens.json" \
    --view attention-head:1
  figure render-sinusoidal-columns.png --scheme sinusoidal --n 60 --d 32 --view position-lines # d2l
  # Compare with a gallery: six schemes' attention on one sentence, A − B for sinusoidal − RoPE
  figure render-compare-gallery.png --scheme sinusoidal --n 20 --d 64 --mask causal \
    --text "The quick brown fox jumps over the lazy dog while the cat sleeps." \
    --view compare --compare-scheme rope,t5,alibi,shaw,urpe,deberta --size 1500x1250
  # The position term of the logits in seven schemes on one sentence, square cells
  figure render-compare-position.png --scheme sinusoidal --n 14 --d 64 \
    --text "The quick brown fox jumps over the lazy dog while the cat sleeps." \
    --view compare --compare-scheme rope,t5,shaw,txl,deberta,none --compare-tensor position \
    --square-cells --size 1400x1160
else
  echo "pe-explorer-cli not found next to $exe: figures skipped" >&2
fi

# The learning lab: train two small shift-3 models with the CLI, then show them in the window.
if [[ -x "$cli" ]] && "$cli" train --help >/dev/null 2>&1; then
  lab="$(mktemp -d)"
  trap 'rm -rf "$lab"' EXIT
  for s in t5 rope; do
    "$cli" train --task shift-3 --scheme "$s" --layers 2 --train-len 32 --steps 1000 \
      --until 0.995 --quiet --out "$lab/$s"
  done
  shoot lab-t5.png --lab-model "$lab/t5/model.safetensors" --tab 6
  shoot lab-rope-attention.png --lab-model "$lab/rope/model.safetensors" --lab-layer 2 --tab 3
fi
