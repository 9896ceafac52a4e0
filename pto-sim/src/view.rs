//! Tile views: where element `(r, c)` of a tile lives, for every layout — the only place that
//! knows layouts.
//!
//! Storage order (pto-isa `tile_offsets.hpp`, golden README): ND `r*cols + c`; DN `c*rows + r`;
//! boxed layouts with inner box `ir x ic` ([`TileDesc::inner_box`]), `sr = r/ir, inr = r%ir,
//! sc = c/ic, inc = c%ic`: Nz (col-major blocks, row-major boxes) `sc*rows*ic + sr*ir*ic +
//! inr*ic + inc`; Zn (row-major blocks, col-major boxes) `sr*cols*ir + sc*ir*ic + inc*ir + inr`;
//! Zz `sr*cols*ir + sc*ir*ic + inr*ic + inc`; Nn `sc*rows*ic + sr*ir*ic + inc*ir + inr`.

use pto_ir::types::{BLayout, Loc, SLayout, TileDesc};

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
}
