//! The Level-1 examples of the pto-isa pages (`tests/isa-level1/`, one file per example, made
//! from `docs/isa/*.md` at 3186c381): every file parses, verifies, prints back to the same
//! module and lowers (`pto_lower::run`) for each target it allows. A file restricted to one
//! target by a `// target: a2a3|a5` line is also rejected on the other with a `LEGAL_*`
//! diagnostic, so the restriction stays true. All failures are collected and reported together.
//!
//! The PTO-AS memory operand of the TLOAD / TSTORE pages (`%v[%r, %c]`) is checked by running
//! a kernel that uses it.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use pto_ir::diag::{Diagnostic, SourceMap};
use pto_ir::equiv::structurally_equal;
use pto_ir::{Module, Verified};
use pto_lower::{PipelineOptions, Target, TargetId};
use std::path::{Path, PathBuf};

const TARGETS: [(&str, TargetId); 2] = [("a2a3", TargetId::A2A3), ("a5", TargetId::A5)];

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/isa-level1");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/isa-level1")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pto"))
        .collect();
    out.sort();
    out
}

/// The target a `// target: NAME` line restricts the file to.
fn restriction(text: &str) -> Option<&str> {
    text.lines().find_map(|l| l.strip_prefix("// target: ")).and_then(|rest| rest.split_whitespace().next())
}

/// `CLASS at file:line: message` for the first error of `diags`.
fn first_error(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    match diags.iter().find(|d| d.is_error()) {
        Some(d) => format!("{} at {}: {}", d.class.as_str(), sources.location(d.span), d.message),
        None => "no error diagnostic".to_string(),
    }
}

/// Verifies and lowers `module` for `target`; the diagnostics of the first failing step.
fn lower(module: &Module, target: TargetId) -> Result<(), Vec<Diagnostic>> {
    let verified = Verified::new(module.clone()).map_err(|d| d.0)?;
    pto_lower::run(verified, Target::get(target), PipelineOptions::default()).map(|_| ()).map_err(|d| d.0)
}

/// Printing the module and parsing it again gives the same module.
fn round_trips(module: &Module) -> Result<(), String> {
    let printed = pto_asm::print::print_module(module, &Default::default()).map_err(|e| e.0)?;
    let (again, _) =
        pto_asm::parse(&printed, pto_ir::FileId(0)).map_err(|d| format!("the printed text does not parse: {:?}\n{printed}", d.0))?;
    structurally_equal(module, &again).map_err(|e| format!("{e}\n{printed}"))
}

/// Every problem with one file, as lines of the report.
fn check_file(path: &Path) -> Vec<String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let text = std::fs::read_to_string(path).expect("readable");
    let mut sources = SourceMap::default();
    let fid = sources.add(name.clone(), text.clone());
    let module = match pto_asm::parse(&text, fid) {
        Ok((m, _)) => m,
        Err(d) => return vec![format!("{name}: does not parse: {}", first_error(&sources, &d.0))],
    };
    let mut problems = Vec::new();
    if let Err(e) = round_trips(&module) {
        problems.push(format!("{name}: does not round-trip through the printer: {e}"));
    }
    let only = restriction(&text);
    if only.is_some_and(|t| !TARGETS.iter().any(|(n, _)| *n == t)) {
        problems.push(format!("{name}: unknown target in `// target: {}`", only.unwrap_or_default()));
    }
    for (tname, target) in TARGETS {
        let allowed = only.is_none_or(|t| t == tname);
        match (lower(&module, target), allowed) {
            (Ok(()), true) => {}
            (Err(d), true) => problems.push(format!("{name} [{tname}]: {}", first_error(&sources, &d))),
            (Ok(()), false) => {
                problems.push(format!("{name} [{tname}]: marked `// target: {}` but lowers on {tname}", only.unwrap_or_default()))
            }
            (Err(d), false) => {
                if !d.iter().any(|d| d.is_error() && d.class.as_str().starts_with("LEGAL_")) {
                    problems.push(format!("{name} [{tname}]: rejected, but not by the legality tables: {}", first_error(&sources, &d)));
                }
            }
        }
    }
    problems
}

#[test]
fn every_page_example_lowers_on_the_targets_it_names() {
    let files = files();
    assert_eq!(files.len(), 283, "the Level-1 examples of the ISA pages");
    let problems: Vec<String> = files.iter().flat_map(|p| check_file(p)).collect();
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// `tload %v[%r, %c]` / `tstore %v[%r, %c], %t` (Level 3): the tile moves from / to element
/// `[r, c]` of the view.
#[test]
fn memory_operands_offset_the_view() {
    let kernel = r#"module {
  func.func @k(%a: !pto.ptr<f32>, %c: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %va = pto.make_tensor_view %a, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %vc = pto.make_tensor_view %c, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
    pto.tload ins(%va, %c8, %c8 : !pto.tensor_view<?x?xf32>, index, index) outs(%t : !pto.tile_buf<vec, 8x8xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x8xf32>) outs(%vc, %c0, %c8 : !pto.tensor_view<?x?xf32>, index, index)
    return
  }
}
"#;
    let path = std::env::temp_dir().join(format!("pto_isa_level1_offsets_{}.pto", std::process::id()));
    std::fs::write(&path, kernel).expect("temp file is writable");
    let out = run(&RunOptions { default_inputs: true, ..RunOptions::new(path.display().to_string(), TargetName::A5) });
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON outputs");
    let c: Vec<f64> = v["c"]["data"].as_array().expect("output c").iter().map(|x| x.as_f64().expect("number")).collect();
    // The default GM pattern (`pto_sim::gm::pattern_value`): element i of `a` is ((7i + 3) mod 17) / 4 - 2.
    let a = |i: usize| ((i * 7 + 3) % 17) as f64 / 4.0 - 2.0;
    for r in 0..8 {
        for col in 0..8 {
            assert_eq!(c[r * 16 + 8 + col], a((r + 8) * 16 + 8 + col), "c[{r}][{}] = a[{}][{}]", 8 + col, r + 8, 8 + col);
        }
    }
    assert_eq!(c[0], a(0), "outside the stored block, c keeps its input (the same pattern)");
}
