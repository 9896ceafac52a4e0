//! One meaning per attribute (issue 39): every attribute PTOAS's ODS declares on an op is read by
//! `pto` with its meaning in `pto run` and in `pto compile`, or listed by the op table as inert
//! with its source; the kernels of `tests/attributes/` check the meanings that change values or
//! C++ (a `tstore` with `atomic_add` adds, on one block and across blocks; `TSYNC` and `TASSIGN`
//! are written; PTOAS's op kinds sit on PTOAS's pipes).

mod common;

use common::kernel::{input_args, number, scratch_dir};
use pto_ir::ops::{self, Opcode};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attributes").join(name)
}

/// `pto ARGS`: (stdout, stderr, exit code).
fn pto(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(args).output().expect("runs pto");
    (String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into(), out.status.code().unwrap_or(-1))
}

/// `pto run --json` of `program` on A2A3 with `a` = 3s and `c` = 1s (16x16 f32): output `c`.
fn run_with_threes(program: &Path, blocks: &str) -> Result<Vec<f64>, String> {
    let dir = scratch_dir("attributes", &format!("{}-{blocks}", program.file_stem().unwrap().to_string_lossy()));
    let values = [
        ("a", json!({"dtype": "f32", "shape": [16, 16], "data": vec![3.0; 256]})),
        ("c", json!({"dtype": "f32", "shape": [16, 16], "data": vec![1.0; 256]})),
    ];
    let mut args: Vec<String> = ["run", "--json", "--target", "a2a3", "--blocks", blocks].iter().map(|s| s.to_string()).collect();
    args.extend(input_args(&dir, &values).into_iter().flat_map(|a| ["--input".to_string(), a]));
    args.push(program.display().to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, err, code) = pto(&args);
    if code != 0 {
        return Err(err);
    }
    let v: Value = serde_json::from_str(&out).map_err(|e| format!("{e}: {err}"))?;
    Ok(v["c"]["data"].as_array().ok_or_else(|| format!("no output c in {v}"))?.iter().map(number).collect())
}

#[test]
fn a_tstore_with_atomic_add_adds_on_one_block_and_across_blocks() {
    let program = kernel("tstore_atomic_add.pto");
    // 1 + 3 + 3 on one block; each of 4 blocks (on its own GM copy) adds twice: 1 + 8 x 3.
    assert_eq!(run_with_threes(&program, "1").unwrap(), vec![7.0; 256]);
    assert_eq!(run_with_threes(&program, "4").unwrap(), vec![25.0; 256]);
    // The same kernel without the attribute stores: 3 on one block, a WAW race across blocks.
    let text = std::fs::read_to_string(&program).unwrap().replace(" {atomicType = #pto<atomic_type atomic_add>}", "");
    let plain = scratch_dir("attributes", "plain").join("plain.pto");
    std::fs::write(&plain, text).unwrap();
    assert_eq!(run_with_threes(&plain, "1").unwrap(), vec![3.0; 256]);
    let err = run_with_threes(&plain, "2").expect_err("two blocks storing the same bytes race");
    assert!(err.contains("HAZARD_WAW"), "{err}");
}

#[test]
fn a_tstore_with_atomic_add_is_written_with_its_atomic_type() {
    let (out, err, code) = pto(&["compile", "--pto-arch", "a3", &kernel("tstore_atomic_add.pto").display().to_string()]);
    assert_eq!(code, 0, "{err}");
    // PTOToEmitC.cpp:4044-4055: TSTORE<TileData, GlobalData, AtomicType>(dst, src).
    let stores: Vec<&str> = out.lines().filter(|l| l.contains("TSTORE")).collect();
    assert_eq!(stores.len(), 2, "{out}");
    for s in stores {
        assert!(s.trim_start().starts_with("TSTORE<Tile<TileType::Vec, float, 16, 16"), "{s}");
        assert!(s.contains(", GT_1, AtomicType::AtomicAdd>(v"), "{s}");
    }
}

#[test]
fn a_tstore_phase_is_its_first_template_argument() {
    let text = std::fs::read_to_string(kernel("tstore_atomic_add.pto"))
        .unwrap()
        .replace("{atomicType = #pto<atomic_type atomic_add>}", "{stPhase = #pto<st_phase final>}");
    let file = scratch_dir("attributes", "phase").join("phase.pto");
    std::fs::write(&file, text).unwrap();
    let (out, err, code) = pto(&["compile", "--pto-arch", "a3", &file.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("TSTORE<STPhase::Final>(v").count(), 2, "{out}");
}

#[test]
fn tsync_and_tassign_are_written_as_ptoas_writes_them() {
    let (out, err, code) =
        pto(&["compile", "--pto-arch", "a3", "--pto-level", "level3", &kernel("tassign_tsync_level3.pto").display().to_string()]);
    assert_eq!(code, 0, "{err}");
    let assign = out.lines().rfind(|l| l.contains("TASSIGN")).expect("a TASSIGN").trim();
    let args: Vec<&str> = assign.trim_start_matches("TASSIGN(").trim_end_matches(");").split(", ").collect();
    assert_eq!(args.len(), 2, "TASSIGN(tile, addr): {assign}");
    // The rebound tile is the tile: every later use names it.
    let tile = args[0];
    assert!(out.contains(&format!("TSYNC({tile});")), "{out}");
    assert!(out.contains(&format!("TLOAD({tile}, ")), "{out}");
    assert!(out.contains(&format!(", {tile});")), "the store reads the rebound tile: {out}");
}

#[test]
fn op_kinds_run_on_ptoas_pipes() {
    // PTOSyncUtils.cpp:25-48, the map the checker and the C++ share.
    let pipe = |k: &str| ops::Pipe::of_sync_op_kind(k).and_then(ops::Pipe::cpp_name);
    assert_eq!(pipe("TMOV_M2S"), Some("PIPE_FIX"));
    assert_eq!(pipe("TMOV_V2M"), Some("PIPE_FIX"));
    assert_eq!(pipe("TMOV_M2V"), Some("PIPE_V"));
    assert_eq!(pipe("TSTORE_VEC"), Some("PIPE_MTE3"));
    let program = "module {\n  func.func @k() attributes {pto.entry} {\n    pto.record_event [#pto.pipe_event_type<TMOV_M2V>, #pto.pipe_event_type<TMOV_V2M>, #pto.event<EVENT_ID1>]\n    pto.wait_event [#pto.pipe_event_type<TMOV_M2V>, #pto.pipe_event_type<TMOV_V2M>, #pto.event<EVENT_ID1>]\n    return\n  }\n}\n";
    let file = scratch_dir("attributes", "kinds").join("kinds.pto");
    std::fs::write(&file, program).unwrap();
    let (out, err, code) = pto(&["compile", "--pto-arch", "a3", &file.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("set_flag(PIPE_V, PIPE_FIX, EVENT_ID1);"), "{out}");
    assert!(out.contains("wait_flag(PIPE_V, PIPE_FIX, EVENT_ID1);"), "{out}");
}

/// The ops whose C++ is a hand-written rule of `src/compile/tile_ops.rs` (`rule:NAME`), and the
/// source of those rules: an attribute they spell is named in it.
const RULES: &str = include_str!("../src/compile/tile_ops.rs");
/// The C++ of the TPUSH/TPOP pipe ops.
const PIPES: &str = include_str!("../src/compile/pipes.rs");

/// Every attribute PTOAS's ODS declares on an ISA op (the op table's ops with a C++ rule or an
/// ISA page), from `tests/dialect/ptoas-dialect.json` (PTOAS a56b18c3): the op table declares it
/// (so it is parsed with its kind), and `pto compile` spells it (a `@attr` of the op's `cpp`
/// column, or a name its hand-written rule reads) or the op table lists it as inert. `pto run`
/// is held to the same list at run time: it traps on a declared attribute an op's semantics did
/// not read (`must_apply_attr`). Printed: the ops this does not check (no ISA instruction: their
/// attributes are their text format's).
#[test]
fn every_ods_attribute_of_an_isa_op_is_spelled_or_inert() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dialect/ptoas-dialect.json")).unwrap();
    let dialect: Value = serde_json::from_str(&text).unwrap();
    let (mut checked, mut missing, mut skipped) = (0, Vec::new(), Vec::new());
    for op in dialect["ops"].as_array().unwrap() {
        let name = op["name"].as_str().unwrap();
        let attrs: Vec<&str> = op["attributes"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
        if attrs.is_empty() {
            continue;
        }
        let Some(opcode) = ops::lookup(name.trim_start_matches("pto.")) else {
            missing.push(format!("{name}: not in the op table"));
            continue;
        };
        let spec = opcode.spec();
        if spec.cpp.is_empty() && spec.page.is_empty() || opcode == Opcode::TAssign {
            skipped.push(name.to_string());
            continue;
        }
        let rule = spec.cpp.strip_prefix("rule:");
        // TPUSH / TPOP / TFREE are written by the pipe module from their split (`split_of`).
        let pipe_op = matches!(opcode, Opcode::TPush | Opcode::TPop | Opcode::TFree);
        for attr in attrs {
            checked += 1;
            let declared = opcode.parsed().attr_kind(attr).is_some();
            let spelled = pipe_op && attr == "split" && PIPES.contains("split_of(")
                || match rule {
                    Some(_) => RULES.contains(&format!("\"{attr}\"")),
                    None => spec.cpp.contains(&format!("@{attr}")) || spec.cpp.contains(&format!("@#{attr}")),
                };
            if !declared {
                missing.push(format!("{name}.{attr}: not declared in the op table's attrs"));
            } else if !spelled && !spec.is_inert(attr) {
                missing.push(format!("{name}.{attr}: neither spelled by pto compile nor listed as inert"));
            }
        }
    }
    println!("{checked} ODS attributes of ISA ops checked; not checked (no ISA instruction): {}", skipped.join(", "));
    assert!(checked >= 27, "the dialect data lists 27 attributes of ISA ops ({checked})");
    assert!(missing.is_empty(), "{} attributes without a meaning:\n{}", missing.len(), missing.join("\n"));
}
