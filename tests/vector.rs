//! The A2A3 vector level through the CLI: `pto lower --emit vector`, `--stats`, and
//! `pto run --exec vector` against the tile semantics on every example and seed.

use pto::TargetName;
use pto::cmd::lower::{Emit, LowerOptions, run as lower};
use pto::cmd::run::{RunOptions, run};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn lower_vector(file: &str, target: TargetName) -> pto::Outcome {
    lower(&LowerOptions { emit: Emit::Vector, stats: true, ..LowerOptions::new(root().join(file).display().to_string(), target) })
}

/// `(instructions, repeats)` of the total row of a `--stats` table.
fn totals(stats: &str) -> (u64, u64) {
    let line = stats.lines().find(|l| l.trim_start_matches("//").trim_start().starts_with("total")).expect("a total row");
    let n: Vec<u64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    (n[0], n[1])
}

#[test]
fn trowsum_worked_example_costs_four_instructions_and_64_repeats() {
    let out = lower_vector("examples/trowsum_worked_example.as.pto", TargetName::A2A3);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Fill tmp with rep 0 + rep 1 (counter mode, one row per iteration), add rep 2, add the
    // 8-element tail under a continuous mask (16 iterations), vcadd tmp into dst.
    assert_eq!(totals(&out.stderr), (4, 64));
    assert!(out.stdout.contains("vadd.f32 tmp+0 [1,8], tmp+0 [1,8], src+768 [1,32]  repeat=16 mask=first(8)"), "{}", out.stdout);
    insta::assert_snapshot!("trowsum_worked_example", format!("{}{}", out.stdout, out.stderr));
}

#[test]
fn tcolargmax_doc_example_costs_63_instructions_per_column_block() {
    let out = lower_vector("tests/conformance/scratch/tcolargmax_doc_example.pto", TargetName::A2A3);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // 4 column blocks (3 full, a 63-column tail in counter mode) × (2 dups + 1 copy + 15 rows × 4).
    assert_eq!(totals(&out.stderr), (252, 252));
    assert_eq!(out.stdout.matches("mask=count(63)").count(), 2 + 15 * 4);
    let stats = out.stderr.clone();
    insta::assert_snapshot!("tcolargmax_doc_example_stats", stats);
}

#[test]
fn the_vector_level_is_a2a3_only() {
    let out = lower_vector("examples/trowsum_worked_example.as.pto", TargetName::A5);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("the vector level models A2A3"), "{}", out.stderr);
}

fn run_file(file: &str, inputs: Vec<String>, exec_vector: bool) -> pto::Outcome {
    run(&RunOptions {
        inputs,
        default_inputs: true,
        exec_vector,
        stats: exec_vector,
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A2A3)
    })
}

#[test]
fn exec_vector_matches_tile_semantics_on_every_example_and_seed() {
    let mut files: Vec<String> = Vec::new();
    for dir in ["examples", "examples/seeds"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "pto") {
                files.push(format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    files.sort();
    let mut report = Vec::new();
    for f in &files {
        let tile = run_file(f, vec![], false);
        if tile.code != 0 {
            report.push(format!("{f}: does not run with default inputs ({})", tile.stderr.lines().next().unwrap_or("")));
            continue;
        }
        let vector = run_file(f, vec![], true);
        assert_eq!(vector.code, 0, "{f} under --exec vector: {}", vector.stderr);
        // Rows `//   op at runs instructions ...` of ops that ran at least once as vector programs.
        let ran = |l: &&str| l.split_whitespace().nth(3).and_then(|r| r.parse::<u64>().ok()).is_some_and(|r| r > 0);
        let lowered = vector.stderr.lines().filter(|l| l.starts_with("//   pto.") && !l.contains("no vector program")).filter(ran).count();
        assert_eq!(tile.stdout, vector.stdout, "{f}: --exec vector changed the outputs");
        report.push(format!("{f}: identical outputs, {lowered} tile ops ran as vector programs"));
    }
    insta::assert_snapshot!(report.join("\n"));
}

/// A long `--exec vector` run keeps one log record per op (its runs summed), so its memory does
/// not grow with the number of iterations (issue 13: 2.7 GB after 30 s before).
#[test]
fn a_long_vector_run_keeps_one_record_per_op() {
    use pto_lower::{Target, TargetId};
    let text = "func.func @k(%x: !pto.tile_buf<vec, 16x16xf32>) {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %n = arith.constant 20000 : index\n  %one = arith.constant 1.0 : f32\n  scf.for %i = %c0 to %n step %c1 {\n    pto.tadds ins(%x, %one : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%x : !pto.tile_buf<vec, 16x16xf32>)\n    pto.tmuls ins(%x, %one : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%x : !pto.tile_buf<vec, 16x16xf32>)\n  }\n  return\n}\n";
    let (m, _) = pto_asm::parse(text, pto_ir::FileId(0)).expect("parses");
    let target = Target::get(TargetId::A2A3);
    let (lowered, _) = pto_lower::run(pto_ir::verify::Verified::new(m).expect("verifies"), target, Default::default()).expect("lowers");
    let mut sim = pto_sim::interp::Sim::new(&lowered, target).expect("places");
    sim.exec_vector = true;
    sim.bind_tile("x", &pto_sim::TileData { dtype: pto_ir::types::ElemType::F32, rows: 16, cols: 16, bytes: vec![0; 1024] })
        .expect("binds");
    sim.run().expect("runs");
    let runs: Vec<(&str, u64, bool)> = sim.vector_log.iter().map(|r| (r.op.as_str(), r.runs, r.cost.is_ok())).collect();
    assert_eq!(runs, [("pto.tadds", 20000, true), ("pto.tmuls", 20000, true)]);
    // The cost is summed over the runs: 20000 times the cost of one.
    let total = sim.vector_log[0].cost.as_ref().unwrap();
    assert!(total.instructions >= 20000 && total.instructions.is_multiple_of(20000), "{total:?}");
    // Each iteration added 1.0 to the zeros, then multiplied by 1.0.
    let x = sim.read_tile("x").expect("reads");
    assert_eq!(&x.bytes[..4], &20000.0f32.to_le_bytes());
}

/// `pto run --exec vector --stats` on softmax: the total says which ops it leaves out (the
/// three without an A2A3 vector program), and constants and declarations get no rows.
#[test]
fn run_stats_name_the_ops_the_total_leaves_out() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["run", "--json", "-q", "--target", "a2a3", "--default-inputs", "--exec", "vector", "--stats", "examples/softmax.as.pto"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("//   not in the total (no vector program): pto.trowexpandsub (7:1), pto.texp (8:1), pto.trowexpanddiv (10:1)\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("arith.constant") && !stderr.contains("pto.alloc_tile"), "filler rows:\n{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("//   pto.")).count(), 5, "{stderr}");
}
