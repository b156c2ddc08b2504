#!/usr/bin/env bash
# On the GPU machine (device tool), issue 30: models other than ResNet18 through a sweep each, one
# database. Every model gets fp32 eager (the baseline), the eager knobs (tf32, cudnn-bench, bf16, and
# channels-last for image models), the same inside the whole-step CUDA graph, and the same compiled
# (torch.compile default), fresh start, `repeats` cold processes each, and the eager row once more in
# the native worker from the model's TorchScript export (issue 30.3: C++ against Python). With `timm` given, a timm model
# is also run by timm's own benchmark.py (put at .gpu-deps/timm_benchmark.py; not part of Stepscope)
# back to back with Stepscope's same configuration. Everything under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-models.sh a|b|c|lm|bench [steps] [repeats]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
group=$1
steps=${2:-30}
repeats=${3:-1}
db="$out/models-$group.sqlite"
case $group in
  a) models=("torchvision:resnet50 image 64" "torchvision:mobilenet_v3_large image 64" "timm:convnext_tiny image 64"
             "timm:vit_small_patch16_224 image 64" "hf:gpt2 tokens 8" "docs/examples/factories.py:transformer_lm tokens 16") ;;
  # What was left after two leases (docs/results/h200-models.md), in two 10-minute calls: the
  # cheap models first, the ones whose cudnn-bench autotuning takes a minute a process last.
  b) models=("torchvision:vit_b_16 image 32" "timm:resnet50 image 64" "hf:vit image 32") ;;
  c) models=("hf:bert tokens 16" "docs/examples/factories.py:segmenter custom 16" "timm:efficientnet_b0 image 64"
             "torchvision:efficientnet_b0 image 64") ;;
  # The language models and the factory LM of the first H200 lease.
  lm) models=("hf:gpt2 tokens 8" "docs/examples/factories.py:transformer_lm tokens 16") ;;
  bench) models=() ;; # timm's benchmark against Stepscope alone
  *) echo "group a, b, c, lm or bench"; exit 2 ;;
esac
timm_bench() {
  # Only in its own group: in the others it took the time the models' sweeps needed.
  [ "$group" = bench ] && [ -f .gpu-deps/timm_benchmark.py ] || return 0
  # timm's own train benchmark against Stepscope's same step: bf16 autocast, channels-last, TF32 and
  # cudnn.benchmark (benchmark.py sets both), SGD, batch 64, back to back.
  # --img-size: timm's resnet50 defaults to 288 px in its benchmark, Stepscope's shape is 224.
  bench_models=(resnet50 convnext_tiny)
  for model in "${bench_models[@]}"; do
    python3 .gpu-deps/timm_benchmark.py --bench train --model "$model" -b 64 --img-size 224 --precision amp_bfloat16 \
      --channels-last --num-warm-iter 20 --num-bench-iter 100 > "$out/timm-$model.txt" 2>&1
    grep -A12 -- "--result" "$out/timm-$model.txt" | tr -d '\n '; echo
    python3 -c "import json,sys; json.dump({'configs':[{'runtime':'python','device':'cuda','model':'timm:'+sys.argv[1],'batch':64,'steps':100,'tf32':True,'cudnn_benchmark':True,'autocast':'bf16','channels_last':True}], 'start':'again'}, open(sys.argv[2],'w'))" "$model" "$out/t.json"
    $cli --db "$out/timm-compare.sqlite" run --config "$out/t.json" --repeat 3 --no-profile --timeout 300 \
      > "$out/stepscope-$model.md" 2>> "$out/timm-compare.log"
    grep "^| timm\|^| tf32\|^| baseline" "$out/stepscope-$model.md" | head -3
  done
}
# The acceptance check first: what a call has time for after it is the sweeps.
timm_bench
for entry in ${models[@]+"${models[@]}"}; do
  read -r model kind batch <<< "$entry"
  python3 - "$out/sweep.json" "$model" "$kind" "$batch" "$steps" <<'PY'
import json, sys
path, model, kind, batch, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
shape = {"runtime": "python", "device": "cuda", "model": model, "batch": batch, "steps": steps}
if kind == "tokens" and model.startswith("hf:"):  # a factory says its own length
    shape["sequence_length"] = 512
eager = dict(shape, tf32=True, cudnn_benchmark=True, autocast="bf16", channels_last=kind == "image")
configs = [dict(shape), eager, dict(eager, cuda_graph=True), dict(eager, compile="default"),
           dict(eager, runtime="native")]
json.dump({"configs": configs, "start": "fresh"}, open(path, "w"))
PY
  start=$SECONDS
  $cli --db "$db" run --config "$out/sweep.json" --repeat "$repeats" --profile-steps 5 --timeout 300 \
    >> "$out/sweeps-$group.md" 2>> "$out/sweeps-$group.log"
  echo "$model: rc=$? in $((SECONDS - start)) s (at $SECONDS s)"
done
[ -f "$db" ] && for id in $(sqlite3 "$db" "SELECT id FROM sweeps ORDER BY id"); do
  $cli --db "$db" show --sweep "$id" >> "$out/show-$group.txt" 2>&1
done
[ -f "$out/sweeps-$group.md" ] && grep -E "^## Sweep|^\| |Recommendation" "$out/sweeps-$group.md" | grep -v "^|---" > "$out/summary-$group.txt"
echo "done at $SECONDS s"
