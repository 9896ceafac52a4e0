//! The A2A3 vector level on real kernels: every PTOAS sample and every conformance file
//! (`tests/conformance/**`) that runs on A2A3 runs again with
//! `exec_vector` (deterministic inputs: `Sim::use_default_inputs` for GM and scalars, a fixed
//! non-constant pattern in every tile argument), and every GM array and tile argument it leaves
//! must be byte-identical to the tile-semantics run — or, where a float sum ran as a vector
//! program (tree order), equal within 1e-5 relative (f32) / 2e-3 (f16). The snapshot pins, per sample, how many
//! tile ops ran as vector programs and why the others did not.

use pto_ir::verify::Verified;
use pto_lower::{Target, TargetId};
use pto_sim::{Sim, TileData};
use std::collections::BTreeMap;
use std::fmt::Write;

mod common;

struct Run {
    outputs: Vec<(String, TileData)>,
    log: Vec<pto_sim::interp::VectorRecord>,
}

/// Tile arguments of the module: name and type.
fn tile_args(m: &pto_ir::module::Module) -> Vec<(String, pto_ir::types::TileDesc)> {
    m.values
        .iter()
        .filter(|v| matches!(v.def, pto_ir::module::ValueDef::BlockArg(..)))
        .filter_map(|v| Some((v.name.clone(), *m.types.get(v.ty).tile()?)))
        .collect()
}

/// A deterministic, non-constant fill for a tile argument (small values, so sums stay exact
/// enough to compare and shifts stay in range).
fn pattern(t: &pto_ir::types::TileDesc) -> Option<TileData> {
    let n = (t.rows * t.cols) as usize;
    let vals: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let k = ((i * 37) % 23) as i64;
            if t.dtype.is_float() {
                serde_json::json!((k - 11) as f64 / 4.0)
            } else if t.dtype.name().starts_with("ui") || t.dtype.size_bytes() == 1 {
                serde_json::json!(k)
            } else {
                serde_json::json!(k - 11)
            }
        })
        .collect();
    TileData::from_json(t.dtype, t.rows as usize, t.cols as usize, &vals).ok()
}

fn run(m: &pto_ir::module::Module, vector: bool) -> Result<Run, String> {
    let mut sim = Sim::new(m, Target::get(TargetId::A2A3)).map_err(|d| d[0].message.clone())?;
    sim.exec_vector = vector;
    sim.use_default_inputs();
    for (name, t) in tile_args(m) {
        if let Some(data) = pattern(&t) {
            let _ = sim.bind_tile(&name, &data);
        }
    }
    sim.run().map_err(|d| d.message)?;
    let mut outputs = sim.gm_outputs();
    for (name, _) in tile_args(m) {
        if let Ok(data) = sim.read_tile(&name) {
            outputs.push((name, data));
        }
    }
    Ok(Run { outputs, log: sim.vector_log.clone() })
}

/// What the comparison must ignore: scratch tiles (their contents are the implementation's
/// business), and in `tcmps` masks everything but the bits of the source's valid columns
/// (A2A3 `vcmpvs` writes whole iterations of bits per row and leaves the rest of the row; the
/// tile semantics clear the row's valid bytes): mask name → source valid columns.
struct Ignore {
    scratch: Vec<String>,
    masks: Vec<(String, usize)>,
}

fn ignore(m: &pto_ir::module::Module) -> Ignore {
    let mut ig = Ignore { scratch: Vec::new(), masks: Vec::new() };
    for op in m.walk() {
        let Some((_, bound)) = pto_lower::binding::bind(m, op) else { continue };
        let name = |v: pto_ir::module::ValueId| m.values[v.index()].name.clone();
        for b in bound.iter().filter(|b| b.slot == "tmp") {
            ig.scratch.push(name(b.value));
        }
        if m.op(op).opcode == pto_ir::ops::Opcode::TCmps {
            let src = bound.iter().find(|b| b.slot == "src").and_then(|b| m.value_type(b.value).tile().copied());
            if let (Some(d), Some(src)) = (bound.iter().find(|b| b.slot == "dst"), src) {
                let vc = match src.valid_cols {
                    pto_ir::types::Dim::Static(n) => n,
                    pto_ir::types::Dim::Dynamic => src.cols,
                };
                ig.masks.push((name(d.value), vc as usize));
            }
        }
    }
    ig
}

/// The bits of the first `vc` columns of every row of a mask.
fn mask_bits(t: &TileData, vc: usize) -> Vec<u8> {
    (0..t.rows).flat_map(|r| (0..vc).map(move |c| (t.bytes[r * t.cols + c / 8] >> (c % 8)) & 1)).collect()
}

fn close(a: &TileData, b: &TileData) -> bool {
    a.dtype.is_float()
        && a.as_f64()
            .iter()
            .zip(b.as_f64())
            .all(|(x, y)| *x == y || (x - y).abs() <= if a.dtype == pto_ir::ElemType::F32 { 1e-5 } else { 2e-3 } * x.abs().max(1.0))
}

#[test]
fn corpus_kernels_compute_the_same_with_vector_programs() {
    let Some(corpus) = common::corpus_dir() else { return };
    let here = common::root();
    // By the name the report shows (corpus-relative, or repository-relative), not by absolute
    // path: the order must not depend on where the clone and the corpus are.
    let mut files: Vec<(String, std::path::PathBuf)> = common::pto_files(&[corpus.clone(), here.join("tests/conformance")])
        .into_iter()
        .map(|f| (f.strip_prefix(&corpus).or_else(|_| f.strip_prefix(here)).map(|p| p.display().to_string()).unwrap_or_default(), f))
        .collect();
    files.sort();
    let mut report = String::new();
    let mut failures = Vec::new();
    let (mut compared, mut vectorized) = (0, 0);
    for (name, f) in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let Ok((module, _)) = pto_asm::parse(&text, pto_ir::FileId(0)) else { continue };
        let Ok(verified) = Verified::new(module) else { continue };
        let Ok((lowered, _)) = pto_lower::run(verified, Target::get(TargetId::A2A3), Default::default()) else { continue };
        let Ok(tile) = run(&lowered, false) else { continue };
        let vector = match run(&lowered, true) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: runs with tile semantics, traps as vector programs: {e}"));
                continue;
            }
        };
        compared += 1;
        let ok: usize = vector.log.iter().filter(|r| r.cost.is_ok()).map(|r| r.runs as usize).sum();
        vectorized += ok;
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for r in &vector.log {
            if let Err(e) = &r.cost {
                *reasons.entry(format!("{}: {e}", r.op)).or_default() += r.runs as usize;
            }
        }
        let mut verdict = "identical".to_string();
        let ig = ignore(&lowered);
        for ((n, a), (_, b)) in tile.outputs.iter().zip(&vector.outputs) {
            if ig.scratch.contains(n) {
                continue;
            }
            if let Some(&(_, vc)) = ig.masks.iter().find(|(m, _)| m == n) {
                if mask_bits(a, vc) != mask_bits(b, vc) {
                    failures.push(format!("{name}: mask %{n} differs in its valid bits"));
                }
                continue;
            }
            if a.bytes != b.bytes {
                if close(a, b) {
                    verdict = "equal within tolerance (float sum order)".into();
                } else {
                    failures.push(format!("{name}: %{n} differs"));
                }
            }
        }
        let _ = write!(report, "{name}: {verdict}, {ok} ops as vector programs");
        for (why, n) in reasons {
            let _ = write!(report, "; {n}× {why}");
        }
        report.push('\n');
    }
    assert!(failures.is_empty(), "{}\n\n{report}", failures.join("\n"));
    assert!(compared >= 20 && vectorized >= 50, "{compared} samples compared, {vectorized} ops vectorized:\n{report}");
    insta::assert_snapshot!(report);
}
