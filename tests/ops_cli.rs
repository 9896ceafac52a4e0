//! `pto ops NAME`: every op of the table gets a page whose generated examples are valid
//! programs, legal on every target that implements the op; unknown names exit 2 with the
//! closest names; the pages of a few representative ops are pinned by reviewed snapshots.

use pto::cmd::ops::{OpsOptions, run};
use pto::op_info::{self, ExampleForm};
use pto_ir::ops::{self, SlotKind, Syntax};
use pto_lower::legality;

fn page(name: &str, json: bool) -> pto::Outcome {
    run(&OpsOptions { name: Some(name.to_string()), json, ..Default::default() })
}

/// Parses and verifies `text` on its own (not through `op_info`): the first error, if any.
fn independently_valid(text: &str) -> Result<(), String> {
    let (m, _) = pto_asm::parse(text, pto_ir::FileId(0)).map_err(|d| format!("{:?}", d.0.first()))?;
    let diags = pto_ir::verify::verify(&m);
    match diags.0.iter().find(|d| d.is_error()) {
        Some(d) => Err(format!("{}: {}", d.class, d.message)),
        None => Ok(()),
    }
}

#[test]
fn every_op_has_a_page_with_valid_examples() {
    let mut problems = Vec::new();
    let mut legal_somewhere = 0;
    for spec in ops::all() {
        let name = spec.full_name();
        let out = page(&name, false);
        if out.code != 0 || !out.stdout.starts_with(&format!("{name} — ")) {
            problems.push(format!("{name}: exit {} {}", out.code, out.stderr));
            continue;
        }
        let info = op_info::describe(spec.opcode, &name, Vec::new());
        if info.examples.is_empty() {
            problems.push(format!("{name}: no example"));
        }
        for e in &info.examples {
            if let Some(err) = &e.error {
                problems.push(format!("{name} ({}): {err}\n{}", e.form.key(), e.text));
                continue;
            }
            if let Err(err) = independently_valid(&e.text) {
                problems.push(format!("{name} ({}): {err}\n{}", e.form.key(), e.text));
            }
            assert!(out.stdout.contains(e.text.lines().next().unwrap_or("")), "{name}: the page shows its examples");
        }
        let forms: Vec<ExampleForm> = info.examples.iter().map(|e| e.form).collect();
        // A DPS tile op that reads or writes a tile has all four forms.
        let has_tile = spec
            .opcode
            .parsed()
            .forms
            .first()
            .is_some_and(|f| f.ins.iter().chain(&f.outs).any(|s| s.kind == SlotKind::Tile && !s.optional));
        if spec.syntax == Syntax::Tile
            && has_tile
            && forms != [ExampleForm::Short, ExampleForm::Ssa, ExampleForm::Dps, ExampleForm::Generic]
        {
            problems.push(format!("{name}: forms {forms:?}"));
        }
        // The Level-2 example is legal on every target that implements the op.
        let Some(level2) = info.examples.iter().find(|e| matches!(e.form, ExampleForm::Dps | ExampleForm::Own)) else {
            problems.push(format!("{name}: no Level-2 example"));
            continue;
        };
        for (table, l) in legality::TABLES.iter().zip(&level2.legality) {
            let available = table.effective(spec.opcode, Some(0)).is_none_or(|e| e.supported);
            if available && !l.ok() {
                problems
                    .push(format!("{name}: example not legal on {}, which implements the op: {:?}\n{}", l.target, l.error, level2.text));
            }
            if !available && l.ok() {
                problems.push(format!("{name}: legal on {}, whose table says the op is not available", l.target));
            }
        }
        if level2.legality.iter().any(|l| l.ok()) {
            legal_somewhere += 1;
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    // Only the two A6-only ops (tquant_hif4, tmatmul_mx_hif4) have no target.
    assert_eq!(legal_somewhere, ops::all().len() - 2);
}

#[test]
fn every_name_and_alias_finds_its_op() {
    for name in op_info::all_names() {
        let (op, modes) = op_info::find(&name).unwrap_or_else(|| panic!("{name}"));
        assert!(modes.is_empty(), "{name}");
        let spec = op.spec();
        assert!(
            name == spec.full_name()
                || name == spec.name
                || name.ends_with(&format!(".{}", spec.name))
                || spec.aliases.iter().any(|a| name.ends_with(a)),
            "{name} -> {}",
            spec.full_name()
        );
    }
}

#[test]
fn variant_and_alias_names_describe_their_op() {
    let out = page("tgemv.mx.acc", false);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("pto.tgemv.mx.acc — "), "{}", out.stdout);
    assert!(out.stdout.contains("ins:  c_in: tile, a: tile, a_scale: tile, b: tile, b_scale: tile"), "{}", out.stdout);
    let out = page("tmatmul_acc", false);
    assert!(out.stdout.starts_with("pto.tmatmul.acc — "), "{}", out.stdout);
    // Mode suffixes set the attributes they name, in the examples too.
    let out = page("mgather.row.clamp", false);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("`mgather.row.clamp` sets: coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("pto.mgather ins(%mem, %indices : "), "{}", out.stdout);
    assert!(out.stdout.contains("{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}"), "{}", out.stdout);
}

#[test]
fn an_unknown_name_exits_2_with_the_closest_names() {
    let out = page("trowmx", false);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert_eq!(out.stderr, "error: no op named `trowmx`; did you mean `trowmax`, `trowmin`?\n");
    let out = page("pto.tmatmull", false);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("did you mean `pto.tmatmul`"), "{}", out.stderr);
    let out = page("qqqqqqqqqq", true);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "error: no op named `qqqqqqqqqq`; `pto ops` lists every op\n");
}

#[test]
fn json_page_of_one_op() {
    let out = page("trowmax", true);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["name"], "pto.trowmax");
    assert_eq!(v["forms"][0]["ins"][1]["name"], "tmp");
    assert_eq!(v["forms"][0]["ins"][1]["optional"], true);
    assert_eq!(v["tmp"]["a2a3"], "required (inserted when missing)");
    // The scratch tile A2A3's `insert-scratch` gives the example (one block: the row fits one repeat).
    assert_eq!(v["a2a3_scratch_for_example"]["tile"], "!pto.tile_buf<vec, 1x8xf32>");
    let rows = v["rules"][0]["rows"].as_array().expect("rule rows");
    let dst = rows.iter().find(|r| r["aspect"] == "dst").expect("a dst rule");
    assert!(dst["a2a3"].as_str().unwrap_or("").starts_with("dtype {i16, i32, f16, f32}, loc vec, layout DN"), "{dst}");
    let forms: Vec<&str> = v["examples"].as_array().unwrap().iter().map(|e| e["form"].as_str().unwrap()).collect();
    assert_eq!(forms, ["pto-as", "level1-ssa", "level2-dps", "generic"]);
    for e in v["examples"].as_array().unwrap() {
        assert_eq!(e["error"], serde_json::Value::Null);
        assert_eq!(e["errors_by_target"]["a2a3"], serde_json::Value::Null, "{e}");
        assert_eq!(e["errors_by_target"]["a5"], serde_json::Value::Null, "{e}");
    }
    let out = page("pto.tmatmul.mx", true);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let dps = &v["examples"][2];
    assert_eq!(dps["form"], "level2-dps");
    // Illegal on A2A3 (the op is A5-only; its 4 KiB scale tiles also overflow A2A3's 2 KiB FB).
    let a2a3 = dps["errors_by_target"]["a2a3"].as_str().unwrap_or("");
    assert!(a2a3.contains("is not available on a2a3") || a2a3.starts_with("LEGAL_BUFFER_OVERFLOW"), "{dps}");
    assert_eq!(dps["errors_by_target"]["a5"], serde_json::Value::Null);
}

#[test]
fn the_binary_prints_a_page() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto")).args(["ops", "tadd"]).output().expect("runs pto");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("pto.tadd ins(%src0, %src1 : "), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto")).args(["ops", "taddd"]).output().expect("runs pto");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `tadd`"));
}

#[test]
fn pages_of_representative_ops() {
    for name in ["tadd", "tload", "tmatmul", "trowmax", "set_flag"] {
        let out = page(name, false);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        insta::assert_snapshot!(format!("ops_page__{}", name.replace('.', "_")), out.stdout);
    }
}
