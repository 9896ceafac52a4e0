#!/usr/bin/env bash
# Builds the fuzz targets' seed corpus and dictionary (docs/fuzzing.md), all git-ignored:
#   tests/fuzz/corpus/{read,verify_lower,run}/  every .pto file of examples/, tests/ and the shared
#                                               samples (../shared/corpus/ptoas-samples, or $PTO_SAMPLES)
#   tests/fuzz/corpus/data/                     the repository's JSON tile files and small generated
#                                               .npy files (each dtype, 1-D and 2-D, header v1 and v2)
#   tests/fuzz/pto.dict                         tokens.dict plus op names and attributes from
#                                               `pto ops --json` ($PTO, else `cargo run`)
# Files are named by content hash, so running it again adds nothing twice and keeps what the
# fuzzer found. The regression inputs (tests/fuzz/regressions/<target>/) are seeds too.
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$fuzz/../.." && pwd)"
samples="${PTO_SAMPLES:-$root/../shared/corpus/ptoas-samples}"
corpus="$fuzz/corpus"

# add DIR FILE...: copies each file into corpus/DIR under the hash of its content.
add() {
  local dir="$corpus/$1"
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    cp "$f" "$dir/$(sha1sum "$f" | cut -c1-40)"
  done
}

mapfile -t programs < <(
  find "$root/examples" "$root/tests" -name '*.pto' -not -path "$fuzz/*"
  if [ -d "$samples" ]; then find "$samples" -name '*.pto'; else echo "seed.sh: no samples at $samples" >&2; fi
)
for target in read verify_lower run; do
  add "$target" "${programs[@]}"
  if [ -d "$fuzz/regressions/$target" ]; then
    find "$fuzz/regressions/$target" -type f -print0 | while IFS= read -r -d '' f; do add "$target" "$f"; done
  fi
done

mapfile -t tiles < <(find "$root/examples" "$root/tests" -name '*.json' -not -path "$fuzz/*" -not -path '*/snapshots/*')
add data "${tiles[@]}"
if [ -d "$fuzz/regressions/data" ]; then
  find "$fuzz/regressions/data" -type f -print0 | while IFS= read -r -d '' f; do add data "$f"; done
fi
npy="$(mktemp -d)"
trap 'rm -rf "$npy"' EXIT
python3 - "$npy" <<'PY'
import struct, sys
out = sys.argv[1]
kinds = {"<f2": "e", "<f4": "f", "<f8": "d", "|i1": "b", "<i2": "h", "<i4": "i", "<i8": "q",
         "|u1": "B", "<u2": "H", "<u4": "I", "<u8": "Q", "|b1": "B"}
for n, (descr, code) in enumerate(kinds.items()):
    for shape, version in [((6,), 1), ((2, 3), 1), ((3, 2), 2), ((1, 0), 1)]:
        dims = f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
        header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, dims)
        size = 1
        for d in shape:
            size *= d
        values = [(i * 7 + n) % 5 for i in range(size)]
        lead = 10 if version == 1 else 12
        header += " " * (-(lead + len(header) + 1) % 64) + "\n"
        length = struct.pack("<H" if version == 1 else "<I", len(header))
        body = struct.pack("<" + code * size, *values)
        name = f"{out}/{descr[1:]}_{'x'.join(map(str, shape))}_v{version}.npy"
        with open(name, "wb") as f:
            f.write(b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + body)
PY
add data "$npy"/*.npy

pto=(${PTO:-cargo run --quiet --locked --bin pto --})
{
  cat "$fuzz/tokens.dict"
  echo "# from pto ops --json"
  "${pto[@]}" ops --json | python3 -c '
import json, sys
tokens = set()
for op in json.load(sys.stdin):
    tokens.update([op["name"], op["mnemonic"], *op["aliases"]])
    tokens.update(a["name"] + " = " for a in op["attributes"])
    tokens.update("." + m["suffix"] for m in op["modes"])
for t in sorted(tokens):
    print(json.dumps(t))
'
} >"$fuzz/pto.dict"

for target in read verify_lower run data; do
  echo "seed.sh: corpus/$target: $(find "$corpus/$target" -type f | wc -l) files"
done
echo "seed.sh: pto.dict: $(grep -c '^"' "$fuzz/pto.dict") tokens"
