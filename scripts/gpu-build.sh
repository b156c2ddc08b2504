# Sourced by the gpu-*.sh scripts on the GPU machine: builds the headless Release engine, CLI and
# Python worker into build-gpu (once configured, later calls only rebuild), logs under $out, and
# sets $out and $cli.
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
if [ ! -x build-gpu/bin/stepscope-cli ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_BUILD_GUI=OFF -DSTEPSCOPE_BUILD_TESTS=OFF \
    $STEPSCOPE_GPU_CMAKE_ARGS -DSTEPSCOPE_PYTHON="$(command -v python3)" > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
fi
cmake --build build-gpu -j 16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "built at $SECONDS s"
cli=./build-gpu/bin/stepscope-cli
