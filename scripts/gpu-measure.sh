#!/usr/bin/env bash
# On the GPU machine (device tool): build the headless engine + CLI, run the ledger at the given
# batch sizes, and the plain-PyTorch reference, writing everything under $OUT (or ./gpu-out).
#   source .gpu-deps/env.sh && scripts/gpu-measure.sh "32 128" 3
set -uo pipefail
batches=${1:-"32 128"}
repeats=${2:-3}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/nvidia-smi.csv" 2>&1
python3 -c 'import torch,sys;print("torch",torch.__version__,"cuda",torch.version.cuda,"cudnn",torch.backends.cudnn.version(),"python",sys.version.split()[0])' > "$out/versions.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_BUILD_GUI=OFF -DSTEPSCOPE_BUILD_TESTS=OFF \
  $STEPSCOPE_GPU_CMAKE_ARGS -DSTEPSCOPE_PYTHON="$(command -v python3)" > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j 16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "built in $SECONDS s"
db="$out/h200.sqlite"
for b in $batches; do
  ./build-gpu/bin/stepscope-cli --db "$db" run --device cuda --batch "$b" --image-size 224 --repeat "$repeats" \
    --name "H200 ledger b$b" 2> "$out/run-b$b.log" > "$out/ledger-b$b.md"
  echo "ledger b$b rc=$? at $SECONDS s"; cat "$out/ledger-b$b.md"
done
for b in $batches; do
  for k in "" tf32,cudnn tf32,cudnn,bf16 tf32,cudnn,bf16,cl tf32,cudnn,bf16,cl,graph; do
    python3 bench/pytorch_reference.py --batch "$b" --knobs "$k" 2>>"$out/reference.err" | tee -a "$out/reference.jsonl"
  done
done
echo "done at $SECONDS s"
