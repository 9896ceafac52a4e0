//! Issue 27, acceptance 2: every "Implementation checks (A2A3)" / "(A5)" bullet of pto-isa's
//! `docs/isa/*.md` is a row of `tests/data/isa-doc-checks.tsv` (written by
//! `tests/data/isa_doc_checks.py` from the pages' text), and every row whose encoding is a rule is
//! tested here against `pto verify --target`: a tiny program that breaks the bullet must be
//! rejected on that target with the row's diagnostic class, and programs that satisfy it must be
//! accepted. Rows `not-encoded: why` say why no program can test them; rows `not-yet: why` are
//! counted and printed (the test pins the counts, so a new encoding or a regression shows).

use pto::cmd::lower::LowerOptions;
use pto::cmd::verify::{VerifyOptions, run};
use pto::{ErrorFormat, TargetName};
use std::path::PathBuf;

mod common;

/// Every element type a program may try, in the order a probe picks them.
const UNIVERSE: &[&str] = &["f32", "f16", "bf16", "i32", "u32", "i16", "u16", "i8", "u8", "i64", "u64"];

/// One row of the data file.
struct Row {
    doc: String,
    target: String,
    op: String,
    bullet: String,
    encoding: String,
    diagnostic: String,
}

fn rows() -> Vec<Row> {
    let path = common::root().join("tests/data/isa-doc-checks.tsv");
    let text = std::fs::read_to_string(&path).expect("tests/data/isa-doc-checks.tsv");
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 6, "{l}");
            Row {
                doc: c[0].into(),
                target: c[1].into(),
                op: c[2].into(),
                bullet: c[3].into(),
                encoding: c[4].into(),
                diagnostic: c[5].into(),
            }
        })
        .collect()
}

fn bytes(dtype: &str) -> u32 {
    if dtype.starts_with("f8") {
        return 1;
    }
    match dtype.trim_start_matches(['u', 'i', 'f', 'b']) {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        _ => 8,
    }
}

/// A tile operand: element type, location, valid shape (None: the capacity), col-major or not.
#[derive(Clone)]
struct Tile {
    dtype: String,
    loc: &'static str,
    valid: Option<(u32, u32)>,
    col_major: bool,
}

impl Tile {
    fn new(dtype: &str) -> Tile {
        Tile { dtype: dtype.into(), loc: "vec", valid: None, col_major: false }
    }
    /// 32 rows of 64 bytes: every layout's alignment holds for every element type.
    fn shape(&self) -> (u32, u32) {
        (32, 64 / bytes(&self.dtype))
    }
    fn text(&self) -> String {
        self.text_as(&self.dtype)
    }
    /// This tile's shape, location, valid shape and layout with element type `dtype` (an index
    /// tile beside its data tile).
    fn text_as(&self, dtype: &str) -> String {
        let (r, c) = self.shape();
        let mut s = format!("!pto.tile_buf<{}, {r}x{c}x{dtype}", self.loc);
        if let Some((vr, vc)) = self.valid {
            s += &format!(", valid={vr}x{vc}");
        }
        if self.col_major {
            s += ", blayout=col_major";
        }
        s + ">"
    }
}

/// The program of `op` (shape from the data script's `SHAPES`) with these source and destination
/// tiles; `same` makes the destination the source value (in place).
fn program(op: &str, src: &Tile, dst: &Tile, same: bool) -> String {
    program_with(op, src, dst, same, None)
}

/// The index element type a gather/scatter pairs with data of `dtype` (pto-isa's rule: 4-byte
/// indices for 4- and 8-byte data, 2-byte indices for 2- and 1-byte data).
fn index_for(dtype: &str) -> &'static str {
    if bytes(dtype) >= 4 { "i32" } else { "i16" }
}

/// [`program`] with the index tile's element type given (`None`: [`index_for`] the source's).
fn program_with(op: &str, src: &Tile, dst: &Tile, same: bool, index: Option<&str>) -> String {
    if shape(op) == "matmul" {
        return matmul(op, ("f32", "f16", "f16"), "left", 32);
    }
    if shape(op) == "movfp" {
        return mov_fp(op, dst, "scaling");
    }
    if shape(op) == "matmul-mx" {
        return matmul_mx(("f32", "f8E4M3FN", "f8E4M3FN"), "f8E8M0FNU");
    }
    let (a, d) = (src.text(), dst.text());
    // An index tile shaped like the source (scatter's `indexes`).
    let i = src.text_as(index.unwrap_or(index_for(&src.dtype)));
    // A GM view of dst's element type over src's valid region (a store's destination).
    let (vr, vc) = src.valid.unwrap_or(src.shape());
    let g = format!("!pto.partition_tensor_view<{vr}x{vc}x{}>", dst.dtype.replace('u', "ui"));
    // trandom's key / counter tiles; tgatherb's offsets (one row per dst row).
    let key = "!pto.tile_buf<vec, 16x16xf32>";
    let off = format!("!pto.tile_buf<vec, {}x8xui32>", dst.shape().0);
    let fp = "!pto.tile_buf<scaling, 16x16xf32>";
    let out = if same { "%a" } else { "%d" };
    let scalar = scalar_type(op, &src.dtype);
    // A compare's mask follows the source's layout (npu/a5/TCmps.hpp:237 asserts it of the mask).
    // The mask of a compare has one row per dst row (its valid rows follow dst's).
    let compare = matches!(shape(op), "cmps" | "cmp");
    let mut mask = MASK.trim_end_matches('>').to_string();
    if let (true, Some((vr, _))) = (compare, dst.valid) {
        mask += &format!(", valid={vr}x32");
    }
    if compare && src.col_major {
        mask += ", blayout=col_major";
    }
    mask += ">";
    // The scratch tile PTOAS's DPS form requires (op table `ptoas_tmp`), large enough for every
    // A2A3 path of these tiles (docs/scratch.md): a u8 mask with a select row (tprelu), one row of
    // 8·C elements (trem, trems: at most 6·C), else shaped like dst.
    let needs_tmp = pto_ir::ops::lookup(op).is_some_and(|o| !o.spec().ptoas_tmp.is_empty());
    let (r, c) = dst.shape();
    let tmp = match op {
        "tprelu" => format!("!pto.tile_buf<vec, {}x32xui8>", r + 1),
        "trem" | "trems" => format!("!pto.tile_buf<vec, 1x{}x{}>", 8 * c, dst.dtype),
        _ => dst.text(),
    };
    let (t, tt) = if needs_tmp { (", %t", format!(", {tmp}")) } else { ("", String::new()) };
    let body = match shape(op) {
        "binary" => format!("pto.{op} ins(%a, %b{t} : {a}, {a}{tt}) outs({out} : {d})"),
        "unary" => format!("pto.{op} ins(%a{t} : {a}{tt}) outs({out} : {d})"),
        "scalar" => format!("pto.{op} ins(%a, %s{t} : {a}, {scalar}{tt}) outs({out} : {d})"),
        "scalar-sc" => format!("pto.{op} ins(%a, %s, %b : {a}, {scalar}, {a}) outs({out} : {d})"),
        // Compare and select: a one-byte mask of 32 bytes per row, one row per data row.
        "cmps" => format!("pto.{op} ins(%a, %s {{cmpMode = #pto<cmp eq>}} : {a}, {scalar}) outs(%m : {mask})"),
        "cmp" => format!("pto.{op} ins(%a, %b {{cmpMode = #pto<cmp eq>}} : {a}, {a}) outs(%m : {mask})"),
        "sel" => format!("pto.{op} ins(%m, %a, %b{t} : {mask}, {a}, {a}{tt}) outs({out} : {d})"),
        "scatter" => format!("pto.{op} ins(%a, %i : {a}, {i}) outs({out} : {d})"),
        // Two sources into two destinations of dst's type (`%e` the second).
        "interleave" => format!("pto.{op} ins(%a, %b : {a}, {a}) outs({out}, %e : {d}, {d})"),
        // A block gather: one u32 byte offset per 32-byte block of dst (two per 64-byte row).
        "gatherb" => format!("pto.{op} ins(%a, %o : {a}, {off}) outs({out} : {d})"),
        // Generated into dst: a triangular mask; random numbers from an f32 key and counter.
        "tri" => format!("pto.{op} ins(%n : i32) outs({out} : {d})"),
        "random" => format!("pto.{op} ins(%k, %k : {key}, {key}) outs({out} : {d})"),
        // A scalar of the source's element type broadcast into dst.
        "expands" => format!("pto.{op} ins(%s : {scalar}) outs({out} : {d})"),
        // A store of the source tile into a GM view of dst's element type and src's valid shape.
        "store" => format!("pto.{op} ins(%a : {a}) outs(%g : {g})"),
        // A store of an accumulator through fixpipe parameters (`fp` in scaling) into a GM view.
        "storefp" => format!("pto.{op} ins(%a, %f : {a}, {fp}) outs(%g : {g})"),
        // A load into the source tile from a GM view of dst's element type (the store, reversed).
        "load" => format!("pto.{op} ins(%g : {g}) outs(%a : {a})"),
        // PTOAS writes tsels' tmp before the scalar.
        "sels" => format!("pto.{op} ins(%m, %a{t}, %s : {mask}, {a}{tt}, {scalar}) outs({out} : {d})"),
        other => panic!("no template for shape {other}"),
    };
    format!(
        "func.func @k(%a: {a}, %b: {a}, %d: {d}, %s: {scalar}, %m: {mask}, %t: {tmp}, %i: {i}, %g: {g}, %e: {d}, %k: {key}, %o: {off}, %f: {fp}, %n: i32) {{\n  {body}\n  return\n}}\n"
    )
}

/// An Mx32 by 32x32 matmul `op` (M = 16, or 1 for the `tgemv` forms) with element types
/// `(c, a, b)`, the left operand in `left_loc` and `k_right` rows of the right operand (32: the
/// shapes agree); `.acc` forms read the accumulator first, `.bias` forms a 1x32 bias of `c`'s
/// type last. Layouts are left to `legalize`, which gives left/right/acc tiles their target's
/// (docs/legality.md).
fn matmul(op: &str, (c, a, b): (&str, &str, &str), left_loc: &str, k_right: u32) -> String {
    let m = if op.starts_with("tgemv") { 1 } else { 16 };
    let l = format!("!pto.tile_buf<{left_loc}, {m}x32x{a}>");
    let r = format!("!pto.tile_buf<right, {k_right}x32x{b}>");
    let acc = format!("!pto.tile_buf<acc, {m}x32x{c}>");
    let bias = format!("!pto.tile_buf<bias, 1x32x{c}>");
    let ins = if op.ends_with(".acc") {
        format!("%c, %l, %r : {acc}, {l}, {r}")
    } else if op.ends_with(".bias") {
        format!("%l, %r, %b : {l}, {r}, {bias}")
    } else {
        format!("%l, %r : {l}, {r}")
    };
    format!("func.func @k(%l: {l}, %r: {r}, %c: {acc}, %b: {bias}) {{\n  pto.{op} ins({ins}) outs(%c : {acc})\n  return\n}}\n")
}

/// `tmov.fp` of a 32x16 f32 accumulator into `dst` through fixpipe parameters in `fp_loc`; a `mat`
/// destination gets the NZ layout (fractal 512) both targets' fixpipe writes.
fn mov_fp(op: &str, dst: &Tile, fp_loc: &str) -> String {
    let src = "!pto.tile_buf<acc, 32x16xf32>";
    let fp = format!("!pto.tile_buf<{fp_loc}, 16x16xf32>");
    let d = if dst.loc == "mat" { dst.text().replace('>', ", blayout=col_major, slayout=row_major>") } else { dst.text() };
    format!("func.func @k(%a: {src}, %f: {fp}, %d: {d}) {{\n  pto.{op} ins(%a, %f : {src}, {fp}) outs(%d : {d})\n  return\n}}\n")
}

/// An i8 `op` (`tmatmul`) of a 16xK left operand (`left_valid`: its valid-shape attribute, or
/// empty) by a Kx16 col-major right operand into a 16x16 i32 accumulator.
fn matmul_k(op: &str, k: u32, left_valid: &str) -> String {
    let l = format!("!pto.tile_buf<left, 16x{k}xi8{left_valid}>");
    let r = format!("!pto.tile_buf<right, {k}x16xi8, blayout=col_major>");
    let acc = "!pto.tile_buf<acc, 16x16xi32>";
    format!("func.func @k(%l: {l}, %r: {r}, %c: {acc}) {{\n  pto.{op} ins(%l, %r : {l}, {r}) outs(%c : {acc})\n  return\n}}\n")
}

/// `tload` of a 32x16 f32 tile (`loc`, `layout` the tile's layout attributes, empty for ND) from a
/// GM view whose `make_tensor_view` states `gm` (`nd`, `dn`, `nz`), through `partition_view`.
fn load_from_layout(gm: &str, loc: &str, layout: &str) -> String {
    copy_with_layout("tload", gm, loc, layout, (32, 16))
}

/// `tstore` of a tile (`loc`, 32x16 f32, or 16x16 f32 in `acc`; `layout` its layout attributes;
/// `rows1` makes it one row) to a GM view whose `make_tensor_view` states `gm`.
fn store_to_layout(op: &str, gm: &str, loc: &str, layout: &str, rows1: bool) -> String {
    let shape = if rows1 {
        (1, 16)
    } else if loc == "acc" {
        (16, 16)
    } else {
        (32, 16)
    };
    copy_with_layout(op, gm, loc, layout, shape)
}

/// `op` (`tload` / `tstore`) between an `r`x`c` f32 tile in `loc` (attributes `layout`) and a GM
/// view of its shape whose `make_tensor_view` states the layout `gm`, through `partition_view`.
fn copy_with_layout(op: &str, gm: &str, loc: &str, layout: &str, shape: (u32, u32)) -> String {
    copy_with_layout_of("f32", op, gm, loc, layout, shape)
}

/// [`copy_with_layout`] of a `dtype` tile.
fn copy_with_layout_of(dtype: &str, op: &str, gm: &str, loc: &str, layout: &str, (r, c): (u32, u32)) -> String {
    let t = format!("!pto.tile_buf<{loc}, {r}x{c}x{dtype}{layout}>");
    let v = format!("!pto.partition_tensor_view<{r}x{c}x{dtype}>");
    let strides = if gm == "dn" { "%c1, %cr" } else { "%cc, %c1" };
    let fp = "!pto.tile_buf<scaling, 16x16xf32>";
    let body = match op {
        "tload" => format!("ins(%pv : {v}) outs(%a : {t})"),
        "tstore.fp" => format!("ins(%a, %f : {t}, {fp}) outs(%pv : {v})"),
        _ => format!("ins(%a : {t}) outs(%pv : {v})"),
    };
    format!(
        "func.func @k(%p: !pto.ptr<{dtype}>, %a: {t}, %f: {fp}) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  \
         %cr = arith.constant {r} : index\n  %cc = arith.constant {c} : index\n  \
         %tv = pto.make_tensor_view %p, shape = [%cr, %cc], strides = [{strides}] {{layout = #pto.layout<{gm}>}} : !pto.tensor_view<?x?x{dtype}>\n  \
         %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%cr, %cc] : !pto.tensor_view<?x?x{dtype}> -> {v}\n  \
         pto.{op} {body}\n  return\n}}\n"
    )
}

/// `tstore` of an `rows`x`cols` f32 tile in `loc` (extra attributes `attrs`) to a GM view of
/// shape `view` and element type `gm`.
fn store(view: &str, gm: &str, loc: &str, shape: (u32, u32), attrs: &str) -> String {
    store_op("tstore", view, gm, loc, shape, attrs)
}

/// [`store`] by `op` (`tstore`, or `tstore.fp` with fixpipe parameters in `scaling`).
fn store_op(op: &str, view: &str, gm: &str, loc: &str, (rows, cols): (u32, u32), attrs: &str) -> String {
    let t = format!("!pto.tile_buf<{loc}, {rows}x{cols}xf32{attrs}>");
    let g = format!("!pto.partition_tensor_view<{view}x{gm}>");
    let fp = "!pto.tile_buf<scaling, 16x16xf32>";
    let ins = if op == "tstore.fp" { format!("%a, %f : {t}, {fp}") } else { format!("%a : {t}") };
    format!("func.func @k(%a: {t}, %g: {g}, %f: {fp}) {{\n  pto.{op} ins({ins}) outs(%g : {g})\n  return\n}}\n")
}

/// `tload` of an `rows`x`cols` tile of `dtype` in `loc` (extra tile attributes `attrs`) from a GM
/// view of shape `view`.
fn load(view: &str, dtype: &str, loc: &str, (rows, cols): (u32, u32), attrs: &str) -> String {
    let t = format!("!pto.tile_buf<{loc}, {rows}x{cols}x{dtype}{attrs}>");
    let g = format!("!pto.partition_tensor_view<{view}x{}>", dtype.replace('u', "ui"));
    format!("func.func @k(%g: {g}, %a: {t}) {{\n  pto.tload ins(%g : {g}) outs(%a : {t})\n  return\n}}\n")
}

/// Single-source `tdeinterleave` of a `dtype` vec tile of valid shape `src` into two of valid
/// shape `dst` (capacity: the template's 64-byte rows).
fn deinterleave_one(dtype: &str, src: (u32, u32), dst: (u32, u32)) -> String {
    let (r, c) = Tile::new(dtype).shape();
    let tile = |(vr, vc): (u32, u32)| format!("!pto.tile_buf<vec, {r}x{c}x{dtype}, valid={vr}x{vc}>");
    let (a, d) = (tile(src), tile(dst));
    format!("func.func @k(%a: {a}, %d: {d}, %e: {d}) {{\n  pto.tdeinterleave ins(%a : {a}) outs(%d, %e : {d}, {d})\n  return\n}}\n")
}

/// The scalar a program of `op` on `dtype` tiles passes: the tiles' element type, or where the
/// op table's scalar slot admits no such type (the bitwise ops' signless integer, PTOAS's ODS)
/// the signless integer of its width, so that the program tests the tiles' element type.
fn scalar_type(op: &str, dtype: &str) -> String {
    let class = pto_ir::ops::lookup(op)
        .and_then(|o| o.parsed().forms.first())
        .and_then(|f| f.ins.iter().find(|s| s.kind == pto_ir::ops::SlotKind::Scalar))
        .and_then(|s| s.class);
    let elem = pto_ir::types::ElemType::parse(dtype);
    match (class, elem) {
        (Some(c), Some(e)) if !c.admits(e) => format!("i{}", e.size_bytes() * 8),
        _ => dtype.to_string(),
    }
}

/// `texpands` of a `dtype` scalar into an `r`x`c` mat tile (layout attributes `attrs`).
fn expands_mat(dtype: &str, (r, c): (u32, u32), attrs: &str) -> String {
    let t = format!("!pto.tile_buf<mat, {r}x{c}x{dtype}{attrs}>");
    format!("func.func @k(%s: {dtype}, %d: {t}) {{\n  pto.texpands ins(%s : {dtype}) outs(%d : {t})\n  return\n}}\n")
}

/// `tload` of a 32x16 f32 mat tile (layout attributes `attrs`) from a view of `dims` (`None`:
/// dynamic, the function's `%n`) whose `make_tensor_view` states `gm`; the view's last two
/// dimensions are its rows and columns (reversed for `dn`, whose strides are column-major).
fn load_dims(gm: &str, dims: &[Option<u32>], attrs: &str) -> String {
    let t = format!("!pto.tile_buf<mat, 32x16xf32{attrs}>");
    let size = |d: &Option<u32>| d.map_or("%n".to_string(), |d| format!("%c{d}"));
    let text = |d: &Option<u32>| d.map_or("?".to_string(), |d| d.to_string());
    let shape: Vec<String> = dims.iter().map(size).collect();
    // Row-major strides (each the product of the later dims), or column-major for DN.
    let mut strides = vec![String::new(); dims.len()];
    let mut lines = Vec::new();
    let mut acc = "%c1".to_string();
    let order: Vec<usize> = if gm == "dn" { (0..dims.len()).collect() } else { (0..dims.len()).rev().collect() };
    for (k, &i) in order.iter().enumerate() {
        strides[i] = acc.clone();
        let next = format!("%s{k}");
        lines.push(format!("  {next} = arith.muli {acc}, {} : index\n", shape[i]));
        acc = next;
    }
    let consts: String = [1u32, 2, 16, 32].iter().map(|c| format!("  %c{c} = arith.constant {c} : index\n")).collect();
    let any = vec!["?"; dims.len()].join("x");
    let v = format!("!pto.partition_tensor_view<{}xf32>", dims.iter().map(text).collect::<Vec<_>>().join("x"));
    let zeros = vec!["%c0"; dims.len()].join(", ");
    format!(
        "func.func @k(%p: !pto.ptr<f32>, %n: index, %a: {t}) {{\n  %c0 = arith.constant 0 : index\n{consts}{}  \
         %tv = pto.make_tensor_view %p, shape = [{sh}], strides = [{}] {{layout = #pto.layout<{gm}>}} : !pto.tensor_view<{any}xf32>\n  \
         %pv = pto.partition_view %tv, offsets = [{zeros}], sizes = [{sh}] : !pto.tensor_view<{any}xf32> -> {v}\n  \
         pto.tload ins(%pv : {v}) outs(%a : {t})\n  return\n}}\n",
        lines.concat(),
        strides.join(", "),
        sh = shape.join(", "),
    )
}

/// Layout attributes of a DN and an NZ tile.
const DN_ATTRS: &str = ", blayout=col_major";
const NZ_ATTRS: &str = ", blayout=col_major, slayout=row_major";

/// A5 `tmatmul.mx` of a 16x64 `a` by a 64x32 `b` into a 16x32 `c`, with `a_scale`'s element
/// type `scale` (e8m0 in pto-isa's `TileLeftScale`).
fn matmul_mx((c, a, b): (&str, &str, &str), scale: &str) -> String {
    let sl = format!("!pto.tile_buf<scale_left, 16x2x{scale}, blayout=row_major, slayout=row_major, fractal=32>");
    let sr = "!pto.tile_buf<scale_right, 2x32xf8E8M0FNU, blayout=col_major, slayout=col_major, fractal=32>";
    let (l, r, acc) =
        (format!("!pto.tile_buf<left, 16x64x{a}>"), format!("!pto.tile_buf<right, 64x32x{b}>"), format!("!pto.tile_buf<acc, 16x32x{c}>"));
    format!(
        "func.func @k(%a: {l}, %as: {sl}, %b: {r}, %bs: {sr}, %c: {acc}) {{\n  \
         pto.tmatmul.mx ins(%a, %as, %b, %bs : {l}, {sl}, {r}, {sr}) outs(%c : {acc})\n  return\n}}\n"
    )
}

/// The mask tile of the compare/select templates.
const MASK: &str = "!pto.tile_buf<vec, 32x32xui8>";

fn shape(op: &str) -> &'static str {
    match op {
        "tadd" | "tsub" | "tmul" | "tdiv" | "tmax" | "tmin" | "tand" | "tor" | "txor" | "tshl" | "tshr" | "trem" | "tprelu" => "binary",
        "tabs" | "texp" | "tlog" | "tneg" | "tnot" | "trecip" | "trelu" | "trsqrt" | "tsqrt" | "ttrans" => "unary",
        "taddsc" | "tsubsc" => "scalar-sc",
        "tcmps" => "cmps",
        "tcmp" => "cmp",
        "tsel" => "sel",
        "tsels" => "sels",
        "tscatter" => "scatter",
        "texpands" => "expands",
        "tinterleave" | "tdeinterleave" => "interleave",
        "ttri" => "tri",
        "tgatherb" => "gatherb",
        "tmov.fp" => "movfp",
        "tstore.fp" => "storefp",
        "trandom" => "random",
        "tstore" => "store",
        "tload" => "load",
        "tmatmul.mx" => "matmul-mx",
        "tmatmul" | "tgemv" | "tgemv.acc" | "tgemv.bias" => "matmul",
        _ => "scalar",
    }
}

/// A binary op `op` on tiles of type `a` with a scratch tile of type `tmp`:
/// `op ins(%a, %b, %t) outs(%d)`.
fn binary_with_tmp(op: &str, a: &str, tmp: &str) -> String {
    format!(
        "func.func @k(%a: {a}, %b: {a}, %d: {a}, %t: {tmp}) {{\n  pto.{op} ins(%a, %b, %t : {a}, {a}, {tmp}) outs(%d : {a})\n  return\n}}\n"
    )
}

/// `pto verify --target T` of a program: (accepted, stderr).
fn verify(dir: &std::path::Path, n: &mut usize, target: &str, text: &str) -> (bool, String) {
    *n += 1;
    let path: PathBuf = dir.join(format!("p{n}.pto"));
    std::fs::write(&path, text).unwrap();
    let target = Some(TargetName::parse(target).expect("a target"));
    let out =
        run(&VerifyOptions { input: path.to_string_lossy().into_owned(), target, error_format: ErrorFormat::Human, ..Default::default() });
    (out.code == 0, out.stderr)
}

/// `pto lower --target T --stop-after insert-scratch` of a program (where a given scratch tile is
/// checked against the A2A3 implementation's use): (accepted, stderr).
fn lower_scratch(dir: &std::path::Path, n: &mut usize, target: &str, text: &str) -> (bool, String) {
    *n += 1;
    let path: PathBuf = dir.join(format!("p{n}.pto"));
    std::fs::write(&path, text).unwrap();
    let out = pto::cmd::lower::run(&LowerOptions {
        stop_after: Some("insert-scratch".into()),
        ..LowerOptions::new(path.to_string_lossy().into_owned(), TargetName::parse(target).expect("a target"))
    });
    (out.code == 0, out.stderr)
}

#[test]
fn every_isa_doc_implementation_check_is_encoded_and_tested_or_says_why_not() {
    let rows = rows();
    let dir = common::kernel::scratch_dir("isa-doc-checks", "programs");
    let mut n = 0;
    let mut failures = Vec::new();
    let (mut tested, mut not_encoded, mut not_yet) = (0, 0, 0);
    for row in &rows {
        let enc = row.encoding.as_str();
        if enc.starts_with("not-encoded: ") {
            not_encoded += 1;
            continue;
        }
        if enc.starts_with("not-yet: ") {
            not_yet += 1;
            continue;
        }
        tested += 1;
        let t = row.target.to_ascii_lowercase();
        // The first element type the op accepts on the target, all tiles alike.
        // (A fixpipe move's destination is probed in `mat`, which both targets' fixpipe writes; a
        // fixpipe store's source in `acc`.)
        let probe_tile = |d: &str| match shape(&row.op) {
            "movfp" => Tile { loc: "mat", ..Tile::new(d) },
            "storefp" => Tile { loc: "acc", ..Tile::new(d) },
            _ => Tile::new(d),
        };
        let probe = UNIVERSE.iter().copied().find(|d| verify(&dir, &mut n, &t, &program(&row.op, &probe_tile(d), &probe_tile(d), false)).0);
        let Some(x) = probe else {
            failures.push(format!("{} [{}]: `{}` accepts no element type", row.doc, row.target, row.op));
            continue;
        };
        let plain = Tile::new(x);
        let (r, c) = plain.shape();
        let op = row.op.as_str();
        // (accepted?, program): programs that satisfy the bullet, then one that breaks it.
        let mut cases: Vec<(bool, String)> = Vec::new();
        let mut words = enc.split(' ');
        // A keyword followed by `; why` (the row's reconciliation of its references) takes no words.
        match words.next().unwrap().trim_end_matches(';') {
            "dtype" => {
                let _slots = words.next();
                let listed: Vec<&str> = words.next().unwrap_or("").trim_end_matches(';').split(',').collect();
                // `; ptoas-rejects T: why` / `; ptoas-accepts T: why`: pto takes ptoas's side there.
                let side = |key: &str| -> Vec<&str> {
                    enc.split("; ")
                        .find_map(|p| p.strip_prefix(key))
                        .map_or(Vec::new(), |p| p.split(':').next().unwrap().split(',').collect())
                };
                let (rejected, accepted) = (side("ptoas-rejects "), side("ptoas-accepts "));
                for d in &listed {
                    cases.push((!rejected.contains(d), program(op, &Tile::new(d), &Tile::new(d), false)));
                }
                // Accepted on ptoas's side, with the warning naming both references.
                for d in &accepted {
                    let (ok, stderr) = verify(&dir, &mut n, &t, &program(op, &Tile::new(d), &Tile::new(d), false));
                    if !ok || !stderr.contains("[LEGAL_REFERENCES_DISAGREE]") {
                        failures
                            .push(format!("{} [{}] {enc}: {d} not accepted with LEGAL_REFERENCES_DISAGREE\n{stderr}", row.doc, row.target));
                    }
                }
                if let Some(other) = UNIVERSE.iter().find(|d| !listed.contains(d) && !accepted.contains(d)) {
                    cases.push((false, program(op, &Tile::new(other), &Tile::new(other), false)));
                }
            }
            "dtype-class" => {
                cases.push((true, program(op, &Tile::new("i16"), &Tile::new("i16"), false)));
                cases.push((false, program(op, &Tile::new("f32"), &Tile::new("f32"), false)));
            }
            "same-dtype" => {
                cases.push((true, program(op, &plain, &plain, false)));
                let other = UNIVERSE.iter().find(|d| bytes(d) != bytes(x)).unwrap();
                cases.push((false, program(op, &plain, &Tile::new(other), false)));
            }
            "row-major" => {
                cases.push((true, program(op, &plain, &plain, false)));
                let cm = Tile { col_major: true, ..plain.clone() };
                cases.push((false, program(op, &cm, &cm, false)));
            }
            "vec" => {
                cases.push((true, program(op, &plain, &plain, false)));
                let mat = Tile { loc: "mat", ..plain.clone() };
                cases.push((false, program(op, &mat, &mat, false)));
            }
            "valid-bounds" => {
                let inside = Tile { valid: Some((r / 2, c)), ..plain.clone() };
                cases.push((true, program(op, &inside, &inside, false)));
                let outside = Tile { valid: Some((r + 1, c)), ..plain.clone() };
                cases.push((false, program(op, &outside, &outside, false)));
            }
            "valid-eq" => {
                let half = Tile { valid: Some((r / 2, c)), ..plain.clone() };
                cases.push((true, program(op, &half, &half, false)));
                let src =
                    if words.next().unwrap_or("").contains("rows") { half } else { Tile { valid: Some((r, c / 2)), ..plain.clone() } };
                cases.push((false, program(op, &src, &plain, false)));
            }
            "dtype-size" => {
                let sizes: Vec<u32> = words.next().unwrap_or("").split(',').map(|x| x.parse().expect("a size")).collect();
                // Some element type of each listed size is accepted; one of another size is not.
                for size in &sizes {
                    let of_size: Vec<&str> = UNIVERSE.iter().copied().filter(|d| bytes(d) == *size).collect();
                    let accepted = of_size.iter().find(|d| verify(&dir, &mut n, &t, &program(op, &Tile::new(d), &Tile::new(d), false)).0);
                    cases.push((
                        true,
                        program(op, &Tile::new(accepted.unwrap_or(&of_size[0])), &Tile::new(accepted.unwrap_or(&of_size[0])), false),
                    ));
                }
                if let Some(other) = UNIVERSE.iter().find(|d| !sizes.contains(&bytes(d))) {
                    cases.push((false, program(op, &Tile::new(other), &Tile::new(other), false)));
                }
            }
            // An explicit scratch tile (binary ops) of the page's element type, and one of another.
            "tmp-dtype" => {
                let want = words.next().unwrap_or("u8");
                let (good, bad) = (format!("{}x32x{want}", r + 1), format!("{}x{c}x{x}", r + 1));
                for (ok, tmp) in [(true, good), (false, bad)] {
                    let tmp = format!("!pto.tile_buf<vec, {tmp}>");
                    let a = plain.text();
                    cases.push((
                        ok,
                        format!("func.func @k(%a: {a}, %b: {a}, %d: {a}, %t: {tmp}) {{\n  pto.{op} ins(%a, %b, %t : {a}, {a}, {tmp}) outs(%d : {a})\n  return\n}}\n"),
                    ));
                }
            }
            "int32-cmp-eq" => {
                let i32_eq = program(op, &Tile::new("i32"), &Tile::new("i32"), false);
                cases.push((false, i32_eq.replace("cmp eq", "cmp gt")));
                cases.push((true, i32_eq));
            }
            // The index tile's element types (data of the matching size), and a float index.
            "index-dtype" => {
                let listed: Vec<&str> = words.next().unwrap_or("").split(',').collect();
                for idx in &listed {
                    let data = if bytes(idx) == 4 { "f32" } else { "f16" };
                    cases.push((true, program_with(op, &Tile::new(data), &Tile::new(data), false, Some(idx))));
                }
                cases.push((false, program_with(op, &Tile::new("f32"), &Tile::new("f32"), false, Some("f32"))));
            }
            // `index-size D I`: data of D bytes takes indices of I bytes only.
            "index-size" => {
                let size = |w: Option<&str>| w.and_then(|w| w.parse::<u32>().ok()).expect("a size");
                let (data_size, index_size) = (size(words.next()), size(words.next()));
                let data = UNIVERSE
                    .iter()
                    .copied()
                    .find(|d| bytes(d) == data_size && verify(&dir, &mut n, &t, &program(op, &Tile::new(d), &Tile::new(d), false)).0);
                let Some(data) = data else {
                    failures.push(format!("{} [{}] {enc}: no accepted data type of {data_size} bytes", row.doc, row.target));
                    continue;
                };
                for idx in ["i16", "i32"] {
                    cases.push((bytes(idx) == index_size, program_with(op, &Tile::new(data), &Tile::new(data), false, Some(idx))));
                }
            }
            // `loc LOCS`: the tile may live in each of LOCS (an acc tile holds f32), not in `left`.
            "loc" => {
                for loc in words.next().unwrap_or("").split(',') {
                    let loc: &'static str = ["vec", "mat", "acc"].into_iter().find(|l| *l == loc).expect("a known location");
                    let x = if loc == "acc" { "f32" } else { x };
                    let tile = Tile { loc, ..Tile::new(x) };
                    cases.push((true, program(op, &tile, &tile, false)));
                }
                let left = Tile { loc: "left", ..Tile::new("f32") };
                cases.push((false, program(op, &left, &left, false)));
            }
            // The tile's and the GM view's element types have one size (f32 into i32, not f16).
            "gm-size" => {
                cases.push((true, program(op, &Tile::new("f32"), &Tile::new("i32"), false)));
                cases.push((false, program(op, &Tile::new("f32"), &Tile::new("f16"), false)));
            }
            // `acc-dtype TYPES`: an acc source of each listed element type (into GM of the same), not f16.
            "acc-dtype" => {
                for d in words.next().unwrap_or("").split(',') {
                    let acc = Tile { loc: "acc", ..Tile::new(d) };
                    cases.push((true, program(op, &acc, &acc, false)));
                }
                let f16 = Tile { loc: "acc", ..Tile::new("f16") };
                cases.push((false, program(op, &f16, &f16, false)));
            }
            // `dtype-width N TYPES`: the N-byte element types the op takes are TYPES (each accepted);
            // a one-byte float is not among the 1-byte ones.
            "dtype-width" => {
                let width: u32 = words.next().and_then(|w| w.parse().ok()).expect("a width");
                for d in words.next().unwrap_or("").split(',') {
                    cases.push((true, program(op, &Tile::new(d), &Tile::new(d), false)));
                }
                if width == 1 {
                    cases.push((false, program(op, &Tile::new("f8E4M3FN"), &Tile::new("f8E4M3FN"), false)));
                }
            }
            // Rows of `Cols * size` bytes must be 32-byte aligned: one column more breaks it.
            "cols-align" => {
                cases.push((true, program(op, &plain, &plain, false)));
                cases.push((false, program(op, &plain, &plain, false).replace(&format!("x{c}x{x}"), &format!("x{}x{x}", c + 1))));
            }
            // `mm-triple C A B`: that (acc, left, right) triple is accepted; the other accumulator
            // type (i32 for a float one, f32 for i32) with the same operands is not.
            "mm-triple" => {
                let t: Vec<&str> = words.by_ref().take(3).collect();
                let other = if t[0] == "i32" { "f32" } else { "i32" };
                cases.push((true, matmul(op, (t[0], t[1], t[2]), "left", 32)));
                cases.push((false, matmul(op, (other, t[1], t[2]), "left", 32)));
            }
            // `mm-float TYPES`: an f32 accumulator takes each of TYPES as both operands, not i8.
            "mm-float" => {
                for d in words.next().unwrap_or("").split(',') {
                    cases.push((true, matmul(op, ("f32", d, d), "left", 32)));
                }
                cases.push((false, matmul(op, ("f32", "i8", "i8"), "left", 32)));
            }
            // `mm-acc-dtype TYPES`: the accumulator types (f32 with f16 operands, i32 with i8), not f16.
            "mm-acc-dtype" => {
                cases.push((true, matmul(op, ("f32", "f16", "f16"), "left", 32)));
                cases.push((true, matmul(op, ("i32", "i8", "i8"), "left", 32)));
                cases.push((false, matmul(op, ("f16", "f16", "f16"), "left", 32)));
            }
            // The shapes chain (left cols = right rows): a 16-row right operand breaks it.
            "mm-shape" => {
                cases.push((true, matmul(op, ("f32", "f16", "f16"), "left", 32)));
                cases.push((false, matmul(op, ("f32", "f16", "f16"), "left", 16)));
            }
            // m/k/n in [1, 4095]: only k can pass 4095 in L0A/L0B (64 KiB each: a 4096-row left or
            // 4096-column right operand needs 128 KiB at its narrowest 32-byte side), so an i8 16xK
            // left with a Kx16 col-major right: K = 4064 is accepted, 4096 rejected; and m = 0
            // (a left operand of valid 0x32) is rejected.
            "mm-mkn" => {
                cases.push((true, matmul_k(op, 4064, "")));
                cases.push((false, matmul_k(op, 4096, "")));
                cases.push((false, matmul_k(op, 32, ", valid=0x32")));
            }
            // The left operand lives in `left` (right/acc likewise): one in `mat` is rejected.
            "mm-loc" => {
                cases.push((true, matmul(op, ("f32", "f16", "f16"), "left", 32)));
                cases.push((false, matmul(op, ("f32", "f16", "f16"), "mat", 32)));
            }
            // Even valid columns: one column fewer (odd) breaks it.
            "even-cols" => {
                let even = Tile { valid: Some((r, c - 2)), ..plain.clone() };
                cases.push((true, program(op, &even, &even, false)));
                let odd = Tile { valid: Some((r, c - 1)), ..plain.clone() };
                cases.push((false, program(op, &odd, &odd, false)));
            }
            // The fixpipe parameters live in `scaling`: in `vec` they are rejected.
            "fp-loc" => {
                let mat = Tile { loc: "mat", ..Tile::new(x) };
                cases.push((true, mov_fp(op, &mat, "scaling")));
                cases.push((false, mov_fp(op, &mat, "vec")));
            }
            // `gm-layout LOC`: a LOC tile loaded from a GM view of a stated layout: each pair the
            // bullet lists is accepted without the references' warning; a pair it does not list
            // is accepted with it (pto keeps ptoas's side, TLOAD_LAYOUT_DISPUTE).
            "gm-layout" if op.starts_with("tstore") => {
                let loc = words.next().unwrap_or("vec");
                let good: &[(&str, &str, bool)] = if loc == "acc" {
                    &[("nd", "", false), ("nz", "", false)]
                } else {
                    &[("nd", "", false), ("dn", DN_ATTRS, false), ("nz", NZ_ATTRS, false), ("dn", "", true)]
                };
                for (gm, attrs, rows1) in good {
                    let (ok, stderr) = verify(&dir, &mut n, &t, &store_to_layout(op, gm, loc, attrs, *rows1));
                    if !ok || stderr.contains("[LEGAL_REFERENCES_DISAGREE]") {
                        failures.push(format!("{} [{}] {enc}: {loc}{attrs} -> {gm} not accepted silently\n{stderr}", row.doc, row.target));
                    }
                }
                cases.push((false, store_to_layout(op, "dn", loc, "", false)));
            }
            "gm-layout" => {
                let loc = words.next().unwrap_or("vec");
                let good: &[(&str, &str)] = if loc == "vec" {
                    &[("nd", ""), ("dn", DN_ATTRS), ("nz", NZ_ATTRS)]
                } else {
                    &[("nd", ""), ("nd", NZ_ATTRS), ("dn", DN_ATTRS), ("nz", NZ_ATTRS)]
                };
                for (gm, attrs) in good {
                    let (ok, stderr) = verify(&dir, &mut n, &t, &load_from_layout(gm, loc, attrs));
                    if !ok || stderr.contains("[LEGAL_REFERENCES_DISAGREE]") {
                        failures.push(format!("{} [{}] {enc}: {gm} -> {loc}{attrs} not accepted silently\n{stderr}", row.doc, row.target));
                    }
                }
                cases.push((false, load_from_layout("dn", loc, "")));
                cases.push((false, load_from_layout("nz", loc, "")));
            }
            // An 8-byte tile is copied ND2ND or DN2DN only: both are accepted silently, NZ2NZ (which
            // the vec rule allows for other widths) is accepted with the warning naming both references.
            "gm-layout-b64" => {
                for (gm, attrs) in [("nd", ""), ("dn", DN_ATTRS)] {
                    let (ok, stderr) = verify(&dir, &mut n, &t, &copy_with_layout_of("i64", op, gm, "vec", attrs, (32, 4)));
                    if !ok || stderr.contains("[LEGAL_REFERENCES_DISAGREE]") {
                        failures
                            .push(format!("{} [{}] {enc}: i64 {gm} -> vec{attrs} not accepted silently\n{stderr}", row.doc, row.target));
                    }
                }
                cases.push((true, copy_with_layout_of("i64", op, "nd", "vec", "", (32, 4))));
                cases.push((false, copy_with_layout_of("i64", op, "nz", "vec", NZ_ATTRS, (32, 4))));
            }
            // Static extents of the copy are positive: a zero-row view and valid shape are rejected.
            "positive-valid" if op == "tstore" => {
                cases.push((true, store("32x16", "f32", "vec", (32, 16), "")));
                cases.push((false, store("0x16", "f32", "vec", (32, 16), ", valid=0x16")));
                cases.push((false, store("32x0", "f32", "vec", (32, 16), ", valid=32x0")));
            }
            // An acc source's non-quantizing destination types (f16 accepted, i8 not).
            "acc-gm-dtype" => {
                for gm in ["i32", "f32", "f16", "bf16"] {
                    cases.push((true, store("16x16", gm, "acc", (16, 16), "")));
                }
                cases.push((false, store("16x16", "i8", "acc", (16, 16), "")));
            }
            // An acc source has at most 4095 columns (static capacity and valid).
            "acc-store-shape" => {
                cases.push((true, store_op(op, "16x16", "f32", "acc", (16, 16), "")));
                cases.push((false, store_op(op, "16x4096", "f32", "acc", (16, 4096), "")));
                cases.push((false, store_op(op, "16x4096", "f32", "acc", (16, 4112), ", valid=16x4096")));
            }
            "positive-valid" => {
                cases.push((true, load("32x16", "f32", "vec", (32, 16), "")));
                cases.push((false, load("0x16", "f32", "vec", (32, 16), ", valid=0x16")));
                cases.push((false, load("32x0", "f32", "vec", (32, 16), ", valid=32x0")));
            }
            // `max-rows LOC N`: an ND LOC tile of N rows (32-byte rows of i8) loads; N + 1 rows do not.
            "max-rows" => {
                let loc = words.next().unwrap_or("vec");
                let max: u32 = words.next().and_then(|w| w.parse().ok()).expect("a row count");
                cases.push((true, load(&format!("{max}x32"), "i8", loc, (max, 32), "")));
                cases.push((false, load(&format!("{}x32", max + 1), "i8", loc, (max + 1, 32), "")));
            }
            // An 8-byte tile's pad value is null (0) or zero (1), not max (2).
            "pad-null-zero" => {
                cases.push((true, load("32x4", "i64", "vec", (32, 4), "")));
                cases.push((true, load("32x4", "i64", "vec", (32, 4), ", pad=1")));
                cases.push((false, load("32x4", "i64", "vec", (32, 4), ", pad=2")));
            }
            // The view's shape is the tile's valid shape, leading dimensions folded into rows.
            "view-shape" => {
                cases.push((true, load("1x1x2x16x16", "f32", "vec", (32, 16), "")));
                cases.push((true, load("32x16", "f32", "vec", (32, 16), "")));
                cases.push((false, load("16x16", "f32", "vec", (32, 16), "")));
                cases.push((false, load("32x8", "f32", "vec", (32, 16), "")));
            }
            // MX operand pairs: the four e4m3/e5m2 pairs silently, f16 rejected, hif8 (ptoas's side)
            // accepted with the references' warning.
            "mx-fp8" => {
                let (e4, e5) = ("f8E4M3FN", "f8E5M2");
                for (a, b) in [(e4, e4), (e4, e5), (e5, e4), (e5, e5)] {
                    let (ok, stderr) = verify(&dir, &mut n, &t, &matmul_mx(("f32", a, b), "f8E8M0FNU"));
                    if !ok || stderr.contains("[LEGAL_REFERENCES_DISAGREE]") {
                        failures.push(format!("{} [{}] {enc}: ({a}, {b}) not accepted silently\n{stderr}", row.doc, row.target));
                    }
                }
                let (ok, stderr) = verify(&dir, &mut n, &t, &matmul_mx(("f32", "f16", "f16"), "f8E8M0FNU"));
                if ok || !stderr.contains("[LEGAL_UNSUPPORTED_TUPLE]") {
                    failures.push(format!("{} [{}] {enc}: f16 operands not rejected\n{stderr}", row.doc, row.target));
                }
                cases.push((false, matmul_mx(("f32", "hif8", "hif8"), "f8E8M0FNU")));
            }
            // The MX accumulator is f32 and the scales e8m0: an f16 accumulator or an f8E5M2 scale is rejected.
            "mx-c-scale" => {
                cases.push((true, matmul_mx(("f32", "f8E4M3FN", "f8E4M3FN"), "f8E8M0FNU")));
                cases.push((false, matmul_mx(("f16", "f8E4M3FN", "f8E4M3FN"), "f8E8M0FNU")));
                cases.push((false, matmul_mx(("f32", "f8E4M3FN", "f8E4M3FN"), "f8E5M2")));
            }
            // `rounds VALUES`: each listed `rounds` attribute value is accepted, 5 is not.
            "rounds" => {
                let with =
                    |v: &str| program(op, &plain, &plain, false).replace("ins(%k, %k :", &format!("ins(%k, %k {{rounds = {v} : i32}} :"));
                for v in words.next().unwrap_or("").split(',') {
                    cases.push((true, with(v)));
                }
                cases.push((false, with("5")));
            }
            // The fixpipe path converts accumulators only: the same move from a vec source is rejected.
            "fp-src-acc" => {
                let mat = Tile { loc: "mat", ..Tile::new(x) };
                cases.push((true, mov_fp(op, &mat, "scaling")));
                cases.push((false, mov_fp(op, &mat, "scaling").replace("<acc, 32x16xf32>", "<vec, 32x16xf32>")));
            }
            // `tmp-rows`: a given scratch tile needs one row more than dst (`pto lower` checks scratch
            // sizes, `pto verify` does not): dst rows + 1 lower, dst rows alone are LEGAL_TMP_TOO_SMALL.
            "tmp-rows" => {
                let a = plain.text();
                let with_tmp = |rows: u32| binary_with_tmp(op, &a, &format!("!pto.tile_buf<vec, {rows}x32xui8>"));
                let (ok, stderr) = lower_scratch(&dir, &mut n, &t, &with_tmp(r + 1));
                if !ok {
                    failures.push(format!("{} [{}] {enc}: a tmp of dst rows + 1 not lowered\n{stderr}", row.doc, row.target));
                }
                let (ok, stderr) = lower_scratch(&dir, &mut n, &t, &with_tmp(r));
                if ok || !stderr.contains(&format!("[{}]", row.diagnostic)) {
                    failures
                        .push(format!("{} [{}] {enc}: a tmp of dst rows lowered (want {})\n{stderr}", row.doc, row.target, row.diagnostic));
                }
            }
            // `tmp-cols`: a given one-row scratch tile needs Cols + 2·⌈Cols/64⌉ elements (rounded up to a
            // 32-byte row) to lower; Cols alone are LEGAL_TMP_TOO_SMALL (`pto lower` sizes scratch).
            "tmp-cols" => {
                let a = plain.text();
                let with_tmp = |cols: u32| binary_with_tmp(op, &a, &format!("!pto.tile_buf<vec, 1x{cols}x{x}>"));
                let per_block = 32 / bytes(x);
                let need = (c + 2 * c.div_ceil(64)).div_ceil(per_block) * per_block;
                let (ok, stderr) = lower_scratch(&dir, &mut n, &t, &with_tmp(need));
                if !ok {
                    failures.push(format!("{} [{}] {enc}: a tmp of {need} columns not lowered\n{stderr}", row.doc, row.target));
                }
                let (ok, stderr) = lower_scratch(&dir, &mut n, &t, &with_tmp(c));
                if ok || !stderr.contains(&format!("[{}]", row.diagnostic)) {
                    failures.push(format!(
                        "{} [{}] {enc}: a tmp of Cols = {c} columns lowered (want {})\n{stderr}",
                        row.doc, row.target, row.diagnostic
                    ));
                }
            }
            "distinct" => {
                cases.push((true, program(op, &plain, &plain, false)));
                cases.push((false, program(op, &plain, &plain, true)));
            }
            // Single-source form: dst0/dst1 of src's valid rows and half its valid columns are
            // accepted; the page's literal "same valid shape", other rows, an odd src (whose half
            // the NPU rounds down) are not.
            "half-cols" => {
                let (r, c) = plain.shape();
                cases.push((true, deinterleave_one(x, (r, c), (r, c / 2))));
                cases.push((true, deinterleave_one(x, (r / 2, c - 2), (r / 2, c / 2 - 1))));
                cases.push((false, deinterleave_one(x, (r, c), (r, c))));
                cases.push((false, deinterleave_one(x, (r, c), (r / 2, c / 2))));
                cases.push((false, deinterleave_one(x, (r, c - 1), (r, c / 2 - 1))));
            }
            // A mat tile of one 32-byte block (col-major 8x1 f32, row-major 1x8 f32) is filled; one
            // below a block (col-major 1x1 and 1x4 f32) is rejected, as is one of 32768 blocks.
            "mat-blocks" => {
                cases.push((true, expands_mat("f32", (8, 1), DN_ATTRS)));
                cases.push((true, expands_mat("f32", (1, 8), "")));
                cases.push((false, expands_mat("f32", (1, 1), DN_ATTRS)));
                cases.push((false, expands_mat("f32", (1, 4), DN_ATTRS)));
                cases.push((false, expands_mat("f32", (1024, 256), "")));
            }
            // ND->NZ and DN->ZN from 2-D views (or 3-D / 5-D ones whose leading dims are a static 1)
            // into fractal-512 tiles are accepted; a dynamic or static leading dim other than 1 and
            // fractal 1024 are not.
            // The rule is the conversion's: ND->ND folds a dynamic leading dim into the rows.
            "gm-convert" => {
                let (nz, zn) = (NZ_ATTRS, ", blayout=row_major, slayout=col_major");
                cases.push((true, load_dims("nd", &[Some(32), Some(16)], nz)));
                cases.push((true, load_dims("nd", &[Some(1), Some(32), Some(16)], nz)));
                cases.push((true, load_dims("nd", &[Some(1), Some(1), Some(1), Some(32), Some(16)], nz)));
                cases.push((false, load_dims("nd", &[Some(1), None, Some(1), Some(32), Some(16)], nz)));
                cases.push((false, load_dims("nd", &[Some(1), Some(1), Some(2), Some(16), Some(16)], nz)));
                cases.push((true, load_dims("dn", &[Some(32), Some(16)], zn)));
                cases.push((true, load_dims("nd", &[None, Some(32), Some(16)], "")));
                cases.push((false, load_dims("nd", &[None, Some(32), Some(16)], nz)));
                cases.push((false, load_dims("nd", &[Some(2), Some(16), Some(16)], nz)));
                cases.push((false, load_dims("nd", &[Some(32), Some(16)], &format!("{nz}, fractal=1024"))));
                cases.push((false, load_dims("dn", &[Some(32), Some(16)], &format!("{zn}, fractal=1024"))));
            }
            other => failures.push(format!("{} [{}]: unknown encoding {other}", row.doc, row.target)),
        }
        for (want_accept, prog) in cases {
            let (accepted, stderr) = verify(&dir, &mut n, &t, &prog);
            let has = |classes: &str| classes.split('|').any(|c| stderr.contains(&format!("[{c}]")));
            let ok = match (want_accept, row.diagnostic.strip_prefix("warn:")) {
                (true, _) => accepted,
                // The breaking program is accepted with the warning naming both references.
                (false, Some(warning)) => accepted && has(warning),
                (false, None) => !accepted && has(&row.diagnostic),
            };
            if !ok {
                let what = if want_accept {
                    "satisfying program rejected".to_string()
                } else {
                    format!("breaking program not rejected with {}", row.diagnostic)
                };
                failures.push(format!("{} [{}] {enc}\n  bullet: {}\n  {what}\n{prog}{stderr}", row.doc, row.target, row.bullet));
            }
        }
    }
    println!("isa-doc bullets: {} total; {tested} encoded and tested; {not_encoded} not encoded (with why); {not_yet} not yet", rows.len());
    assert!(failures.is_empty(), "{} rows fail:\n{}", failures.len(), failures.join("\n\n"));
    assert_eq!((rows.len(), tested, not_encoded, not_yet), (495, 405, 90, 0), "(total, tested, not encoded, not yet)");
}
