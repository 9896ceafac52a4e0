//! `pto run --trace`: one line per executed op with its source location and what it wrote
//! (scalars, placements, views, the first elements and the last of every tile written).

use pto::TargetName;
use pto::cmd::run::{RunOptions, SyncCheck, run};

mod common;

fn trace(file: &str, target: TargetName) -> String {
    let input = common::root().join(file).display().to_string();
    let out = run(&RunOptions { trace: true, default_inputs: true, sync_check: SyncCheck::Never, ..RunOptions::new(input, target) });
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Paths differ between checkouts; keep them relative to the repository.
    out.stderr.replace(&format!("{}/", common::root().display()), "")
}

#[test]
fn a_level2_kernel_shows_views_placements_and_tile_contents() {
    let text = trace("examples/vadd.pto", TargetName::A5);
    // The default GM pattern starts -1.25, 0.5, -2.0, -0.25; the add doubles it.
    assert!(text.contains("examples/vadd.pto:21:5  pto.tadd             %tc = f32 32x32 [-2.5, 1.0, -4.0, -0.5, …, -0.5]"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn a_level1_program_names_results_as_the_source_does() {
    let text = trace("examples/softmax.as.pto", TargetName::A2A3);
    // Bufferization moved %m into %m_buf; the trace keeps the source's name.
    assert!(
        text.lines().any(|l| l.starts_with("examples/softmax.as.pto:6:1") && l.contains("pto.trowmax") && l.contains("%m = f32 16x1 [")),
        "{text}"
    );
    assert!(text.contains("%scratch0 at UB+"), "the inserted scratch tile is placed in UB:\n{text}");
}
