//! Per-target legality: the tables, the `legalize` pass and the generated docs.
//!
//! * `corpus_agrees_with_ptoas_verdicts` — every PTOAS sample that `pto` parses goes through
//!   structural verification and `legalize` for A2A3 and for A5; the outcome is compared with
//!   the `a3` / `a5` columns of `VERDICTS.tsv` (`OK`/`PASS_FAIL` ⇔ no error,
//!   `VERIFY_FAIL`/`PARSE_FAIL` ⇔ an error). Every deliberate difference is listed in
//!   [`DELIBERATE`] with its reason, and the diagnostics of those files are checked to be about
//!   exactly that reason.
//! * `docs_legality_md_is_generated` — `docs/legality.md` equals `legalize::markdown()`;
//!   regenerate with `PTO_REGENERATE_DOCS=1 cargo test --test legality`.
//! * table coverage and diagnostic contents.

use common::{corpus_dir, verdicts};
use pto_ir::diag::{DiagClass, Diagnostic, SourceMap};
use pto_lower::legality::{self, Applies, ISA_FAMILIES};
use pto_lower::{Changed, TargetId};
use std::collections::BTreeMap;

mod common;

/// Why `pto` and PTOAS disagree on a (file, target), or why they agree on an error.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Reason {
    /// PTOAS rewrites the `blayout` of every `left` tile from the target at parse time (A3:
    /// row_major, A5: col_major), so it never sees the written layout; `pto` checks the written
    /// layout against the target's TileLeft layout (A2A3 `ZZ`, A5 `NZ`).
    LeftLayout,
    /// PTOAS rejects `trowmax` without `tmp` at parse time; `pto` accepts it (insert-scratch
    /// adds the scratch tile).
    ScratchInserted,
    /// A5 `tstore` takes its source from vec or acc only.
    TstoreMatOnA5,
}

impl Reason {
    /// True when a diagnostic is about this reason.
    fn explains(self, d: &Diagnostic) -> bool {
        let actual = d.actual.as_deref().unwrap_or("");
        match self {
            Reason::LeftLayout => {
                d.class == DiagClass::LegalUnsupportedTuple
                    && actual.contains(", left, ")
                    && d.expected.as_deref().is_some_and(|e| e.contains("loc left, layout"))
            }
            Reason::ScratchInserted => false,
            Reason::TstoreMatOnA5 => {
                d.op.as_deref() == Some("pto.tstore") && d.operand.as_deref() == Some("ins[0] (src)") && actual.contains(", mat, ")
            }
        }
    }
}

const LEFT_A3: &str =
    "left tile written col_major (A5 Nz): pto rejects it on A2A3 (TileLeft is Zz); PTOAS rewrites the blayout to row_major at parse time";
const LEFT_A5: &str =
    "left tile written row_major (A2A3 Zz): pto rejects it on A5 (TileLeft is Nz); PTOAS rewrites the blayout to col_major at parse time";

/// Every (file, target) where our verdict differs from PTOAS, with the reason.
const DELIBERATE: &[(&str, &str, Reason, &str)] = &[
    (
        "Complex/mix_kernel.pto",
        "a5",
        Reason::ScratchInserted,
        "PTOAS rejects `trowmax` without tmp at parse time; pto accepts it and insert-scratch adds the scratch tile",
    ),
    ("PyPTOIRParser/paged_attention_example_kernel_pv_matmul.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("PyPTOIRParser/paged_attention_example_kernel_qk_matmul.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_1.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_12.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_13.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_15.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_2.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_5.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_7.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Qwen3DecodeA3/qwen3_decode_incore_9.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("Sync/matmul.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("TPushTPop/test1/kernel.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("TPushTPop/test2/kernel.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("TPushTPop/test3/kernel.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("TPushTPop/test4/kernel.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("TPushTPop/test5/kernel.pto", "a3", Reason::LeftLayout, LEFT_A3),
    ("ControlFlow/control_flow_mixed_pipe.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FFN/ffn-pto-new.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FFN/ffn_fc1.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FFN/ffn_fc1_splitk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FFN/ffn_fc2.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FFN/ffn_full_tiled.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention-pto-new.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_full_intermediate.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_full_tiled.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_qk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_qk_boundary.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_qk_splitk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_sv.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("FlashAttention/flash_attention_sv_splitk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("GQA/gqa-pto-new.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("GQA/gqa_full_tiled.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("GQA/gqa_qk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("GQA/gqa_qk_splitk.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("GQA/gqa_sv.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("MatmulVectorMix/matmul_vector_mix-pto-new.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("Matmul_transpose/Matmul_transpose-pto-ir.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("TPushTPop/a3/test1/kernel.pto", "a5", Reason::LeftLayout, LEFT_A5),
    ("TPushTPop/a3/test2/kernel.pto", "a5", Reason::LeftLayout, LEFT_A5),
];

/// Errors both sides report, with the reason ours must give.
const AGREED_ERRORS: &[(&str, &str, Reason, &str)] = &[
    // PTOAS fails these on a3 only because the module says `pto.target_arch = "a5"` and its
    // parser forced the left tiles to row_major; pto, checking the written A5-style (Nz) left
    // tiles against A2A3, rejects them for the layout itself.
    ("Qwen3DecodeA5/qwen3_decode_incore_1.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_12.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_13.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_15.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_2.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_5.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_7.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Qwen3DecodeA5/qwen3_decode_incore_9.pto", "a3", Reason::LeftLayout, "A5-style left tiles on A2A3"),
    ("Partition5D/partition5d.pto", "a5", Reason::TstoreMatOnA5, "A5 tstore rejects a mat source"),
    ("Partition5D/partition5d_dynamic.pto", "a5", Reason::TstoreMatOnA5, "A5 tstore rejects a mat source"),
    ("Complex/mix_kernel.pto", "a3", Reason::LeftLayout, "PTOAS: parse error (trowmax without tmp); pto: A5-style left tiles on A2A3"),
];

/// Structural verification, then `legalize` for the target (as `pto lower --stop-after legalize`
/// does). Returns the errors.
fn errors_for(module: &pto_ir::Module, target: TargetId) -> Vec<Diagnostic> {
    let diags = pto_ir::verify::verify(module);
    if diags.has_errors() {
        return diags.0.into_iter().filter(|d| d.is_error()).collect();
    }
    let mut m = module.clone();
    match pto_lower::legalize::run(&mut m, pto_lower::Target::get(target)) {
        Ok(changed) => {
            assert_eq!(changed, Changed::No, "legalize never changes the module");
            Vec::new()
        }
        Err(d) => {
            assert!(!d.0.is_empty(), "an Err carries diagnostics");
            d.0
        }
    }
}

#[test]
fn corpus_agrees_with_ptoas_verdicts() {
    let rows = verdicts();
    assert_eq!(rows.len(), 106);
    // (target) -> (agree OK, agree error, deliberate differences)
    let mut tally: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut seen_deliberate = 0;
    let mut seen_agreed = 0;
    for (file, a3, a5) in &rows {
        let text = std::fs::read_to_string(corpus_dir().join(file)).expect("corpus file is readable");
        let mut sources = SourceMap::default();
        let fid = sources.add(file.clone(), text.clone());
        let Ok((module, _)) = pto_asm::parse(&text, fid) else {
            assert_eq!((a3.as_str(), a5.as_str()), ("PARSE_FAIL", "PARSE_FAIL"), "{file}: pto rejects what PTOAS parses");
            continue;
        };
        for (tname, target, verdict) in [("a3", TargetId::A2A3, a3), ("a5", TargetId::A5, a5)] {
            let errors = errors_for(&module, target);
            let ptoas_error = match verdict.as_str() {
                "OK" | "PASS_FAIL" => false,
                "VERIFY_FAIL" | "PARSE_FAIL" => true,
                other => panic!("{file}: unknown verdict {other}"),
            };
            let ours_error = !errors.is_empty();
            let show = || errors.iter().map(|d| format!("{}: {}", sources.location(d.span), d.message)).collect::<Vec<_>>().join("\n");
            let entry = tally.entry(tname).or_default();
            if let Some((_, _, reason, why)) = DELIBERATE.iter().find(|(f, t, _, _)| f == file && *t == tname) {
                seen_deliberate += 1;
                assert_ne!(ours_error, ptoas_error, "{file} [{tname}]: listed as a deliberate difference ({why}) but both agree");
                assert!(errors.iter().all(|d| reason.explains(d)), "{file} [{tname}]: an error other than {reason:?}:\n{}", show());
                entry.2 += 1;
                continue;
            }
            assert_eq!(ours_error, ptoas_error, "{file} [{tname}]: PTOAS says {verdict}, pto says:\n{}", show());
            if ours_error {
                let (_, _, reason, _) = AGREED_ERRORS
                    .iter()
                    .find(|(f, t, _, _)| f == file && *t == tname)
                    .unwrap_or_else(|| panic!("{file} [{tname}]: error without a pinned reason:\n{}", show()));
                seen_agreed += 1;
                assert!(errors.iter().all(|d| reason.explains(d)), "{file} [{tname}]: an error other than {reason:?}:\n{}", show());
                // Every error is located at a line of the file.
                for d in &errors {
                    let (line, _) = sources.get(fid).expect("file").line_col(d.span.start);
                    assert!(line > 1, "{file}: diagnostic without a location: {}", d.message);
                }
                entry.1 += 1;
            } else {
                entry.0 += 1;
            }
        }
    }
    assert_eq!(seen_deliberate, DELIBERATE.len(), "every deliberate difference is still a difference");
    assert_eq!(seen_agreed, AGREED_ERRORS.len(), "every pinned agreed error still occurs");
    // 103 files parse. a3: 78 OK + 9 errors agree, 16 deliberate; a5: 77 OK + 2 errors agree, 24 deliberate.
    assert_eq!(tally["a3"], (78, 9, 16), "a3: (agree OK, agree error, deliberate differences)");
    assert_eq!(tally["a5"], (77, 2, 24), "a5: (agree OK, agree error, deliberate differences)");
}

// ---- Docs ----

#[test]
fn docs_legality_md_is_generated() {
    let path = common::root().join("docs/legality.md");
    let want = pto_lower::legalize::markdown();
    if std::env::var_os("PTO_REGENERATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("docs/legality.md is writable");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/legality.md is out of date with the legality tables; regenerate it with\n    PTO_REGENERATE_DOCS=1 cargo test --test legality"
    );
    assert!(want.contains("## Elementwise binary (`ElemBinary`)"));
    assert!(want.contains("| `tadd` |"));
}

// ---- Tables ----

#[test]
fn every_isa_family_has_a_default_row_on_both_targets() {
    for table in legality::TABLES {
        for &family in ISA_FAMILIES {
            assert!(table.family_row(family).is_some(), "{}: no family row for {family:?}", table.name);
        }
        let families = table.rows.iter().filter(|r| matches!(r.applies, Applies::Family(_))).count();
        assert_eq!(families, ISA_FAMILIES.len(), "{}: one default row per family", table.name);
    }
    assert_eq!(legality::table(TargetId::A2A3).name, "a2a3");
    assert_eq!(legality::table(TargetId::A5).name, "a5");
}

/// Slot names in rows must exist in the operand patterns of the ops they apply to (a typo would
/// silently disable a rule).
#[test]
fn row_slots_exist_in_the_op_table() {
    for table in legality::TABLES {
        for (i, row) in table.rows.iter().enumerate() {
            let ops: Vec<&pto_ir::OpSpec> = pto_ir::ops::all()
                .iter()
                .filter(|s| match row.applies {
                    Applies::Family(f) => s.family == f,
                    Applies::Ops(ops) => ops.contains(&s.opcode),
                })
                .collect();
            assert!(!ops.is_empty(), "{} row {i}: applies to no op", table.name);
            let slots: Vec<String> = ops
                .iter()
                .flat_map(|s| s.opcode.parsed().forms.iter())
                .flat_map(|f| f.ins.iter().chain(&f.outs).map(|x| x.name.clone()).collect::<Vec<_>>())
                .collect();
            let mut named: Vec<&str> = row.operands.iter().flat_map(|r| r.slots.iter().copied()).collect();
            named.extend(row.checks.iter().flat_map(|c| c.kind.slots()));
            for n in named {
                assert!(slots.iter().any(|s| s == n), "{} row {i} ({}): slot `{n}` is in no operand pattern", table.name, row.source);
            }
            if let Some(f) = row.form {
                assert!(ops.iter().all(|s| (f as usize) < s.opcode.parsed().forms.len()), "{} row {i}: form {f} out of range", table.name);
            }
        }
    }
}

#[test]
fn targets_differ_only_through_table_rows() {
    use pto_ir::Opcode;
    let a2a3 = legality::table(TargetId::A2A3);
    let a5 = legality::table(TargetId::A5);
    // tshls: no 8-bit types on A2A3, 8..64-bit on A5.
    let dt = |t: &legality::Table, op: Opcode, slot: &str| -> Vec<&str> {
        let e = t.effective(op, Some(0)).expect("described");
        e.operand(slot).expect("slot").variants[0].dtypes.expect("dtypes").iter().map(|d| d.name()).collect()
    };
    assert_eq!(dt(a2a3, Opcode::TShls, "src"), ["i16", "ui16", "i32", "ui32"]);
    assert_eq!(dt(a5, Opcode::TShls, "src"), ["i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64"]);
    // tpack is A5-only.
    assert!(!a2a3.effective(Opcode::TPack, Some(0)).expect("row").supported);
    assert!(a5.effective(Opcode::TPack, Some(0)).expect("row").supported);
    // Infrastructure ops are not described.
    assert!(a2a3.effective(Opcode::AllocTile, None).is_none());
    assert!(a5.effective(Opcode::ArithAddi, None).is_none());
}

// ---- Diagnostics ----

fn legalize_text(text: &str, target: TargetId) -> (SourceMap, Vec<Diagnostic>) {
    let mut sources = SourceMap::default();
    let fid = sources.add("t.pto", text);
    let (module, _) = pto_asm::parse(text, fid).unwrap_or_else(|d| panic!("parse: {:?}", d.0));
    let v = pto_ir::verify::verify(&module);
    assert!(!v.has_errors(), "verify: {:?}", v.0);
    let mut m = module.clone();
    let diags = match pto_lower::legalize::run(&mut m, pto_lower::Target::get(target)) {
        Ok(_) => Vec::new(),
        Err(d) => d.0,
    };
    (sources, diags)
}

#[test]
fn unsupported_dtype_names_op_operand_tuple_and_allowed_tuples() {
    let text = "// bf16 add\nfunc.func @k(%a: !pto.tile_buf<vec, 16x16xbf16>) {\n  pto.tadd ins(%a, %a : !pto.tile_buf<vec, 16x16xbf16>, !pto.tile_buf<vec, 16x16xbf16>) outs(%a : !pto.tile_buf<vec, 16x16xbf16>)\n  return\n}\n";
    let (sources, diags) = legalize_text(text, TargetId::A2A3);
    assert_eq!(diags.len(), 3, "src0, src1 and dst: {:#?}", diags);
    let d = &diags[0];
    assert_eq!(d.class, DiagClass::LegalUnsupportedTuple);
    assert_eq!(d.op.as_deref(), Some("pto.tadd"));
    assert_eq!(d.operand.as_deref(), Some("ins[0] (src0)"));
    assert_eq!(d.actual.as_deref(), Some("bf16, vec, ND (row_major/none_box), 16x16"));
    assert_eq!(d.expected.as_deref(), Some("dtype {i16, i32, f16, f32}, loc vec, layout row_major"));
    assert_eq!(sources.location(d.span), "t.pto:3:3");
    assert_eq!(diags[2].operand.as_deref(), Some("outs[0] (dst)"));
    // Legal on A5.
    let (_, diags) = legalize_text(text, TargetId::A5);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn valid_shape_equality_and_forbidden_tmp() {
    let text = "// checks\nfunc.func @k(%s: !pto.tile_buf<vec, 16x64xf32>, %d: !pto.tile_buf<vec, 16x1xf32, valid=8x1, blayout=col_major>, %t: !pto.tile_buf<vec, 16x64xf32>, %r: !pto.tile_buf<vec, 16x8xf32, valid=16x1>) {\n  pto.trowsum ins(%s, %t : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>) outs(%d : !pto.tile_buf<vec, 16x1xf32, valid=8x1, blayout=col_major>)\n  pto.trowexpandsub ins(%s, %r, %t : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x8xf32, valid=16x1>, !pto.tile_buf<vec, 16x64xf32>) outs(%s : !pto.tile_buf<vec, 16x64xf32>)\n  return\n}\n";
    let (sources, diags) = legalize_text(text, TargetId::A5);
    type Summary = (String, DiagClass, Option<String>, Option<String>, Option<String>);
    let summary: Vec<Summary> =
        diags.iter().map(|d| (sources.location(d.span), d.class, d.operand.clone(), d.expected.clone(), d.actual.clone())).collect();
    assert_eq!(
        summary,
        vec![
            (
                "t.pto:3:3".to_string(),
                DiagClass::LegalUnsupportedTuple,
                Some("outs[0] (dst)".to_string()),
                Some("src valid rows = dst valid rows".to_string()),
                Some("src valid rows 16, dst valid rows 8".to_string())
            ),
            (
                "t.pto:4:3".to_string(),
                DiagClass::LegalTmpForbidden,
                Some("ins[2] (tmp)".to_string()),
                Some("no tmp operand on a5".to_string()),
                Some("!pto.tile_buf<vec, 16x64xf32>".to_string())
            ),
        ]
    );
    // On A2A3 the scratch operand is allowed; the valid-row mismatch is still reported.
    let (_, diags) = legalize_text(text, TargetId::A2A3);
    assert_eq!(diags.iter().map(|d| d.class).collect::<Vec<_>>(), vec![DiagClass::LegalUnsupportedTuple]);
}
