//! Documentation that is generated or executable stays true: the ISA coverage table equals
//! what `pto ops --markdown` prints, `pto ops --json` lists every ISA page, every example
//! verifies and round-trips through `pto fmt`, and every ```` ```pto ```` block of `docs/`
//! verifies on both targets.

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

/// The ```` ```pto ```` blocks of a Markdown file, with the line each starts on.
fn pto_blocks(doc: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        match &mut current {
            None if line.trim_start() == "```pto" => current = Some((i + 2, String::new())),
            Some(_) if line.trim_start() == "```" => out.extend(current.take()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Every ```` ```pto ```` block of `docs/` is a complete program that `pto verify` accepts, and
/// `pto verify --target` for both targets (layout rewrites are notes), and that prints back to
/// the same module.
#[test]
fn pto_blocks_in_docs_verify_on_both_targets() {
    let mut checked = 0;
    let mut in_syntax_doc = 0;
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/").flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let doc = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for (line, text) in pto_blocks(&doc) {
            let at = format!("docs/{name}:{line}");
            let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{at}: {:#?}", d.0));
            let errors: Vec<String> =
                pto_ir::verify::verify(&m).0.iter().filter(|d| d.is_error()).map(|d| format!("{}: {}", d.class, d.message)).collect();
            assert!(errors.is_empty(), "{at}: {errors:#?}");
            for target in [pto_lower::TargetId::A2A3, pto_lower::TargetId::A5] {
                let mut copy = m.clone();
                let legal = pto_lower::legalize::run(&mut copy, pto_lower::Target::get(target), &mut Default::default());
                if let Err(d) = legal {
                    panic!("{at}: not legal on {target:?}: {:#?}", d.0.iter().map(|d| &d.message).collect::<Vec<_>>());
                }
            }
            let printed = pto_asm::print::print_module(&m, &Default::default()).unwrap();
            let (again, _) = pto_asm::parse(&printed, pto_ir::FileId(0)).unwrap();
            pto_ir::equiv::structurally_equal(&m, &again).unwrap_or_else(|e| panic!("{at}: {e}"));
            checked += 1;
            in_syntax_doc += usize::from(name == "level2-syntax.md");
        }
    }
    assert!(in_syntax_doc >= 9, "docs/level2-syntax.md has {in_syntax_doc} pto blocks");
    assert!(checked >= in_syntax_doc);
}

/// docs/isa-tests.md (issue 14, acceptance 3) has a row for every instruction the issue added to
/// the simulator, and for the TPipe instructions (`comm.*` is in docs/comm.md).
#[test]
fn isa_tests_doc_has_a_row_for_every_issue_14_instruction() {
    let doc = std::fs::read_to_string(root().join("docs/isa-tests.md")).expect("docs/isa-tests.md");
    let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
    let ops = "trem tfmod tprelu tpow trems tfmods tlrelu taddsc tsubsc taxpy tpows tsels tmuladddst tfusedmuladd \
               tfusedmuladdrelu tsubrelu taddreluconv tadddeqrelu tpairreducesum tpartargmax tpartargmin tpartadd tpartmul \
               tpartmax tpartmin tscatter mgather mscatter tquant tquant_dn tquant_hif4 tdequant tmatmul.mx tgemv.mx \
               tmatmul_mx_hif4 tmov.fp textract_fp tinsert_fp ttrans timg2col tfillpad tfillpad_inplace tfillpad_expand \
               tinterleave tdeinterleave tsubview tstore_fp tprefetch tprefetch_async ttri tprint trandom thistogram \
               tassign tget_scale_addr set_quant_scalar set_quant_vector setfmatrix set_img2col_rpt set_img2col_padding \
               talloc tpush tpop tfree";
    for op in ops.split_whitespace() {
        let cell = format!("`{op}`");
        assert!(
            rows.iter().any(|r| r.split('|').nth(1).is_some_and(|c| c.split_whitespace().any(|w| w == cell))),
            "docs/isa-tests.md has no row for `{op}`"
        );
    }
}

/// The README's first screen: how to put `pto` on `PATH`, and the virtual environment its
/// Python section creates is ignored by git (not a pile of untracked files after the first hour).
#[test]
fn readme_says_how_to_install_and_its_venv_is_ignored() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first_screen: String = readme.lines().take(16).collect::<Vec<_>>().join("\n");
    assert!(first_screen.contains("`cargo install --path .` puts `pto` on your `PATH`"), "{first_screen}");
    let venv = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix("python3 -m venv "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the README creates a virtual environment");
    let out =
        std::process::Command::new("git").args(["check-ignore", "-q", "--no-index"]).arg(format!("{venv}/")).current_dir(root()).output();
    match out {
        Ok(o) => assert_eq!(o.status.code(), Some(0), "`{venv}/` is not in .gitignore"),
        Err(e) => {
            // Without git, read .gitignore itself.
            eprintln!("git not available ({e}): checking .gitignore by text");
            let ignore = std::fs::read_to_string(root().join(".gitignore")).unwrap();
            assert!(ignore.lines().any(|l| l.trim().trim_matches('/') == venv), "`{venv}` is not in .gitignore");
        }
    }
}

/// The user guide describes the tool as it is (issue 28): no claim that sync checking is future
/// work or that block indices are always 0, and it points at the pages on sync and cores.
#[test]
fn user_guide_has_no_stale_statements() {
    let guide = std::fs::read_to_string(root().join("docs/user-guide.md")).unwrap();
    for stale in ["hazard checker is future work", "`get_block_idx`/`get_subblock_idx` are 0", "a missing one is not detected"] {
        assert!(!guide.contains(stale), "docs/user-guide.md still says {stale:?}");
    }
    for link in ["(sync.md)", "(cores.md)", "SYNC_NOT_CHECKED", "--blocks"] {
        assert!(guide.contains(link), "docs/user-guide.md does not mention {link}");
    }
}
