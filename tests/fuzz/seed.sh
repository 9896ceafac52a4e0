#!/usr/bin/env bash
# Builds the fuzz targets' seed corpus and dictionary (docs/fuzzing.md), all git-ignored:
#   tests/fuzz/corpus/{read,verify_lower,run}/  every .pto file of examples/, tests/ and the shared
#                                               samples (../shared/corpus/ptoas-samples, or $PTO_SAMPLES)
#   tests/fuzz/corpus/data/                     a dtype line, then a JSON tile file of examples/seeds/data
#                                               or tests/faults, or a small generated .npy file (each
#                                               dtype, 1-D and 2-D, header v1 and v2)
#   tests/fuzz/pto.dict                         tokens.dict plus op names and attributes from
#                                               `pto ops --json` ($PTO, else `cargo run`)
# Files are named by content hash, so running it again adds nothing twice and keeps what the
# fuzzer found. The regression inputs (tests/fuzz/regressions/<target>/) are seeds too.
# With --repo-only the shared samples are left out (CI's smoke run: some samples run for seconds
# under the fuzzer's instrumentation, longer than a smoke run has).
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$fuzz/../.." && pwd)"
samples="${PTO_SAMPLES:-$root/../shared/corpus/ptoas-samples}"
[ "${1:-}" = --repo-only ] && samples=""
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
  if [ -z "$samples" ]; then
    :
  elif [ -d "$samples" ]; then
    find "$samples" -name '*.pto'
  else
    echo "seed.sh: no samples at $samples" >&2
  fi
)
for target in read verify_lower run; do
  add "$target" "${programs[@]}"
  if [ -d "$fuzz/regressions/$target" ]; then
    find "$fuzz/regressions/$target" -type f -print0 | while IFS= read -r -d '' f; do add "$target" "$f"; done
  fi
done

# data: "DTYPE\n" then the file (the target reads the file for a tile of that type).
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
python3 - "$data" "$root/examples/seeds/data" "$root/tests/faults" <<'PY'
import json, os, struct, sys
out, dirs = sys.argv[1], sys.argv[2:]
def save(name, dtype, body):
    with open(os.path.join(out, name), "wb") as f:
        f.write(dtype.encode() + b"\n" + body)
# The repository's JSON tile files, with the dtype they name (f32 for a bare list).
for d in dirs:
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            body = open(os.path.join(d, name), "rb").read()
            try:
                dtype = json.loads(body).get("dtype", "f32")
            except (ValueError, AttributeError):
                dtype = "f32"
            save(name, dtype, body)
# .npy files of each dtype numpy writes, 1-D and 2-D, header versions 1 and 2.
kinds = {"<f2": ("f16", "e"), "<f4": ("f32", "f"), "<f8": ("f64", "d"), "|i1": ("i8", "b"), "<i2": ("i16", "h"),
         "<i4": ("i32", "i"), "<i8": ("i64", "q"), "|u1": ("ui8", "B"), "<u2": ("bf16", "H"), "<u4": ("ui32", "I"),
         "<u8": ("ui64", "Q"), "|b1": ("ui8", "B")}
for n, (descr, (dtype, code)) in enumerate(kinds.items()):
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
        body = b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + struct.pack("<" + code * size, *values)
        save(f"{descr[1:]}_{'x'.join(map(str, shape))}_v{version}.npy", dtype, body)
PY
add data "$data"/*
if [ -d "$fuzz/regressions/data" ]; then
  find "$fuzz/regressions/data" -type f -print0 | while IFS= read -r -d '' f; do add data "$f"; done
fi

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
