//! Acceptance 1 of the cycle model (docs/performance-model.md): its predictions against the
//! cycle counts of pto-isa's cost-model tests (`../shared/costmodel/cycles-train.tsv`).
//!
//! - `st` rows with a measured count (expected ≥ 10 cycles, accuracy > 0): the median precision
//!   `1 - |expected - pto| / expected` and the share of rows at or above pto-isa's own threshold
//!   are printed and asserted;
//! - `st_fit` rows (pto-isa's A2A3 formula model, `pto_lower::cost_a2a3_fit`): exact;
//! - `st_a5_fit` rows (pto-isa's A5 formula model, `pto_lower::cost_a5`): within their
//!   threshold minus 0.05 (pto-isa's own tolerance for them) on at least 95 %.
//!
//! Each row is turned into the op the test runs: ops with a vector program are lowered
//! (`pto_lower::vector::lower`) and timed instruction by instruction; the others go through
//! `pto_lower::cost::work_of`. Skips loudly when the shared material is absent.

mod common;

use pto_ir::ops::{Opcode, lookup};
use pto_ir::types::ElemType;
use pto_lower::cost::{self, OpShape, Path, Shape, Work};
use pto_lower::cost_a2a3_fit::{self, FitQuery};
use pto_lower::cost_a5;
use pto_lower::vector::{self, TileOp, VTile, ir::Scalar};
use std::collections::BTreeMap;

/// One row of `cycles-train.tsv`.
struct Row {
    suite: String,
    instruction: String,
    test: String,
    dtype: ElemType,
    dst_dtype: ElemType,
    /// The two type columns as written (A5 types pto has no element type for, `f4e2m1`).
    dtype_text: String,
    dst_text: String,
    rows: u64,
    cols: u64,
    vrows: u64,
    vcols: u64,
    /// `vec`, `mat` or `left`.
    loc: String,
    extra: BTreeMap<String, String>,
    expected: f64,
    accuracy: f64,
}

fn rows() -> Option<Vec<Row>> {
    let dir = common::shared::costmodel()?;
    let text = std::fs::read_to_string(dir.join("cycles-train.tsv")).expect("cycles-train.tsv is readable");
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 14, "a row of 14 columns: {line}");
        let num = |s: &str| s.parse::<u64>().unwrap_or(0);
        let dtype = ElemType::parse(f[3]).unwrap_or(ElemType::F32);
        let extra = f[10].split(';').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
        out.push(Row {
            suite: f[0].into(),
            instruction: f[1].into(),
            test: f[2].into(),
            dtype,
            dst_dtype: ElemType::parse(f[4]).unwrap_or(dtype),
            dtype_text: f[3].into(),
            dst_text: if f[4].is_empty() { f[3].into() } else { f[4].into() },
            rows: num(f[5]),
            cols: num(f[6]),
            vrows: num(f[7]),
            vcols: num(f[8]),
            loc: f[9].into(),
            extra,
            expected: f[11].parse().unwrap_or(0.0),
            accuracy: f[12].parse().unwrap_or(0.0),
        });
    }
    Some(out)
}

/// `RxC` at the start of `s`.
fn dims(s: &str) -> Option<(u64, u64)> {
    let (r, rest) = s.split_once('x')?;
    let c: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((r.parse().ok()?, c.parse().ok()?))
}

/// The tile slots of the op's first operand form (`src0:tile, src1:tile -> dst:tile`), with
/// optional ones only when the row names them.
fn tile_slots(op: Opcode, row: &Row) -> Vec<&'static str> {
    let form = op.spec().sig.split('|').next().unwrap_or("");
    form.split([',', '-', '>'])
        .filter_map(|item| item.trim().split_once(':'))
        .filter(|(_, kind)| kind.starts_with("tile"))
        .filter(|(name, kind)| !kind.ends_with('?') || row.extra.contains_key(*name))
        .map(|(name, _)| name)
        .collect()
}

/// The vector-level op of a row whose instruction has a vector program.
fn tile_op(op: Opcode, row: &Row) -> TileOp {
    let mut addr = 0;
    let tiles = tile_slots(op, row)
        .into_iter()
        .map(|slot| {
            let shape = row.extra.get(slot).and_then(|s| dims(s));
            let (rows, cols) = shape.unwrap_or((row.rows, row.cols));
            let (vrows, vcols) = match shape {
                Some(s) if slot == "dst" => s,
                Some(_) => {
                    let valid = row.extra[slot].split_once("valid ").and_then(|(_, v)| dims(v));
                    valid.unwrap_or((rows, cols))
                }
                None => (row.vrows, row.vcols),
            };
            let dtype = if slot == "dst" { row.dst_dtype } else { row.dtype };
            let bytes = rows * cols * dtype.size_bytes() as u64;
            let t = VTile {
                slot,
                addr,
                bytes,
                dtype,
                rows: rows as u32,
                cols: cols as u32,
                vrows: vrows as u32,
                vcols: vcols as u32,
                static_full_cols: vcols == cols,
                static_valid: true,
                row_major: true,
            };
            addr += bytes.next_multiple_of(32);
            t
        })
        .collect();
    let scalar = Some(row.extra.get("scalar").map_or(Scalar::Unknown, |s| match s.parse::<i64>() {
        Ok(i) => Scalar::Int(i),
        Err(_) => Scalar::Float(s.parse().unwrap_or(0.0)),
    }));
    TileOp { opcode: op, tiles, scalar, cmp: None, flag: row.extra.get("isBinary").is_some_and(|v| v == "true") }
}

/// The model's cycles for a row.
fn predict(row: &Row) -> f64 {
    let op = lookup(&row.instruction).unwrap_or_else(|| panic!("{}: `{}` is in the op table", row.test, row.instruction));
    if vector::is_lowered(op) {
        let prog = vector::lower(&tile_op(op, row)).unwrap_or_else(|e| panic!("{}: {}", row.test, e.0));
        return Work::Vector(prog).cycles();
    }
    let gshape: Vec<u64> = row.extra.get("gshape").map(|g| g.split('x').filter_map(|d| d.parse().ok()).collect()).unwrap_or_default();
    let conv = row.extra.get("tile").is_some_and(|t| t == "ConvTile");
    let mut src = Shape { dtype: row.dtype, rows: row.vrows, cols: row.vcols };
    if conv {
        src = Shape { dtype: ElemType::U8, rows: 1, cols: row.extra["bytes"].parse().unwrap_or(0) };
    }
    let path = match op.spec().family {
        pto_ir::ops::Family::Memory if conv => Some(Path::GmToL1),
        pto_ir::ops::Family::Memory => Some(Path::GmToUb),
        pto_ir::ops::Family::Move => Some(Path::UbToUb),
        _ => None,
    };
    let mkn = match (row.extra.get("m"), row.extra.get("k"), row.extra.get("n")) {
        (Some(m), Some(k), Some(n)) => Some((m.parse().unwrap(), k.parse().unwrap(), n.parse().unwrap())),
        _ => None,
    };
    let calls = if gshape.len() == 5 && !conv { gshape[..3].iter().product() } else { 1 };
    cost::work_of(&OpShape { opcode: op, src, dst_dtype: row.dst_dtype, path, calls, mkn }).cycles()
}

/// pto-isa's lightweight A2A3 model's cycles for a row (its `CostModelInput`: rows and
/// columns, a matmul's m, k and n, a transfer's tile kind and element count).
fn predict_fit(row: &Row) -> Option<f64> {
    let opcode = lookup(&row.instruction)?;
    let num = |key: &str| row.extra.get(key).and_then(|v| v.parse::<u64>().ok());
    let (rows, cols, k) = match (num("m"), num("k"), num("n")) {
        (Some(m), Some(k), Some(n)) => (m, n, k),
        _ => (row.rows, row.cols, 0),
    };
    let tile = match row.loc.as_str() {
        "vec" => Some(pto_ir::types::Loc::Vec),
        "mat" => Some(pto_ir::types::Loc::Mat),
        "left" => Some(pto_ir::types::Loc::Left),
        _ => None,
    };
    cost_a2a3_fit::cycles(&FitQuery { opcode, dtype: row.dtype, rows, cols, k, tile, elements: row.rows * row.cols })
}

fn precision(expected: f64, predicted: f64) -> f64 {
    1.0 - (expected - predicted).abs() / expected
}

#[test]
fn st_rows_beat_pto_isa_thresholds() {
    let Some(rows) = rows() else { return };
    let measured: Vec<&Row> = rows.iter().filter(|r| r.suite == "st" && r.expected >= 10.0 && r.accuracy > 0.0).collect();
    assert!(measured.len() >= 40, "the st rows with a measured count are there ({})", measured.len());
    let mut precisions = Vec::new();
    let mut at_threshold = 0;
    for r in &measured {
        let pto = predict(r).round();
        let p = precision(r.expected, pto);
        let ok = p >= r.accuracy - 1e-9;
        at_threshold += ok as usize;
        eprintln!(
            "{:<48} {:>6} pto {:>6} precision {:.3} threshold {:.3} {}",
            r.test,
            r.expected,
            pto,
            p,
            r.accuracy,
            if ok { "" } else { "BELOW" }
        );
        precisions.push(p);
    }
    precisions.sort_by(f64::total_cmp);
    let n = precisions.len();
    let median = if n % 2 == 1 { precisions[n / 2] } else { (precisions[n / 2 - 1] + precisions[n / 2]) / 2.0 };
    let share = at_threshold as f64 / n as f64;
    println!("st rows: {n}; median precision {median:.3}; at or above pto-isa's threshold: {at_threshold} ({:.1} %)", share * 100.0);
    eprintln!("st rows: {n}; median precision {median:.3}; at or above pto-isa's threshold: {at_threshold} ({:.1} %)", share * 100.0);
    // Reached: median 0.989, 39 of 43 rows (90.7 %); the acceptance asks 0.85 and 80 %.
    assert!(median >= 0.98, "median precision {median:.3} < 0.98");
    assert!(share >= 0.90, "{:.1} % of rows at pto-isa's threshold < 90 %", share * 100.0);
}

#[test]
fn st_fit_rows_are_exact() {
    let Some(rows) = rows() else { return };
    let fit: Vec<&Row> = rows.iter().filter(|r| r.suite == "st_fit").collect();
    assert!(!fit.is_empty());
    for r in fit {
        let cycles = predict_fit(r).unwrap_or_else(|| panic!("{}: pto-isa's A2A3 formula model has a formula for it", r.test));
        assert_eq!(cycles.round(), r.expected, "{}", r.test);
    }
}

/// An `st_a5_fit` row's curve parameters: its `op_params`, or a cast's rounding and
/// saturation (`CAST_RINT_SAT_ON_normal`).
fn a5_params(r: &Row) -> Option<String> {
    r.extra.get("op_params").cloned().or_else(|| match (r.extra.get("round"), r.extra.get("sat")) {
        (Some(round), Some(sat)) => Some(format!("{round}_SAT_{sat}_normal")),
        _ => None,
    })
}

/// An `st_a5_fit` row as the A5 formula model's query.
fn a5_query<'a>(r: &'a Row, op_params: Option<&'a str>) -> cost_a5::VfQuery<'a> {
    let op = lookup(&r.instruction).unwrap_or_else(|| panic!("{}: `{}` is in the op table", r.test, r.instruction));
    cost_a5::VfQuery {
        opcode: op,
        src: &r.dtype_text,
        dst: &r.dst_text,
        rows: r.rows,
        cols: r.cols,
        valid_rows: r.vrows,
        valid_cols: r.vcols,
        vf_impl: r.extra.get("vf_impl").and_then(|v| cost_a5::VfImpl::parse(v)).unwrap_or_default(),
        op_params,
    }
}

#[test]
fn st_a5_fit_rows_are_within_their_tolerance() {
    let Some(rows) = rows() else { return };
    let fit: Vec<&Row> = rows.iter().filter(|r| r.suite == "st_a5_fit").collect();
    assert!(fit.len() >= 300, "the st_a5_fit rows are there ({})", fit.len());
    let mut within = 0;
    for r in &fit {
        let params = a5_params(r);
        let pto = cost_a5::vf_cycles(&a5_query(r, params.as_deref()));
        let p = pto.map_or(0.0, |c| precision(r.expected, c));
        let ok = p >= r.accuracy - 0.05 - 1e-9;
        within += ok as usize;
        if !ok {
            eprintln!("{:<56} {:>6} pto {:?} precision {p:.3} threshold {:.3} BELOW", r.test, r.expected, pto, r.accuracy - 0.05);
        }
    }
    let share = within as f64 / fit.len() as f64;
    println!("st_a5_fit rows: {}; within their threshold - 0.05: {within} ({:.1} %)", fit.len(), share * 100.0);
    eprintln!("st_a5_fit rows: {}; within their threshold - 0.05: {within} ({:.1} %)", fit.len(), share * 100.0);
    assert!(share >= 0.95, "{:.1} % of st_a5_fit rows within tolerance < 95 %", share * 100.0);
}
