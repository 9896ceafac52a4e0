#!/bin/sh
# Same-machine reference for `cargo bench --bench sim`: times the pto-isa CPU simulator on the ops
# of the simulator issue (TADD / TMAX / TROWSUM on 64x64 f32) with bench.cpp (ours; it only
# includes pto-isa's headers). Not part of CI. Needs git, g++ >= 12 and network access.
#
#   [PTO_ISA_REPO=URL-or-path] benches/cpusim/run.sh [WORKDIR]   # default WORKDIR: a fresh temporary directory
#
# pto-isa is fetched at a pinned commit into WORKDIR (never into this repository). g++ 12
# rejects pto-isa's `static_assert(false, ...)` in include/pto/cpu/TReduceIdx.hpp (their CMake
# asks for GCC 14); the copy is patched to the equivalent dependent `sizeof(DType) == 0` form,
# which does not change the code these ops run.
#
# Flags: "Release" reproduces pto-isa tests/cpu/st/CMakeLists.txt (CMAKE_BUILD_TYPE=Release, the
# run_cpu.py default; its trailing -O2 wins over -O3); "native" adds -O3 -march=native.
set -eu
REPO=${PTO_ISA_REPO:-https://github.com/hw-native-sys/pto-isa}   # or a local clone/mirror
COMMIT=3186c381bd49e1164092e67ff1b3564302754e76
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
cd "$WORK"
if [ ! -d pto-isa ]; then
  git init -q pto-isa
  git -C pto-isa fetch -q --depth 1 "$REPO" "$COMMIT"
  git -C pto-isa checkout -q FETCH_HEAD
  sed -i 's/static_assert(false, "Unsupported element cmp.")/static_assert(sizeof(DType) == 0, "Unsupported element cmp.")/' \
    pto-isa/include/pto/cpu/TReduceIdx.hpp
fi
P=pto-isa
COMMON="-O3 -DNDEBUG -std=gnu++20 -fPIE -D__CPU_SIM -D_FORTIFY_SOURCE=2 -std=c++20 -Wno-ignored-attributes -fstack-protector-strong"
INC="-xc++ -include stdint.h -include stddef.h -std=c++20 -I$P/include -I$P/include/common -I$P/tests/common"
LINK="-pie -Wl,-z,relro -Wl,-z,now -pthread -lm -ldl"
g++ $COMMON -O2 $INC "$HERE/bench.cpp" -o bench_release $LINK
g++ $COMMON -O3 -march=native $INC "$HERE/bench.cpp" -o bench_native $LINK
echo "== pto-isa CPU simulator, Release flags"; ./bench_release 200
echo "== pto-isa CPU simulator, -O3 -march=native"; ./bench_native 200
