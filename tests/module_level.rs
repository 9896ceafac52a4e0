//! Module-level MLIR as `ptoas` reads it (issue 39, deliver 2): `func` (short `call`, private
//! declarations, no recursion), the `arith` ops real programs use, `dense` vector constants,
//! GM `memref` arguments bound and output like pointers, n-D and 1-D `memref.alloc`,
//! `memref.dealloc`; and forms legality accepts that `pto run` executes (`taxpy` f16 into f32).

mod common;

use common::kernel::{input_args, number, scratch_dir};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/module_level").join(name)
}

fn pto(args: &[String]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(args).output().expect("runs pto");
    (String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into(), out.status.code().unwrap_or(-1))
}

/// `pto run --json` of `program` on `target` with `inputs`: output `name`'s data and shape.
fn run(program: &Path, target: &str, inputs: &[(&str, Value)], name: &str) -> (Vec<f64>, Value) {
    let dir = scratch_dir("module_level", program.file_stem().unwrap().to_str().unwrap());
    let mut args: Vec<String> = ["run", "--json", "--target", target].iter().map(|s| s.to_string()).collect();
    args.extend(input_args(&dir, inputs).into_iter().flat_map(|a| ["--input".to_string(), a]));
    args.push(program.display().to_string());
    let (out, err, code) = pto(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (v[name]["data"].as_array().unwrap_or_else(|| panic!("no {name} in {v}")).iter().map(number).collect(), v[name]["shape"].clone())
}

#[test]
fn a_kernel_of_gm_memrefs_short_calls_and_unsigned_arith_runs_and_compiles() {
    let program = kernel("gm_memref_call_remui.pto");
    let a: Vec<f64> = (0..256).map(f64::from).collect();
    for target in ["a2a3", "a5"] {
        let (c, shape) = run(&program, target, &[("a", json!({"dtype": "f32", "shape": [16, 16], "data": a}))], "c");
        // 7 remui 3 = 1, added to every element; the output keeps the memref's 16x16 shape.
        assert_eq!(c, a.iter().map(|x| x + 1.0).collect::<Vec<_>>(), "{target}");
        assert_eq!(shape, json!([16, 16]), "{target}");
    }
    let (out, err, code) = pto(&["compile".into(), "--pto-arch".into(), "a3".into(), program.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(uint32_t) v1 % (uint32_t) v2"), "remui as an unsigned remainder: {out}");
    assert!(out.contains("TLOAD(") && out.contains("TADDS(") && out.contains("TSTORE("), "{out}");
}

#[test]
fn a_dense_vector_constant_reads_and_prints_back() {
    let file = scratch_dir("module_level", "dense").join("dense.pto");
    let text = "module {\n  func.func @k() {\n    %d = arith.constant dense<[1, 2, 3, 4]> : vector<4xi16>\n    return\n  }\n}\n";
    std::fs::write(&file, text).unwrap();
    let (out, err, code) = pto(&["fmt".into(), file.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, text);
}

#[test]
fn recursion_is_a_located_error_in_every_command() {
    let program = kernel("recursion.pto").display().to_string();
    for cmd in [vec!["verify", "--target", "a2a3"], vec!["compile", "--pto-arch", "a3"], vec!["run", "--target", "a5"]] {
        let mut args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        args.push(program.clone());
        let (_, err, code) = pto(&args);
        assert_eq!(code, 1, "{cmd:?}: {err}");
        assert!(err.contains("STRUCT_RECURSION") && err.contains("@f -> @g -> @f"), "{cmd:?}: {err}");
        assert!(err.contains("recursion.pto:8:"), "located at the call that closes the cycle ({cmd:?}): {err}");
    }
}

#[test]
fn taxpy_adds_an_f16_product_into_an_f32_tile() {
    let h: Vec<f64> = (0..256).map(|k| f64::from(k) / 8.0).collect();
    let (c, _) = run(
        &kernel("taxpy_f16_into_f32.pto"),
        "a2a3",
        &[
            ("a", json!({"dtype": "f16", "shape": [16, 16], "data": h})),
            ("c", json!({"dtype": "f32", "shape": [16, 16], "data": vec![1.0; 256]})),
        ],
        "c",
    );
    assert_eq!(c, h.iter().map(|x| 1.0 + 2.0 * x).collect::<Vec<_>>());
}
