#!/usr/bin/env python3
"""Writes tests/data/isa-doc-checks.tsv: every "Implementation checks (A2A3)" / "(A5)" bullet of
pto-isa's docs/isa/*.md (English pages) as one row, with how tests/isa_doc_checks.rs tests it.

Reads the pages' text only (nothing is built): from a pto-isa checkout or a bare mirror
(`git show HEAD:docs/isa/X.md`). Usage:

    python3 tests/data/isa_doc_checks.py /work/.mirror/hw-native-sys+pto-isa/repo > tests/data/isa-doc-checks.tsv

Columns: doc, target, op, bullet (the page's text), encoding, diagnostic.

encoding is one of
  dtype SLOTS TYPES      the element types SLOTS (`all`: every tile operand) may have; TYPES in pto names,
                         then `; ptoas-rejects T: why` (listed types pto rejects on ptoas's side) and
                         `; ptoas-accepts T: why` (unlisted types pto accepts on ptoas's side)
  dtype-class CLASS      integral: every integer type, no float
  same-dtype             the tile operands share one element type
  row-major              the tiles must be row-major
  vec                    the tiles must live in vec (UB)
  valid-bounds           valid rows/cols within the capacity
  valid-eq DIMS          src valid shape equals dst's (DIMS: rows,cols or cols)
  distinct               src and dst may not be the same tile (manual mode)
  int32-cmp-eq           A2A3: 32-bit integer compares implement EQ only
  dtype-size SIZES       the element size in bytes is one of SIZES
  tmp-dtype T            an explicit scratch tile has element type T
  index-dtype TYPES      the index tile's element types (with data of the matching size)
  index-size D I         data of D bytes takes indices of I bytes only
  loc LOCS               the source tile may live in each of LOCS (vec, mat, acc), not elsewhere
  dtype-width N TYPES    the N-byte element types the op takes are TYPES
  cols-align             rows of Cols * size bytes must be 32-byte aligned
  even-cols              valid columns must be even
  fp-loc                 a fixpipe op's `fp` tile lives in `scaling`
  mm-triple C A B        a matmul (acc, left, right) element-type triple
  mm-float TYPES         an f32 accumulator's operand types
  mm-acc-dtype TYPES     the accumulator's element types
  mm-shape               left cols = right rows, left rows = acc rows, right cols = acc cols
  mm-loc                 left/right/acc operands live in left/right/acc
  gm-layout-b64          an 8-byte tile is copied ND2ND or DN2DN only (NZ2NZ: the warning naming both references)
  mm-mkn                 m/k/n in [1, 4095]: k = 4096 (the one L0A/L0B can hold) and m = 0 are rejected
  gm-size                the tile's and the GM view's element types have the same size
  acc-dtype TYPES        an acc source tile has one of TYPES
  positive-valid         static valid extents of a load/store are at least 1
  gm-layout LOC          a LOC (vec, mat, acc) tile and a GM view of a stated layout form an allowed pair
                         (pto keeps ptoas's side: a pair pto-isa lacks is accepted with the warning)
  max-rows LOC N         an ND LOC tile of a load has at most N rows
  pad-null-zero          an 8-byte tile's pad value is null or zero
  view-shape             the GM view's shape (leading dims folded into rows) is the tile's valid shape
  acc-gm-dtype           an acc source's non-quantizing GM types are i32/f32/f16/bf16
  acc-store-shape        an acc source has at most 4095 columns (capacity and valid)
  mx-fp8                 MX operand pairs: e4m3/e5m2 silently, hif8 with the references' warning
  mx-c-scale             MX accumulator f32 and e8m0 scales
  rounds VALUES          the `rounds` attribute takes VALUES only
  fp-src-acc             a fixpipe move's source is an accumulator
  tmp-rows               a given scratch tile has one row more than dst (checked by `pto lower`)
  tmp-cols               a given TREM scratch row has Cols + 2*ceil(Cols/64) elements (`pto lower`)
  half-cols              single-source TDEINTERLEAVE: dst0/dst1 keep src's valid rows, hold half its valid
                         columns (so src's are even); `; why` reconciles the page's two bullets
  mat-blocks             a mat TEXPANDS tile spans 1 to 32767 32-byte blocks (below one block: rejected)
  gm-convert             an ND->NZ / DN->ZN TLOAD needs a 2-D view (leading dims static 1) and fractal 512
  not-encoded: WHY       a statement about something no static rule can see, or no rule at all
  not-yet: WHY           a rule not turned into a test yet
diagnostic: the class a program breaking the bullet must get (empty for not-encoded rows); `warn:CLASS`:
the program is accepted with that warning (pto keeps a reference's side that accepts it).
"""

import re
import subprocess
import sys

CPP = {
    "int32_t": "i32", "int": "i32", "uint32_t": "u32", "unsigned int": "u32", "int16_t": "i16",
    "uint16_t": "u16", "int8_t": "i8", "uint8_t": "u8", "int64_t": "i64", "uint64_t": "u64",
    "half": "f16", "float16_t": "f16", "float": "f32", "float32_t": "f32", "bfloat16_t": "bf16",
}
INTEGRAL = ["i8", "u8", "i16", "u16", "i32", "u32"]

# The op shape tests/isa_doc_checks.rs builds programs for; pages of other ops are `not-yet`.
SHAPES = {
    "binary": "tadd tsub tmul tdiv tmax tmin tand tor txor tshl tshr trem tprelu",
    "unary": "tabs texp tlog tneg tnot trecip trelu trsqrt tsqrt ttrans",
    "scalar": "tadds tsubs tmuls tdivs tmaxs tmins tands tors txors tshls tshrs tfmods tlrelu",
    "scalar-sc": "taddsc tsubsc",
    "cmps": "tcmps",
    "cmp": "tcmp",
    "sel": "tsel",
    "sels": "tsels",
    "scatter": "tscatter",
    "expands": "texpands",
    "interleave": "tinterleave tdeinterleave",
    "tri": "ttri",
    "gatherb": "tgatherb",
    "movfp": "tmov.fp",
    "storefp": "tstore.fp",
    "random": "trandom",
    "store": "tstore",
    "load": "tload",
    "matmul": "tmatmul tgemv tgemv.acc tgemv.bias",
    "matmul-mx": "tmatmul.mx",
}
SHAPE_OF = {op: shape for shape, ops in SHAPES.items() for op in ops.split()}


# Element types a page lists that pto rejects because `ptoas`'s verifier does (the issue-27 rule
# where the references disagree: keep today's choice), and types a page leaves out that pto
# accepts because `ptoas` accepts them: (doc, target) -> (verdict, types, why).
PTOAS_SIDE = {
    ("TAND.md", "A2A3"): ("ptoas-rejects", "i32,u32", "ptoas's A2A3 verifier takes i8/i16 only (lib/PTO/IR/PTO.cpp:2888); npu/a2a3/TAnd.hpp implements 4-byte types"),
    ("TOR.md", "A2A3"): ("ptoas-rejects", "i32,u32", "ptoas's A2A3 verifier takes i8/i16 only; npu/a2a3/TOr.hpp implements 4-byte types"),
    ("TXOR.md", "A2A3"): ("ptoas-rejects", "i32,u32", "ptoas's A2A3 verifier takes i8/i16 only; npu/a2a3/TXor.hpp implements 4-byte types"),
    ("TXORS.md", "A2A3"): ("ptoas-rejects", "i32,u32", "ptoas: 'expects A2/A3 txors src, scalar, and dst element type to be i8/i16'"),
    ("TNOT.md", "A2A3"): ("ptoas-rejects", "i8,u8,i32,u32", "ptoas: 'expects A2/A3 tnot element type to be i16' (lib/PTO/IR/PTO.cpp:6252)"),
    ("TDIV.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas's A5 tdiv takes i32/i16/f16/f32 (8-byte integers rejected)"),
    ("TMUL.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas's A5 tmul takes i32/i16/f16/f32 (8-byte integers rejected)"),
    ("TMAX.md", "A5"): ("ptoas-rejects", "i64,u64,bf16", "ptoas's A5 tmax takes i32/i16/i8/f16/f32"),
    ("TMIN.md", "A5"): ("ptoas-rejects", "i64,u64,bf16", "ptoas's A5 tmin takes i32/i16/i8/f16/f32"),
    ("TSUB.md", "A5"): ("ptoas-rejects", "i64,u64,bf16", "ptoas's A5 tsub takes i32/i16/i8/f16/f32"),
    ("TDIVS.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects A5 tdivs element type to be i32/i16/i8/f16/f32'"),
    ("TMULS.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects A5 tmuls element type to be i32/i16/i8/f16/bf16/f32'"),
    ("TSUBS.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects A5 tsubs element type to be i32/i16/i8/f16/bf16/f32'"),
    ("TSEL.md", "A2A3"): ("ptoas-rejects", "bf16", "ptoas: 'expects A2/A3 tsel src0, src1, and dst element type to be i16/i32/f16/f32' (lib/PTO/IR/PTO.cpp:8280)"),
    ("TSELS.md", "A2A3"): ("ptoas-rejects", "u16,u32,bf16", "ptoas: 'expects A2/A3 tsels src and dst element type to be i16, i32, f16, or f32' (lib/PTO/IR/PTO.cpp:8343)"),
    ("TSCATTER.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects src/dst element type to be i8/i16/i32/f16/bf16/f32' (lib/PTO/IR/PTO.cpp:8217); npu/a5/TScatter.hpp:86-97 implements 8-byte data with 4-byte indices"),
    ("TTRI.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects A5 dst element type to be f16/f32/bf16/i8/i16/i32/u8/u16/u32' (lib/PTO/IR/PTO.cpp:3114); npu/a5/TTri.hpp:99-104 implements 64-bit types"),
    ("TREM.md", "A5"): ("ptoas-rejects", "i64,u64", "ptoas: 'expects A5 trem element type to be i32/i16/f16/f32' (lib/PTO/IR/PTO.cpp:6959); npu/a5/TRem.hpp:107-111 implements 8-byte and unsigned types"),
}
# Types a page leaves out that pto accepts because `ptoas` accepts them (with the warning).
PTOAS_ACCEPTS = {
    ("TMULS.md", "A5"): ("i8,u8", "ptoas's A5 tmuls accepts i8 (PTO.cpp:6113), npu/a5/TMulS.hpp:57-60 static_asserts it out: a LEGAL_REFERENCES_DISAGREE warning"),
    ("TFMODS.md", "A2A3"): ("f16,i32,i16", "ptoas's A2A3 tfmods accepts i32/i16/f16 (PTO.cpp:7076), npu/a2a3/TFmodS.hpp:74 static_asserts f32: a LEGAL_REFERENCES_DISAGREE warning"),
}

# Bullets where the references disagree and pto takes the other side: (doc, target, bullet start) -> why.
DISAGREE = {
    ("TTRANS.md", "A5", "Source layout must be row-major"): (
        "not-encoded: the references disagree: TTRANS.md's A5 bullet asks a row-major source, but npu/a5/TTrans.hpp "
        "asserts no layout (only element sizes and index ranges, lines 303-337) and ptoas's A5 verifier accepts any "
        "(lib/PTO/IR/PTO.cpp:8746-8784); pto follows the implementation and ptoas and accepts a col-major source on A5"),
}

# Element-type rows where the references disagree and pto takes ptoas's side (no type restriction).
SC_SIDE = {
    ("TADDSC.md", "A5"): ("taddsc", "lib/PTO/IR/PTO.cpp:2833-2875 (same element type, row-major)"),
    ("TSUBSC.md", "A5"): ("tsubsc", "lib/PTO/IR/PTO.cpp:8700-8713 (rank only)"),
}


def pages(repo):
    names = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", "HEAD", "docs/isa/"],
                           capture_output=True, text=True, check=True).stdout.split()
    for name in sorted(n for n in names if n.endswith(".md") and not n.endswith("_zh.md")):
        text = subprocess.run(["git", "-C", repo, "show", f"HEAD:{name}"], capture_output=True, text=True,
                              check=True).stdout
        yield name.split("/")[-1], text


def bullets(text):
    """(target, bullet) for every nested bullet under an Implementation checks heading."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)- \*\*Implementation checks \((A2A3|A5)\)\*\*", lines[i])
        if not m:
            i += 1
            continue
        indent, target = len(m.group(1)), m.group(2)
        i += 1
        while i < len(lines):
            line = lines[i]
            b = re.match(r"^(\s*)- (.*)$", line)
            if b and len(b.group(1)) > indent:
                yield target, b.group(2).strip()
            elif line.strip() and not (len(line) - len(line.lstrip()) > indent + 2):
                break
            i += 1


def types_in(text):
    found = []
    for t in re.findall(r"`([^`]+)`", text):
        if t in CPP and CPP[t] not in found:
            found.append(CPP[t])
    return found


# pto's GM layouts are PTOAS's `nd`/`dn`/`nz` (PTOAttrs.td:176-184, pto-ir/src/attr.rs:73): no MX layout.
NO_MX = ("not-encoded: pto does not have the op form: a TLOAD from an MX GM layout (MX_A_ZZ/MX_A_ND/MX_A_DN/MX_B_NN/"
         "MX_B_ND/MX_B_DN, npu/a5/TLoad.hpp:130-182) cannot be written: the GM layouts a program can state are PTOAS's "
         "nd/dn/nz (include/PTO/IR/PTOAttrs.td:176-184; pto-ir/src/attr.rs:73), as in pto")


def tload(b):
    """(encoding, diagnostic) of a TLOAD bullet the generic rules do not cover, or None."""
    warn = "warn:LEGAL_REFERENCES_DISAGREE"
    if b.startswith("Runtime: all `src.GetShape(dim)` values"):
        return "positive-valid", "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("`TileType::Vec` loads only support matching layouts") or re.match(r"^(ND|DN|NZ) with ", b):
        return "gm-layout vec", warn
    if b.startswith("`TileType::Mat` loads support:") or b.startswith("`TileType::Mat` loads are additionally constrained by `TLoadCubeCheck`"):
        return "gm-layout mat", warn
    if b == "`TileType::Vec` loads require one of the following layout pairs:":
        return "not-encoded: a heading: the three layout pairs below it are rows of their own; it states no rule", ""
    if b.startswith("Vec tile (UB path): `1 <= TileData::Rows <= 4095`"):
        return "max-rows vec 4095", "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("Mat tile (L1 path): `1 <= TileData::Rows <= 16384`"):
        return ("not-encoded: no program can break it: A2A3 asserts the row bound only on the ND2NZ path "
                "(common/arch/memory/tload_common.hpp:267), whose NZ tile has rows of 32 bytes at least (16-row "
                "fractals of 512 B), so a tile of more than 16384 rows is more than the 512 KiB of L1 "
                "(pto-lower/src/target.rs:95)"), ""
    if b.startswith("For `int64_t/uint64_t`, `TileData::PadVal` must be"):
        return "pad-null-zero", "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("For `int64_t/uint64_t`, only ND->ND or DN->DN are supported"):
        return "gm-layout-b64", "warn:LEGAL_REFERENCES_DISAGREE"
    if b.startswith("For ND->NZ or DN->ZN: `GlobalData::staticShape[0..2] == 1`"):
        return ("gm-convert; common/arch/memory/tload_common.hpp:259-262, 281-284 static_assert it, ptoas accepts any "
                "view and fractal (lib/PTO/IR/PTO.cpp:1394-1458) and emits C++ that does not compile: pto rejects"), \
            "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("For row-major ND->ND with compile-time-known shapes"):
        return "view-shape", "LEGAL_UNSUPPORTED_TUPLE"
    if "mx format" in b or re.match(r"^for (`MX_|scaleA|scaleB)", b):
        return NO_MX, ""
    return None


def tstore(b):
    """(encoding, diagnostic) of a TSTORE bullet the generic rules do not cover, or None."""
    warn = "warn:LEGAL_REFERENCES_DISAGREE"
    if b.startswith("Runtime: all `dst.GetShape(dim)` values"):
        return "positive-valid", "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("Layouts must match ND/DN/NZ"):
        return "gm-layout vec", warn
    if b.startswith("Supported layout conversions: NZ2ND") or b.startswith("Destination layout must be ND, NZ"):
        return "gm-layout acc", warn
    if b.startswith("When not using quantization, destination dtype must be"):
        return "acc-gm-dtype", "LEGAL_UNSUPPORTED_TUPLE"
    if b == "ACC-to-GM dtype support:":
        return "not-encoded: a heading: the per-source-type bullets under it are rows of their own; it states no rule", ""
    if b.startswith("Static shape constraints") or b.startswith("Runtime: `1 <= src.GetValidCol() <= 4095`"):
        return "acc-store-shape", "LEGAL_UNSUPPORTED_TUPLE"
    if b.startswith("Additional alignment constraints are enforced"):
        return "cols-align", "STRUCT_TILE_SHAPE"
    if b.startswith("For `int64_t/uint64_t`, only ND->ND or DN->DN are supported"):
        return "gm-layout-b64", warn
    return None


def encode(op, bullet):
    """(encoding, diagnostic) of one bullet."""
    b = bullet
    shape = SHAPE_OF.get(op)
    if re.match(r"^(Note:|Implemented|No bounds checks|No separate|No explicit `static_assert`|`m/k/n` are taken from|The (A5 implementation|selection domain|transpose size is taken)|The op uses)", b):
        return "not-encoded: a description of the implementation, not a constraint on the program", ""
    if "Scalar only supports zero and positive values" in b:
        return "not-encoded: a constraint on a run-time scalar value, not on the program's types", ""
    if re.match(r"^For\s*`TileType::\w+`(\s*/\s*`TileType::\w+`)?( / ACC source tiles)?\s*:$", b):
        return "not-encoded: a heading: the bullets nested under it are rows of their own; it states no rule", ""
    if op == "tmatmul.mx":
        if b.startswith("Static legality checks are enforced via `CheckMadMxValid"):
            return ("not-encoded: a description of the implementation: it names the check function; the rules the page "
                    "states are the triple rows below it (types) and the TMATMUL_MX constraints pto's legality row encodes"), ""
        if b.startswith("Supported `(C, A, B)` triples"):
            return "mx-c-scale", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("FP8:"):
            return "mx-fp8", "warn:LEGAL_REFERENCES_DISAGREE"
        if b.startswith("FP4:"):
            return ("not-encoded: pto does not have the types: float4_e1m2x2_t / float4_e2m1x2_t are no element type of "
                    "pto (pto-ir/src/types.rs ElemType) and no ptoas MX operand (isA5MxInputType is fp8-like only, "
                    "lib/PTO/IR/PTO.cpp:4292-4294), so no program can hold an FP4 operand"), ""
    if shape is None:
        return f"not-yet: no program template for `{op}` in tests/isa_doc_checks.rs", ""
    if op == "ttrans":
        if b.startswith("`sizeof(TileDataSrc::DType) == sizeof(TileDataDst::DType)`"):
            # pto is stricter, on ptoas's side: one element type (lib/PTO/IR/PTO.cpp:8727), so the
            # differently-sized pair this tests is rejected, as is a same-sized one (docs/design.md).
            return "same-dtype", "STRUCT_DTYPE_MISMATCH|LEGAL_UNSUPPORTED_TUPLE"
        m = re.match(r"^Element size must be ((`\d`(, | or |, or )?)+) bytes", b)
        if m:
            return "dtype-size " + ",".join(re.findall(r"`(\d)`", m.group(1))), "LEGAL_UNSUPPORTED_TUPLE"
        if b == "Supported element types are restricted per element width:":
            return "not-encoded: a heading: the per-width lists below it are rows of their own; it states no rule", ""
        m = re.match(r"^(\d) bytes?: ", b)
        if m:
            return f"dtype-width {m.group(1)} " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("32-byte alignment constraints are enforced on the column dimension"):
            return "cols-align", "STRUCT_TILE_SHAPE"
    if SHAPE_OF.get(op) == "matmul":
        if b.startswith("Supported `(CType, AType, BType)` triples:") or b == "Fractal/layout constraints are enforced:":
            return "not-encoded: a heading: the bullets nested under it are rows of their own; it states no rule", ""
        m = re.match(r"^`\(([\w ]+), ([\w ]+), ([\w ]+)\)`$", b)
        if m and all(x in CPP for x in m.groups()):
            return "mm-triple " + " ".join(CPP[x] for x in m.groups()), "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("If `int32_t`: `AType == int8_t` and `BType == int8_t`"):
            return "mm-triple i32 i8 i8", "LEGAL_UNSUPPORTED_TUPLE"
        if re.match(r"^If `float`: supports `half(/|`, `)bfloat16_t(/|`, `)float`", b):
            return "mm-float f16,bf16,f32", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("Accumulator type must be"):
            return "mm-acc-dtype " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("Static shape constraints: `TileLeft::Rows == TileRes::Rows`"):
            return "mm-shape", "LEGAL_UNSUPPORTED_TUPLE|STRUCT_SHAPE_MISMATCH|STRUCT_VALID_SHAPE_MISMATCH"
        if b.startswith("Tile locations:"):
            return "mm-loc", "LEGAL_UNSUPPORTED_TUPLE"
        if re.match(r"^(Left|Right|Acc): `Loc == ", b):
            return ("not-encoded: pto does not reject another left/right/acc layout: `legalize` gives these tiles the "
                    "target's fixed layout (pto-isa's TileLeft/TileRight/TileAcc aliases) with a LEGAL_LAYOUT_REWRITTEN "
                    "note, as PTOAS's parser does for `left` (docs/design.md, the left/right/acc layout row); the "
                    "location part is the same rule as `mm-loc`"), ""
        if b.startswith("Runtime: `m/k/n`"):
            return "mm-mkn", "LEGAL_UNSUPPORTED_TUPLE"
        return (f"not-yet: a {op.upper()} rule on run-time extents (m/k/n in [1, 4095]), which the Mx32x32 template "
                "does not vary yet"), ""
    if op == "texpands" and re.search(r"NC1HWC0|NDC1HWC0|FRACTAL_Z|convtile", b):
        return ("not-encoded: pto does not have the op form: TEXPANDS into a convolution tile (`ConvTile` with layout "
                "NC1HWC0/FRACTAL_Z/NDC1HWC0/FRACTAL_Z_3D, npu/a5/TExpandS.hpp:122-140); neither ptoas's `!pto.tile_buf` "
                "(shape, valid shape, blayout, slayout, fractal, pad: include/PTO/IR/PTOTypeDefs.td:124-140) nor pto's "
                "tile types can describe one"), ""
    if op == "texpands" and re.search(r"TileData::Rows \* TileData::Cols \* sizeof", b):
        return ("mat-blocks; npu/a2a3/TExpandS.hpp:103-108 asserts it (npu/a5/TExpandS.hpp:90-95 static_asserts it), "
                "ptoas accepts any size (lib/PTO/IR/PTO.cpp:3899-3944): pto rejects, naming both; only a tile pto-isa's "
                "struct Tile itself refuses (pto_tile.hpp:1522, a STRUCT_TILE_SHAPE warning in pto) is below one block"), \
            "LEGAL_UNSUPPORTED_TUPLE"
    if op in ("tinterleave", "tdeinterleave"):
        if re.search(r"must have the same (`DType`|DType)", b) or "must have the same `DType` and the same valid shape" in b:
            return "same-dtype", "STRUCT_DTYPE_MISMATCH|LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("`validCol` of all tiles must be even"):
            return "even-cols", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("Two-source form:"):
            # The even columns the page adds are not asserted by npu/a5/TDeInterleave.hpp:38-46 (pto follows it).
            return "valid-eq rows,cols", "LEGAL_UNSUPPORTED_TUPLE|STRUCT_VALID_SHAPE_MISMATCH"
        if b.startswith("Single-source form:") or b.startswith("The `validCols` of `dst0`/`dst1` tile must be half"):
            return ("half-cols; the page's two single-source bullets contradict on columns (one valid shape for src, dst0, "
                    "dst1; dst half src's columns): pto takes rows equal, dst columns x 2 = src columns, which is what "
                    "npu/a5/TDeInterleave.hpp:197-205 asserts (dst = src >> 1) and cpu/TDeinterleave.hpp:79 asserts "
                    "(src = 2 x dst, so src's columns are even); ptoas has no tdeinterleave"), "LEGAL_UNSUPPORTED_TUPLE"
    if op == "ttri" and b.startswith("Lower (`upperOrLower == 0`) and upper"):
        return "not-encoded: a description of the implementation, not a constraint on the program", ""
    if op == "trandom":
        if b.startswith("`Rounds` must be either 7 or 10"):
            return "rounds 7,10", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("`key` and `counter` must not be null"):
            return ("not-encoded: a run-time pointer check; every `key` / `counter` operand of a program is a tile or "
                    "a scalar value, never null"), ""
    if op == "tstore.fp":
        if b.startswith("The fp store path is implemented via"):
            return "not-encoded: a heading: the accumulator-to-GM checks nested under it are rows of their own", ""
        if b.startswith("Source dtype must be"):
            return "acc-dtype " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
        enc = tstore(b)
        if enc:
            return enc
        return ("not-yet: a TSTORE_FP rule about GM layouts, static acc shapes or run-time extents, which the "
                "template (an acc tile into a GM view of its shape) does not vary yet"), ""
    if op == "tmov.fp":
        if b.startswith("`FpTileData::Loc` must be `TileType::Scaling`"):
            return "fp-loc", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("Destination location is target-dependent"):
            return "loc vec,mat", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("The fp path is only supported for accumulator conversion"):
            return "fp-src-acc", "LEGAL_UNSUPPORTED_TUPLE"
        return ("not-encoded: a description of the implementation: it names the validating functions "
                "(`CheckTMovAccValid`, `TMOV_IMPL`) without stating a rule; the rules the page states are the rows "
                "`fp-loc` and `loc vec,mat` of this page"), ""
    if op in ("tstore", "tload"):
        locs = [l.lower() for l in re.findall(r"`TileType::(\w+)`", b)]
        if re.match(r"^(Source|Destination) tile location must be", b) and locs:
            return "loc " + ",".join(locs), "LEGAL_UNSUPPORTED_TUPLE"
        # (TLOAD A5 also says the size is 1, 2, 4 or 8 bytes: true of every element type there is.)
        if re.match(r"^`sizeof\(TileData::DType\)( == sizeof\(GlobalData::DType\)`|` must be .* and must match `sizeof\(GlobalData::DType\)`)", b):
            return "gm-size", "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("Source dtype must be"):
            return "acc-dtype " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
        if b.startswith("`TileData::DType` must be one of"):
            return "dtype all " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
        if op == "tload" or op == "tstore":
            enc = (tload if op == "tload" else tstore)(b)
            if enc:
                return enc
        return (f"not-yet: a {op.upper()} rule about GM layouts, acc-to-GM conversions, MX formats, static tile shapes "
                "or run-time extents, which the template (a vec/mat/acc tile and a GM view of its shape) does not vary yet"), ""
    if op == "tscatter" and re.search(r"DstTileData|SrcTileData|maskPattern|P1111|SCATTER_(ROW|COL)|expansion_factor", b):
        return ("not-encoded: pto does not have the op form: a bullet of TSCATTER's Mask Scatter section (TSCATTER.md:145-165), "
                "the form `TSCATTER<maskPattern, ScatterType>(dst, src)` (include/pto/common/pto_instr.hpp:2131-2139); "
                "neither ptoas nor pto has it: `pto.tscatter` is the index form `ins(src, indexes) outs(dst)` only "
                "(PTOAS include/PTO/IR/PTOOps.td:5095-5106; pto-ir/src/ops/table.rs:214), whose own bullets "
                "(TSCATTER.md:124-143) are encoded rows"), ""
    if re.search(r"^`TileDataI::DType` must be one of", b):
        return "index-dtype " + ",".join(types_in(b)), "LEGAL_UNSUPPORTED_TUPLE"
    m = re.match(r"^When size of `TileDataD::DType` is (\d) bytes?, the size of `TileDataI::DType` must be (\d) bytes", b)
    if m:
        return f"index-size {m.group(1)} {m.group(2)}", "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"^`tmp` element type must be `uint8_t`", b):
        return "tmp-dtype u8", "LEGAL_UNSUPPORTED_TUPLE|LEGAL_TMP_TOO_SMALL"
    if op == "tprelu" and b.startswith("`tmp.GetValidRow() > dst.GetValidRow()`"):
        return "tmp-rows", "LEGAL_TMP_TOO_SMALL"
    if op == "trem" and b.startswith("`tmp` tile must have at least 1 rows"):
        return "tmp-cols", "LEGAL_TMP_TOO_SMALL"
    if re.search(r"^`tmp\.GetValidRow\(\) > dst\.GetValidRow\(\)`|^`tmp` tile must have at least", b):
        return ("not-yet: a scratch-tile size: `pto verify` does not size scratch tiles (insert-scratch checks a "
                "given tmp against the A2A3 implementation's use in `pto lower`/`pto run`, LEGAL_TMP_TOO_SMALL, "
                "docs/scratch.md; in `pto verify` that check would reject tcolargmin_emitc.pto, which ptoas accepts)"), ""
    if op == "tcmp" and b.startswith("Output type must be"):
        return ("not-encoded: the references disagree and pto takes ptoas's side: the page names one output type "
                "(uint8_t on A2A3, uint32_t on A5), pto-isa's implementation asserts none (npu/a2a3/TCmp.hpp:112-130; "
                "npu/a5/TCmp.hpp:136-152, which writes the packed bits as 32-bit words whatever the type), and ptoas "
                "requires an 8-bit dst (lib/PTO/IR/PTO.cpp:3138-3139 A2A3, 3175-3180 A5): pto accepts i8/u8 masks "
                "on both targets (legality rows `tcmp`)"), ""
    if re.search(r"only `CmpMode::EQ`|regardless of `cmpMode`", b):
        # tcmps: rejected; tcmp: accepted with the references' warning (today's choices, issue 27).
        return "int32-cmp-eq", "warn:LEGAL_REFERENCES_DISAGREE" if op == "tcmp" else "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"same memory is unsupported|must not overlap", b):
        return "distinct", "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"must use the same element type|element types must match|DType` and `\w+::DType` must be the same", b) and not re.search(r"Supported", b):
        return "same-dtype", "STRUCT_DTYPE_MISMATCH|LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"Intended for integral element types", b):
        return "dtype-class integral", "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"1-byte, 2-byte, or 4-byte integral", b):
        return "dtype all " + ",".join(INTEGRAL), "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"(DType` must be one of|Supported (element|data) types( are|:)|must be one of:|Supported types:|DType` must be `)", b):
        types = types_in(b)
        if types:
            return "dtype all " + ",".join(types), "LEGAL_UNSUPPORTED_TUPLE"
    m = re.match(r"^`sizeof\((TileData|TileDataDst)::DType\)` (must|may) be ((`\d`(, | or |, or )?)+) bytes\.?$", b)
    if m:
        return "dtype-size " + ",".join(re.findall(r"`(\d)`", m.group(3))), "LEGAL_UNSUPPORTED_TUPLE"
    m = re.match(r"^Destination element size must be ((`\d`(, | or |, or )?)+) bytes", b)
    if m:
        return "dtype-size " + ",".join(re.findall(r"`(\d)`", m.group(1))), "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"row-major", b):
        return "row-major", "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"location must be vector|must be vector tiles|must be `TileType::Vec`", b):
        return "vec", "LEGAL_UNSUPPORTED_TUPLE"
    if re.search(r"[Ss]tatic valid bounds", b):
        return "valid-bounds", "STRUCT_TILE_SHAPE|PARSE_BAD_TYPE"
    if re.search(r"GetValidRow\(\)|validRow/validCol|GetValidCol\(\)|valid shapes must match", b):
        dims = "rows,cols" if re.search(r"GetValidRow|validRow|valid shapes", b) else "cols"
        return f"valid-eq {dims}", "LEGAL_UNSUPPORTED_TUPLE|STRUCT_VALID_SHAPE_MISMATCH"
    return "not-yet: no encoding for this sentence", ""


def main():
    repo = sys.argv[1]
    print("doc\ttarget\top\tbullet\tencoding\tdiagnostic")
    for doc, text in pages(repo):
        op = doc[:-3].lower().replace("_", ".")
        for target, bullet in bullets(text):
            enc, diag = encode(op, bullet)
            why = next((w for (d, t, start), w in DISAGREE.items() if d == doc and t == target and bullet.startswith(start)), None)
            if why:
                enc, diag = why, ""
            if (doc, target) in SC_SIDE and enc.startswith("dtype all "):
                name, where = SC_SIDE[(doc, target)]
                enc, diag = (f"not-encoded: the references disagree and pto takes ptoas's side: the page lists "
                             f"i32/i16/f16/f32, but pto-isa has no NPU {name.upper()} (its only implementation is the "
                             f"CPU simulator's, include/pto/cpu/ElementTileScalarOp.h, no include/pto/npu/*/ file), and "
                             f"ptoas's {name} verifier restricts no element type, {where}; pto accepts the 11 types of "
                             f"its A5 tile-scalar row"), ""
            if enc.startswith("dtype all "):
                if (doc, target) in PTOAS_SIDE:
                    verdict, types, why = PTOAS_SIDE[(doc, target)]
                    enc += f"; {verdict} {types}: {why}"
                if (doc, target) in PTOAS_ACCEPTS:
                    types, why = PTOAS_ACCEPTS[(doc, target)]
                    enc += f"; ptoas-accepts {types}: {why}"
            print(f"{doc}\t{target}\t{op}\t{bullet}\t{enc}\t{diag}")


if __name__ == "__main__":
    main()
