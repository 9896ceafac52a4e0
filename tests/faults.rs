//! Program faults are located diagnostics with a non-zero exit, never a panic or a silently
//! wrong result: tiles outside their buffer or misaligned, overlapping live tiles, GM accesses
//! past the bound array, out-of-range gather indices, and data files of the wrong dtype or shape.
//! Each case pins the class, the line and the key words of the message; the rendered human
//! diagnostics are pinned by snapshots.

use pto::cmd::run::{RunOptions, run};
use pto::{ErrorFormat, TargetName};
use serde_json::Value;
use std::path::Path;

fn path(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/faults").join(file).display().to_string()
}

fn run_fault(file: &str, target: TargetName, inputs: &[(&str, &str)], format: ErrorFormat) -> pto::Outcome {
    run(&RunOptions {
        inputs: inputs.iter().map(|(n, f)| format!("{n}={}", path(f))).collect(),
        error_format: format,
        ..RunOptions::new(path(file), target)
    })
}

/// Runs a case that must fail with one located diagnostic: checks class, line and message words,
/// and snapshots the human rendering (with the machine-specific path removed).
fn expect_fault(file: &str, target: TargetName, inputs: &[(&str, &str)], class: &str, line: u64, words: &[&str]) {
    let out = run_fault(file, target, inputs, ErrorFormat::Json);
    assert_eq!(out.code, 1, "{file}: exit code; stderr: {}", out.stderr);
    let d: Value = serde_json::from_str(out.stderr.lines().next().unwrap_or("")).unwrap_or_else(|e| panic!("{file}: {e}: {}", out.stderr));
    assert_eq!(d["class"], class, "{file}: {d}");
    assert_eq!(d["line"], line, "{file}: {d}");
    let message = d["message"].as_str().unwrap_or("");
    for w in words {
        assert!(message.contains(w), "{file}: message {message:?} lacks {w:?}");
    }
    let human = run_fault(file, target, inputs, ErrorFormat::Human);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).display().to_string();
    insta::assert_snapshot!(file.replace('.', "_"), human.stderr.replace(&dir, "<root>"));
}

#[test]
fn tile_outside_its_buffer_is_located_and_target_dependent() {
    expect_fault("tile_outside_buffer.pto", TargetName::A2A3, &[], "LEGAL_BAD_ADDRESS", 5, &["196480", "ends at 196736", "196608"]);
    // The same address fits A5's 256 KiB Vec buffer.
    let a5 = run_fault("tile_outside_buffer.pto", TargetName::A5, &[], ErrorFormat::Json);
    assert_eq!(a5.code, 0, "{}", a5.stderr);
}

#[test]
fn misaligned_tile() {
    expect_fault("misaligned_tile.pto", TargetName::A5, &[], "LEGAL_BAD_ADDRESS", 5, &["address 100", "32-byte aligned"]);
}

#[test]
fn overlapping_live_tiles_written_by_different_ops() {
    expect_fault("overlapping_live_tiles.pto", TargetName::A2A3, &[], "LEGAL_OVERLAPPING_TILES", 8, &["`%a`", "`%b`", "overlap"]);
}

#[test]
fn gm_access_past_the_bound_array() {
    expect_fault(
        "gm_past_the_array.pto",
        TargetName::A2A3,
        &[("src", "gm_512.json")],
        "SIM_TRAP",
        9,
        &["element 512", "`%src`", "512 elements"],
    );
}

#[test]
fn gather_index_outside_the_source() {
    expect_fault(
        "gather_index_out_of_range.as.pto",
        TargetName::A5,
        &[("idx", "idx_out_of_range.json")],
        "SIM_TRAP",
        6,
        &["index 64", "(0, 3)"],
    );
}

#[test]
fn data_files_of_the_wrong_dtype_or_shape() {
    for (file, words) in [
        ("wrong_dtype.json", &["--input x", "holds f16", "tile holds f32"][..]),
        ("wrong_shape.json", &["--input x", "16x64", "8x64"][..]),
        ("short_data.json", &["--input x", "expected 1024 values", "found 1000"][..]),
    ] {
        let out = run_fault("input_for_tiles.as.pto", TargetName::A2A3, &[("x", file)], ErrorFormat::Human);
        assert_eq!(out.code, 1, "{file}");
        assert!(out.stdout.is_empty(), "{file}: no outputs on error");
        for w in words {
            assert!(out.stderr.contains(w), "{file}: {:?} lacks {w:?}", out.stderr);
        }
    }
}

#[test]
fn view_shape_differs_from_the_dynamic_valid_shape() {
    expect_fault(
        "view_shape_mismatch.pto",
        TargetName::A2A3,
        &[],
        "SIM_TRAP",
        11,
        &["valid shape 8x32", "view 16x32", "pto-isa requires them equal"],
    );
}

#[test]
fn legality_rules_on_dynamic_valid_shapes_are_checked_when_the_op_runs() {
    expect_fault(
        "row_expand_dynamic_broadcast.pto",
        TargetName::A5,
        &[],
        "SIM_TRAP",
        7,
        &["pto.trowexpandsub", "ins[1] (src1)", "valid 16x1", "valid cols = 8"],
    );
}
