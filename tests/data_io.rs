//! Data in and out of `pto run` as numpy users expect: GM outputs keep the shape of the array
//! bound to them, JSON tiles may be nested lists, tile data is in logical order whatever the
//! layout, an argument the kernel reads without an input is an error naming it, an unknown
//! `--input` name lists the kernel's arguments, and values that do not fit their type are
//! errors quoting the value.

use pto::cmd::run::{RunOptions, run};
use pto::{ErrorFormat, TargetName};
use pto_ir::types::ElemType;
use pto_sim::TileData;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pto-data-io-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write_npy(path: &Path, data: &TileData) -> String {
    std::fs::write(path, pto_sim::npy::write(data).expect("encodes")).expect("writes");
    path.display().to_string()
}

fn f32_tile(rows: usize, cols: usize, f: impl Fn(usize) -> f32) -> TileData {
    let bytes = (0..rows * cols).flat_map(|i| f(i).to_le_bytes()).collect();
    TileData { dtype: ElemType::F32, rows, cols, bytes }
}

fn run_with(file: &str, inputs: Vec<String>, outputs: &[&str]) -> pto::Outcome {
    run(&RunOptions {
        inputs,
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
        error_format: ErrorFormat::Human,
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A5)
    })
}

#[test]
fn gm_outputs_keep_the_shape_of_the_bound_array() {
    let dir = scratch("gm-shape");
    let a = write_npy(&dir.join("a.npy"), &f32_tile(32, 32, |i| i as f32));
    let b = write_npy(&dir.join("b.npy"), &f32_tile(32, 32, |_| 1.0));
    let c = write_npy(&dir.join("c.npy"), &f32_tile(32, 32, |_| 0.0));
    let out = run_with("examples/vadd.pto", vec![format!("a={a}"), format!("b={b}"), format!("c={c}")], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["c"]["shape"], serde_json::json!([32, 32]), "{}", v["c"]["shape"]);
    assert_eq!(v["c"]["data"][33].as_f64(), Some(34.0));
}

/// A GM output that was not passed in comes back in its tensor view's shape (32x32 for vadd's
/// `%c`), on one block or several.
#[test]
fn unbound_gm_outputs_have_the_shape_of_their_view() {
    for blocks in [1, 2] {
        // Every block writes all of `%c` (a hazard between blocks, not this test's subject).
        let opts = RunOptions {
            default_inputs: true,
            blocks,
            sync_check: pto::cmd::run::SyncCheck::Never,
            ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A5)
        };
        let out = run(&opts);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
        assert_eq!(v["c"]["shape"], serde_json::json!([32, 32]), "{blocks} blocks");
    }
}

#[test]
fn json_tiles_may_be_nested_lists() {
    let dir = scratch("nested");
    let nested: Vec<Vec<f64>> = (0..16).map(|r| (0..64).map(|c| (r * 64 + c) as f64 / 100.0).collect()).collect();
    let bare = dir.join("x.json");
    std::fs::write(&bare, serde_json::to_string(&nested).unwrap()).unwrap();
    let wrapped = dir.join("y.json");
    std::fs::write(&wrapped, serde_json::json!({"dtype": "f32", "data": nested}).to_string()).unwrap();
    for file in [&bare, &wrapped] {
        let out = run_with("examples/softmax.as.pto", vec![format!("x={}", file.display())], &["y"]);
        assert_eq!(out.code, 0, "{}: {}", file.display(), out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
        let row0: f64 = v["y"]["data"].as_array().unwrap()[..64].iter().map(|x| x.as_f64().unwrap()).sum();
        assert!((row0 - 1.0).abs() < 1e-5, "softmax row sums to {row0}");
    }
    let ragged = dir.join("r.json");
    std::fs::write(&ragged, "[[1, 2], [3]]").unwrap();
    let out = run_with("examples/softmax.as.pto", vec![format!("x={}", ragged.display())], &["y"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("ragged"), "{}", out.stderr);
}

#[test]
fn an_argument_read_without_an_input_is_an_error_naming_it() {
    // A tile argument.
    let out = run_with("examples/softmax.as.pto", vec![], &[]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("SIM_TRAP") && out.stderr.contains("tile argument `%x`"), "{}", out.stderr);
    // A GM argument.
    let out = run_with("examples/vadd.pto", vec![], &[]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("GM argument `%a`") && out.stderr.contains(":19:"), "{}", out.stderr);
    // Output-only arguments need none: vadd's %c is only stored to.
    let dir = scratch("unbound");
    let a = write_npy(&dir.join("a.npy"), &f32_tile(32, 32, |_| 1.0));
    let out = run_with("examples/vadd.pto", vec![format!("a={a}"), format!("b={a}")], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // --default-inputs fills them (documented values).
    let out = run(&RunOptions {
        default_inputs: true,
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn an_unknown_input_name_lists_the_arguments() {
    let out = run_with("examples/vadd.pto", vec!["q=1".into()], &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no argument `%q`") && out.stderr.contains("%a (!pto.ptr<f32>), %b (!pto.ptr<f32>), %c (!pto.ptr<f32>)"),
        "{}",
        out.stderr
    );
    // A value that exists but is not an argument is not an input either.
    let out = run_with("examples/vadd.pto", vec!["ta=1".into()], &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    // An unknown output name is a usage error too.
    let out = run(&RunOptions {
        outputs: vec!["nope".into()],
        default_inputs: true,
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn values_that_do_not_fit_their_type_are_errors_quoting_the_value() {
    let dir = scratch("range");
    let kernel = dir.join("k.pto");
    std::fs::write(&kernel, ".arg %x : !pto.tile<1x16xi16>\n.arg %s : i16\n.arg %n : i32\n%y = tadds %x, %s : !pto.tile<1x16xi16>\n")
        .unwrap();
    let tile = dir.join("x.json");
    let good: Vec<i64> = (0..16).collect();
    std::fs::write(&tile, serde_json::json!({"dtype": "i16", "shape": [1, 16], "data": good}).to_string()).unwrap();
    let file = kernel.display().to_string();
    let go = |inputs: Vec<String>| run(&RunOptions { inputs, ..RunOptions::new(file.clone(), TargetName::A5) });
    let x = format!("x={}", tile.display());
    assert_eq!(go(vec![x.clone(), "s=3".into(), "n=1".into()]).code, 0);
    for (input, words) in
        [("s=70000", "70000 does not fit `%s`"), ("s=32.5", "32.5 is not an integer"), ("n=99999999999", "99999999999 does not fit `%n`")]
    {
        let inputs = vec![
            x.clone(),
            if input.starts_with('s') { input.into() } else { "s=1".into() },
            if input.starts_with('n') { input.into() } else { "n=1".into() },
        ];
        let out = go(inputs);
        assert_eq!(out.code, 1, "{input}: {}", out.stderr);
        assert!(out.stderr.contains(words), "{input}: {}", out.stderr);
    }
    // A negative value for an unsigned tile is out of range too (it would wrap).
    let u = dir.join("u.pto");
    std::fs::write(&u, ".arg %x : !pto.tile<1x16xui16>\n.arg %s : ui16\n%y = tadds %x, %s : !pto.tile<1x16xui16>\n").unwrap();
    let neg = dir.join("neg.json");
    std::fs::write(&neg, serde_json::json!({"dtype": "ui16", "shape": [1, 16], "data": vec![-1; 16]}).to_string()).unwrap();
    let out = run(&RunOptions {
        inputs: vec![format!("x={}", neg.display()), "s=1".into()],
        ..RunOptions::new(u.display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("value 0 (`-1`) does not fit ui16"), "{}", out.stderr);
    let mut bad: Vec<i64> = (0..16).collect();
    bad[3] = 70000;
    std::fs::write(&tile, serde_json::json!({"dtype": "i16", "shape": [1, 16], "data": bad}).to_string()).unwrap();
    let out = go(vec![x, "s=1".into(), "n=1".into()]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("value 3 (`70000`) does not fit i16"), "{}", out.stderr);
}

#[test]
fn tile_data_is_in_logical_order_for_fractal_tiles() {
    // A left tile is Nz on A5: the input and the --full output are still (row, col) order.
    let dir = scratch("logical");
    let kernel = dir.join("k.pto");
    std::fs::write(
        &kernel,
        ".arg %a : !pto.tile<16x16xf32, loc=left>\n.arg %b : !pto.tile<16x16xf32, loc=right>\n%c = tmatmul %a, %b : !pto.tile<16x16xf32, loc=acc>\n",
    )
    .unwrap();
    let a = write_npy(&dir.join("a.npy"), &f32_tile(16, 16, |i| (i % 7) as f32));
    // b = identity, so c = a.
    let b = write_npy(&dir.join("b.npy"), &f32_tile(16, 16, |i| if i / 16 == i % 16 { 1.0 } else { 0.0 }));
    for full in [false, true] {
        let out = run(&RunOptions {
            inputs: vec![format!("a={a}"), format!("b={b}")],
            outputs: vec!["c".into(), "a".into()],
            full,
            ..RunOptions::new(kernel.display().to_string(), TargetName::A5)
        });
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
        for name in ["a", "c"] {
            let data: Vec<f64> = v[name]["data"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let want: Vec<f64> = (0..256).map(|i| (i % 7) as f64).collect();
            assert_eq!(data, want, "%{name} (full: {full})");
        }
    }
}

#[test]
fn a_runaway_loop_stops_at_the_step_budget_located_at_the_loop() {
    let dir = scratch("budget");
    let kernel = dir.join("k.pto");
    std::fs::write(
        &kernel,
        "func.func @k(%x: !pto.tile_buf<vec, 16x16xf32>) {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %n = arith.constant 1000000000 : index\n  %one = arith.constant 1.0 : f32\n  scf.for %i = %c0 to %n step %c1 {\n    pto.tadds ins(%x, %one : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%x : !pto.tile_buf<vec, 16x16xf32>)\n  }\n  return\n}\n",
    )
    .unwrap();
    let out = run(&RunOptions {
        default_inputs: true,
        max_steps: 10_000,
        error_format: ErrorFormat::Json,
        ..RunOptions::new(kernel.display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 1, "{}", out.stderr);
    let d: Value = serde_json::from_str(out.stderr.lines().next().unwrap()).expect("JSON diagnostic");
    assert_eq!((d["class"].as_str(), d["line"].as_u64()), (Some("SIM_BUDGET"), Some(6)), "{d}");
    // A loop that fits the budget runs to the end.
    let small = dir.join("small.pto");
    std::fs::write(&small, std::fs::read_to_string(&kernel).unwrap().replace("1000000000", "100")).unwrap();
    let out = run(&RunOptions { default_inputs: true, max_steps: 10_000, ..RunOptions::new(small.display().to_string(), TargetName::A5) });
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn lower_emit_json_carries_attributes_as_json_values() {
    use pto::cmd::lower::{Emit, LowerOptions};
    let out = pto::cmd::lower::run(&LowerOptions {
        emit: Emit::Json,
        ..LowerOptions::new(root().join("tests/conformance/isa-examples/tcmps.dps.pto").display().to_string(), TargetName::A5)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let tcmps = v["ops"].as_array().unwrap().iter().find(|o| o["op"] == "pto.tcmps").expect("tcmps");
    assert_eq!(tcmps["attrs"]["cmpMode"], "#pto<cmp gt>");
}

#[test]
fn usage_and_input_errors_honour_the_json_error_format() {
    let pto = env!("CARGO_BIN_EXE_pto");
    let vadd = root().join("examples/vadd.pto").display().to_string();
    let wrong = scratch("json-errors").join("a.json");
    std::fs::write(&wrong, r#"{"dtype": "i16", "shape": [1], "data": [1]}"#).unwrap();
    let bind_wrong = format!("a={}", wrong.display());
    let cases: [(&[&str], i32, &str); 3] = [
        (&["run", &vadd, "--target", "a5", "-i", "q=1"], 2, "USAGE"),
        (&["verify", "no/such/file.pto"], 2, "USAGE"),
        (&["run", &vadd, "--target", "a5", "-i", &bind_wrong], 1, "INPUT"),
    ];
    for (args, code, class) in cases {
        let out = std::process::Command::new(pto).arg("--error-format").arg("json").args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let d: Value = serde_json::from_str(stderr.lines().next().unwrap_or("")).unwrap_or_else(|e| panic!("{args:?}: {e}: {stderr}"));
        assert_eq!(d["class"], class, "{args:?}: {d}");
        assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{d}");
    }
}

/// `--default-inputs`: an integer argument that sizes a tile's valid shape gets the tile's
/// capacity, one that sizes a tensor view the extent its partitions reach; other integers 0.
#[test]
fn default_integers_that_size_tiles_and_views_take_those_sizes() {
    let dir = scratch("size-defaults");
    let kernel = dir.join("k.pto");
    let tile =
        "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=?, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    std::fs::write(
        &kernel,
        format!(
            "module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %rows: i32, %n: i32, %unused: i32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %vr = arith.index_cast %rows : i32 to index
    %len = arith.index_cast %n : i32 to index
    %xv = pto.make_tensor_view %x, shape = [%len, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%len, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x16xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x16xf32>
    %t = pto.alloc_tile valid_row = %vr : {tile}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x16xf32>) outs(%t : {tile})
    pto.tadds ins(%t, %one : {tile}, f32) outs(%t : {tile})
    pto.tstore ins(%t : {tile}) outs(%yp : !pto.partition_tensor_view<8x16xf32>)
    return
  }}
}}
"
        ),
    )
    .unwrap();
    let out = run(&RunOptions { default_inputs: true, trace: true, ..RunOptions::new(kernel.display().to_string(), TargetName::A5) });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let y: Vec<f64> = v["y"]["data"].as_array().expect("data").iter().map(|x| x.as_f64().expect("number")).collect();
    assert!(y.len() >= 128, "{} elements", y.len());
    for (i, &got) in y.iter().take(128).enumerate() {
        assert_eq!(got, pto_sim::gm::pattern_value(i) + 1.0, "element {i}");
    }
    // The valid shape the tile got from `%rows`, and the view's extent from `%n`.
    assert!(out.stderr.contains("f32 8x16"), "{}", out.stderr);
    assert!(out.stderr.contains("shape [8, 16]"), "{}", out.stderr);
}
