//! Issue 13, acceptance item 2: every reproducer of a panic, a runaway or a silently wrong
//! result ends in a diagnostic with exit code 1 or 2 within 30 s and 2 GB — never a panic.
//!
//! Each case runs the `pto` binary under `ulimit -v` (2 GiB of address space) and `timeout 30`,
//! so a run past either limit fails the exit-code assertion just as a panic (101) does, and
//! checks the diagnostic's class (`--error-format json`), line and key words. The programs are
//! under `tests/soundness/`, each starting with a comment that says what it reproduces; data
//! files with hostile headers are written by the tests themselves.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn case(file: &str) -> String {
    format!("tests/soundness/{file}")
}

/// What one run of the binary ended with.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The JSON diagnostics on stderr (`--error-format json`).
    fn diagnostics(&self) -> Vec<Value> {
        self.stderr.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }
}

/// `pto --error-format json ARGS` in the repository root, limited to 2 GiB of address space
/// and 30 seconds (a killed or timed-out run has an exit code other than 0, 1 and 2).
fn pto(args: &[&str]) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec timeout 30 \"$0\" --error-format json \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pto"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs sh");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `args` and checks that it fails with exit code 1 and a first diagnostic of `class` on
/// `line` (0: unlocated) whose message holds every one of `words`.
fn expect(args: &[&str], class: &str, line: u64, words: &[&str]) {
    let run = pto(args);
    assert_eq!(run.code, 1, "{args:?}: exit code; stderr: {}", run.stderr);
    let diags = run.diagnostics();
    let d = diags.first().unwrap_or_else(|| panic!("{args:?}: no JSON diagnostic in {:?}", run.stderr));
    assert_eq!(d["class"], class, "{args:?}: {d}");
    if line > 0 {
        assert_eq!(d["line"], line, "{args:?}: {d}");
    }
    let message = d["message"].as_str().unwrap_or("");
    for w in words {
        assert!(message.contains(w), "{args:?}: message {message:?} lacks {w:?}");
    }
}

/// A scratch directory for generated inputs, unique per test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pto-soundness-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creates a scratch directory");
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("writes a scratch file");
    path.display().to_string()
}

#[test]
fn expand_ops_with_a_destination_wider_or_taller_than_their_sources_are_rejected() {
    // One full operand and one per-row (trowexpand*) or per-column (tcolexpand*) operand,
    // computed by a reduction as in `examples/softmax.as.pto`; the destination is wider or
    // taller than both. pto-isa: src0 has dst's valid shape, src1 one value per dst row/column
    // (npu/a2a3/TRowExpandSub.hpp:65-89, npu/a5/TRowExpandSub.hpp:88-108).
    let dir = scratch("expand");
    for op in ["add", "sub", "mul", "div", "max", "min", "expdif"] {
        for (rows, reduce, vec_ty) in [(true, "trowsum", "16x1xf32, blayout=col_major"), (false, "tcolsum", "1x32xf32")] {
            let name = if rows { format!("trowexpand{op}") } else { format!("tcolexpand{op}") };
            for dst in ["16x64", "32x32", "32x64"] {
                let text = format!(
                    ".arg %x : !pto.tile<16x32xf32>\n%s = {reduce} %x : !pto.tile<{vec_ty}>\n%y = {name} %x, %s : !pto.tile<{dst}xf32>\n"
                );
                let file = write(&dir, &format!("{name}_{dst}.as.pto"), text.as_bytes());
                for target in ["a2a3", "a5"] {
                    expect(&["run", &file, "--target", target, "--default-inputs"], "LEGAL_UNSUPPORTED_TUPLE", 3, &[&name, "dst"]);
                }
            }
        }
    }
}

#[test]
fn a_full_operand_smaller_than_the_destination_at_run_time_is_a_trap() {
    expect(
        &["run", &case("row_expand_dynamic_src0.pto"), "--default-inputs"],
        "SIM_TRAP",
        8,
        &["pto.trowexpanddiv", "src0 valid cols 32, dst valid cols 64"],
    );
}

#[test]
fn a_gather_index_tile_smaller_than_the_destination_is_rejected() {
    for target in ["a2a3", "a5"] {
        expect(
            &["run", &case("gather_short_indices.as.pto"), "--target", target, "--default-inputs"],
            "LEGAL_UNSUPPORTED_TUPLE",
            4,
            &["dst valid rows 16, indices valid rows 8"],
        );
    }
}

#[test]
fn tiles_beyond_pto_isa_int_sizes_are_rejected_by_every_command() {
    for file in ["tile_8x1073741824.as.pto", "tile_2p31_squared.as.pto", "tile_100000_squared.as.pto"] {
        let path = case(file);
        for args in [
            vec!["verify", &path],
            vec!["verify", &path, "--target", "a2a3"],
            vec!["lower", &path, "--target", "a2a3", "--emit", "vector"],
            vec!["run", &path, "--default-inputs"],
        ] {
            expect(&args, "STRUCT_TILE_SHAPE", 2, &["capacity exceeds pto-isa's int Rows/Cols/Numel"]);
        }
    }
}

#[test]
fn verify_with_a_target_rejects_a_tile_larger_than_its_buffer() {
    let path = case("tile_larger_than_ub.as.pto");
    let structural = pto(&["verify", &path]);
    assert_eq!(structural.code, 0, "structurally fine: {}", structural.stderr);
    assert!(structural.stdout.contains(": ok (Level1"), "{}", structural.stdout);
    for (target, capacity) in [("a2a3", "196608"), ("a5", "262144")] {
        expect(&["verify", &path, "--target", target], "LEGAL_BUFFER_OVERFLOW", 2, &["6400000000 bytes", capacity]);
    }
}

#[test]
fn reader_sizes_are_bounded() {
    expect(&["verify", &case("result_group_4294967295.pto")], "PARSE_BAD_LITERAL", 3, &["between 1 and 1024", "4294967295"]);
    expect(&["verify", &case("segment_sizes_overflow.pto")], "PARSE_BAD_OP_SYNTAX", 3, &["does not add up to the 1 operands"]);
}

#[test]
fn an_index_tile_prints_a_type_that_reads_back() {
    let first = pto(&["fmt", &case("index_tile.pto")]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("!pto.tile_buf<vec, 8x64xindex>"), "{}", first.stdout);
    let dir = scratch("index");
    let printed = write(&dir, "printed.pto", first.stdout.as_bytes());
    let again = pto(&["fmt", &printed]);
    assert_eq!((again.code, again.stdout.as_str()), (0, first.stdout.as_str()), "{}", again.stderr);
    let verified = pto(&["verify", &printed]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
}

#[test]
fn index_and_address_arithmetic_near_i64_max_is_checked() {
    expect(
        &["verify", &case("textract_index_i64_max.pto"), "--target", "a5"],
        "LEGAL_UNSUPPORTED_TUPLE",
        5,
        &["32x32 at (9223372036854775807, 0) in 64x64"],
    );
    expect(
        &["run", &case("partition_offset_overflow.pto"), "--default-inputs"],
        "SIM_TRAP",
        8,
        &["the partition offset overflows at dimension 0"],
    );
}

#[test]
fn a_loop_up_to_i64_max_ends_after_its_last_iteration() {
    // 0 and 2^62 run; 2^63 is past the bound (and past i64).
    let run = pto(&["run", &case("loop_to_i64_max.pto"), "--trace"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr.matches("pto.get_block_idx").count(), 2, "{}", run.stderr);
}

/// An `.npy` file: magic, version, header length (2 bytes for v1, 4 for v2), header, data.
fn npy(version: u8, header_len: u32, header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend([version, 0]);
    match version {
        1 => out.extend((header_len as u16).to_le_bytes()),
        _ => out.extend(header_len.to_le_bytes()),
    }
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

/// A v1 header dictionary for `shape`, padded as numpy pads it.
fn npy_v1(shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    npy(1, header.len() as u32, &header, data)
}

#[test]
fn hostile_data_files_are_input_errors() {
    let dir = scratch("data");
    let tile = "tests/faults/input_for_tiles.as.pto";
    let cases: Vec<(String, &str)> = vec![
        // A v2 header length of 0xFFFFFFF0 in a 20-byte file: npyz allocated 4 GB for it.
        (write(&dir, "v2_header.npy", &npy(2, 0xFFFF_FFF0, "{}", &[])), "header length 4294967280 runs past the end of the file"),
        // Dimensions whose product overflows: an empty array in release builds, a panic in debug.
        (write(&dir, "huge.npy", &npy_v1("(4294967296, 4294967296)", &[])), "more elements than this machine can address"),
        (write(&dir, "negative.npy", &npy_v1("(-16, 64)", &[])), "bad dimension `-16`"),
        (write(&dir, "short.npy", &npy_v1("(16, 64)", &[0; 64])), "needs 4096 bytes of data, the file holds 64"),
        (
            write(&dir, "huge.json", br#"{"dtype": "f32", "shape": [18446744073709551615, 2], "data": []}"#),
            "shape 18446744073709551615x2 has more elements than this machine can address",
        ),
        (write(&dir, "negative.json", br#"{"dtype": "f32", "shape": [-16, 64], "data": []}"#), "bad dimension `-16`"),
    ];
    for (file, words) in cases {
        let input = format!("x={file}");
        expect(&["run", tile, "-i", &input], "INPUT", 0, &["--input x", words]);
    }
}

#[test]
fn tests_run_with_overflow_checks() {
    // The dev/test profile sets `overflow-checks = true` (Cargo.toml): an overflow panics.
    let wrapped = std::panic::catch_unwind(|| std::hint::black_box(u32::MAX) + std::hint::black_box(1));
    assert!(wrapped.is_err(), "u32::MAX + 1 did not panic: overflow checks are off");
}
