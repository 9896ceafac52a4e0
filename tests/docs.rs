//! Documentation that is generated or executable stays true: the ISA coverage table equals
//! what `pto ops --markdown` prints, `pto ops --json` lists every ISA page, and every example
//! verifies and round-trips through `pto fmt`.

use pto::cmd::ops;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn isa_coverage_doc_is_generated_from_the_op_table() {
    let doc = std::fs::read_to_string(root().join("docs/isa-coverage.md")).expect("docs/isa-coverage.md");
    assert!(doc == ops::markdown(), "docs/isa-coverage.md is stale: run `cargo run -- ops --markdown > docs/isa-coverage.md`");
    assert!(doc.contains("150 instruction pages of `docs/isa/` and 11 of `docs/isa/comm/` covered"));
}

#[test]
fn ops_json_lists_every_isa_page() {
    let out = ops::run(&ops::OpsOptions { json: true, ..Default::default() });
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let with_page = v.as_array().expect("a list").iter().filter(|o| o["isa_page"].is_string()).count();
    assert_eq!(with_page, 161, "150 docs/isa pages + 11 comm pages");
    let argmax = v.as_array().unwrap().iter().find(|o| o["name"] == "pto.tcolargmax").expect("tcolargmax listed");
    assert_eq!(argmax["family"], "Arg-reductions");
    assert_eq!(argmax["tmp"]["a2a3"], "required");
    assert_eq!(argmax["tmp"]["a5"], "ignored");
}

#[test]
fn examples_verify_and_round_trip() {
    let mut n = 0;
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["examples", "examples/seeds"] {
        paths.extend(std::fs::read_dir(root().join(dir)).expect("examples/").flatten().map(|e| e.path()));
    }
    for path in paths {
        if path.extension().is_none_or(|x| x != "pto") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{}: {:?}", path.display(), d.0));
        assert!(!pto_ir::verify::verify(&m).has_errors(), "{}", path.display());
        let printed = pto_asm::print::print_module(&m, &Default::default()).unwrap();
        let (again, _) = pto_asm::parse(&printed, pto_ir::FileId(0)).unwrap();
        pto_ir::equiv::structurally_equal(&m, &again).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n >= 13, "{n} examples");
}

/// docs/scratch.md has a row for every op with an A2A3 scratch rule (required or optional), so
/// the sizing table cannot silently fall behind the op table.
#[test]
fn scratch_doc_covers_every_op_with_a2a3_scratch() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scratch.md")).expect("docs/scratch.md");
    let table: String = doc.lines().filter(|l| l.starts_with("| `")).collect::<Vec<_>>().join("\n");
    for spec in pto_ir::ops::all() {
        if matches!(spec.tmp.a2a3, pto_ir::ops::TmpRule::Required | pto_ir::ops::TmpRule::Optional) {
            let name = spec.name;
            let mentioned = table.contains(&format!("`{name}`"))
                || (name.starts_with("trowexpand") && table.contains("`trowexpand{sub,mul,div,max,min,expdif}`"))
                || table.contains(&format!("`{name}/"))
                || table.contains(&format!("/{}", name.trim_start_matches('t')));
            assert!(mentioned, "docs/scratch.md has no row for `{name}`");
        }
    }
}
