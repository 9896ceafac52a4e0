//! Per-target legality as data: one [`Table`] per target ([`a2a3::TABLE`], [`a5::TABLE`]), read
//! by the one legalizer in [`crate::legalize`].
//!
//! # Model
//!
//! A table is a list of [`Row`]s. A row applies either to a whole instruction family
//! ([`Applies::Family`], the family-level default) or to a list of opcodes ([`Applies::Ops`], a
//! refinement where the sources give per-op facts), optionally only to one operand form of the
//! op (`form`, an index into the op's operand pattern, e.g. the three `tgather` forms).
//!
//! The *effective rule* of an op on a target ([`Table::effective`]) is the family row refined by
//! the op rows in table order: an op row's [`OperandRule`] replaces the inherited rule of every
//! slot it names; its [`Check`]s are added to the inherited ones (or replace them when
//! `inherit_checks` is false); `supported: false` marks an op the target does not have at all.
//!
//! An operand rule lists the tuples a slot accepts as a union of [`Variant`]s, each the product
//! of a set of element types, a set of locations, a set of layouts ([`LayoutPat`]) and shape
//! requirements ([`ShapeReq`]). A non-tile operand (a GM view, a scalar) has only an element
//! type: it is checked against the rule's variants that name nothing else
//! ([`Variant::is_untiled`]), and not at all when the rule has none (a tile rule on a slot that
//! also takes views). A [`Check`] relates several operands (valid-shape equalities the
//! NPU code only asserts in debug builds, allowed dtype combinations such as the TCVT conversion
//! matrix, allowed location pairs, attribute restrictions). Checks on dimensions only fire when
//! both extents are static; the simulator checks the rest when the op runs, with the run-time
//! valid shapes ([`crate::legalize::run_time_violation`]), and traps on a violation. (The one
//! exception is [`CheckKind::GmConvert`], whose fault is a dynamic view dimension.)
//!
//! The scratch (`tmp`) rule is not restated here: it is the op table's per-target
//! [`pto_ir::ops::Tmp`], read through [`Table::tmp_rule`].
//!
//! Sources: pto-isa notes §2 (tile model, aliases), §4 (per-op A2A3/A5 facts, TCVT matrix),
//! §8 (implementation quirks); PTOAS notes §4 and the PTOAS verifier (`lib/PTO/IR/PTO.cpp`,
//! commit a56b18c3) for the per-op dtype/layout tables the pto-isa notes do not cover. Where
//! the two disagree the pto-isa implementation facts win (they describe what the target runs);
//! each row names its source.

pub mod a2a3;
pub mod a5;
pub mod common;

use crate::target::TargetId;
use pto_ir::ops::{Family, OpSpec, Opcode, Tmp, TmpRule};
use pto_ir::types::{BLayout, ElemType, Loc, SLayout};

/// Which ops a row applies to.
#[derive(Copy, Clone, Debug)]
pub enum Applies {
    /// Every op of the family (the family-level default row).
    Family(Family),
    /// These ops (a per-op refinement).
    Ops(&'static [Opcode]),
}

/// A layout pattern: outer layout, inner box layout and fractal size, each optional (`None`
/// matches anything).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LayoutPat {
    /// Name shown in diagnostics and docs (`ND`, `NZ`, `row_major`...).
    pub name: &'static str,
    /// Required outer layout.
    pub blayout: Option<BLayout>,
    /// Required inner box layout.
    pub slayout: Option<SLayout>,
    /// Required fractal size.
    pub fractal: Option<u32>,
}

/// A tile extent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Extent {
    /// Static capacity, rows.
    Rows,
    /// Static capacity, columns.
    Cols,
    /// Valid rows (may be dynamic).
    ValidRows,
    /// Valid columns (may be dynamic).
    ValidCols,
}

impl Extent {
    /// Spelling used in messages (`valid rows`).
    pub fn name(self) -> &'static str {
        match self {
            Extent::Rows => "rows",
            Extent::Cols => "cols",
            Extent::ValidRows => "valid rows",
            Extent::ValidCols => "valid cols",
        }
    }
}

/// A requirement on one operand's shape.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShapeReq {
    /// The extent equals the value.
    Eq(Extent, u32),
    /// The extent lies in `[lo, hi]`.
    Range(Extent, u32, u32),
    /// Two extents of the same tile are equal (e.g. valid cols == cols).
    Same(Extent, Extent),
    /// The tile's pad value is set (not `null`).
    PadSet,
    /// The tile's pad value is `null` or `zero`.
    PadNullOrZero,
    /// The extent is a multiple of the value.
    Multiple(Extent, u32),
    /// A row of the static capacity is a multiple of this many bytes (`cols × element size`).
    RowBytes(u32),
    /// The static capacity (`rows × cols × element size`) lies in `[lo, hi]` bytes.
    Bytes(u32, u32),
}

/// One family of accepted tuples: the product of its sets (an empty set / `None` = any).
#[derive(Copy, Clone, Debug)]
pub struct Variant {
    /// Accepted locations (empty: any).
    pub locs: &'static [Loc],
    /// Accepted element types (`None`: any).
    pub dtypes: Option<&'static [ElemType]>,
    /// Accepted layouts (empty: any).
    pub layouts: &'static [LayoutPat],
    /// Shape requirements, all of which must hold.
    pub shape: &'static [ShapeReq],
}

impl Variant {
    /// True for a variant that names only element types: the kind non-tile operands (GM views,
    /// scalars) are checked against.
    pub fn is_untiled(&self) -> bool {
        self.locs.is_empty() && self.layouts.is_empty() && self.shape.is_empty()
    }
}

/// The tuples accepted by the operands in some slots.
#[derive(Copy, Clone, Debug)]
pub struct OperandRule {
    /// Slot names of the op table's operand patterns (`src0`, `dst`, `tmp`...).
    pub slots: &'static [&'static str],
    /// Accepted tuples: any variant may match.
    pub variants: &'static [Variant],
    /// `ptoas`'s verifier sentence for the failure it describes (PTOAS `lib/PTO/IR/PTO.cpp`):
    /// a diagnostic of that failure leads with it, so a build reading `ptoas`'s errors reads
    /// pto's.
    pub ptoas: Option<(Fault, &'static str)>,
    /// Tuples the rule rejects on one reference's side while the other accepts them (`pto`
    /// keeps today's choice): a rejection of a tile matching one of these variants carries the
    /// dispute's note naming both references.
    pub dispute: Option<(&'static [Variant], &'static Dispute)>,
}

impl OperandRule {
    /// The same rule, with `ptoas`'s sentence for `fault`.
    pub const fn ptoas(self, fault: Fault, text: &'static str) -> OperandRule {
        OperandRule { ptoas: Some((fault, text)), ..self }
    }
    /// The same rule, whose rejection of `variants` one reference does not share.
    pub const fn disputed(self, variants: &'static [Variant], dispute: &'static Dispute) -> OperandRule {
        OperandRule { dispute: Some((variants, dispute)), ..self }
    }

    /// `ptoas`'s sentence when the rule rejects `t` for the failure it describes.
    pub fn ptoas_text(&self, t: &pto_ir::types::TileDesc) -> Option<&'static str> {
        let (fault, text) = self.ptoas?;
        let at_loc: Vec<&Variant> = self.variants.iter().filter(|v| v.locs.is_empty() || v.locs.contains(&t.loc)).collect();
        let dtype_ok = |v: &&Variant| v.dtypes.is_none_or(|d| d.contains(&t.dtype));
        let hit = match fault {
            Fault::Dtype => !at_loc.is_empty() && !at_loc.iter().any(dtype_ok),
            Fault::Layout(loc) => t.loc == loc && at_loc.iter().any(dtype_ok),
        };
        hit.then_some(text)
    }
}

/// Which rejection of an operand rule a `ptoas` sentence describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The element type: the rule takes the operand's location, with other element types.
    Dtype,
    /// The layout (or shape) of an operand in this location: the rule takes its location and
    /// element type, not the rest of the tuple.
    Layout(Loc),
}

/// A constraint relating operands.
#[derive(Copy, Clone, Debug)]
pub enum CheckKind {
    /// `a == b` (both static).
    Eq {
        /// Left side: slot and extent.
        a: (&'static str, Extent),
        /// Right side: slot and extent.
        b: (&'static str, Extent),
    },
    /// `a <= b` (both static).
    Le {
        /// Left side: slot and extent.
        a: (&'static str, Extent),
        /// Right side: slot and extent.
        b: (&'static str, Extent),
    },
    /// The slot's tile has one of these layouts (when slot `when` is bound, if given).
    Layout {
        /// The slot.
        slot: &'static str,
        /// Accepted layouts.
        layouts: &'static [LayoutPat],
        /// Checked only when this optional slot is bound (`None`: always).
        when: Option<&'static str>,
    },
    /// `a × factor == b` (both static): one extent a fixed multiple of another (the single-source
    /// `tdeinterleave`'s destinations hold half the source's columns).
    Scaled {
        /// Left side: slot and extent.
        a: (&'static str, Extent),
        /// The multiple.
        factor: u32,
        /// Right side: slot and extent.
        b: (&'static str, Extent),
    },
    /// `a + b <= c` (all static).
    SumLe {
        /// First summand: slot and extent.
        a: (&'static str, Extent),
        /// Second summand: slot and extent.
        b: (&'static str, Extent),
        /// Bound: slot and extent.
        c: (&'static str, Extent),
    },
    /// The two slots' static storage has the same size in bytes.
    SameBytes(&'static str, &'static str),
    /// The two slots have the same element type.
    SameDtype(&'static str, &'static str),
    /// The two slots have element types of the same size.
    SameWidth(&'static str, &'static str),
    /// The two slots live in the same location.
    SameLoc(&'static str, &'static str),
    /// The two slots have the same layout (outer and inner box layout).
    SameLayout(&'static str, &'static str),
    /// The two slots are different values (the op does not run in place).
    Distinct(&'static str, &'static str),
    /// The slot's extent is at least 1 (checked when static).
    Positive(&'static str, Extent),
    /// The integer attribute `attr`, when written, is one of `allowed` (`slot` is blamed).
    IntAttrIn {
        /// Attribute name.
        attr: &'static str,
        /// The operand a violation is reported on.
        slot: &'static str,
        /// Accepted values.
        allowed: &'static [i64],
    },
    /// The GM view in slot `view`, when the program states its layout (`make_tensor_view`'s
    /// `layout`, reached through `partition_view`), and the tile in slot `tile` form one of
    /// `pairs` (GM layout name `nd`/`dn`/`nz` -> accepted tile layouts).
    GmLayout {
        /// Slot of the GM view.
        view: &'static str,
        /// Slot of the tile.
        tile: &'static str,
        /// GM layout -> tile layouts it may be copied to or from.
        pairs: &'static [(&'static str, &'static [LayoutPat])],
        /// A tile of one row or one column matches every GM layout (TSTORE's special case).
        vectors_any: bool,
        /// Only for tiles of elements this many bytes wide (A2A3's 8-byte ND2ND/DN2DN rule);
        /// `None`: every tile.
        elem_bytes: Option<u32>,
    },
    /// A layout-converting copy: when the GM view in slot `view` states its layout and it and the
    /// tile in slot `tile` form one of `pairs` (GM layout -> tile layouts, as in
    /// [`CheckKind::GmLayout`]), the view is 2-D at compile time (every dimension before its last
    /// two is static: a static one other than 1 already breaks [`CheckKind::ViewShape`], whose
    /// boxed tiles fold no leading dimension) and the tile's fractal is `fractal` bytes.
    GmConvert {
        /// Slot of the GM view.
        view: &'static str,
        /// Slot of the tile.
        tile: &'static str,
        /// GM layout -> tile layouts whose copy converts.
        pairs: &'static [(&'static str, &'static [LayoutPat])],
        /// The fractal size the converted tile must have.
        fractal: u32,
    },
    /// The element types of `slots`, in order, form one of `tuples`.
    DtypeTuples {
        /// Slots whose element types are combined.
        slots: &'static [&'static str],
        /// Accepted combinations.
        tuples: &'static [&'static [ElemType]],
    },
    /// The element type of `to` is one of those listed for the element type of `from`.
    DtypeMap {
        /// Key slot.
        from: &'static str,
        /// Value slot.
        to: &'static str,
        /// `from` type -> accepted `to` types.
        map: &'static [(ElemType, &'static [ElemType])],
    },
    /// The location of `to` is one of those listed for the location of `from`.
    LocPairs {
        /// Key slot.
        from: &'static str,
        /// Value slot.
        to: &'static str,
        /// `from` location -> accepted `to` locations.
        pairs: &'static [(Loc, &'static [Loc])],
    },
    /// The window `[row, row + part.size.0) x [col, col + part.size.1)` of the scalar slots
    /// `row`/`col` lies inside `whole`'s static capacity, indices non-negative (constant indices
    /// only).
    Window {
        /// Slots of the row and column index scalars.
        index: (&'static str, &'static str),
        /// The tile moved in or out.
        part: &'static str,
        /// The tile the window lies in.
        whole: &'static str,
        /// The extents of `part` that span the window.
        size: (Extent, Extent),
    },
    /// The constant index scalar in slot `index` is a multiple of `of`.
    IndexMultiple {
        /// Slot of the index scalar.
        index: &'static str,
        /// The required multiple.
        of: Multiple,
    },
    /// The GM view in slot `view` presents the tile in slot `tile` exactly its valid shape
    /// (leading view dimensions folded per [`pto_ir::tile_rules::view_extent`]).
    ViewShape {
        /// Slot of the GM view.
        view: &'static str,
        /// Slot of the tile.
        tile: &'static str,
    },
    /// When `slot`'s element type is one of `dtypes`, the enum attribute `attr` (kind `kind`)
    /// must be one of `allowed`.
    AttrWhen {
        /// Attribute name.
        attr: &'static str,
        /// Enum kind of the attribute.
        kind: &'static str,
        /// Slot whose element type triggers the restriction.
        slot: &'static str,
        /// Element types that trigger it.
        dtypes: &'static [ElemType],
        /// Accepted values (lower case).
        allowed: &'static [&'static str],
    },
}

/// A required multiple of an index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Multiple {
    /// A fixed count (16: one fractal row block).
    Fixed(u32),
    /// The elements of one 32-byte block of the slot's element type (`C0`).
    Block(&'static str),
}

impl Multiple {
    /// `16`, `32 bytes of src`.
    pub fn text(self) -> String {
        match self {
            Multiple::Fixed(n) => n.to_string(),
            Multiple::Block(slot) => format!("32 bytes of {slot}"),
        }
    }
}

/// A constraint with its reason.
#[derive(Copy, Clone, Debug)]
pub struct Check {
    /// What is checked.
    pub kind: CheckKind,
    /// Why (shown in diagnostics and docs).
    pub why: &'static str,
    /// Only when this slot's tile lives in one of these locations.
    pub only: Option<(&'static str, &'static [Loc])>,
    /// `ptoas`'s verifier sentence for a violation (PTOAS `lib/PTO/IR/PTO.cpp`), which the
    /// diagnostic leads with.
    pub ptoas: Option<&'static str>,
    /// Set when the two references disagree about this rule (the check is one reference's
    /// rule, the other does not have it): what each says, and which side `pto` takes.
    pub dispute: Option<&'static Dispute>,
}

/// A rule on which `ptoas` and pto-isa disagree. The [`Check`] carrying it states the stricter
/// reference's rule; a violation is an error when `pto` takes the stricter side
/// (`rejects`), else a `LEGAL_REFERENCES_DISAGREE` warning. Either way the diagnostic names both
/// references with their source lines.
#[derive(Copy, Clone, Debug)]
pub struct Dispute {
    /// What `ptoas` says, with its source line (`accepts it (lib/PTO/IR/PTO.cpp:5159-5165)`).
    pub ptoas: &'static str,
    /// What pto-isa says, with its source line.
    pub pto_isa: &'static str,
    /// True when `pto` rejects a violation (it takes the stricter reference's side).
    pub rejects: bool,
}

impl Dispute {
    /// `ptoas: ...; pto-isa: ...`, the sentence every diagnostic of the dispute carries.
    pub fn text(&self) -> String {
        format!("the references disagree: ptoas {}; pto-isa {}", self.ptoas, self.pto_isa)
    }
}

impl Check {
    /// The same check, applied only when `slot` lives in one of `locs`.
    pub const fn when_loc(self, slot: &'static str, locs: &'static [Loc]) -> Check {
        Check { only: Some((slot, locs)), ..self }
    }
    /// The same check, with `ptoas`'s sentence for a violation.
    pub const fn ptoas(self, text: &'static str) -> Check {
        Check { ptoas: Some(text), ..self }
    }
    /// The same check, as one reference's rule the other does not have.
    pub const fn disputed(self, dispute: &'static Dispute) -> Check {
        Check { dispute: Some(dispute), ..self }
    }
    /// True when a violation rejects the op (not a rule `pto` only warns about).
    pub fn binding(&self) -> bool {
        self.dispute.is_none_or(|d| d.rejects)
    }
    /// Description including the location guard.
    pub fn text(&self) -> String {
        match self.only {
            Some((slot, locs)) => format!("{} (when {slot} loc {})", self.kind.text(), locs_text(locs)),
            None => self.kind.text(),
        }
    }
}

/// One row of a legality table.
#[derive(Copy, Clone, Debug)]
pub struct Row {
    /// Family default or per-op refinement.
    pub applies: Applies,
    /// Only for this operand form of the op (index into its `|`-separated pattern).
    pub form: Option<u8>,
    /// False when the target does not implement the op at all.
    pub supported: bool,
    /// Operand rules (replace inherited rules slot by slot).
    pub operands: &'static [OperandRule],
    /// Cross-operand checks.
    pub checks: &'static [Check],
    /// Keep the checks of earlier rows.
    pub inherit_checks: bool,
    /// Where the facts come from.
    pub source: &'static str,
}

impl Row {
    /// Defaults every row starts from.
    pub const DEFAULT: Row =
        Row { applies: Applies::Ops(&[]), form: None, supported: true, operands: &[], checks: &[], inherit_checks: true, source: "" };

    fn applies_to(&self, spec: &OpSpec, form: Option<usize>) -> bool {
        let op_ok = match self.applies {
            Applies::Family(f) => f == spec.family,
            Applies::Ops(ops) => ops.contains(&spec.opcode),
        };
        let form_ok = match (self.form, form) {
            (None, _) => true,
            (Some(want), Some(got)) => want as usize == got,
            (Some(_), None) => false,
        };
        op_ok && form_ok
    }
}

/// One target's legality table.
#[derive(Debug)]
pub struct Table {
    /// The target it describes.
    pub target: TargetId,
    /// Target name (`a2a3`, `a5`).
    pub name: &'static str,
    /// Reads this target's scratch rule from the op table's per-target [`Tmp`].
    pub tmp_rule: fn(&Tmp) -> TmpRule,
    /// Rows, family defaults first within each family by convention (order matters only among
    /// op rows: later ones refine earlier ones).
    pub rows: &'static [Row],
}

/// The rule an op obeys on one target, after merging its rows.
#[derive(Debug)]
pub struct Effective<'t> {
    /// False when the target does not implement the op.
    pub supported: bool,
    /// Slot name -> rule.
    pub operands: Vec<(&'static str, &'t OperandRule)>,
    /// Checks in order.
    pub checks: Vec<&'t Check>,
    /// The rows merged, in order.
    pub rows: Vec<&'t Row>,
}

impl<'t> Effective<'t> {
    /// The rule of a slot.
    pub fn operand(&self, slot: &str) -> Option<&'t OperandRule> {
        self.operands.iter().find(|(s, _)| *s == slot).map(|(_, r)| *r)
    }
}

impl Table {
    /// The effective rule of `opcode` for operand form `form` (`None`: rows of every form;
    /// used by the docs), or `None` when no row describes the op.
    pub fn effective(&self, opcode: Opcode, form: Option<usize>) -> Option<Effective<'_>> {
        let spec = opcode.spec();
        // Family rows first, then op rows, each group in table order.
        let family_rows = self.rows.iter().filter(|r| matches!(r.applies, Applies::Family(_)));
        let op_rows = self.rows.iter().filter(|r| matches!(r.applies, Applies::Ops(_)));
        let rows: Vec<&Row> = family_rows.chain(op_rows).filter(|r| r.applies_to(spec, form)).collect();
        if rows.is_empty() {
            return None;
        }
        let mut eff = Effective { supported: true, operands: Vec::new(), checks: Vec::new(), rows: Vec::new() };
        for row in rows {
            eff.supported &= row.supported;
            for rule in row.operands {
                for &slot in rule.slots {
                    match eff.operands.iter_mut().find(|(s, _)| *s == slot) {
                        Some(entry) => entry.1 = rule,
                        None => eff.operands.push((slot, rule)),
                    }
                }
            }
            if !row.inherit_checks {
                eff.checks.clear();
            }
            eff.checks.extend(row.checks.iter());
            eff.rows.push(row);
        }
        Some(eff)
    }

    /// The family-level default row of `family`, if any.
    pub fn family_row(&self, family: Family) -> Option<&Row> {
        self.rows.iter().find(|r| matches!(r.applies, Applies::Family(f) if f == family))
    }
}

/// Every table.
pub static TABLES: [&Table; 2] = [&a2a3::TABLE, &a5::TABLE];

/// The table of a target.
pub fn table(target: TargetId) -> &'static Table {
    TABLES.iter().copied().find(|t| t.target == target).unwrap_or(TABLES[0])
}

/// The ISA instruction families (pto-isa notes §3.1) every table must describe.
pub const ISA_FAMILIES: &[Family] = &[
    Family::ElemBinary,
    Family::Bitwise,
    Family::Ternary,
    Family::Unary,
    Family::TileScalar,
    Family::CmpSel,
    Family::RowReduce,
    Family::ColReduce,
    Family::ArgReduce,
    Family::Expand,
    Family::Partial,
    Family::GatherScatter,
    Family::Sort,
    Family::Convert,
    Family::Matmul,
    Family::Memory,
    Family::Move,
    Family::Generate,
];

// ---- Text ----

/// `{f16, f32}`.
pub fn dtypes_text(d: &[ElemType]) -> String {
    let names: Vec<&str> = d.iter().map(|t| t.name()).collect();
    format!("{{{}}}", names.join(", "))
}

fn locs_text(l: &[Loc]) -> String {
    let names: Vec<&str> = l.iter().map(|l| l.name()).collect();
    if names.len() == 1 { names[0].to_string() } else { format!("{{{}}}", names.join(", ")) }
}

impl LayoutPat {
    /// `NZ (col_major/row_major)`, `row_major`, `fractal 512`...
    pub fn text(&self) -> String {
        self.name.to_string()
    }
    /// True when the tile's layout matches.
    pub fn matches(&self, b: BLayout, s: SLayout, fractal: u32) -> bool {
        self.blayout.is_none_or(|x| x == b) && self.slayout.is_none_or(|x| x == s) && self.fractal.is_none_or(|x| x == fractal)
    }
}

impl ShapeReq {
    /// `cols = 1`, `valid cols in [1, 4095]`, `valid cols = cols`.
    pub fn text(&self) -> String {
        match self {
            ShapeReq::Eq(e, v) => format!("{} = {v}", e.name()),
            ShapeReq::Range(e, lo, hi) => format!("{} in [{lo}, {hi}]", e.name()),
            ShapeReq::Same(a, b) => format!("{} = {}", a.name(), b.name()),
            ShapeReq::PadSet => "pad value set".to_string(),
            ShapeReq::PadNullOrZero => "pad null or zero".to_string(),
            ShapeReq::Multiple(e, n) => format!("{} % {n} = 0", e.name()),
            ShapeReq::RowBytes(n) => format!("cols x element size % {n} bytes = 0"),
            ShapeReq::Bytes(lo, hi) => format!("rows x cols x element size in [{lo}, {hi}] bytes"),
        }
    }
}

impl Variant {
    /// `dtype {f16, f32}, loc vec, layout ND, cols = 1`; `any` when unconstrained.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.dtypes {
            parts.push(format!("dtype {}", dtypes_text(d)));
        }
        if !self.locs.is_empty() {
            parts.push(format!("loc {}", locs_text(self.locs)));
        }
        if !self.layouts.is_empty() {
            let names: Vec<String> = self.layouts.iter().map(LayoutPat::text).collect();
            parts.push(format!("layout {}", if names.len() == 1 { names[0].clone() } else { format!("{{{}}}", names.join(", ")) }));
        }
        for s in self.shape {
            parts.push(s.text());
        }
        if parts.is_empty() { "any".to_string() } else { parts.join(", ") }
    }
}

impl OperandRule {
    /// The variants joined by ` | `.
    pub fn text(&self) -> String {
        let v: Vec<String> = self.variants.iter().map(Variant::text).collect();
        v.join(" | ")
    }
}

impl CheckKind {
    /// The slots the check reads.
    pub fn slots(&self) -> Vec<&'static str> {
        match *self {
            CheckKind::Eq { a, b } | CheckKind::Le { a, b } | CheckKind::Scaled { a, b, .. } => vec![a.0, b.0],
            CheckKind::SumLe { a, b, c } => vec![a.0, b.0, c.0],
            CheckKind::SameBytes(a, b) => vec![a, b],
            CheckKind::SameDtype(a, b)
            | CheckKind::SameWidth(a, b)
            | CheckKind::SameLoc(a, b)
            | CheckKind::SameLayout(a, b)
            | CheckKind::Distinct(a, b) => {
                vec![a, b]
            }
            CheckKind::DtypeTuples { slots, .. } => slots.to_vec(),
            CheckKind::DtypeMap { from, to, .. } | CheckKind::LocPairs { from, to, .. } => vec![from, to],
            CheckKind::AttrWhen { slot, .. }
            | CheckKind::Layout { slot, .. }
            | CheckKind::Positive(slot, _)
            | CheckKind::IntAttrIn { slot, .. } => vec![slot],
            CheckKind::ViewShape { view, tile } | CheckKind::GmLayout { view, tile, .. } | CheckKind::GmConvert { view, tile, .. } => {
                vec![view, tile]
            }
            CheckKind::Window { index, part, whole, .. } => vec![index.0, index.1, part, whole],
            CheckKind::IndexMultiple { index, of } => match of {
                Multiple::Block(slot) => vec![index, slot],
                Multiple::Fixed(_) => vec![index],
            },
        }
    }

    /// Short description (`src valid rows = dst valid rows`).
    pub fn text(&self) -> String {
        match self {
            CheckKind::Eq { a, b } => format!("{} {} = {} {}", a.0, a.1.name(), b.0, b.1.name()),
            CheckKind::Le { a, b } => format!("{} {} <= {} {}", a.0, a.1.name(), b.0, b.1.name()),
            CheckKind::Scaled { a, factor, b } => format!("{} {} x {factor} = {} {}", a.0, a.1.name(), b.0, b.1.name()),
            CheckKind::SumLe { a, b, c } => format!("{} {} + {} {} <= {} {}", a.0, a.1.name(), b.0, b.1.name(), c.0, c.1.name()),
            CheckKind::SameBytes(a, b) => format!("{a} bytes = {b} bytes"),
            CheckKind::SameDtype(a, b) => format!("{a} dtype = {b} dtype"),
            CheckKind::SameWidth(a, b) => format!("{a} element size = {b} element size"),
            CheckKind::SameLoc(a, b) => format!("{a} loc = {b} loc"),
            CheckKind::SameLayout(a, b) => format!("{a} layout = {b} layout"),
            CheckKind::Distinct(a, b) => format!("{a} != {b}"),
            CheckKind::Positive(a, e) => format!("{a} {} >= 1", e.name()),
            CheckKind::IntAttrIn { attr, allowed, .. } => {
                format!("{attr} in {{{}}}", allowed.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
            }
            CheckKind::DtypeTuples { slots, tuples } => {
                let t: Vec<String> =
                    tuples.iter().map(|t| format!("({})", t.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "))).collect();
                format!("({}) in {{{}}}", slots.join(", "), t.join(", "))
            }
            CheckKind::DtypeMap { from, to, map } => {
                let t: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{} -> {}", k.name(), v.iter().map(|e| e.name()).collect::<Vec<_>>().join("/")))
                    .collect();
                format!("{from} -> {to}: {}", t.join("; "))
            }
            CheckKind::LocPairs { from, to, pairs } => {
                let t: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{} -> {}", k.name(), v.iter().map(|l| l.name()).collect::<Vec<_>>().join("/")))
                    .collect();
                format!("{from} loc -> {to} loc: {}", t.join("; "))
            }
            CheckKind::AttrWhen { attr, slot, dtypes, allowed, .. } => {
                format!("{attr} in {{{}}} when {slot} dtype in {}", allowed.join(", "), dtypes_text(dtypes))
            }
            CheckKind::ViewShape { view, tile } => format!("{view} view shape = {tile} valid shape"),
            CheckKind::GmLayout { view, tile, pairs, elem_bytes, .. } => {
                let p: Vec<String> = pairs
                    .iter()
                    .map(|(g, ls)| format!("{}->{}", g.to_uppercase(), ls.iter().map(|l| l.text()).collect::<Vec<_>>().join("/")))
                    .collect();
                let width = elem_bytes.map(|n| format!(" for {n}-byte elements")).unwrap_or_default();
                format!("({view} GM layout, {tile} layout) in {{{}}}{width}", p.join(", "))
            }
            CheckKind::GmConvert { view, tile, pairs, fractal } => {
                let p: Vec<String> = pairs
                    .iter()
                    .map(|(g, ls)| format!("{}->{}", g.to_uppercase(), ls.iter().map(|l| l.text()).collect::<Vec<_>>().join("/")))
                    .collect();
                format!(
                    "({view} GM layout, {tile} layout) in {{{}}}: {view} view dims before the last two static, {tile} fractal {fractal}",
                    p.join(", ")
                )
            }
            CheckKind::Layout { slot, layouts, when } => {
                let given = when.map(|w| format!(" when {w} is given")).unwrap_or_default();
                format!("{slot} layout in {{{}}}{given}", layouts.iter().map(LayoutPat::text).collect::<Vec<_>>().join(", "))
            }
            CheckKind::Window { index, part, whole, size } => format!(
                "0 <= {r}, 0 <= {c}, {r} + {part} {} <= {whole} rows, {c} + {part} {} <= {whole} cols",
                size.0.name(),
                size.1.name(),
                r = index.0,
                c = index.1
            ),
            CheckKind::IndexMultiple { index, of } => format!("{index} % {} = 0", of.text()),
        }
    }
}

/// The scratch rule in words.
pub fn tmp_text(rule: TmpRule) -> &'static str {
    match rule {
        TmpRule::Forbidden => "forbidden",
        TmpRule::Optional => "optional (inserted when needed)",
        TmpRule::Required => "required (inserted when missing)",
        TmpRule::Ignored => "accepted, unused",
    }
}

#[cfg(test)]
mod tests {
    use super::common::{operand, var};
    use super::*;
    use pto_ir::types::TileDesc;

    const ND: LayoutPat = LayoutPat { name: "ND", blayout: Some(BLayout::RowMajor), slayout: Some(SLayout::NoneBox), fractal: None };

    const F32_ND: &[Variant] = &[var(&[Loc::Vec], Some(&[ElemType::F32]), &[ND], &[])];

    #[test]
    fn ptoas_sentence_only_for_the_failure_it_describes() {
        let dtype = operand(&["src"], F32_ND).ptoas(Fault::Dtype, "dtype");
        let layout = operand(&["src"], F32_ND).ptoas(Fault::Layout(Loc::Vec), "layout");
        let i8_tile = TileDesc::vec(ElemType::I8, 1, 32);
        let col_major = TileDesc { blayout: BLayout::ColMajor, ..TileDesc::vec(ElemType::F32, 16, 8) };
        let in_mat = TileDesc { loc: Loc::Mat, ..TileDesc::vec(ElemType::I8, 16, 32) };
        assert_eq!(dtype.ptoas_text(&i8_tile), Some("dtype"));
        assert_eq!(dtype.ptoas_text(&col_major), None);
        assert_eq!(dtype.ptoas_text(&in_mat), None, "a location the rule does not take is not a dtype failure");
        assert_eq!(layout.ptoas_text(&col_major), Some("layout"));
        assert_eq!(layout.ptoas_text(&i8_tile), None);
        assert_eq!(layout.ptoas_text(&in_mat), None);
    }
}
