//! Tile views: where element `(r, c)` of a tile lives, for every layout — the only place that
//! knows layouts.
//!
//! Storage order (pto-isa `tile_offsets.hpp`, golden README): ND `r*cols + c`; DN `c*rows + r`;
//! boxed layouts with inner box `ir x ic` ([`TileDesc::inner_box`]), `sr = r/ir, inr = r%ir,
//! sc = c/ic, inc = c%ic`: Nz (col-major blocks, row-major boxes) `sc*rows*ic + sr*ir*ic +
//! inr*ic + inc`; Zn (row-major blocks, col-major boxes) `sr*cols*ir + sc*ir*ic + inc*ir + inr`;
//! Zz `sr*cols*ir + sc*ir*ic + inr*ic + inc`; Nn `sc*rows*ic + sr*ir*ic + inc*ir + inr`.
//!
//! Checked access: [`TileView::element_bytes`] (and [`element`] / [`element_mut`] over a tile's
//! storage bytes) fault when `(r, c)` lies outside the tile's capacity or its bytes outside the
//! tile's storage, so an instruction that reads or writes past a tile is a `SIM_TRAP`, never a
//! panic and never a silent access to a neighbouring tile. [`TileView::covers`] checks a whole
//! region once before a loop over it.

use crate::memory::Fault;
use pto_ir::types::{BLayout, Loc, SLayout, TileDesc};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// A tile placed in memory with its run-time valid shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TileView {
    /// Buffer.
    pub loc: Loc,
    /// Byte address in the buffer.
    pub addr: u64,
    /// The tile type.
    pub desc: TileDesc,
    /// Valid rows (resolved).
    pub vrows: usize,
    /// Valid columns (resolved).
    pub vcols: usize,
}

impl TileView {
    /// Element index (not bytes) of `(r, c)` in the tile's storage.
    pub fn offset(&self, r: usize, c: usize) -> usize {
        let d = &self.desc;
        let (rows, cols) = (d.rows as usize, d.cols as usize);
        if d.slayout == SLayout::NoneBox {
            return match d.blayout {
                BLayout::RowMajor => r * cols + c,
                BLayout::ColMajor => c * rows + r,
            };
        }
        let (ir, ic) = d.inner_box();
        // A tile with fewer rows than a box (a GEMV `1xK` left tile, exempt from the row rule)
        // stores boxes of its own height.
        let (ir, ic) = ((ir as usize).min(rows), ic as usize);
        let (sr, inr, sc, inc) = (r / ir, r % ir, c / ic, c % ic);
        let in_box = match d.slayout {
            SLayout::RowMajor => inr * ic + inc,
            _ => inc * ir + inr,
        };
        match d.blayout {
            BLayout::RowMajor => sr * cols * ir + sc * ir * ic + in_box,
            BLayout::ColMajor => sc * rows * ic + sr * ir * ic + in_box,
        }
    }

    /// How many elements from `(r, c)` on, along its row (`along_row`) or its column, sit at
    /// consecutive storage offsets (at least 1; not bounded by the valid shape): the rest of
    /// the row of an ND tile or of the column of a DN one; the rest of the box row of a boxed
    /// tile with row-major boxes (Nz, Zz; the whole rest of the row when boxes are one row
    /// high) or of the box column of one with column-major boxes (Zn, Nn); 1 otherwise.
    pub fn run_len(&self, r: usize, c: usize, along_row: bool) -> usize {
        let d = &self.desc;
        let (rows, cols) = (d.rows as usize, d.cols as usize);
        let (ir, ic) = d.inner_box();
        let (ir, ic) = ((ir as usize).min(rows).max(1), (ic as usize).max(1));
        let rest = match (d.slayout, d.blayout, along_row) {
            (SLayout::NoneBox, BLayout::RowMajor, true) => cols.saturating_sub(c),
            (SLayout::NoneBox, BLayout::ColMajor, false) => rows.saturating_sub(r),
            (SLayout::NoneBox, _, _) => 1,
            (SLayout::RowMajor, _, true) if ir == 1 => cols.saturating_sub(c),
            (SLayout::RowMajor, _, true) => ic - c % ic,
            (SLayout::ColMajor, _, false) => ir - r % ir,
            _ => 1,
        };
        rest.max(1)
    }

    /// The byte range of element `(r, c)` in the tile's storage: a fault when `(r, c)` is
    /// outside the capacity (or, for a partial fractal box, its bytes outside the storage).
    pub fn element_bytes(&self, r: usize, c: usize) -> Result<Range<usize>, Fault> {
        let (rows, cols) = (self.desc.rows as usize, self.desc.cols as usize);
        if r >= rows || c >= cols {
            return Err(Fault(format!("access to element ({r}, {c}) of a {rows}x{cols} tile")));
        }
        let size = self.elem_size();
        let start = self.offset(r, c) * size;
        if (start + size) as u64 > self.size_bytes() {
            return Err(Fault(format!(
                "element ({r}, {c}) of a {rows}x{cols} tile lies outside its {} bytes of storage",
                self.size_bytes()
            )));
        }
        Ok(start..start + size)
    }

    /// Checks that the `rows x cols` region from `(0, 0)` lies inside the tile's capacity;
    /// `what` names the operand in the fault.
    pub fn covers(&self, rows: usize, cols: usize, what: &str) -> Result<(), Fault> {
        if rows <= self.desc.rows as usize && cols <= self.desc.cols as usize {
            return Ok(());
        }
        Err(Fault(format!("{what} ({}x{} tile) is read or written as {rows}x{cols}", self.desc.rows, self.desc.cols)))
    }

    /// True when the valid shape lies inside the capacity (every view the simulator builds;
    /// [`Self::covers`] with the valid shape).
    pub fn valid_inside(&self) -> Result<(), Fault> {
        self.covers(self.vrows, self.vcols, "the tile's valid region")
    }

    /// Bytes of storage.
    pub fn size_bytes(&self) -> u64 {
        self.desc.size_bytes()
    }

    /// Element size in bytes.
    pub fn elem_size(&self) -> usize {
        self.desc.dtype.size_bytes() as usize
    }

    /// True when each valid row is contiguous in storage (row-major, unboxed).
    pub fn rows_contiguous(&self) -> bool {
        self.desc.slayout == SLayout::NoneBox && self.desc.blayout == BLayout::RowMajor
    }

    /// True when the storage's longest runs go along rows (ND, Nz, Zz), false when along
    /// columns (DN, Zn, Nn): the direction [`Self::pieces`] of a window is best taken in.
    pub fn along_rows(&self) -> bool {
        match self.desc.slayout {
            SLayout::NoneBox => self.desc.blayout == BLayout::RowMajor,
            s => s == SLayout::RowMajor,
        }
    }

    /// The `rows x cols` window at `origin` in the pieces the storage holds contiguously
    /// ([`Self::run_len`]), line by line along rows (`along_row`) or columns; `None` when the
    /// window passes the capacity or an element of it has no bytes inside the tile's storage
    /// (an element-by-element access faults there). Depends on the layout only, so it is
    /// computed once per layout, window and direction and kept (per thread, within a bound)
    /// for the next call: a kernel's loop moves the same windows on every trip.
    pub fn pieces(&self, origin: (usize, usize), rows: usize, cols: usize, along_row: bool) -> Option<Rc<Pieces>> {
        /// Most windows kept per thread, and most pieces in them (8 MiB): the cache starts
        /// over when either would be passed; a window of more pieces is not kept.
        const KEPT: usize = 1024;
        const KEPT_PIECES: usize = 1 << 18;
        type Key = (TileDesc, (usize, usize), usize, usize, bool);
        type Cache = (HashMap<Key, Option<Rc<Pieces>>>, usize);
        thread_local! {
            static CACHE: RefCell<Cache> = RefCell::new((HashMap::new(), 0));
        }
        let key = (self.desc, origin, rows, cols, along_row);
        CACHE.with_borrow_mut(|(cache, pieces)| {
            if let Some(p) = cache.get(&key) {
                return p.clone();
            }
            let p = self.build_pieces(origin, rows, cols, along_row).map(Rc::new);
            let n = p.as_ref().map_or(0, |p| p.list.len());
            if n <= KEPT_PIECES {
                if cache.len() >= KEPT || *pieces + n > KEPT_PIECES {
                    cache.clear();
                    *pieces = 0;
                }
                *pieces += n;
                cache.insert(key, p.clone());
            }
            p
        })
    }

    /// [`Self::pieces`], computed.
    fn build_pieces(&self, (r0, c0): (usize, usize), rows: usize, cols: usize, along_row: bool) -> Option<Pieces> {
        let inside = r0.checked_add(rows).is_some_and(|e| e <= self.desc.rows as usize)
            && c0.checked_add(cols).is_some_and(|e| e <= self.desc.cols as usize);
        if !inside {
            return None;
        }
        let (lines, len_line) = if along_row { (rows, cols) } else { (cols, rows) };
        let at = |k: usize, i: usize| if along_row { (k, i) } else { (i, k) };
        let size = self.elem_size();
        let mut p = Pieces { along_row, list: Vec::new(), lines: vec![0], end: 0 };
        for k in 0..lines {
            let mut i = 0;
            while i < len_line {
                let (r, c) = at(k, i);
                let n = self.run_len(r0 + r, c0 + c, along_row).min(len_line - i);
                let start = self.element_bytes(r0 + r, c0 + c).ok()?.start;
                let end = start + n * size;
                if end as u64 > self.size_bytes() {
                    return None;
                }
                p.end = p.end.max(end);
                p.list.push(Piece { at: (r, c), count: n, start });
                i += n;
            }
            p.lines.push(p.list.len());
        }
        Some(p)
    }
}

/// One run of consecutive elements of a window ([`TileView::pieces`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Piece {
    /// `(row, column)` of its first element, relative to the window.
    pub at: (usize, usize),
    /// How many elements, along the window's lines.
    pub count: usize,
    /// Its first byte in the tile's storage.
    pub start: usize,
}

/// A window of a tile in the pieces its storage holds contiguously ([`TileView::pieces`]).
#[derive(Debug, PartialEq)]
pub struct Pieces {
    /// Whether the lines are rows (else columns).
    pub along_row: bool,
    /// The pieces, line by line, each line's in order.
    pub list: Vec<Piece>,
    /// Where line `k`'s pieces are: `list[lines[k]..lines[k + 1]]`.
    pub lines: Vec<usize>,
    /// One past the last byte a piece reaches: the storage must be at least this long.
    pub end: usize,
}

impl Pieces {
    /// The pieces of line `k`.
    pub fn line(&self, k: usize) -> &[Piece] {
        &self.list[self.lines[k]..self.lines[k + 1]]
    }
}

/// The bytes of element `(r, c)` of `v` in `storage` (the tile's storage bytes), checked.
pub fn element<'a>(storage: &'a [u8], v: &TileView, r: usize, c: usize) -> Result<&'a [u8], Fault> {
    let range = v.element_bytes(r, c)?;
    let len = storage.len();
    storage.get(range.clone()).ok_or_else(|| Fault(format!("bytes {range:?} outside a {len}-byte storage slice")))
}

/// The bytes of element `(r, c)` of `v` in `storage`, writable, checked.
pub fn element_mut<'a>(storage: &'a mut [u8], v: &TileView, r: usize, c: usize) -> Result<&'a mut [u8], Fault> {
    let range = v.element_bytes(r, c)?;
    let len = storage.len();
    storage.get_mut(range.clone()).ok_or_else(|| Fault(format!("bytes {range:?} outside a {len}-byte storage slice")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pto_ir::types::{Dim, ElemType};

    fn view(dtype: ElemType, rows: u32, cols: u32, b: BLayout, s: SLayout, fractal: u32) -> TileView {
        let mut d = TileDesc::vec(dtype, rows, cols);
        d.blayout = b;
        d.slayout = s;
        d.fractal = fractal;
        d.valid_rows = Dim::Static(rows);
        TileView { loc: Loc::Vec, addr: 0, desc: d, vrows: rows as usize, vcols: cols as usize }
    }

    #[test]
    fn nd_and_dn() {
        let nd = view(ElemType::F32, 4, 8, BLayout::RowMajor, SLayout::NoneBox, 512);
        assert_eq!(nd.offset(1, 2), 10);
        let dn = view(ElemType::F32, 8, 1, BLayout::ColMajor, SLayout::NoneBox, 512);
        assert_eq!(dn.offset(5, 0), 5);
    }

    #[test]
    fn nz_left_and_zn_right_match_the_golden_formulas() {
        // f16 16x32 Nz (Left/Acc on A5): inner box 16x16.
        let nz = view(ElemType::F16, 16, 32, BLayout::ColMajor, SLayout::RowMajor, 512);
        assert_eq!(nz.offset(0, 16), 256); // second column box starts after a full 16-row box column
        assert_eq!(nz.offset(3, 5), 3 * 16 + 5);
        // f16 32x16 Zn (Right): inner box 16x16, col-major inside.
        let zn = view(ElemType::F16, 32, 16, BLayout::RowMajor, SLayout::ColMajor, 512);
        assert_eq!(zn.offset(3, 5), 5 * 16 + 3);
        assert_eq!(zn.offset(16, 0), 16 * 16);
        // Acc f32 16x16 fractal 1024: one 16x16 box.
        let acc = view(ElemType::F32, 16, 16, BLayout::ColMajor, SLayout::RowMajor, 1024);
        assert_eq!(acc.offset(2, 3), 35);
    }

    #[test]
    fn runs_are_exactly_the_consecutive_storage_offsets() {
        use SLayout::{ColMajor as C, NoneBox as N, RowMajor as R};
        let shapes = [
            (ElemType::F16, 32, 48, BLayout::ColMajor, R, 512),
            (ElemType::F16, 32, 48, BLayout::RowMajor, R, 512),
            (ElemType::F16, 32, 48, BLayout::RowMajor, C, 512),
            (ElemType::F16, 32, 48, BLayout::ColMajor, C, 512),
            (ElemType::F32, 32, 32, BLayout::ColMajor, R, 1024),
            (ElemType::I8, 32, 64, BLayout::ColMajor, R, 512),
            (ElemType::F32, 32, 32, BLayout::RowMajor, R, 32),
            (ElemType::F32, 32, 32, BLayout::RowMajor, C, 32),
            (ElemType::F16, 1, 64, BLayout::ColMajor, R, 512),
            (ElemType::F16, 20, 32, BLayout::RowMajor, R, 512),
            (ElemType::F64, 8, 12, BLayout::RowMajor, N, 512),
            (ElemType::F64, 8, 12, BLayout::ColMajor, N, 512),
        ];
        for (dtype, rows, cols, b, s, fractal) in shapes {
            let v = view(dtype, rows, cols, b, s, fractal);
            for r in 0..rows as usize {
                for c in 0..cols as usize {
                    for along_row in [true, false] {
                        let n = v.run_len(r, c, along_row);
                        let at = |k: usize| if along_row { (r, c + k) } else { (r + k, c) };
                        let end = if along_row { cols as usize - c } else { rows as usize - r };
                        // Every element of the run follows the one before; the next does not.
                        let consecutive = |k: usize| v.offset(at(k).0, at(k).1) == v.offset(r, c) + k;
                        assert!((0..n).all(consecutive) && n <= end, "{v:?} at ({r}, {c}), row {along_row}: {n}");
                        if n < end && s != N {
                            assert!(!consecutive(n), "{v:?} at ({r}, {c}), row {along_row}: longer than {n}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn piece_lists_are_kept_within_their_bound() {
        let nz = view(ElemType::BF16, 128, 256, BLayout::ColMajor, SLayout::RowMajor, 512);
        let first = nz.pieces((0, 0), 128, 256, true).expect("valid");
        // Box rows of 16 elements, line by line; the second call is the kept list.
        assert_eq!((first.list.len(), first.lines.len(), first.end), (128 * 16, 129, 128 * 256 * 2));
        assert_eq!(first.line(1)[1], Piece { at: (1, 16), count: 16, start: (128 * 16 + 16) * 2 });
        assert!(Rc::ptr_eq(&first, &nz.pieces((0, 0), 128, 256, true).expect("valid")));
        assert_eq!(nz.pieces((1, 0), 128, 256, true), None, "past the capacity");
        // A window of more than 2^18 one-element pieces is built each time, not kept.
        let dn = view(ElemType::U8, 512, 513, BLayout::ColMajor, SLayout::NoneBox, 512);
        let big = dn.pieces((0, 0), 512, 513, true).expect("valid");
        assert_eq!(big.list.len(), 512 * 513);
        assert!(!Rc::ptr_eq(&big, &dn.pieces((0, 0), 512, 513, true).expect("valid")));
    }

    #[test]
    fn checked_access_faults_outside_the_tile() {
        let nd = view(ElemType::F32, 4, 8, BLayout::RowMajor, SLayout::NoneBox, 512);
        assert_eq!(nd.element_bytes(1, 2), Ok(40..44));
        assert_eq!(nd.element_bytes(4, 0).unwrap_err().0, "access to element (4, 0) of a 4x8 tile");
        // A col-major tile: row 8 of column 0 would be element (0, 1) in storage.
        let dn = view(ElemType::F32, 8, 2, BLayout::ColMajor, SLayout::NoneBox, 512);
        assert!(dn.element_bytes(8, 0).is_err());
        // A Zz Vec tile of 20 rows in 16x16 boxes: the second box row is partial, so its
        // second box starts at element 512 + 256 and (19, 31) would be element 831 of 640.
        let zz = view(ElemType::F16, 20, 32, BLayout::RowMajor, SLayout::RowMajor, 512);
        assert!(zz.element_bytes(19, 31).unwrap_err().0.contains("outside its 1280 bytes"));
        assert_eq!(nd.covers(4, 9, "src").unwrap_err().0, "src (4x8 tile) is read or written as 4x9");
        let storage = [0u8; 128];
        assert_eq!(element(&storage, &nd, 3, 7).map(<[u8]>::len), Ok(4));
        assert!(element(&storage[..64], &nd, 3, 7).is_err());
    }
}
