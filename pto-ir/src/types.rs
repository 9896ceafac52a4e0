//! Types: element types, tiles, tile buffers, views, pointers, events — interned per module.
//!
//! A [`TypeId`] is a small copyable handle into a module's [`TypeTable`]; two values have the same
//! type exactly when their ids are equal. Types unknown to `pto` (`memref<...>`, `!pto.pipe`, ...)
//! are kept verbatim as [`Type::Opaque`] so that any file round-trips.
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
            ElemType::I1 | ElemType::I8 | ElemType::U8 | ElemType::F8E4M3 | ElemType::F8E5M2 | ElemType::HiF8 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 | ElemType::Index => 8,
        }
    }

    /// True for floating-point types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16 | ElemType::BF16 | ElemType::F32 | ElemType::F64 | ElemType::F8E4M3 | ElemType::F8E5M2 | ElemType::HiF8
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
    ];
    /// Parses `vec`, `mat`, ...
    pub fn parse(s: &str) -> Option<Loc> {
        Self::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(s)).map(|(l, _)| *l)
    }
    /// Spelling.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(l, _)| *l == self).map(|(_, n)| *n).unwrap_or("?")
    }
}

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

    /// Bytes of storage (capacity × element size).
    pub fn size_bytes(&self) -> u64 {
        self.rows as u64 * self.cols as u64 * self.dtype.size_bytes() as u64
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
    /// `!pto.event`.
    Event,
    /// `vector<NxT>`.
    Vector(Shape, ElemType),
    /// Any other type, kept verbatim (`memref<...>`, `!pto.pipe`).
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
    /// A short class name for diagnostics (`tile`, `tile_buf`, `scalar`...).
    pub fn class_name(&self) -> &'static str {
        match self {
            Type::Scalar(_) => "scalar",
            Type::Tile(_) => "tile",
            Type::TileBuf(_) => "tile_buf",
            Type::Ptr(_) => "ptr",
            Type::TensorView(..) => "tensor_view",
            Type::PartitionView(..) => "partition_tensor_view",
            Type::Event => "event",
            Type::Vector(..) => "vector",
            Type::Opaque(_) => "opaque type",
        }
    }
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
            Type::Event => s.push_str("!pto.event"),
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
