//! Types: element types, tiles, tile buffers, views, pointers, events — interned per module.
//!
//! A [`TypeId`] is a small copyable handle into a module's [`TypeTable`]; two values have the same
//! type exactly when their ids are equal. Types unknown to `pto` (`memref<...>`, `!pto.group<...>`,
//! `!pto.fmatrix_config`, ...) are kept verbatim as [`Type::Opaque`] so that any file round-trips;
//! [`Type::elem_type`] and [`Type::view_shape`] still read the element type and static shape of
//! the opaque GM view spellings (`memref<128xf32, ...>`, `!pto.memref<f32, 16x16>`,
//! `!pto.global<...>`).
//!
//! Tile model (pto-isa `pto_tile.hpp`): a tile has a location (Vec/UB, Mat/L1, Left/L0A,
//! Right/L0B, Acc/L0C, Bias, Scaling), an element type, a static capacity `rows x cols`, a valid
//! region `[0,vr) x [0,vc)` (static or dynamic), an outer block layout, an inner box layout with
//! its fractal size, a pad value and a compact mode. Level-1 `!pto.tile` values and Level-2/3
//! `!pto.tile_buf` buffers share that description ([`TileDesc`]).

use serde::Serialize;
use std::collections::HashMap;
use std::fmt;

/// Handle of an interned type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TypeId(pub u32);

/// Scalar element types.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[allow(missing_docs)]
pub enum ElemType {
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    F8E4M3,
    F8E5M2,
    HiF8,
    /// The MX scale format `float8_e8m0_t`: an 8-bit power-of-two exponent (A5 MX matmul).
    F8E8M0,
    Index,
}

impl ElemType {
    /// Every element type with its canonical spelling.
    pub const ALL: &'static [(ElemType, &'static str)] = &[
        (ElemType::I1, "i1"),
        (ElemType::I8, "i8"),
        (ElemType::I16, "i16"),
        (ElemType::I32, "i32"),
        (ElemType::I64, "i64"),
        (ElemType::U8, "ui8"),
        (ElemType::U16, "ui16"),
        (ElemType::U32, "ui32"),
        (ElemType::U64, "ui64"),
        (ElemType::F16, "f16"),
        (ElemType::BF16, "bf16"),
        (ElemType::F32, "f32"),
        (ElemType::F64, "f64"),
        (ElemType::F8E4M3, "f8E4M3FN"),
        (ElemType::F8E5M2, "f8E5M2"),
        (ElemType::HiF8, "hif8"),
        (ElemType::F8E8M0, "f8E8M0FNU"),
        (ElemType::Index, "index"),
    ];

    /// Parses a spelling: MLIR names (`ui32`, `f8E4M3FN`) and the docs' short names (`u32`,
    /// `f8e4m3`) are both accepted.
    pub fn parse(s: &str) -> Option<ElemType> {
        if let Some((t, _)) = Self::ALL.iter().find(|(_, n)| *n == s) {
            return Some(*t);
        }
        Some(match s {
            "u8" => ElemType::U8,
            "u16" => ElemType::U16,
            "u32" => ElemType::U32,
            "u64" => ElemType::U64,
            "si8" => ElemType::I8,
            "si16" => ElemType::I16,
            "si32" => ElemType::I32,
            "si64" => ElemType::I64,
            "f8e4m3" | "f8E4M3" => ElemType::F8E4M3,
            "f8e5m2" => ElemType::F8E5M2,
            "hifloat8" => ElemType::HiF8,
            "e8m0" | "f8e8m0" | "float8_e8m0" => ElemType::F8E8M0,
            _ => return None,
        })
    }

    /// Canonical spelling.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(t, _)| *t == self).map(|(_, n)| *n).unwrap_or("?")
    }

    /// Size in bytes of one element in a tile (`index` counts as 8, `i1` as 1).
    pub fn size_bytes(self) -> u32 {
        match self {
            ElemType::I1 | ElemType::I8 | ElemType::U8 | ElemType::F8E4M3 | ElemType::F8E5M2 | ElemType::HiF8 | ElemType::F8E8M0 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 | ElemType::Index => 8,
        }
    }

    /// True for floating-point types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16
                | ElemType::BF16
                | ElemType::F32
                | ElemType::F64
                | ElemType::F8E4M3
                | ElemType::F8E5M2
                | ElemType::HiF8
                | ElemType::F8E8M0
        )
    }

    /// True for integer types (signed or unsigned, `index` and `i1` included).
    pub fn is_int(self) -> bool {
        !self.is_float()
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a tile lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Loc {
    /// Unified Buffer (vector unit).
    Vec,
    /// L1 / CBUF.
    Mat,
    /// L0A (matmul left operand).
    Left,
    /// L0B (matmul right operand).
    Right,
    /// L0C (matmul accumulator).
    Acc,
    /// Bias table.
    Bias,
    /// Fixpipe scaling buffer.
    Scaling,
    /// MX scales of the left operand (`TileType::ScaleLeft`, beside L0A; A5).
    ScaleLeft,
    /// MX scales of the right operand (`TileType::ScaleRight`, beside L0B; A5).
    ScaleRight,
}

impl Loc {
    /// Every location with its spelling.
    pub const ALL: &'static [(Loc, &'static str)] = &[
        (Loc::Vec, "vec"),
        (Loc::Mat, "mat"),
        (Loc::Left, "left"),
        (Loc::Right, "right"),
        (Loc::Acc, "acc"),
        (Loc::Bias, "bias"),
        (Loc::Scaling, "scaling"),
        (Loc::ScaleLeft, "scale_left"),
        (Loc::ScaleRight, "scale_right"),
    ];
    /// Parses `vec`, `mat`, ...
    pub fn parse(s: &str) -> Option<Loc> {
        Self::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(s)).map(|(l, _)| *l)
    }
    /// Spelling.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(l, _)| *l == self).map(|(_, n)| *n).unwrap_or("?")
    }
    /// The layout pto-isa gives every tile at this location, on every target that has the
    /// location: `TileLeftScale` is Zz and `TileRightScale` Nn, both with the 32-byte MX
    /// fractal (`pto_tile.hpp`). The target-dependent fixed layouts (left, right, acc) are
    /// the targets' business (`pto-lower`).
    pub const fn fixed_layout(self) -> Option<(BLayout, SLayout, u32)> {
        match self {
            Loc::ScaleLeft => Some((BLayout::RowMajor, SLayout::RowMajor, MX_FRACTAL)),
            Loc::ScaleRight => Some((BLayout::ColMajor, SLayout::ColMajor, MX_FRACTAL)),
            _ => None,
        }
    }
}

/// The fractal size of MX scale tiles (`TileConfig::fractalMxSize`).
pub const MX_FRACTAL: u32 = 32;

/// Outer (block) layout of a tile.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BLayout {
    /// Rows are contiguous.
    RowMajor,
    /// Columns are contiguous.
    ColMajor,
}

/// Inner (fractal box) layout of a tile.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SLayout {
    /// No boxes: plain ND/DN.
    NoneBox,
    /// Row-major boxes.
    RowMajor,
    /// Column-major boxes.
    ColMajor,
}

impl BLayout {
    /// Parses `row_major` / `col_major` (and the docs' `RowMajor` / `ColMajor`).
    pub fn parse(s: &str) -> Option<BLayout> {
        match s {
            "row_major" | "RowMajor" | "0" => Some(BLayout::RowMajor),
            "col_major" | "ColMajor" | "1" => Some(BLayout::ColMajor),
            _ => None,
        }
    }
    /// Spelling.
    pub fn name(self) -> &'static str {
        match self {
            BLayout::RowMajor => "row_major",
            BLayout::ColMajor => "col_major",
        }
    }
}

impl SLayout {
    /// Parses `none_box` / `row_major` / `col_major` (and the docs' `NoneBox`...).
    pub fn parse(s: &str) -> Option<SLayout> {
        match s {
            "none_box" | "NoneBox" | "0" => Some(SLayout::NoneBox),
            "row_major" | "RowMajor" | "1" => Some(SLayout::RowMajor),
            "col_major" | "ColMajor" | "2" => Some(SLayout::ColMajor),
            _ => None,
        }
    }
    /// Spelling.
    pub fn name(self) -> &'static str {
        match self {
            SLayout::NoneBox => "none_box",
            SLayout::RowMajor => "row_major",
            SLayout::ColMajor => "col_major",
        }
    }
}

/// A valid-region extent: a static count or dynamic (`?`, set at run time).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Dim {
    /// Known at compile time.
    Static(u32),
    /// Given at run time (`?` or `-1` in the text).
    Dynamic,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Dynamic => f.write_str("?"),
        }
    }
}

/// Everything a tile type says about its storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TileDesc {
    /// Location.
    pub loc: Loc,
    /// Element type.
    pub dtype: ElemType,
    /// Static capacity, rows.
    pub rows: u32,
    /// Static capacity, columns.
    pub cols: u32,
    /// Valid rows.
    pub valid_rows: Dim,
    /// Valid columns.
    pub valid_cols: Dim,
    /// Outer layout.
    pub blayout: BLayout,
    /// Inner box layout.
    pub slayout: SLayout,
    /// Fractal size in bytes (512, 1024 or 32).
    pub fractal: u32,
    /// Pad value: 0 null, 1 zero, 2 max, 3 min.
    pub pad: u32,
    /// Compact mode: 0 null, 1 normal, 2 row-plus-one.
    pub compact: u32,
}

impl TileDesc {
    /// A row-major Vec tile with the full capacity valid.
    pub fn vec(dtype: ElemType, rows: u32, cols: u32) -> TileDesc {
        TileDesc {
            loc: Loc::Vec,
            dtype,
            rows,
            cols,
            valid_rows: Dim::Static(rows),
            valid_cols: Dim::Static(cols),
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: 0,
            compact: 0,
        }
    }

    /// Bytes of storage (capacity × element size). Saturates at `u64::MAX` for a tile that
    /// breaks the element limit of the tile rules, so an unverified giant tile never fits
    /// anywhere instead of wrapping to a small size.
    pub fn size_bytes(&self) -> u64 {
        (self.rows as u64 * self.cols as u64).saturating_mul(self.dtype.size_bytes() as u64)
    }

    /// Inner box shape `(rows, cols)` per pto-isa `getInnerRow/getInnerCol`.
    pub fn inner_box(&self) -> (u32, u32) {
        let epb = (32 / self.dtype.size_bytes()).max(1);
        match (self.slayout, self.fractal) {
            (SLayout::NoneBox, _) => (1, 1),
            (_, 1024) => (16, 16),
            (SLayout::RowMajor, 32) => (16, 2),
            (SLayout::ColMajor, 32) => (2, 16),
            (SLayout::RowMajor, _) => (16, epb),
            (SLayout::ColMajor, _) => (epb, 16),
        }
    }

    /// Writes the compact key list that follows the shape (`, valid=..., blayout=...`), omitting
    /// defaults. `full_valid` tells whether the valid shape equals the capacity.
    fn write_keys(&self, out: &mut String) {
        use std::fmt::Write;
        if self.valid_rows != Dim::Static(self.rows) || self.valid_cols != Dim::Static(self.cols) {
            let _ = write!(out, ", valid={}x{}", self.valid_rows, self.valid_cols);
        }
        if self.blayout != BLayout::RowMajor {
            let _ = write!(out, ", blayout={}", self.blayout.name());
        }
        if self.slayout != SLayout::NoneBox {
            let _ = write!(out, ", slayout={}", self.slayout.name());
        }
        if self.fractal != 512 {
            let _ = write!(out, ", fractal={}", self.fractal);
        }
        if self.pad != 0 {
            let _ = write!(out, ", pad={}", self.pad);
        }
        if self.compact != 0 {
            let _ = write!(out, ", compact={}", self.compact);
        }
    }
}

/// A shaped type's dimensions (`?` = dynamic).
pub type Shape = Vec<Option<u64>>;

/// A type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    /// Builtin scalar (`i32`, `f32`, `index`...).
    Scalar(ElemType),
    /// Level-1 tile value `!pto.tile<...>`.
    Tile(TileDesc),
    /// Level-2/3 tile buffer `!pto.tile_buf<...>`.
    TileBuf(TileDesc),
    /// GM pointer `!pto.ptr<T>`.
    Ptr(ElemType),
    /// `!pto.tensor_view<d0x...xT>`.
    TensorView(Shape, ElemType),
    /// `!pto.partition_tensor_view<d0x...xT>`.
    PartitionView(Shape, ElemType),
    /// A GM tensor as the ISA pages spell it in PTO-AS, `!pto.memref<T, d0x...>` (the
    /// `GlobalTensor` of docs/isa; `!pto.memref<T>` for a single element, e.g. a signal).
    Memref(Shape, ElemType),
    /// A `GlobalTensor` operand as TPREFETCH's page spells it, `!pto.global<T, d0x...>`.
    Global(Shape, ElemType),
    /// `!pto.event`.
    Event,
    /// `!pto.pipe`: a TPUSH/TPOP FIFO handle (PTOAS `PipeType`).
    Pipe,
    /// `!pto.async_session`: an async DMA session (PTOAS `AsyncSessionType`).
    AsyncSession,
    /// `!pto.async_event`: the completion token of an async DMA op (PTOAS `AsyncEventType`).
    AsyncEvent,
    /// `vector<NxT>`.
    Vector(Shape, ElemType),
    /// Any other type, kept verbatim (`memref<...>`, `!pto.group<...>`).
    Opaque(String),
}

impl Type {
    /// The tile description of a `!pto.tile` or `!pto.tile_buf`.
    pub fn tile(&self) -> Option<&TileDesc> {
        match self {
            Type::Tile(t) | Type::TileBuf(t) => Some(t),
            _ => None,
        }
    }
    /// True for builtin scalars.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Scalar(_))
    }
    /// A builtin `memref<...>` in GM ([`is_gm_memref_text`]): a kernel's GM tensor argument as
    /// PTOAS's frontends write it (`memref<16x16xf32, #pto.address_space<gm>>`).
    pub fn is_gm_memref(&self) -> bool {
        matches!(self, Type::Opaque(t) if is_gm_memref_text(t))
    }
    /// True for the types that name global memory: pointers, tensor and partition views and
    /// the pages' `!pto.memref` / `!pto.global`.
    pub fn is_gm(&self) -> bool {
        matches!(self, Type::Ptr(_) | Type::TensorView(..) | Type::PartitionView(..) | Type::Memref(..) | Type::Global(..))
    }
    /// A short class name for diagnostics (`tile`, `tile_buf`, `scalar`...).
    pub fn class_name(&self) -> &'static str {
        match self {
            Type::Scalar(_) => "scalar",
            Type::Tile(_) => "tile",
            Type::TileBuf(_) => "tile_buf",
            Type::Ptr(_) => "ptr",
            Type::TensorView(..) => "tensor_view",
            Type::PartitionView(..) => "partition_tensor_view",
            Type::Memref(..) => "memref",
            Type::Global(..) => "global",
            Type::Event => "event",
            Type::Pipe => "pipe",
            Type::AsyncSession => "async_session",
            Type::AsyncEvent => "async_event",
            Type::Vector(..) => "vector",
            Type::Opaque(_) => "opaque type",
        }
    }
}

/// True for a `memref<...>` spelling in GM: address space `gm` or `zero`, or none.
pub fn is_gm_memref_text(text: &str) -> bool {
    text.starts_with("memref<")
        && (!text.contains("#pto.address_space<") || text.contains("#pto.address_space<gm>") || text.contains("#pto.address_space<zero>"))
}

/// `T` or `T, d0x...xdn`: the inside of the pages' `!pto.memref<...>` / `!pto.global<...>`.
fn write_gm(out: &mut String, shape: &Shape, elem: ElemType) {
    out.push_str(elem.name());
    if !shape.is_empty() {
        let dims: Vec<String> = shape.iter().map(|d| d.map_or("?".to_string(), |n| n.to_string())).collect();
        out.push_str(", ");
        out.push_str(&dims.join("x"));
    }
}

impl Type {
    /// The element type of a typed value: a scalar, a tile, a view, a pointer, a vector, or one of
    /// the opaque GM view spellings (`memref<...>`, `!pto.memref<...>`, `!pto.global<...>`, and a
    /// `!pto.group<...>` whose spelling names its member memrefs).
    pub fn elem_type(&self) -> Option<ElemType> {
        match self {
            Type::Scalar(e) | Type::Ptr(e) | Type::TensorView(_, e) | Type::PartitionView(_, e) | Type::Vector(_, e) => Some(*e),
            Type::Memref(_, e) | Type::Global(_, e) => Some(*e),
            Type::Tile(t) | Type::TileBuf(t) => Some(t.dtype),
            Type::Opaque(text) => opaque_view(text).and_then(|v| v.elem),
            _ => None,
        }
    }

    /// The static or dynamic (`None`) dimensions of a GM view: tensor and partition views and the
    /// opaque view spellings whose shape is written with numbers (`memref<1x128xf32, ...>`,
    /// `!pto.memref<f32, 16x16>`). `None` for everything else, including `!pto.memref<i32, MxN>`.
    pub fn view_shape(&self) -> Option<Shape> {
        match self {
            Type::TensorView(s, _) | Type::PartitionView(s, _) | Type::Memref(s, _) | Type::Global(s, _) => Some(s.clone()),
            Type::Opaque(text) => opaque_view(text).and_then(|v| v.shape),
            _ => None,
        }
    }

    /// True for a `!pto.*` or `memref` spelling kept verbatim whose text starts with `prefix`
    /// (`memref<`, `!pto.group<`...).
    pub fn is_opaque(&self, prefix: &str) -> bool {
        matches!(self, Type::Opaque(s) if s.starts_with(prefix))
    }
}

/// What an opaque GM view spelling says about its data.
struct OpaqueView {
    elem: Option<ElemType>,
    shape: Option<Shape>,
}

/// Reads `memref<128xf32, #pto.address_space<gm>>`, `!pto.memref<16x16xf32>`,
/// `!pto.memref<f32, 16x16>`, `!pto.global<f32, 16x64>`; for `!pto.group<...>` the first member
/// memref named inside (shape unknown).
fn opaque_view(text: &str) -> Option<OpaqueView> {
    const VIEWS: [&str; 3] = ["memref<", "!pto.memref<", "!pto.global<"];
    if let Some(rest) = text.strip_prefix("!pto.group<") {
        let inner = &rest[rest.find("memref<")?..];
        let close = inner.char_indices().scan(0i32, |depth, (i, ch)| {
            *depth += match ch {
                '<' => 1,
                '>' => -1,
                _ => 0,
            };
            Some((i, *depth))
        });
        let end = close.skip_while(|&(_, d)| d == 0).find(|&(_, d)| d == 0)?.0;
        return opaque_view(&inner[..=end]).map(|v| OpaqueView { elem: v.elem, shape: None });
    }
    let head = VIEWS.iter().find(|h| text.starts_with(**h))?;
    let body = text.strip_prefix(head)?.strip_suffix('>')?;
    let args = top_level_args(body);
    let first = args.first()?;
    // `NxMxT`: leading dimensions, then the element type (MLIR spelling).
    let pieces: Vec<&str> = first.split('x').collect();
    let n_dims = pieces.iter().take_while(|p| **p == "?" || (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))).count();
    let elem = ElemType::parse(&pieces[n_dims..].join("x"))?;
    if n_dims > 0 {
        return Some(OpaqueView { elem: Some(elem), shape: parse_dims(&pieces[..n_dims].join("x")) });
    }
    // `T` alone is a scalar view; `T, NxM` names the shape second (pto-isa comm pages).
    let shape = match args.get(1) {
        None => Some(Vec::new()),
        Some(dims) => parse_dims(dims),
    };
    Some(OpaqueView { elem: Some(elem), shape })
}

/// Splits at commas outside `<...>`.
fn top_level_args(body: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0usize, 0usize, Vec::new());
    for (i, ch) in body.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(body[start..].trim());
    out
}

/// `16x?x128` -> `[Some(16), None, Some(128)]`; `None` when a dimension is not a number or `?`.
fn parse_dims(dims: &str) -> Option<Shape> {
    dims.split('x').map(|d| if d == "?" { Some(None) } else { d.parse().ok().map(Some) }).collect()
}

fn write_shape(out: &mut String, shape: &Shape, elem: ElemType) {
    for d in shape {
        match d {
            Some(n) => out.push_str(&n.to_string()),
            None => out.push('?'),
        }
        out.push('x');
    }
    out.push_str(elem.name());
}

impl fmt::Display for Type {
    /// Canonical spelling (compact `tile_buf` form, defaults omitted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        match self {
            Type::Scalar(e) => s.push_str(e.name()),
            Type::Tile(t) => {
                s.push_str("!pto.tile<");
                s.push_str(&format!("{}x{}x{}", t.rows, t.cols, t.dtype.name()));
                if t.loc != Loc::Vec {
                    s.push_str(", loc=");
                    s.push_str(t.loc.name());
                }
                t.write_keys(&mut s);
                s.push('>');
            }
            Type::TileBuf(t) => {
                s.push_str("!pto.tile_buf<");
                s.push_str(t.loc.name());
                s.push_str(&format!(", {}x{}x{}", t.rows, t.cols, t.dtype.name()));
                t.write_keys(&mut s);
                s.push('>');
            }
            Type::Ptr(e) => {
                s.push_str("!pto.ptr<");
                s.push_str(e.name());
                s.push('>');
            }
            Type::TensorView(shape, e) => {
                s.push_str("!pto.tensor_view<");
                write_shape(&mut s, shape, *e);
                s.push('>');
            }
            Type::PartitionView(shape, e) => {
                s.push_str("!pto.partition_tensor_view<");
                write_shape(&mut s, shape, *e);
                s.push('>');
            }
            Type::Memref(shape, e) => {
                s.push_str("!pto.memref<");
                write_gm(&mut s, shape, *e);
                s.push('>');
            }
            Type::Global(shape, e) => {
                s.push_str("!pto.global<");
                write_gm(&mut s, shape, *e);
                s.push('>');
            }
            Type::Event => s.push_str("!pto.event"),
            Type::Pipe => s.push_str("!pto.pipe"),
            Type::AsyncSession => s.push_str("!pto.async_session"),
            Type::AsyncEvent => s.push_str("!pto.async_event"),
            Type::Vector(shape, e) => {
                s.push_str("vector<");
                write_shape(&mut s, shape, *e);
                s.push('>');
            }
            Type::Opaque(text) => s.push_str(text),
        }
        f.write_str(&s)
    }
}

/// Interns types: equal types get equal ids.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    types: Vec<Type>,
    ids: HashMap<Type, TypeId>,
}

impl TypeTable {
    /// The id of `ty`, adding it if new.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        if let Some(id) = self.ids.get(&ty) {
            return *id;
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(ty.clone());
        self.ids.insert(ty, id);
        id
    }
    /// The type behind an id.
    pub fn get(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }
    /// Number of distinct types.
    pub fn len(&self) -> usize {
        self.types.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opaque(s: &str) -> Type {
        Type::Opaque(s.to_string())
    }

    #[test]
    fn opaque_gm_views_have_element_types_and_shapes() {
        let m = opaque("memref<1x128xf32, #pto.address_space<gm>>");
        assert_eq!(m.elem_type(), Some(ElemType::F32));
        assert_eq!(m.view_shape(), Some(vec![Some(1), Some(128)]));
        let p = opaque("!pto.memref<f32, 16x16>");
        assert_eq!((p.elem_type(), p.view_shape()), (Some(ElemType::F32), Some(vec![Some(16), Some(16)])));
        let s = opaque("!pto.memref<i32>");
        assert_eq!((s.elem_type(), s.view_shape()), (Some(ElemType::I32), Some(vec![])));
        let sym = opaque("!pto.memref<i32, MxN>");
        assert_eq!((sym.elem_type(), sym.view_shape()), (Some(ElemType::I32), None));
        let g = opaque("!pto.group<4x!pto.memref<16x16xf16>>");
        assert_eq!((g.elem_type(), g.view_shape()), (Some(ElemType::F16), None));
        assert_eq!(opaque("!pto.group<8>").elem_type(), None);
        assert_eq!(opaque("memref<?xindex>").view_shape(), Some(vec![None]));
        assert_eq!(opaque("memref<?xindex>").elem_type(), Some(ElemType::Index));
    }
}
