//! # A2A3 cycles as pto-isa's lightweight formula model computes them
//!
//! pto's own A2A3 model ([`crate::cost`]) times an op from the vector instructions it lowers
//! to, calibrated on measured counts. pto-isa ships a second, lighter model for A2A3
//! (`lightweight::EstimateCycles` with `arch = A2A3`, `include/pto/costmodel/
//! lightweight_costmodel.hpp` and `a2a3/formula_costmodel/` at 3186c381), and its `st_fit`
//! tests expect its numbers exactly. This module is that model, so that a user can see what
//! pto-isa would say (`pto run --cycles --cost-model pto-isa`) and the `st_fit` rows can be
//! reproduced:
//!
//! - **elementwise** (`TSUB`, `TMUL`, `TADDS`, `TDIVS`, `TMULS`, `TMINS`, `TROWSUM`,
//!   `TROWMAX`, `TCOLSUM`, `TCOLMAX`, `TROWEXPAND`, `TEXP`, `TSQRT`; f32 and f16 only): a line
//!   `slope · rows · cols + bias` looked up by (op, type, columns) in its `formula_params.csv`
//!   (kept as `pto-lower/data/a2a3_formula.csv`), rounded half away from zero
//!   (`TryEstimateFormulaCycles`). Only `TEXP` and `TSQRT` have a line for any type and any
//!   column count (`TryEstimateFormulaCyclesAnyDType`); the others have none for a column
//!   count the table does not list;
//! - **matmul** (f32 and f16 left operands): `6 + ⌈m/16⌉·⌈k/(32 / element bytes)⌉·⌈n/16⌉ ·
//!   (2 for f32, else 1)` (`TryEstimateMadCycles`);
//! - **transfers** (`TLOAD`, `TSTORE`, `TMOV`): `bytes / bandwidth · frequency`, where the
//!   bandwidth is the entry of `kA2A3ArchConfig` for the path the tile kind selects
//!   (`TryResolveTransferPipe`) and the frequency 1.85 GHz in MHz. pto-isa divides by the
//!   table's figure as bytes per microsecond (`PredictRuntimeConfig::bandwidth_bytes_per_us`
//!   takes the GiB/s column as it is), so its transfer counts are about 10⁷ times pto's; this
//!   module does the same, deliberately (docs/performance-model.md, *pto-isa's lightweight
//!   model*).
//!
//! Anything else has no formula here ([`cycles`] is `None`); pto-isa then warns and answers
//! 0 cycles.

use pto_ir::ops::Opcode;
use pto_ir::types::{ElemType, Loc};
use std::sync::OnceLock;

/// One op as the lightweight model's `CostModelInput` sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FitQuery {
    /// The op.
    pub opcode: Opcode,
    /// The main source's element type (a matmul's left operand's).
    pub dtype: ElemType,
    /// Rows (a matmul's m).
    pub rows: u64,
    /// Columns (a matmul's n).
    pub cols: u64,
    /// A matmul's k.
    pub k: u64,
    /// A transfer's tile kind (the destination's for a load, the source's for a store, the
    /// destination's for a move).
    pub tile: Option<Loc>,
    /// A transfer's element count (`data_size`).
    pub elements: u64,
}

/// pto-isa's main clock (`kMainFrequencyHz`), in MHz.
const FREQUENCY_MHZ: f64 = 1850.0;

/// One line of the table: `cols == 0` is pto-isa's `*` (`kFormulaAnyCols`).
#[derive(Clone, Debug, PartialEq)]
struct Line {
    op: String,
    dtype: String,
    cols: u64,
    slope: f64,
    bias: f64,
}

/// The lines of `data/a2a3_formula.csv`.
fn lines() -> &'static [Line] {
    static LINES: OnceLock<Vec<Line>> = OnceLock::new();
    LINES.get_or_init(|| {
        crate::cost::table_rows(include_str!("../data/a2a3_formula.csv"))
            .filter_map(|f| {
                Some(Line {
                    op: f.first()?.to_string(),
                    dtype: f.get(1)?.to_string(),
                    cols: match *f.get(2)? {
                        "*" => 0,
                        c => c.parse().ok()?,
                    },
                    slope: f.get(3)?.parse().ok()?,
                    bias: f.get(4)?.parse().ok()?,
                })
            })
            .collect()
    })
}

/// The line for (op, type, columns); `None` where pto-isa's `TryLookupFormulaParam` finds none
/// (it also refuses a column count over 16 bits).
fn lookup(op: &str, dtype: &str, cols: u64) -> Option<&'static Line> {
    if cols > u64::from(u16::MAX) {
        return None;
    }
    lines().iter().find(|l| l.op == op && l.dtype == dtype && l.cols == cols)
}

/// The ops with an elementwise line, and whether they take the any-type, any-columns lines.
const ELEMENTWISE: &[(Opcode, bool)] = &[
    (Opcode::TSub, false),
    (Opcode::TMul, false),
    (Opcode::TAdds, false),
    (Opcode::TDivs, false),
    (Opcode::TMuls, false),
    (Opcode::TMins, false),
    (Opcode::TRowSum, false),
    (Opcode::TRowMax, false),
    (Opcode::TColSum, false),
    (Opcode::TColMax, false),
    (Opcode::TRowExpand, false),
    (Opcode::TExp, true),
    (Opcode::TSqrt, true),
];

/// `slope · rows · cols + bias`, rounded as `RoundToCycles` rounds (`llround`, 0 below 0).
fn elementwise(q: &FitQuery) -> Option<f64> {
    let &(_, any) = ELEMENTWISE.iter().find(|(op, _)| *op == q.opcode)?;
    let dtype = match q.dtype {
        ElemType::F32 => "fp32",
        ElemType::F16 => "fp16",
        _ => return None,
    };
    if q.rows == 0 || q.cols == 0 {
        return None;
    }
    let op = q.opcode.spec().name.to_ascii_uppercase();
    let line = match any {
        false => lookup(&op, dtype, q.cols)?,
        true => lookup(&op, dtype, q.cols)
            .or_else(|| lookup(&op, dtype, 0))
            .or_else(|| lookup(&op, "any", q.cols))
            .or_else(|| lookup(&op, "any", 0))?,
    };
    let value = line.slope * q.rows as f64 * q.cols as f64 + line.bias;
    Some(if value <= 0.0 { 0.0 } else { value.round() })
}

/// `TryEstimateMadCycles`: a head of 6 and one cycle per 16 × (32 bytes) × 16 fractal, two
/// for f32.
fn matmul(q: &FitQuery) -> Option<f64> {
    let per_fractal: u64 = match q.dtype {
        ElemType::F32 => 2,
        ElemType::F16 => 1,
        _ => return None,
    };
    let (m, k, n) = (q.rows, q.k, q.cols);
    if m == 0 || k == 0 || n == 0 {
        return None;
    }
    let k_tile = 32 / u64::from(q.dtype.size_bytes());
    let fractals = m.div_ceil(16).checked_mul(k.div_ceil(k_tile))?.checked_mul(n.div_ceil(16))?;
    Some(6.0 + per_fractal.checked_mul(fractals)? as f64)
}

/// `kA2A3ArchConfig`'s bandwidth for the path `TryResolveTransferPipe` picks.
fn transfer_bandwidth(opcode: Opcode, tile: Loc) -> Option<f64> {
    Some(match (opcode, tile) {
        (Opcode::TLoad, Loc::Vec) => 100.9,   // GM_TO_UB
        (Opcode::TLoad, Loc::Mat) => 135.0,   // GM_TO_L1
        (Opcode::TStore, Loc::Vec) => 188.46, // UB_TO_GM
        (Opcode::TStore, Loc::Mat) => 32.0,   // L1_TO_GM
        (Opcode::TStore, Loc::Acc) => 70.0,   // L0C_TO_GM
        (Opcode::TMov, Loc::Vec) => 1024.0,   // UB_TO_UB
        (Opcode::TMov, Loc::Mat) => 128.0,    // L0C_TO_L1
        (Opcode::TMov, Loc::Left) => 441.0,   // L1_TO_L0A
        (Opcode::TMov, Loc::Right) => 220.5,  // L1_TO_L0B
        (Opcode::TMov, Loc::Bias) => 32.0,    // L1_TO_BT
        (Opcode::TMov, Loc::Scaling) => 32.0, // L1_TO_FB
        _ => return None,
    })
}

/// `TryEstimateTransferLatency`: the element count in bytes (integer and 16/32-bit float
/// types only) over the path's bandwidth, in cycles (not rounded).
fn transfer(q: &FitQuery) -> Option<f64> {
    use ElemType::*;
    let bytes = match q.dtype {
        I8 | U8 | I16 | U16 | F16 | BF16 | I32 | U32 | F32 => q.elements.checked_mul(u64::from(q.dtype.size_bytes()))?,
        _ => return None,
    };
    if bytes == 0 {
        return None;
    }
    let bandwidth = transfer_bandwidth(q.opcode, q.tile?)?;
    Some(bytes as f64 / bandwidth * FREQUENCY_MHZ)
}

/// The op's cycles under pto-isa's lightweight A2A3 model, or `None` where it has no formula
/// (pto-isa falls back to 0 cycles there, with a warning).
pub fn cycles(q: &FitQuery) -> Option<f64> {
    match q.opcode {
        Opcode::TLoad | Opcode::TStore | Opcode::TMov => transfer(q),
        Opcode::TMatmul => matmul(q),
        _ => elementwise(q),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(opcode: Opcode, dtype: ElemType, rows: u64, cols: u64) -> FitQuery {
        FitQuery { opcode, dtype, rows, cols, k: 0, tile: None, elements: 0 }
    }

    #[test]
    fn an_elementwise_op_takes_the_line_of_its_column_count() {
        // TADDS,fp32,64,0.0156,25: 0.0156 · 32 · 64 + 25 = 56.9488 → 57.
        assert_eq!(cycles(&q(Opcode::TAdds, ElemType::F32, 32, 64)), Some(57.0));
        // TMUL,fp16,128,0.0156,26 at 10 rows: 19.968 + 26 = 45.968 → 46.
        assert_eq!(cycles(&q(Opcode::TMul, ElemType::F16, 10, 128)), Some(46.0));
        // A column count the table does not list has no line.
        assert_eq!(cycles(&q(Opcode::TAdds, ElemType::F32, 32, 65)), None);
        // Nor a type other than f32 and f16, nor an op without lines (tadd).
        assert_eq!(cycles(&q(Opcode::TAdds, ElemType::BF16, 32, 64)), None);
        assert_eq!(cycles(&q(Opcode::TAdd, ElemType::F32, 32, 64)), None);
    }

    #[test]
    fn exp_and_sqrt_take_their_any_type_any_columns_line() {
        // TEXP,any,*,0.0314,30.1 at 32 × 64: 64.3072 + 30.1 = 94.4072 → 94.
        assert_eq!(cycles(&q(Opcode::TExp, ElemType::F32, 32, 64)), Some(94.0));
        // TSQRT,any,*,0.0314,31.1 at 3 × 100 (no such column count anywhere): 9.42 + 31.1 → 41.
        assert_eq!(cycles(&q(Opcode::TSqrt, ElemType::F16, 3, 100)), Some(41.0));
        // Still f32 and f16 only: pto-isa's dispatcher refuses the other types first.
        assert_eq!(cycles(&q(Opcode::TExp, ElemType::I32, 3, 100)), None);
    }

    #[test]
    fn matmul_counts_fractals() {
        // m 31, k 33, n 17, f32: 2 · 2 · 5 (k tiles of 8) · 2 → 6 + 2 · 20 = 46.
        let mm = FitQuery { k: 33, ..q(Opcode::TMatmul, ElemType::F32, 31, 17) };
        assert_eq!(cycles(&mm), Some(46.0));
        let half = FitQuery { k: 33, ..q(Opcode::TMatmul, ElemType::F16, 31, 17) };
        assert_eq!(cycles(&half), Some(6.0 + 2.0 * 3.0 * 2.0));
        assert_eq!(cycles(&FitQuery { k: 0, ..mm }), None);
        // 2^28 · 2^7 · 2^28 = 2^63 fractals: two cycles each do not fit in 64 bits.
        let huge = FitQuery { k: 1 << 10, ..q(Opcode::TMatmul, ElemType::F32, 1 << 32, 1 << 32) };
        assert_eq!(cycles(&huge), None);
    }

    #[test]
    fn transfers_divide_bytes_by_the_paths_table_entry() {
        let load = FitQuery { tile: Some(Loc::Vec), elements: 1024, ..q(Opcode::TLoad, ElemType::F32, 0, 0) };
        assert_eq!(cycles(&load), Some(4096.0 / 100.9 * 1850.0));
        let to_l0b = FitQuery { opcode: Opcode::TMov, tile: Some(Loc::Right), ..load };
        assert_eq!(cycles(&to_l0b), Some(4096.0 / 220.5 * 1850.0));
        // No path: a load into L0C, or a transfer without a tile kind.
        assert_eq!(cycles(&FitQuery { tile: Some(Loc::Acc), ..load }), None);
        assert_eq!(cycles(&FitQuery { tile: None, ..load }), None);
    }

    #[test]
    fn every_line_of_the_table_is_read() {
        let rows = crate::cost::table_rows(include_str!("../data/a2a3_formula.csv"));
        assert_eq!(lines().len(), rows.count());
        for line in lines() {
            let op = pto_ir::ops::lookup(&line.op.to_ascii_lowercase()).expect("the table's ops are pto's");
            assert!(ELEMENTWISE.iter().any(|(o, _)| *o == op), "{} has a line and is dispatched", line.op);
        }
    }
}
