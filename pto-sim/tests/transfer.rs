//! `pto_sim::gm::transfer` (the line-by-line bulk copy of `tload` / `tstore`) against
//! `transfer_elements` (the element-by-element reference) on every tile layout (ND, DN, Nz, Zz,
//! Zn, Nn; fractal 512, 1024 and 32; boxes one row high; partial boxes), element sizes 1, 2, 4
//! and 8, GM views held in rows, in columns and neither, windows at offsets and with partial
//! valid shapes, unbound arrays (pattern fill, growth, the growth limit) and bound ones too small
//! for the window: the same tile bytes, GM bytes and extent, or the same fault.

use pto_ir::tile_rules::ViewFold;
use pto_ir::types::{BLayout, Dim, ElemType, Loc, SLayout, TileDesc};
use pto_sim::gm::{GmArray, GmView, transfer, transfer_elements};
use pto_sim::memory::Fault;
use pto_sim::view::TileView;

/// A tile of `rows x cols` (`vrows x vcols` valid) with the given layout.
fn tile(dtype: ElemType, (rows, cols): (u32, u32), (vrows, vcols): (usize, usize), b: BLayout, s: SLayout, fractal: u32) -> TileView {
    let mut d = TileDesc::vec(dtype, rows, cols);
    d.blayout = b;
    d.slayout = s;
    d.fractal = fractal;
    d.valid_rows = Dim::Static(vrows as u32);
    d.valid_cols = Dim::Static(vcols as u32);
    TileView { loc: Loc::Vec, addr: 0, desc: d, vrows, vcols }
}

/// How a GM array starts: unbound with the pattern fill, or bound to `n` elements of distinct bytes.
#[derive(Copy, Clone, Debug)]
enum Start {
    Pattern,
    Bound(usize),
}

fn array(dtype: ElemType, start: Start) -> GmArray {
    let mut a = GmArray::new("a", dtype);
    match start {
        Start::Pattern => a.pattern = true,
        Start::Bound(n) => a.set_bytes(&(0..n * dtype.size_bytes() as usize).map(|i| (i * 31 % 251) as u8).collect::<Vec<_>>()),
    }
    a
}

/// One transfer both ways: (tile bytes, GM bytes, GM elements) after it, or its fault.
type Outcome = Result<(Vec<u8>, Vec<u8>, usize), Fault>;

#[allow(clippy::too_many_arguments)]
fn run(bulk: bool, t: &TileView, view: &GmView, at: (usize, usize), start: Start, load: bool, limit: usize) -> Outcome {
    let mut gm = array(t.desc.dtype, start);
    let mut storage: Vec<u8> = (0..t.size_bytes() as usize).map(|i| (i * 7 % 253) as u8 ^ 0x5a).collect();
    let fold = ViewFold::of(&t.desc);
    if bulk {
        transfer(&mut gm, view, at, t, &mut storage, fold, load, limit)?;
    } else {
        transfer_elements(&mut gm, view, at, t, &mut storage, fold, load, limit, 0)?;
    }
    Ok((storage, gm.to_bytes(), gm.elements()))
}

/// The layouts: (blayout, slayout, fractal, tile shape), for an element of `size` bytes.
fn layouts(size: u32) -> Vec<(BLayout, SLayout, u32, (u32, u32))> {
    use BLayout::{ColMajor as Col, RowMajor as Row};
    use SLayout::{ColMajor as C, NoneBox as N, RowMajor as R};
    // Boxes are 16 x (32 / size) or (32 / size) x 16: 32 rows and 64 columns hold whole boxes.
    let mut out = vec![
        (Row, N, 512, (32, 64)),
        (Col, N, 512, (32, 64)),
        (Col, R, 512, (32, 64)),
        (Row, R, 512, (32, 64)),
        (Row, C, 512, (32, 64)),
        (Col, C, 512, (32, 64)),
        (Col, R, 32, (32, 64)),
        (Row, C, 32, (32, 64)),
        // A GEMV left tile: boxes one row high.
        (Col, R, 512, (1, 64)),
        // A partial second box row.
        (Row, R, 512, (20, 64)),
    ];
    if size == 4 {
        out.push((Col, R, 1024, (32, 64)));
    }
    out
}

#[test]
fn bulk_transfers_equal_element_by_element_ones() {
    let mut cases = 0;
    let mut faults = 0;
    for dtype in [ElemType::I8, ElemType::BF16, ElemType::F32, ElemType::F64] {
        let size = dtype.size_bytes();
        for (b, s, fractal, shape) in layouts(size) {
            let (rows, cols) = (shape.0 as usize, shape.1 as usize);
            for valid in [(rows, cols), (rows.div_ceil(2), cols - 3), (rows, 1), (1, cols)] {
                let t = tile(dtype, shape, valid, b, s, fractal);
                // (view, window offset) pairs: an ND view with room around the window, a DN
                // one, a view with an inner stride of 2, a 4-D ND view (its leading dims fold
                // into rows), a 3-D DN one, and a DN view too short for the window's rows.
                let (gr, gc) = (rows as i64 + 5, cols as i64 + 7);
                let views = [
                    (GmView::new(0, &[gr, gc], &[gc, 1]).unwrap(), (2, 3)),
                    (GmView::new(0, &[gr, gc], &[1, gr]).unwrap(), (3, 2)),
                    (GmView::new(0, &[gr, gc], &[2 * gc, 2]).unwrap(), (1, 1)),
                    (GmView::new(0, &[2, 1, gr, gc], &[gr * gc, gr * gc, gc, 1]).unwrap(), (0, 0)),
                    (GmView::new(0, &[2, gr, gc], &[gr * gc, 1, gr]).unwrap(), (0, 4)),
                    (GmView::new(0, &[(rows as i64 / 2).max(1), gc], &[1, gr]).unwrap(), (0, 0)),
                ];
                let whole = (2 * gr * gc) as usize * 2;
                for (view, at) in views {
                    for start in [Start::Pattern, Start::Bound(whole), Start::Bound(whole / 3), Start::Bound(rows * cols / 2 + 1)] {
                        for limit in [usize::MAX >> 1, (whole / 5) * size as usize] {
                            for load in [true, false] {
                                let want = run(false, &t, &view, at, start, load, limit);
                                let got = run(true, &t, &view, at, start, load, limit);
                                let what = format!("{t:?}, {view:?} at {at:?}, {start:?}, limit {limit}, load {load}");
                                match (&want, &got) {
                                    (Err(w), Err(g)) => {
                                        assert_eq!(w.0, g.0, "{what}");
                                        faults += 1;
                                    }
                                    _ => assert!(want == got, "{what}: {want:?} != {got:?}"),
                                }
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    // Both outcomes are exercised.
    assert!(faults > 100 && cases - faults > 1000, "{faults} faults in {cases} cases");
}
