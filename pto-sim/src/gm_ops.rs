//! Instructions that address a GM table element by element: `mgather` (table → tile) and
//! `mscatter` (tile → table), pto-isa `include/pto/cpu/MGather.hpp` and `MScatter.hpp`.
//!
//! `coalesce = elem` (the default) indexes the table's elements flat from the view's first
//! element (capacity: the product of the view's dimensions); `coalesce = row` moves whole rows,
//! row `i` of the tile to or from table row `idx[i]` (capacity: the view's rows, strides from the
//! view). An index past the capacity is clamped, wrapped, zeroed (`mgather`) or skipped
//! (`mscatter`) as the op's out-of-range mode says; with the default `undefined` mode it is a trap.

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{read, unsupported, write};
use crate::gm::{GmArray, GmView};
use crate::memory::Fault;
use crate::value::Val;
use crate::view::TileView;
use pto_ir::ops::Opcode;

/// What to do with an index past the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OutOfRange {
    Undefined,
    Clamp,
    Wrap,
    /// `mgather`: the element (or row) is 0.
    Zero,
    /// `mscatter`: nothing is written.
    Skip,
}

impl OutOfRange {
    fn parse(a: &Args<'_>, name: &str, kind: &str) -> Result<OutOfRange, Fault> {
        Ok(match a.enum_attr(name, kind).map(str::to_ascii_lowercase).as_deref() {
            None | Some("undefined") => OutOfRange::Undefined,
            Some("clamp") => OutOfRange::Clamp,
            Some("wrap") => OutOfRange::Wrap,
            Some("zero") => OutOfRange::Zero,
            Some("skip") => OutOfRange::Skip,
            Some(other) => return Err(Fault(format!("unknown `{name}` mode `{other}`"))),
        })
    }

    /// The index to use for `idx` in a table of `capacity`, or `None` (zero / skip).
    fn resolve(self, idx: i64, capacity: usize) -> Result<Option<usize>, Fault> {
        if capacity == 0 {
            return Err(Fault("the GM table is empty".into()));
        }
        // pto-isa converts the index to `size_t`: a negative index is a huge one.
        let idx = idx as u64;
        let last = capacity as u64 - 1;
        Ok(match self {
            _ if idx <= last => Some(idx as usize),
            OutOfRange::Clamp => Some(last as usize),
            OutOfRange::Wrap => Some((idx % capacity as u64) as usize),
            OutOfRange::Zero | OutOfRange::Skip => None,
            OutOfRange::Undefined => {
                return Err(Fault(format!(
                    "index {} is past the GM table's {capacity} entries (out-of-range mode `undefined`)",
                    idx as i64
                )));
            }
        })
    }
}

fn view(a: &Args<'_>, slot: &str) -> Result<GmView, Fault> {
    a.operands
        .iter()
        .find_map(|(s, v)| match v {
            Val::View(view) if *s == slot => Some(*view),
            _ => None,
        })
        .ok_or_else(|| Fault(format!("missing GM view operand `{slot}`")))
}

fn row_mode(a: &Args<'_>) -> Result<bool, Fault> {
    match a.enum_attr("coalesce", "coalesce").map(str::to_ascii_lowercase).as_deref() {
        None | Some("elem") => Ok(false),
        Some("row") => Ok(true),
        Some(other) => Err(Fault(format!("unknown coalesce mode `{other}`"))),
    }
}

/// The view's element count (elem mode) or rows (row mode), and its row and column strides.
fn geometry(v: &GmView, rows: bool) -> Result<(usize, i64, i64), Fault> {
    let dims = &v.shape[..v.rank];
    let capacity = if rows {
        if v.rank >= 2 { dims[v.rank - 2] } else { 1 }
    } else {
        dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d)).ok_or_else(|| Fault("the GM table's size overflows".into()))?
    };
    let stride = |k: usize| if v.rank > k { v.strides[v.rank - 1 - k] } else { 0 };
    Ok((usize::try_from(capacity).unwrap_or(0), stride(1), stride(0)))
}

/// The GM element index of table entry `entry` (elem mode) or of column `col` of row `entry`.
fn element_index(v: &GmView, rows: bool, (row_stride, col_stride): (i64, i64), entry: usize, col: usize) -> Result<i64, Fault> {
    let overflow = || Fault("a GM address overflows".into());
    let entry = i64::try_from(entry).map_err(|_| overflow())?;
    let at =
        if rows { entry.checked_mul(row_stride).and_then(|x| x.checked_add((col as i64).checked_mul(col_stride)?)) } else { Some(entry) };
    at.and_then(|x| x.checked_add(v.offset)).ok_or_else(overflow)
}

/// The indices: each element of the valid region (elem mode), or one per row in storage order
/// (row mode: a `1xR` or `Rx1` tile).
fn indices(m: &Machine<'_>, idx: &TileView, rows: bool, (r, c): (usize, usize)) -> Result<Vec<i64>, Fault> {
    let region = if rows {
        let n = r;
        if idx.desc.rows as usize * idx.desc.cols as usize >= n && (idx.desc.rows == 1 || idx.desc.cols == 1) {
            if idx.desc.rows == 1 { TileView { vrows: 1, vcols: n, ..*idx } } else { TileView { vrows: n, vcols: 1, ..*idx } }
        } else {
            return Err(Fault(format!("row-mode indices must be a 1x{n} or {n}x1 tile, found {}x{}", idx.desc.rows, idx.desc.cols)));
        }
    } else {
        TileView { vrows: r, vcols: c, ..*idx }
    };
    dispatch!(idx.desc.dtype, T => {
        if <T as Elem>::FLOAT {
            return Err(Fault(format!("indices must be integers, found {}", idx.desc.dtype)));
        }
        Ok(read::<T>(m.mem, &region)?.iter().map(|x| x.to_i64()).collect())
    }, _ => Err(unsupported(idx)))
}

fn table<'a>(m: &'a mut Machine<'_>, v: &GmView, elem_size: usize) -> Result<&'a mut GmArray, Fault> {
    let gm = m.gm.get_mut(v.arg).ok_or_else(|| Fault("the view's GM argument does not exist".into()))?;
    if gm.elem_size != elem_size {
        return Err(Fault(format!("GM elements are {} bytes, tile elements {elem_size}", gm.elem_size)));
    }
    Ok(gm)
}

fn mgather(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (v, dst, idx) = (view(a, "mem")?, a.tile("dst")?, a.tile("indices")?);
    let rows = row_mode(a)?;
    let oob = OutOfRange::parse(a, "gatherOob", "gather_oob")?;
    let (capacity, row_stride, col_stride) = geometry(&v, rows)?;
    let ids = indices(m, &idx, rows, (dst.vrows, dst.vcols))?;
    let size = dst.elem_size();
    let mut bytes = Vec::with_capacity(dst.vrows * dst.vcols * size);
    let limit = m.gm_limit;
    let gm = table(m, &v, size)?;
    for i in 0..dst.vrows {
        for j in 0..dst.vcols {
            let raw = if rows { ids[i] } else { ids[i * dst.vcols + j] };
            match oob.resolve(raw, capacity)? {
                Some(entry) => bytes.extend_from_slice(gm.element(element_index(&v, rows, (row_stride, col_stride), entry, j)?, limit)?),
                None => bytes.extend(std::iter::repeat_n(0, size)),
            }
        }
    }
    dispatch!(dst.desc.dtype, T => {
        let vals: Vec<T> = bytes.chunks_exact(size).map(T::load).collect();
        write(m.mem, &dst, &vals)
    }, _ => Err(unsupported(&dst)))
}

fn mscatter(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (v, src, idx) = (view(a, "mem")?, a.tile("src")?, a.tile("indices")?);
    let rows = row_mode(a)?;
    let oob = OutOfRange::parse(a, "scatterOob", "scatter_oob")?;
    let atomic = a.enum_attr("scatterAtomicOp", "scatter_atomic_op").map(str::to_ascii_lowercase);
    let (capacity, row_stride, col_stride) = geometry(&v, rows)?;
    let ids = indices(m, &idx, rows, (src.vrows, src.vcols))?;
    dispatch!(src.desc.dtype, T => {
        let vals = read::<T>(m.mem, &src)?;
        let limit = m.gm_limit;
        let gm = table(m, &v, T::SIZE)?;
        for i in 0..src.vrows {
            for j in 0..src.vcols {
                let raw = if rows { ids[i] } else { ids[i * src.vcols + j] };
                let Some(entry) = oob.resolve(raw, capacity)? else { continue };
                let cell = gm.element(element_index(&v, rows, (row_stride, col_stride), entry, j)?, limit)?;
                let (old, new) = (T::load(cell), vals[i * src.vcols + j]);
                let value = match atomic.as_deref() {
                    None | Some("none") => new,
                    Some("add") => old.add(new),
                    Some("max") => if old < new { new } else { old },
                    Some("min") => if new < old { new } else { old },
                    Some(other) => return Err(Fault(format!("unknown scatterAtomicOp `{other}`"))),
                };
                value.store(cell);
            }
        }
        gm.written = true;
        Ok(())
    }, _ => Err(unsupported(&src)))
}

/// Every instruction of this module, by the op table's slot names.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[(Opcode::MGather, mgather), (Opcode::MScatter, mscatter)];
