//! Every ISA op has a real operand pattern, and the ops that used to accept anything reject
//! their misuse.
//!
//! * `no_isa_op_has_an_any_slot` walks the op table (`pto_ir::ops::all()`, what `pto ops` lists)
//!   and fails on an `any` slot in an op with a pto-isa page;
//! * one test per op that used to have a `args:any*` pattern (the 32 former `LOOSE` entries,
//!   then the 7 ops with an `any` slot) writes a misuse, checks the diagnostic class it gets
//!   (structural: verify only; legality: verify and `legalize` for one target), and checks that
//!   the corrected program is accepted by the same check.

use pto_ir::diag::DiagClass::{self, *};
use pto_ir::ops::SlotKind;
use pto_lower::TargetId::{self, A2A3, A5};

/// The classes of the errors a program gets: structural verification, then (when the module
/// verifies and a target is given) `legalize` for that target.
fn errors(text: &str, target: Option<TargetId>) -> Vec<DiagClass> {
    let (module, _) = pto_asm::parse(text, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("parse: {:#?}\n{text}", d.0));
    let structural = pto_ir::verify::verify(&module);
    if structural.has_errors() {
        return structural.0.iter().filter(|d| d.is_error()).map(|d| d.class).collect();
    }
    let Some(target) = target else { return Vec::new() };
    let mut m = module.clone();
    match pto_lower::legalize::run(&mut m, pto_lower::Target::get(target), &mut Default::default()) {
        Ok(_) => Vec::new(),
        Err(d) => d.0.iter().filter(|d| d.is_error()).map(|d| d.class).collect(),
    }
}

/// `bad` gets `class` (and nothing else); `good` gets no error, and reads back the same from
/// MLIR's generic op form (so every formerly unchecked op goes through the generic reader too).
fn misuse(target: Option<TargetId>, class: DiagClass, bad: &str, good: &str) {
    let got = errors(bad, target);
    assert!(!got.is_empty() && got.iter().all(|c| *c == class), "misuse: expected only {class}, got {got:?}\n{bad}");
    let got = errors(good, target);
    assert!(got.is_empty(), "corrected program: expected no error, got {got:?}\n{good}");
    generic_round_trip(good);
}

/// Prints `text` in MLIR's generic form, reads it back and compares the modules.
fn generic_round_trip(text: &str) {
    use pto_asm::print::{PrintOptions, print_module};
    let (module, _) = pto_asm::parse(text, pto_ir::FileId(0)).expect("parses");
    let generic = print_module(&module, &PrintOptions { generic: true, ..Default::default() }).expect("prints");
    let (mut again, _) = pto_asm::parse(&generic, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("generic form: {:#?}\n{generic}", d.0));
    // How tile ops print (SSA or DPS) is presentation the generic form does not record.
    again.form = module.form;
    pto_ir::equiv::structurally_equal(&module, &again).unwrap_or_else(|e| panic!("generic form reads back differently: {e}\n{generic}"));
}

/// A one-op kernel: `%name: type` arguments, then the op line.
fn kernel(args: &[(&str, &str)], line: &str) -> String {
    let params: Vec<String> = args.iter().map(|(n, t)| format!("%{n}: {t}")).collect();
    format!("func.func @k({}) {{\n  {line}\n  return\n}}\n", params.join(", "))
}

/// A DPS op over named operands: `pto.OP ins(%a, ... : A, ...) outs(%d : D) {attrs}`.
fn dps(op: &str, ins: &[(&str, &str)], outs: &[(&str, &str)], attrs: &str) -> String {
    let list = |xs: &[(&str, &str)]| {
        let names: Vec<String> = xs.iter().map(|(n, _)| format!("%{n}")).collect();
        let types: Vec<&str> = xs.iter().map(|(_, t)| *t).collect();
        format!("{} : {}", names.join(", "), types.join(", "))
    };
    let mut line = format!("pto.{op} ins({})", list(ins));
    if !outs.is_empty() {
        line.push_str(&format!(" outs({})", list(outs)));
    }
    if !attrs.is_empty() {
        line.push_str(&format!(" {attrs}"));
    }
    let mut args: Vec<(&str, &str)> = Vec::new();
    for &(n, t) in ins.iter().chain(outs) {
        if !args.iter().any(|(x, _)| *x == n) {
            args.push((n, t));
        }
    }
    kernel(&args, &line)
}

/// A PTOAS parenthesised op: `[%r = ]pto.OP(%a, ... : A, ...) {attrs}[ -> R]`.
fn paren(op: &str, operands: &[(&str, &str)], attrs: &str, result: Option<&str>) -> String {
    let names: Vec<String> = operands.iter().map(|(n, _)| format!("%{n}")).collect();
    let types: Vec<&str> = operands.iter().map(|(_, t)| *t).collect();
    let mut line = format!("pto.{op}({} : {})", names.join(", "), types.join(", "));
    if !attrs.is_empty() {
        line.push_str(&format!(" {attrs}"));
    }
    if let Some(r) = result {
        line = format!("%r = {line} -> {r}");
    }
    kernel(operands, &line)
}

const F32_16: &str = "!pto.tile_buf<vec, 16x16xf32>";
const F16_16: &str = "!pto.tile_buf<vec, 16x16xf16>";
const MAT_F32_16: &str = "!pto.tile_buf<mat, 16x16xf32>";
const GROUP: &str = "!pto.group<4x!pto.memref<16x16xf32>>";
const GM_F32_16: &str = "!pto.memref<16x16xf32>";
const SESSION: &str = "!pto.async_session";

#[test]
fn no_isa_op_has_an_any_slot() {
    let mut isa = 0;
    for spec in pto_ir::ops::all().iter().filter(|s| !s.page.is_empty()) {
        isa += 1;
        let parsed = spec.opcode.parsed();
        assert!(!parsed.forms.is_empty(), "{}: an ISA op without an operand pattern", spec.full_name());
        for form in &parsed.forms {
            for slot in form.ins.iter().chain(&form.outs) {
                assert_ne!(slot.kind, SlotKind::Any, "{}: slot `{}` accepts anything ({})", spec.full_name(), slot.name, spec.sig);
            }
        }
    }
    assert_eq!(isa, 161, "150 docs/isa pages + 11 comm pages");
    // `pto ops --json` lists the same forms.
    let out = pto::cmd::ops::run(&pto::cmd::ops::OpsOptions { json: true, isa_only: true, ..Default::default() });
    let ops: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let ops = ops.as_array().expect("a list");
    assert_eq!(ops.len(), 161);
    for op in ops {
        assert!(!op["pattern"].as_str().unwrap_or("").contains(":any"), "{}: {}", op["name"], op["pattern"]);
        for form in op["forms"].as_array().expect("forms") {
            for slot in form["ins"].as_array().into_iter().chain(form["outs"].as_array()).flatten() {
                assert_ne!(slot["kind"], "any", "{}: slot {}", op["name"], slot["name"]);
            }
        }
    }
}

// ---- The 32 former `LOOSE` / `LOOSE_IN` entries ----

#[test]
fn tpartargmax_rejects_16_bit_indices_for_f32_values() {
    let op =
        |idx: &str| dps("tpartargmax", &[("v0", F32_16), ("v1", F32_16), ("i0", idx), ("i1", idx)], &[("dv", F32_16), ("di", idx)], "");
    misuse(Some(A2A3), LegalUnsupportedTuple, &op("!pto.tile_buf<vec, 16x16xi16>"), &op("!pto.tile_buf<vec, 16x16xi32>"));
}

#[test]
fn tpartargmin_rejects_a_dst_smaller_than_its_sources() {
    let half_v = "!pto.tile_buf<vec, 16x16xf16, valid=8x16>";
    let half_i = "!pto.tile_buf<vec, 16x16xi16, valid=8x16>";
    let op = |dv: &str, di: &str| {
        dps(
            "tpartargmin",
            &[("v0", F16_16), ("v1", half_v), ("i0", "!pto.tile_buf<vec, 16x16xi16>"), ("i1", half_i)],
            &[("dv", dv), ("di", di)],
            "",
        )
    };
    misuse(Some(A5), LegalUnsupportedTuple, &op(half_v, half_i), &op(F16_16, "!pto.tile_buf<vec, 16x16xi16>"));
}

#[test]
fn tquant_asym_requires_an_offset_and_sym_forbids_one() {
    let (src, sc, off) =
        (("src", "!pto.tile_buf<vec, 16x32xf32>"), ("sc", "!pto.tile_buf<vec, 16x8xf32>"), ("off", "!pto.tile_buf<vec, 16x8xf32>"));
    let asym = "{quant_type = #pto<quant_type INT8_ASYM>}";
    let dst = [("dst", "!pto.tile_buf<vec, 16x32xui8>")];
    misuse(Some(A2A3), StructConditionalOperand, &dps("tquant", &[src, sc], &dst, asym), &dps("tquant", &[src, sc, off], &dst, asym));
    // INT8_SYM: an offset is an error; a third operand alone is the scratch tile.
    let sym = "{quant_type = #pto<quant_type INT8_SYM>}";
    let dst = [("dst", "!pto.tile_buf<vec, 16x32xi8>")];
    let tmp = ("tmp", "!pto.tile_buf<vec, 16x32xf32>");
    misuse(
        Some(A2A3),
        StructConditionalOperand,
        &dps("tquant", &[src, sc, off, tmp], &dst, sym),
        &dps("tquant", &[src, sc, tmp], &dst, sym),
    );
    // The result type follows the quant type.
    let wrong = dps("tquant", &[src, sc], &[("dst", "!pto.tile_buf<vec, 16x32xui8>")], sym);
    assert_eq!(errors(&wrong, Some(A5)), vec![LegalUnsupportedTuple]);
}

#[test]
fn tquant_dn_rejects_mxfp4_from_f32() {
    let op = |alg: &str, dst: &str| {
        dps(
            "tquant_dn",
            &[("src", "!pto.tile_buf<vec, 64x32xf32>"), ("max", "!pto.tile_buf<vec, 2x32xf32>"), ("sc", "!pto.tile_buf<vec, 2x32xf32>")],
            &[("dst", dst), ("exp", "!pto.tile_buf<vec, 2x32xui8>")],
            &format!("{{mx_alg = #pto<mx_alg {alg}>}}"),
        )
    };
    misuse(
        Some(A5),
        LegalUnsupportedTuple,
        &op("OcpMxFp4E2M1", "!pto.tile_buf<vec, 64x32xui8>"),
        &op("OcpMxFp8E4M3", "!pto.tile_buf<vec, 64x32xf8E4M3FN>"),
    );
    assert_eq!(errors(&op("OcpMxFp8E4M3", "!pto.tile_buf<vec, 64x32xf8E4M3FN>"), Some(A2A3)), vec![LegalUnsupportedTuple]);
}

#[test]
fn tquant_hif4_rejects_mixed_element_types_and_exists_on_neither_target() {
    let op = |max: &str| {
        dps(
            "tquant_hif4",
            &[("src", "!pto.tile_buf<vec, 16x64xbf16>"), ("max", max), ("sc", "!pto.tile_buf<vec, 16x32xbf16>")],
            &[("dst", "!pto.tile_buf<vec, 16x32xui8>"), ("exp", "!pto.tile_buf<vec, 16x32xui8>")],
            "",
        )
    };
    let good = op("!pto.tile_buf<vec, 16x32xbf16>");
    misuse(None, StructDtypeMismatch, &op("!pto.tile_buf<vec, 16x32xf16>"), &good);
    for target in [A2A3, A5] {
        assert_eq!(errors(&good, Some(target)), vec![LegalUnsupportedTuple], "HiF4 is A6-only");
    }
}

#[test]
fn tdequant_rejects_an_unsigned_source() {
    let op = |src: &str| {
        dps(
            "tdequant",
            &[("src", src), ("sc", "!pto.tile_buf<vec, 16x8xf32>"), ("off", "!pto.tile_buf<vec, 16x8xf32>")],
            &[("dst", "!pto.tile_buf<vec, 16x32xf32>")],
            "",
        )
    };
    misuse(Some(A2A3), LegalUnsupportedTuple, &op("!pto.tile_buf<vec, 16x32xui8>"), &op("!pto.tile_buf<vec, 16x32xi8>"));
}

#[test]
fn tmatmul_mx_hif4_rejects_a_scalar_scale_and_exists_on_neither_target() {
    let a = ("a", "!pto.tile_buf<left, 16x64xf8E4M3FN, blayout=col_major, slayout=row_major>");
    let b = ("b", "!pto.tile_buf<right, 64x16xf8E4M3FN, slayout=col_major>");
    let c = [("c", "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>")];
    let bs = ("bs", "!pto.tile_buf<scaling, 64x16xui8, blayout=col_major, slayout=col_major>");
    let bad = dps("tmatmul_mx_hif4", &[a, ("as", "f32"), b, bs], &c, "");
    let good = dps("tmatmul_mx_hif4", &[a, ("as", "!pto.tile_buf<scaling, 16x64xui8>"), b, bs], &c, "");
    misuse(None, StructTypeClass, &bad, &good);
    for target in [A2A3, A5] {
        assert_eq!(errors(&good, Some(target)), vec![LegalUnsupportedTuple], "HiF4 matmul is A6-only");
    }
}

#[test]
fn tget_scale_addr_needs_a_scaling_destination() {
    let src = [("src", "!pto.tile_buf<left, 1x128xf8E4M3FN, blayout=col_major, slayout=row_major>")];
    let op = |dst: &str| dps("tget_scale_addr", &src, &[("dst", dst)], "");
    misuse(Some(A5), LegalUnsupportedTuple, &op("!pto.tile_buf<vec, 1x128xf16>"), &op("!pto.tile_buf<scaling, 1x128xf16>"));
    // Same static shape (PTOAS), checked structurally.
    assert_eq!(errors(&op("!pto.tile_buf<scaling, 2x128xf16, valid=1x128>"), None), vec![StructShapeMismatch]);
}

#[test]
fn tprefetch_async_needs_a_flat_view() {
    let op = |src: &str| paren("tprefetch_async", &[("src", src), ("s", SESSION)], "", Some("!pto.async_event"));
    misuse(Some(A2A3), StructNotFlat, &op("memref<128x128xf16, #pto.address_space<gm>>"), &op("memref<16384xf16, #pto.address_space<gm>>"));
}

#[test]
fn timg2col_writes_a_left_tile() {
    let op = |dst: &str| dps("timg2col", &[("src", "!pto.tile_buf<mat, 32x32xf16>")], &[("dst", dst)], "");
    misuse(
        Some(A2A3),
        LegalUnsupportedTuple,
        &op("!pto.tile_buf<vec, 16x32xf16>"),
        &op("!pto.tile_buf<left, 16x32xf16, slayout=row_major>"),
    );
}

#[test]
fn tsubview_stays_in_the_source_buffer() {
    let ins = [("src", "!pto.tile_buf<vec, 16x64xf32>"), ("r", "index"), ("c", "index")];
    let op = |dst: &str| dps("tsubview", &ins, &[("d", dst)], "");
    misuse(
        Some(A2A3),
        LegalUnsupportedTuple,
        &op("!pto.tile_buf<mat, 16x64xf32, valid=8x32>"),
        &op("!pto.tile_buf<vec, 16x64xf32, valid=8x32>"),
    );
}

#[test]
fn syncall_soft_counter_is_int32() {
    let soft = "{mode = #pto<sync_all_mode Soft>}";
    let op = |ws: &str| dps("syncall", &[("ws", ws), ("n", "i32")], &[], soft);
    misuse(Some(A2A3), LegalUnsupportedTuple, &op("!pto.partition_tensor_view<16xf32>"), &op("!pto.partition_tensor_view<16xi32>"));
}

#[test]
fn talloc_split_is_a_tile_split_axis() {
    let op = |split: u32| {
        paren("talloc", &[("pipe", "!pto.pipe")], &format!("{{split = {split}}}"), Some("!pto.partition_tensor_view<128x128xf32>"))
    };
    misuse(None, StructBadAttribute, &op(3), &op(0));
}

#[test]
fn tfree_requires_its_split() {
    misuse(
        None,
        StructMissingAttribute,
        &paren("tfree", &[("pipe", "!pto.pipe")], "", None),
        &paren("tfree", &[("pipe", "!pto.pipe")], "{split = 2}", None),
    );
}

#[test]
fn tpush_needs_a_producer_tile() {
    let op = |t: &str| paren("tpush", &[("t", t), ("pipe", "!pto.pipe")], "{split = 0}", None);
    misuse(Some(A2A3), LegalUnsupportedTuple, &op(MAT_F32_16), &op(F32_16));
}

#[test]
fn tpop_needs_a_consumer_tile() {
    let acc = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>";
    let op = |t: &str| paren("tpop", &[("t", t), ("pipe", "!pto.pipe")], "{split = 1}", None);
    misuse(Some(A5), LegalUnsupportedTuple, &op(acc), &op(F32_16));
}

#[test]
fn setfmatrix_takes_an_img2col_configuration() {
    let op = |cfg: &str| dps("setfmatrix", &[("cfg", cfg)], &[], "");
    misuse(None, StructTypeClass, &op(F16_16), &op("!pto.fmatrix_config"));
    // The page's upper-case DPS spelling with empty outs.
    let page = kernel(&[("cfg", "!pto.fmatrix_config")], "pto.SETFMATRIX ins(%cfg : !pto.fmatrix_config) outs()");
    assert!(errors(&page, Some(A5)).is_empty());
}

#[test]
fn set_img2col_rpt_takes_an_img2col_configuration() {
    let op = |cfg: &str| dps("set_img2col_rpt", &[("cfg", cfg)], &[], "{fmatrix_mode = #pto<fmatrix_mode FMATRIX_A_MANUAL>}");
    misuse(None, StructTypeClass, &op(MAT_F32_16), &op("!pto.fmatrix_config"));
}

#[test]
fn set_img2col_padding_takes_an_img2col_configuration() {
    let op = |cfg: &str| dps("set_img2col_padding", &[("cfg", cfg)], &[], "");
    misuse(None, StructTypeClass, &op("index"), &op("!pto.fmatrix_config"));
}

#[test]
fn set_quant_scalar_needs_its_output_type_and_an_f32_scale() {
    let op = |ty: &str, attrs: &str| dps("set_quant_scalar", &[("q", ty)], &[], attrs);
    misuse(Some(A2A3), StructMissingAttribute, &op("f32", ""), &op("f32", "{out_dtype = i8}"));
    assert_eq!(errors(&op("i32", "{out_dtype = i8}"), Some(A2A3)), vec![LegalUnsupportedTuple]);
    assert_eq!(errors(&op("f32", "{out_dtype = 8}"), None), vec![StructBadAttribute]);
}

#[test]
fn set_quant_vector_takes_a_scaling_tile() {
    let op = |fp: &str| dps("set_quant_vector", &[("fp", fp)], &[], "");
    misuse(Some(A2A3), LegalUnsupportedTuple, &op("!pto.tile_buf<vec, 1x128xf32>"), &op("!pto.tile_buf<scaling, 1x128xf32>"));
}

#[test]
fn comm_tbroadcast_stages_the_element_type_it_sends() {
    let op = |stg: &str| dps("comm.tbroadcast", &[("g", GROUP), ("src", GM_F32_16), ("stg", stg)], &[], "");
    misuse(None, StructDtypeMismatch, &op(F16_16), &op(F32_16));
    // The PTO-AS short form of the page, with the bare alias.
    let short = kernel(&[("g", GROUP), ("src", GM_F32_16)], &format!("tbroadcast %g, %src : ({GROUP}, {GM_F32_16})"));
    assert!(errors(&short, Some(A2A3)).is_empty());
}

#[test]
fn comm_tgather_gathers_the_group_element_type() {
    let op = |dst: &str| dps("comm.tgather", &[("g", GROUP), ("dst", dst), ("stg", F32_16)], &[], "");
    misuse(None, StructDtypeMismatch, &op("!pto.memref<64x16xf16>"), &op("!pto.memref<64x16xf32>"));
}

#[test]
fn comm_tget_ping_and_pong_are_one_tile_type() {
    let op = |pong: &str| dps("comm.tget", &[("dst", GM_F32_16), ("src", GM_F32_16), ("ping", F32_16), ("pong", pong)], &[], "");
    misuse(None, StructShapeMismatch, &op("!pto.tile_buf<vec, 8x16xf32>"), &op(F32_16));
}

#[test]
fn comm_tget_async_copies_one_element_type() {
    let gm = |t: &str| format!("memref<128x{t}, #pto.address_space<gm>>");
    let (f32_, f16_) = (gm("f32"), gm("f16"));
    let op = |src: &str| paren("comm.tget_async", &[("dst", &f32_), ("src", src), ("s", SESSION)], "", Some("!pto.async_event"));
    misuse(Some(A5), StructDtypeMismatch, &op(&f16_), &op(&f32_));
}

#[test]
fn comm_tnotify_signals_are_int32() {
    let op = |sig: &str| dps("comm.tnotify", &[("sig", sig), ("v", "i32")], &[], "{op = #pto.notify_op<Set>}");
    misuse(Some(A2A3), LegalUnsupportedTuple, &op("!pto.memref<f32>"), &op("!pto.memref<i32>"));
}

#[test]
fn comm_tput_copies_one_element_type() {
    let op = |dst: &str| dps("comm.tput", &[("dst", dst), ("src", GM_F32_16), ("stg", F32_16)], &[], "");
    misuse(None, StructDtypeMismatch, &op("!pto.memref<16x16xf16>"), &op(GM_F32_16));
}

#[test]
fn comm_tput_async_needs_flat_views() {
    let op = |shape: &str| {
        let gm = format!("memref<{shape}xf32, #pto.address_space<gm>>");
        paren("comm.tput_async", &[("dst", &gm), ("src", &gm), ("s", SESSION)], "", Some("!pto.async_event"))
    };
    misuse(Some(A2A3), StructNotFlat, &op("8x16"), &op("1x128"));
}

#[test]
fn comm_treduce_requires_its_reduction() {
    let op = |attrs: &str| dps("comm.treduce", &[("g", GROUP), ("dst", GM_F32_16), ("acc", F32_16), ("recv", F32_16)], &[], attrs);
    misuse(Some(A2A3), StructMissingAttribute, &op(""), &op("{op = #pto.reduce_op<Sum>}"));
}

#[test]
fn comm_tscatter_stages_in_ub() {
    let op = |stg: &str| dps("comm.tscatter", &[("g", GROUP), ("src", "!pto.memref<64x16xf32>"), ("stg", stg)], &[], "");
    misuse(Some(A2A3), LegalUnsupportedTuple, &op(MAT_F32_16), &op(F32_16));
}

#[test]
fn comm_ttest_requires_its_comparison() {
    let op = |attrs: &str| {
        kernel(
            &[("sig", "!pto.memref<i32>"), ("v", "i32")],
            &format!("%r = pto.comm.ttest %sig, %v {attrs} : (!pto.memref<i32>, i32) -> i1"),
        )
    };
    misuse(Some(A5), StructMissingAttribute, &op(""), &op("{cmp = #pto.cmp<EQ>}"));
}

#[test]
fn comm_twait_signals_are_int32() {
    let op = |sig: &str| dps("comm.twait", &[("sig", sig), ("v", "i32")], &[], "{cmp = #pto.cmp<GE>}");
    misuse(Some(A5), LegalUnsupportedTuple, &op("!pto.memref<i64>"), &op("!pto.memref<i32>"));
}

// ---- The ops that had an `any` slot ----

#[test]
fn tmrgsort_executed_counts_are_a_vector() {
    let row = "!pto.tile_buf<vec, 1x64xf32>";
    let op = |ex: &str| dps("tmrgsort", &[("a", row), ("b", row)], &[("d", "!pto.tile_buf<vec, 1x128xf32>"), ("ex", ex)], "");
    misuse(None, StructTypeClass, &op(row), &op("vector<4xi16>"));
}

#[test]
fn tprefetch_fills_a_tile() {
    let op = |dst: &str| dps("tprefetch", &[("src", "!pto.partition_tensor_view<16x16xf32>")], &[("dst", dst)], "");
    misuse(None, StructTypeClass, &op("i32"), &op(F32_16));
}

#[test]
fn ttri_takes_one_diagonal() {
    let op = |ins: &[(&str, &str)]| dps("ttri", ins, &[("dst", F32_16)], "{upperOrLower = 1 : i32}");
    misuse(Some(A2A3), StructArity, &op(&[("d", "i32"), ("e", "i32")]), &op(&[("d", "i32")]));
}

#[test]
fn trandom_takes_six_words_or_two_tiles() {
    let op = |ins: &[(&str, &str)]| dps("trandom", ins, &[("dst", "!pto.tile_buf<vec, 16x16xui32>")], "");
    let words = [("k0", "i32"), ("k1", "i32"), ("c0", "i32"), ("c1", "i32"), ("c2", "i32"), ("c3", "i32")];
    misuse(Some(A5), StructArity, &op(&words[..5]), &op(&words));
    let key = "!pto.tile_buf<vec, 1x8xui32>";
    assert!(errors(&op(&[("key", key), ("ctr", key)]), Some(A5)).is_empty());
}

#[test]
fn thistogram_filter_bytes_are_u8() {
    let src = ("src", "!pto.tile_buf<vec, 16x64xui16>");
    let op = |idx: &str| dps("thistogram", &[src, ("idx", idx)], &[("dst", "!pto.tile_buf<vec, 16x256xui32>")], "");
    misuse(
        Some(A5),
        LegalUnsupportedTuple,
        &op("!pto.tile_buf<vec, 32x1xf16, blayout=col_major>"),
        &op("!pto.tile_buf<vec, 32x1xui8, blayout=col_major>"),
    );
}

#[test]
fn tprint_prints_a_tile_or_a_view() {
    let op = |ty: &str| dps("tprint", &[("x", ty)], &[], "");
    misuse(Some(A2A3), StructTypeClass, &op("i32"), &op(F32_16));
    assert!(errors(&op("!pto.partition_tensor_view<16x16xf32>"), Some(A2A3)).is_empty());
}

#[test]
fn tsync_waits_on_events() {
    let op = |ty: &str| dps("tsync", &[("e", ty)], &[], "");
    misuse(None, StructTypeClass, &op("i32"), &op("!pto.event"));
}
