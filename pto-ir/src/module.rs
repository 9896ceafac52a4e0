//! The module: ops, values, blocks and regions as tables indexed by small typed ids.
//!
//! What exists is separate from its order: op payloads live in [`Module::ops`], and each block
//! lists its ops in program order, so passes can insert or reorder ops without touching payloads.
//! Values are defined either by an op result or by a block argument. Source locations live in
//! side tables (`op_spans`, `value_spans`) that printing never needs and diagnostics always do.
//!
//! Invariants kept by the builder and by every pass:
//! - every `ValueId`, `OpId`, `BlockId`, `RegionId` stored anywhere indexes its table;
//! - an op's `ins`/`outs` segments partition its operand list (`num_ins` splits them);
//! - a value has exactly one definition.

use crate::attr::Attr;
use crate::diag::Span;
use crate::ops::Opcode;
use crate::types::{Type, TypeId, TypeTable};
use serde::Serialize;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub struct $name(pub u32);
        impl $name {
            /// The table index.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// Handle of a value.
    ValueId
);
id_type!(
    /// Handle of an op.
    OpId
);
id_type!(
    /// Handle of a block.
    BlockId
);
id_type!(
    /// Handle of a region.
    RegionId
);

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ValueDef {
    /// Result `n` of an op.
    OpResult(OpId, u32),
    /// Argument `n` of a block.
    BlockArg(BlockId, u32),
}

/// A value: its type, its definition and the name it was written with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueData {
    /// Type.
    pub ty: TypeId,
    /// Definition.
    pub def: ValueDef,
    /// Source name without `%` (`src`, `0`, `yield#1`); the printer invents one when empty.
    pub name: String,
}

/// Syntax kept verbatim for ops that `pto` does not model field by field (e.g. `pto.tpush_to_aiv`).
/// Value references are resolved, so def-use checking still works on them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Piece {
    /// A bare word (`to`, `split`, `private`).
    Word(String),
    /// A use of a value.
    Value(ValueId),
    /// A type.
    Type(TypeId),
    /// An attribute.
    Attr(Attr),
    /// `@symbol`.
    Symbol(String),
    /// A literal as written (`32`, `1.0`, `"s"`).
    Literal(String),
    /// Punctuation (`,`, `:`, `->`, `=`).
    Punct(&'static str),
    /// A bracketed group: opening char (`(`, `[`, `<`) and contents.
    Group(char, Vec<Piece>),
    /// An attribute dictionary.
    Dict(Vec<(String, Attr)>),
    /// The op's region with this index.
    Region(u32),
}

/// Extra per-op data that is neither an operand nor an attribute.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub enum Payload {
    /// Nothing extra.
    #[default]
    None,
    /// Verbatim syntax of an op kept in generic form.
    Generic(Vec<Piece>),
    /// Operand segment sizes for ops with optional or variadic operand groups
    /// (`alloc_tile`: addr, valid_row, valid_col; `make_tensor_view`: ptr, shape, strides...;
    /// a tile op's PTO-AS index groups `%v[%r, %c]`).
    Segments(Vec<u32>),
    /// Which optional operand groups of a DPS tile op's text format follow its attribute
    /// dictionary (`tload`'s `pad_value = %v : f32`...), one flag per group in format order;
    /// the present groups' operands are the op's last `ins`. (Index groups `%v[%r, %c]` of the
    /// SSA / short forms are [`Payload::Segments`].)
    TailGroups(Vec<bool>),
    /// Mixed static/dynamic index lists (`partition_view` offsets and sizes): `None` entries
    /// are operands taken in order, `Some(n)` entries are constants.
    IndexLists(Vec<Vec<Option<i64>>>),
    /// `func.func`: symbol name, visibility, result types, per-argument attributes.
    Func {
        /// Symbol name without `@`.
        name: String,
        /// `private` etc., if written.
        visibility: Option<String>,
        /// Declared result types.
        results: Vec<TypeId>,
        /// Parameter types of a declaration (a function without a body); empty when the
        /// function has a body, whose entry-block arguments carry names and types.
        params: Vec<TypeId>,
    },
    /// `func.call`: callee and whether an explicit signature was written.
    Call {
        /// Callee symbol without `@`.
        callee: String,
    },
}

/// One op.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpData {
    /// What op this is.
    pub opcode: Opcode,
    /// Operands: `ins` first, then `outs` (DPS form). Non-DPS ops use only `ins`.
    pub operands: Vec<ValueId>,
    /// How many of `operands` are `ins`.
    pub num_ins: u32,
    /// SSA results.
    pub results: Vec<ValueId>,
    /// Named attributes in source order.
    pub attrs: Vec<(String, Attr)>,
    /// Owned regions.
    pub regions: Vec<RegionId>,
    /// Extra data.
    pub payload: Payload,
    /// Legacy `wait(%e0, ...)` events: an ordering annotation only (deprecated syntax).
    pub waits: Vec<ValueId>,
}

impl OpData {
    /// A new op with no operands, results, attributes or regions.
    pub fn new(opcode: Opcode) -> OpData {
        OpData {
            opcode,
            operands: Vec::new(),
            num_ins: 0,
            results: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            payload: Payload::None,
            waits: Vec::new(),
        }
    }
    /// The `ins` segment.
    pub fn ins(&self) -> &[ValueId] {
        &self.operands[..self.num_ins as usize]
    }
    /// The `outs` segment.
    pub fn outs(&self) -> &[ValueId] {
        &self.operands[self.num_ins as usize..]
    }
    /// Looks an attribute up by name.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

/// A block: optional label, arguments and ops in order.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct BlockData {
    /// Label without `^`, when written.
    pub label: Option<String>,
    /// Block arguments.
    pub args: Vec<ValueId>,
    /// Ops in program order.
    pub ops: Vec<OpId>,
}

/// A region: a list of blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct RegionData {
    /// Blocks in order.
    pub blocks: Vec<BlockId>,
}

/// How the tile ops of a module are written. The printer uses it to print a file in its own
/// form; `pto fmt --to` changes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextForm {
    /// PTO-AS short form: `%d = tadd %a, %b : T`, `.arg` / `.const` directives.
    Short,
    /// Level-1 SSA: `%d = pto.tadd %a, %b : (T, T) -> T`.
    Ssa,
    /// Level-2/3 destination-passing style: `pto.tadd ins(...) outs(...)`.
    Dps,
}

/// The IR level of a module, derived from its content.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Level {
    /// Tile values (`!pto.tile`), SSA.
    Level1,
    /// Tile buffers without addresses.
    Level2,
    /// Tile buffers with `alloc_tile addr = ...`.
    Level3,
}

/// A whole program.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Type table.
    pub types: TypeTable,
    /// Values.
    pub values: Vec<ValueData>,
    /// Ops.
    pub ops: Vec<OpData>,
    /// Blocks.
    pub blocks: Vec<BlockData>,
    /// Regions.
    pub regions: Vec<RegionData>,
    /// The top-level region (one block holding `module` / `func.func` / short-form statements).
    pub body: Option<RegionId>,
    /// Span of each op (parallel to `ops`).
    pub op_spans: Vec<Span>,
    /// Span of each value's definition (parallel to `values`).
    pub value_spans: Vec<Span>,
    /// How tile ops are written.
    pub form: Option<TextForm>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }
    /// Interns a type.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        self.types.intern(ty)
    }
    /// The type behind an id.
    pub fn ty(&self, id: TypeId) -> &Type {
        self.types.get(id)
    }
    /// The value of `v` when an `arith.constant` with an integer value defines it.
    pub fn int_constant(&self, v: ValueId) -> Option<i64> {
        let ValueDef::OpResult(def, _) = self.values.get(v.index())?.def else { return None };
        let d = self.op(def);
        match (d.opcode, d.attr("value")) {
            (Opcode::ArithConstant, Some(Attr::Int(n, _))) => Some(*n),
            _ => None,
        }
    }

    /// The type of a value.
    pub fn value_type(&self, v: ValueId) -> &Type {
        self.types.get(self.values[v.index()].ty)
    }
    /// An op.
    pub fn op(&self, id: OpId) -> &OpData {
        &self.ops[id.index()]
    }
    /// An op, mutably.
    pub fn op_mut(&mut self, id: OpId) -> &mut OpData {
        &mut self.ops[id.index()]
    }
    /// A block.
    pub fn block(&self, id: BlockId) -> &BlockData {
        &self.blocks[id.index()]
    }
    /// A region.
    pub fn region(&self, id: RegionId) -> &RegionData {
        &self.regions[id.index()]
    }
    /// The span of an op.
    pub fn op_span(&self, id: OpId) -> Span {
        self.op_spans.get(id.index()).copied().unwrap_or_default()
    }
    /// The span of a value's definition.
    pub fn value_span(&self, id: ValueId) -> Span {
        self.value_spans.get(id.index()).copied().unwrap_or_default()
    }

    /// Adds a new empty region.
    pub fn add_region(&mut self) -> RegionId {
        self.regions.push(RegionData::default());
        RegionId(self.regions.len() as u32 - 1)
    }
    /// Adds a new empty block at the end of `region`.
    pub fn add_block(&mut self, region: RegionId, label: Option<String>) -> BlockId {
        self.blocks.push(BlockData { label, args: Vec::new(), ops: Vec::new() });
        let b = BlockId(self.blocks.len() as u32 - 1);
        self.regions[region.index()].blocks.push(b);
        b
    }
    /// Adds an argument to `block`.
    pub fn add_block_arg(&mut self, block: BlockId, ty: TypeId, name: String, span: Span) -> ValueId {
        let n = self.blocks[block.index()].args.len() as u32;
        let v = self.add_value(ty, ValueDef::BlockArg(block, n), name, span);
        self.blocks[block.index()].args.push(v);
        v
    }
    /// Adds a value.
    pub fn add_value(&mut self, ty: TypeId, def: ValueDef, name: String, span: Span) -> ValueId {
        self.values.push(ValueData { ty, def, name });
        self.value_spans.push(span);
        ValueId(self.values.len() as u32 - 1)
    }
    /// Adds an op (not yet placed in any block).
    pub fn add_op(&mut self, data: OpData, span: Span) -> OpId {
        self.ops.push(data);
        self.op_spans.push(span);
        OpId(self.ops.len() as u32 - 1)
    }
    /// Adds a result of type `ty` to `op`.
    pub fn add_result(&mut self, op: OpId, ty: TypeId, name: String, span: Span) -> ValueId {
        let n = self.ops[op.index()].results.len() as u32;
        let v = self.add_value(ty, ValueDef::OpResult(op, n), name, span);
        self.ops[op.index()].results.push(v);
        v
    }
    /// Appends `op` to `block`.
    pub fn append(&mut self, block: BlockId, op: OpId) {
        self.blocks[block.index()].ops.push(op);
    }

    /// Every op in program order (pre-order walk through regions).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::with_capacity(self.ops.len());
        if let Some(body) = self.body {
            self.walk_region(body, &mut out);
        }
        out
    }

    fn walk_region(&self, region: RegionId, out: &mut Vec<OpId>) {
        for &b in &self.regions[region.index()].blocks {
            for &op in &self.blocks[b.index()].ops {
                out.push(op);
                for &r in &self.ops[op.index()].regions {
                    self.walk_region(r, out);
                }
            }
        }
    }

    /// Rewrites every type of the module through `f` (`None` keeps a type): value types,
    /// function signatures, types kept in generic pieces and typed attributes. Passes that
    /// change a type everywhere it is used (bufferization, layout legalization) go through here,
    /// so no place that stores a [`TypeId`] is forgotten. Returns the ids that changed, as
    /// (old, new) pairs.
    pub fn retype(&mut self, mut f: impl FnMut(&Type) -> Option<Type>) -> Vec<(TypeId, TypeId)> {
        let mut map: Vec<(TypeId, TypeId)> = Vec::new();
        for i in 0..self.types.len() {
            let id = TypeId(i as u32);
            if let Some(new) = f(self.types.get(id)) {
                let to = self.intern(new);
                if to != id {
                    map.push((id, to));
                }
            }
        }
        if map.is_empty() {
            return map;
        }
        let mut table: Vec<Option<TypeId>> = vec![None; self.types.len()];
        for &(from, to) in &map {
            table[from.0 as usize] = Some(to);
        }
        let convert = |t: &mut TypeId| {
            if let Some(Some(to)) = table.get(t.0 as usize) {
                *t = *to;
            }
        };
        for v in &mut self.values {
            convert(&mut v.ty);
        }
        for data in &mut self.ops {
            for (_, a) in &mut data.attrs {
                retype_attr(a, &convert);
            }
            match &mut data.payload {
                Payload::Func { results, params, .. } => results.iter_mut().chain(params.iter_mut()).for_each(convert),
                Payload::Generic(pieces) => retype_pieces(pieces, &convert),
                _ => {}
            }
        }
        map
    }

    /// The IR level, derived from the tile types used: Level 1 when any value is a
    /// `!pto.tile`, Level 3 when some `alloc_tile` has an address, Level 2 otherwise (buffers
    /// without addresses, or no tiles at all).
    pub fn level(&self) -> Level {
        if self.values.iter().any(|v| matches!(self.types.get(v.ty), Type::Tile(_))) {
            return Level::Level1;
        }
        let has_addr = self.walk().iter().any(|&op| {
            let d = self.op(op);
            d.opcode == Opcode::AllocTile && matches!(&d.payload, Payload::Segments(s) if s.first() == Some(&1))
        });
        if has_addr { Level::Level3 } else { Level::Level2 }
    }
}

fn retype_attr(a: &mut Attr, convert: &impl Fn(&mut TypeId)) {
    match a {
        Attr::Int(_, Some(t)) | Attr::Float(_, Some(t)) | Attr::Type(t) => convert(t),
        Attr::Array(items) => items.iter_mut().for_each(|x| retype_attr(x, convert)),
        Attr::Dict(entries) => entries.iter_mut().for_each(|(_, x)| retype_attr(x, convert)),
        _ => {}
    }
}

fn retype_pieces(pieces: &mut [Piece], convert: &impl Fn(&mut TypeId)) {
    for p in pieces {
        match p {
            Piece::Type(t) => convert(t),
            Piece::Attr(a) => retype_attr(a, convert),
            Piece::Group(_, inner) => retype_pieces(inner, convert),
            Piece::Dict(entries) => entries.iter_mut().for_each(|(_, x)| retype_attr(x, convert)),
            _ => {}
        }
    }
}
