//! Static tile rules (pto-isa `struct Tile` static_asserts, ISA notes §2.3), checked on every
//! tile type that appears in a module, independent of the target.
//!
//! 1. `rows > 0`, `cols > 0`, static valid extents within the capacity; `rows`, `cols` and
//!    `rows * cols` fit a C++ `int` ([`MAX_ELEMENTS`]), so every size derived from a verified
//!    tile (bytes, offsets) fits `u64` without overflow;
//! 2. `cols % inner_cols == 0`; `rows % inner_rows == 0` unless the tile is Vec, MX-fractal or a
//!    single row;
//! 3. alignment: row-major unboxed rows must be a multiple of 32 bytes (`cols * size % 32 == 0`),
//!    col-major unboxed columns likewise (`rows * size % 32 == 0`);
//! 4. fractal size in {512, 1024, 32}.
//!
//! [`view_extent`] states how a GM view's dimensions meet a tile's valid shape in `tload` /
//! `tstore` (used by the legality check and by the simulator's run-time trap).
//!
//! A Level-1 `!pto.tile` has no layout of its own: the toolchain chooses ND or DN for it
//! (`pto-lower`'s layout inference), so [`check_level1_tile`] accepts an unboxed tile when
//! either of the two is aligned; an unboxed tile at a location whose layout pto-isa fixes
//! ([`Loc::fixed_layout`]: the MX scale tiles) is checked with that layout.

use crate::types::{BLayout, Dim, Loc, SLayout, TileDesc};

/// One broken rule: what was expected and what the tile has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileRuleViolation {
    /// Short rule description.
    pub rule: &'static str,
    /// The contract.
    pub expected: String,
    /// The tile's actual value.
    pub actual: String,
}

fn violation(rule: &'static str, expected: String, actual: String) -> TileRuleViolation {
    TileRuleViolation { rule, expected, actual }
}

/// Most elements a tile may hold: pto-isa's `struct Tile` declares `Rows`, `Cols` and
/// `Numel = Rows * Cols` as `static constexpr int` (`common/pto_tile.hpp:1426-1437`), so a
/// larger tile does not compile (a constant-expression overflow is ill-formed).
pub const MAX_ELEMENTS: u64 = i32::MAX as u64;

/// Checks one tile description; returns every rule it breaks.
pub fn check_tile(t: &TileDesc) -> Vec<TileRuleViolation> {
    let mut out = Vec::new();
    if t.rows == 0 || t.cols == 0 {
        out.push(violation("capacity must be positive", "rows > 0 and cols > 0".into(), format!("{}x{}", t.rows, t.cols)));
        return out;
    }
    if u64::from(t.rows) * u64::from(t.cols) > MAX_ELEMENTS {
        out.push(violation(
            "capacity exceeds pto-isa's int Rows/Cols/Numel",
            format!("rows * cols <= {MAX_ELEMENTS}"),
            format!("{}x{} = {} elements", t.rows, t.cols, u64::from(t.rows) * u64::from(t.cols)),
        ));
        return out;
    }
    if let Dim::Static(vr) = t.valid_rows
        && vr > t.rows
    {
        out.push(violation("valid rows exceed capacity", format!("valid rows <= {}", t.rows), format!("{vr}")));
    }
    if let Dim::Static(vc) = t.valid_cols
        && vc > t.cols
    {
        out.push(violation("valid cols exceed capacity", format!("valid cols <= {}", t.cols), format!("{vc}")));
    }
    if ![512, 1024, 32].contains(&t.fractal) {
        out.push(violation("fractal size", "fractal in {512, 1024, 32}".into(), format!("{}", t.fractal)));
        return out;
    }
    let size = u64::from(t.dtype.size_bytes());
    let (rows, cols) = (u64::from(t.rows), u64::from(t.cols));
    let (ir, ic) = t.inner_box();
    if !t.cols.is_multiple_of(ic) {
        out.push(violation("cols must be a multiple of the inner box width", format!("cols % {ic} == 0"), format!("cols = {}", t.cols)));
    }
    let rows_exempt = t.loc == Loc::Vec || t.fractal == 32 || t.rows == 1;
    if !rows_exempt && !t.rows.is_multiple_of(ir) {
        out.push(violation("rows must be a multiple of the inner box height", format!("rows % {ir} == 0"), format!("rows = {}", t.rows)));
    }
    if t.slayout == SLayout::NoneBox {
        match t.blayout {
            BLayout::RowMajor if !(cols * size).is_multiple_of(32) => out.push(violation(
                "row-major rows must be 32-byte aligned",
                format!("cols * {size} bytes % 32 == 0"),
                format!("cols = {} ({} bytes)", t.cols, cols * size),
            )),
            BLayout::ColMajor if !(rows * size).is_multiple_of(32) => out.push(violation(
                COL_MAJOR_ALIGNMENT,
                format!("rows * {size} bytes % 32 == 0"),
                format!("rows = {} ({} bytes)", t.rows, rows * size),
            )),
            _ => {}
        }
    }
    if t.pad > 3 {
        out.push(violation("pad value", "pad in {0, 1, 2, 3}".into(), format!("{}", t.pad)));
    }
    if t.compact > 3 {
        out.push(violation("compact mode", "compact in {0, 1, 2, 3}".into(), format!("{}", t.compact)));
    }
    out
}

/// The rules for a Level-1 tile value: as [`check_tile`], except that an unboxed tile breaks
/// the alignment rule only when neither the row-major (ND) nor the col-major (DN) layout is
/// aligned, since the toolchain chooses between them.
pub fn check_level1_tile(t: &TileDesc) -> Vec<TileRuleViolation> {
    if t.slayout == SLayout::NoneBox
        && let Some((blayout, slayout, fractal)) = t.loc.fixed_layout()
    {
        return check_tile(&TileDesc { blayout, slayout, fractal, ..*t });
    }
    let found = check_tile(t);
    if t.slayout != SLayout::NoneBox {
        return found;
    }
    let flipped = TileDesc {
        blayout: match t.blayout {
            BLayout::RowMajor => BLayout::ColMajor,
            BLayout::ColMajor => BLayout::RowMajor,
        },
        ..*t
    };
    let flipped_ok = check_tile(&flipped).iter().all(|v| !is_alignment(v));
    if flipped_ok { found.into_iter().filter(|v| !is_alignment(v)).collect() } else { found }
}

/// The alignment rule of unboxed col-major (DN) tiles. The references disagree on it: pto-isa's
/// `struct Tile` static_asserts it (`common/pto_tile.hpp:1522-1533`), PTOAS's type verifier
/// does not check it (it checks a major-dimension alignment only in A5 `ttrans`,
/// `lib/PTO/IR/PTO.cpp:8771-8784`), so `ptoas` accepts such tiles (small column vectors,
/// `thistogram`'s index tile). The structural verifier reports it as a warning naming both
/// sides (docs/design.md, "Deliberate divergences").
pub const COL_MAJOR_ALIGNMENT: &str = "col-major columns must be 32-byte aligned";

fn is_alignment(v: &TileRuleViolation) -> bool {
    v.rule.ends_with("must be 32-byte aligned")
}

/// The layouts a tile could have instead of its own, fewest changed keys first: another outer
/// layout (`blayout`), another box layout (`slayout`), then both. Location, shape, element type
/// and fractal size stay.
pub fn layout_alternatives(t: &TileDesc) -> Vec<TileDesc> {
    const B: [BLayout; 2] = [BLayout::RowMajor, BLayout::ColMajor];
    const S: [SLayout; 3] = [SLayout::NoneBox, SLayout::RowMajor, SLayout::ColMajor];
    let mut out: Vec<TileDesc> = Vec::new();
    for changed in 1..=2 {
        for b in B {
            for s in S {
                let n = usize::from(b != t.blayout) + usize::from(s != t.slayout);
                if n == changed {
                    out.push(TileDesc { blayout: b, slayout: s, ..*t });
                }
            }
        }
    }
    out
}

/// The type keys in which `alt` differs from `t`: `` `blayout=col_major` ``,
/// `` `slayout=none_box` `` or both (`, `-separated).
pub fn layout_change_text(t: &TileDesc, alt: &TileDesc) -> String {
    let mut keys = Vec::new();
    if alt.blayout != t.blayout {
        keys.push(format!("`blayout={}`", alt.blayout.name()));
    }
    if alt.slayout != t.slayout {
        keys.push(format!("`slayout={}`", alt.slayout.name()));
    }
    keys.join(" and ")
}

/// A `help:` note for a tile buffer that breaks the alignment rule when the other outer layout
/// satisfies every static rule (checked with [`check_tile`], not assumed): a `16x1` f32 column
/// is 4-byte rows row-major but one 64-byte column col-major.
pub fn alignment_help(t: &TileDesc) -> Option<String> {
    let broken = check_tile(t);
    if t.slayout != SLayout::NoneBox || !broken.iter().any(is_alignment) {
        return None;
    }
    let flipped = layout_alternatives(t).into_iter().find(|a| a.slayout == t.slayout)?;
    if !check_tile(&flipped).is_empty() {
        return None;
    }
    let size = t.dtype.size_bytes();
    let why = match flipped.blayout {
        BLayout::ColMajor => format!("its columns are {} x {size} = {} bytes", t.rows, t.rows * size),
        BLayout::RowMajor => format!("its rows are {} x {size} = {} bytes", t.cols, t.cols * size),
    };
    Some(format!("help: with {} the tile satisfies every static tile rule: {why}", layout_change_text(t, &flipped)))
}

/// Which way the leading dimensions of a GM view fold into the 2-D shape a tile sees (pto-isa
/// `GlobalTensor` shapes are 5-D `[g0, g1, g2, g3, g4]`, right-aligned: a 2-D view is
/// `[1, 1, 1, R, C]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ViewFold {
    /// Row-major unboxed (ND) tile: rows = `g0·g1·g2·g3`, cols = `g4`
    /// (`tload_common.hpp:48-51`, A5 `register/tload_common.hpp:352-366`).
    Rows,
    /// Col-major unboxed (DN) tile: rows = `g3`, cols = `g0·g1·g2·g4` (`tload_common.hpp:92-96`).
    Cols,
    /// Boxed tile (ND→NZ, DN→ZN, acc→ND): the view must be 2-D, `g0 = g1 = g2 = 1`
    /// (`tload_common.hpp:259-261, 282-284`, `tstore_common.hpp:182-185`).
    Flat,
}

impl ViewFold {
    /// The fold a tile's layout implies.
    pub fn of(t: &TileDesc) -> ViewFold {
        match (t.slayout, t.blayout) {
            (SLayout::NoneBox, BLayout::RowMajor) => ViewFold::Rows,
            (SLayout::NoneBox, BLayout::ColMajor) => ViewFold::Cols,
            _ => ViewFold::Flat,
        }
    }

    /// How the rule reads, for messages.
    pub fn text(self) -> &'static str {
        match self {
            ViewFold::Rows => "leading view dims fold into the rows of a row-major tile",
            ViewFold::Cols => "leading view dims fold into the columns of a col-major tile",
            ViewFold::Flat => "a boxed tile needs a 2-D view (leading dims 1)",
        }
    }
}

/// The 2-D shape `(rows, cols)` a GM view of dimensions `dims` (`None`: dynamic) presents to a
/// tile that folds it by `fold`; `Err(i)` when leading dimension `i` must be 1 and is not.
/// This is the shape a `tload`/`tstore` tile's valid shape must equal. A folded extent
/// saturates at `u64::MAX` (no tile is that large, so it never matches).
pub fn view_extent(dims: &[Option<u64>], fold: ViewFold) -> Result<(Option<u64>, Option<u64>), usize> {
    let n = dims.len();
    let (rows, cols) = match n {
        0 => (Some(1), Some(1)),
        1 => (Some(1), dims[0]),
        _ => (dims[n - 2], dims[n - 1]),
    };
    let leading = &dims[..n.saturating_sub(2)];
    let product = leading.iter().try_fold(1u64, |acc, d| d.map(|d| acc.saturating_mul(d)));
    let times = |a: Option<u64>, b: Option<u64>| a.zip(b).map(|(a, b)| a.saturating_mul(b));
    match fold {
        ViewFold::Rows => Ok((times(product, rows), cols)),
        ViewFold::Cols => Ok((rows, times(product, cols))),
        ViewFold::Flat => match leading.iter().position(|d| d.is_some_and(|d| d != 1)) {
            Some(i) => Err(i),
            None => Ok((rows, cols)),
        },
    }
}

/// `1x?x16` for view dimensions.
pub fn dims_text(dims: &[Option<u64>]) -> String {
    dims.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect::<Vec<_>>().join("x")
}

/// Why a GM view of `dims` does not present tile `t` its valid shape ([`view_extent`]; only
/// static extents are compared), or `None` when it does.
pub fn view_mismatch(dims: &[Option<u64>], t: &TileDesc) -> Option<String> {
    let fold = ViewFold::of(t);
    let shown = dims_text(dims);
    let (rows, cols) = match view_extent(dims, fold) {
        Ok(extent) => extent,
        Err(i) => return Some(format!("view {shown} has leading dim {i} = {} ({})", dims_text(&dims[i..=i]), fold.text())),
    };
    let differs = |e: Option<u64>, v: Dim| matches!((e, v), (Some(e), Dim::Static(v)) if e != u64::from(v));
    (differs(rows, t.valid_rows) || differs(cols, t.valid_cols)).then(|| {
        let seen = dims_text(&[rows, cols]);
        let how = if dims.len() > 2 { format!(" ({seen} as the tile sees it: {})", fold.text()) } else { String::new() };
        format!("view {shown}{how}, tile valid {}x{}", t.valid_rows, t.valid_cols)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ElemType;

    #[test]
    fn f32_rows_must_be_32_byte_aligned() {
        assert!(check_tile(&TileDesc::vec(ElemType::F32, 16, 8)).is_empty());
        let v = check_tile(&TileDesc::vec(ElemType::F32, 16, 12));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].actual, "cols = 12 (48 bytes)");
    }

    #[test]
    fn dn_column_vector_needs_aligned_rows() {
        let mut t = TileDesc::vec(ElemType::F32, 8, 1);
        t.blayout = BLayout::ColMajor;
        assert!(check_tile(&t).is_empty());
        t.rows = 4;
        t.valid_rows = Dim::Static(4);
        assert_eq!(check_tile(&t)[0].rule, "col-major columns must be 32-byte aligned");
    }

    #[test]
    fn level1_tiles_may_take_either_unboxed_layout() {
        // 16x1 f32: ND rows are 4 bytes, DN columns 64 bytes; Level 1 leaves the choice open.
        let t = TileDesc::vec(ElemType::F32, 16, 1);
        assert_eq!(check_tile(&t)[0].rule, "row-major rows must be 32-byte aligned");
        assert!(check_level1_tile(&t).is_empty());
        // 4x1 f32: neither layout is aligned.
        let t = TileDesc::vec(ElemType::F32, 4, 1);
        assert_eq!(check_level1_tile(&t)[0].rule, "row-major rows must be 32-byte aligned");
    }

    #[test]
    fn level1_scale_tiles_take_the_mx_layout() {
        // 16x2 e8m0: ND rows are 2 bytes, but ScaleLeft tiles are Zz with 16x2 boxes.
        let mut t = TileDesc::vec(ElemType::F8E8M0, 16, 2);
        t.loc = Loc::ScaleLeft;
        assert!(!check_tile(&t).is_empty());
        assert!(check_level1_tile(&t).is_empty());
        // 2x32 ScaleRight: Nn with 2x16 boxes.
        let mut t = TileDesc::vec(ElemType::F8E8M0, 2, 32);
        t.loc = Loc::ScaleRight;
        assert!(check_level1_tile(&t).is_empty());
    }

    #[test]
    fn alignment_help_only_when_the_other_layout_satisfies_every_rule() {
        // 16x1 f32 row-major: 4-byte rows; col-major: one 64-byte column.
        let t = TileDesc::vec(ElemType::F32, 16, 1);
        let help = alignment_help(&t).expect("a hint");
        assert_eq!(help, "help: with `blayout=col_major` the tile satisfies every static tile rule: its columns are 16 x 4 = 64 bytes");
        // 4x1 f32: 16-byte columns either way, no hint.
        assert_eq!(alignment_help(&TileDesc::vec(ElemType::F32, 4, 1)), None);
        // 1x16 f32 col-major: 4-byte columns; row-major: one 64-byte row.
        let t = TileDesc { blayout: BLayout::ColMajor, ..TileDesc::vec(ElemType::F32, 1, 16) };
        assert!(alignment_help(&t).expect("a hint").starts_with("help: with `blayout=row_major`"));
        // An aligned tile gets none.
        assert_eq!(alignment_help(&TileDesc::vec(ElemType::F32, 16, 16)), None);
    }

    #[test]
    fn layout_alternatives_change_one_key_first() {
        let t = TileDesc::vec(ElemType::F16, 16, 16);
        let alts = layout_alternatives(&t);
        assert_eq!(alts.len(), 5);
        assert_eq!(layout_change_text(&t, &alts[0]), "`slayout=row_major`");
        assert_eq!(layout_change_text(&t, &alts[2]), "`blayout=col_major`");
        assert_eq!(layout_change_text(&t, &alts[4]), "`blayout=col_major` and `slayout=col_major`");
    }

    #[test]
    fn valid_beyond_capacity_and_bad_fractal() {
        let mut t = TileDesc::vec(ElemType::F16, 16, 16);
        t.valid_cols = Dim::Static(17);
        assert_eq!(check_tile(&t)[0].rule, "valid cols exceed capacity");
        t.valid_cols = Dim::Static(16);
        t.fractal = 64;
        assert_eq!(check_tile(&t)[0].rule, "fractal size");
    }

    #[test]
    fn boxed_left_tile_rows_follow_inner_box() {
        let mut t = TileDesc::vec(ElemType::F16, 16, 16);
        t.loc = Loc::Left;
        t.slayout = SLayout::RowMajor;
        assert!(check_tile(&t).is_empty());
        t.rows = 8;
        t.valid_rows = Dim::Static(8);
        assert_eq!(check_tile(&t)[0].rule, "rows must be a multiple of the inner box height");
    }
    #[test]
    fn view_extent_folds_leading_dims_by_tile_layout() {
        let d = [Some(1), Some(2), Some(4), Some(16), Some(8)];
        assert_eq!(view_extent(&d, ViewFold::Rows), Ok((Some(128), Some(8))));
        assert_eq!(view_extent(&d, ViewFold::Cols), Ok((Some(16), Some(64))));
        assert_eq!(view_extent(&d, ViewFold::Flat), Err(1));
        assert_eq!(view_extent(&[Some(32)], ViewFold::Rows), Ok((Some(1), Some(32))));
        assert_eq!(view_extent(&[None, Some(16), Some(8)], ViewFold::Rows), Ok((None, Some(8))));
        assert_eq!(view_extent(&[Some(1), Some(16), None], ViewFold::Flat), Ok((Some(16), None)));
    }
}
