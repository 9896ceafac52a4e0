//! The op table: every instruction of the PTO ISA (the 150 pages of pto-isa `docs/isa/` and the
//! 11 pages of `docs/isa/comm/`), every other op of the PTOAS `pto` dialect, and the MLIR
//! `arith` / `scf` / `func` / `builtin` / `memref` ops PTOAS files use — each described exactly once.
//!
//! The reader, the printers, the structural verifier, `pto ops` and the generated ISA coverage
//! table all read this table; nothing else lists ops. The [`Opcode`] enum is generated from the
//! same list, so consumers that match on it exhaustively (the simulator) see every new op.

pub mod bind;
pub mod cross_core;
mod format;
mod spec;
mod table;

pub use format::{DictKey, FormatItem, TailGroup, parse_format};
pub use spec::*;
pub use table::Opcode;

use crate::attr::{Attr, EnumAttr};
use crate::types::Type;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The Levenshtein distance between two op names ("did you mean": the reader's unknown op, the
/// verifier's misspelled op, `pto ops NAME`), counted by `strsim`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// Every entry, indexed by `Opcode as usize`.
pub fn all() -> &'static [OpSpec] {
    table::OPS
}

/// ODS attribute names of the ops whose custom form lists enum arguments
/// (`pto.set_flag[<A>, <B>, <C>]`), in argument order (PTOAS `PTOOps.td`): how the MLIR generic
/// form names what the custom form keeps as the `args` array.
pub const ENUM_ARGUMENTS: &[(Opcode, &[&str])] = &[
    (Opcode::SetFlag, &["src_pipe", "dst_pipe", "event_id"]),
    (Opcode::WaitFlag, &["src_pipe", "dst_pipe", "event_id"]),
    (Opcode::RecordEvent, &["src_op", "dst_op", "event_id"]),
    (Opcode::WaitEvent, &["src_op", "dst_op", "event_id"]),
    (Opcode::BarrierSync, &["op_type"]),
    (Opcode::GetBuf, &["op_type", "buf_id"]),
    (Opcode::RlsBuf, &["op_type", "buf_id"]),
];

/// `arith.cmpi` predicates by their MLIR enum value.
pub const CMPI_PREDICATES: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
/// Whether `arith.cmpi` with predicate `pred` holds for `a` and `b` (the `u*` predicates compare
/// the bits as unsigned); `None` for a name that is no predicate.
pub fn cmpi_holds(pred: &str, a: i64, b: i64) -> Option<bool> {
    let (ua, ub) = (a as u64, b as u64);
    Some(match pred {
        "eq" => a == b,
        "ne" => a != b,
        "slt" => a < b,
        "sle" => a <= b,
        "sgt" => a > b,
        "sge" => a >= b,
        "ult" => ua < ub,
        "ule" => ua <= ub,
        "ugt" => ua > ub,
        "uge" => ua >= ub,
        _ => return None,
    })
}

/// `arith.cmpf` predicates by their MLIR enum value.
pub const CMPF_PREDICATES: [&str; 16] =
    ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"];

impl Opcode {
    /// The ODS names of this op's enum arguments (see [`ENUM_ARGUMENTS`]).
    pub fn enum_argument_names(self) -> &'static [&'static str] {
        ENUM_ARGUMENTS.iter().find(|(o, _)| *o == self).map(|(_, n)| *n).unwrap_or(&[])
    }
    /// The MLIR predicate table of `arith.cmpi` / `arith.cmpf`.
    pub fn predicates(self) -> &'static [&'static str] {
        if self == Opcode::ArithCmpi { &CMPI_PREDICATES } else { &CMPF_PREDICATES }
    }
    /// This op's table entry.
    pub fn spec(self) -> &'static OpSpec {
        &table::OPS[self as usize]
    }
    /// This op's parsed patterns.
    pub fn parsed(self) -> &'static ParsedSpec {
        &parsed_specs()[self as usize]
    }
    /// Whether a form of this op in the table has `k` destinations (`outs`), so that a Level-1
    /// statement binding `k` results names them: the PTO-AS short form's lone type (`%d = op
    /// %s : T`) is then the results' type, and otherwise the operands'.
    pub fn has_result_form(self, k: usize) -> bool {
        self.parsed().forms.iter().any(|f| spec::assign_slots(&f.outs, k).is_some())
    }
    /// `dialect.name`.
    pub fn full_name(self) -> String {
        self.spec().full_name()
    }
    /// How many of `n` operands are `ins` when the text does not say (the MLIR generic form
    /// lists operands only): all of them when the op has results (SSA form) or is not a tile
    /// op; for a DPS tile op, the first operand form of the table whose slot counts admit `n`
    /// operands decides, taking as few `outs` as it allows.
    pub fn default_ins(self, n: usize, n_results: usize) -> usize {
        if n_results > 0 || self.spec().syntax != Syntax::Tile {
            return n;
        }
        for form in &self.parsed().forms {
            let min_in = form.ins.iter().filter(|s| !s.optional).count();
            let max_in = if form.ins.iter().any(|s| s.variadic) { usize::MAX } else { form.ins.len() };
            let min_out = form.outs.iter().filter(|s| !s.optional).count();
            let max_out = if form.outs.iter().any(|s| s.variadic) { usize::MAX } else { form.outs.len() };
            for outs in min_out..=max_out.min(n) {
                let ins = n - outs;
                if ins >= min_in && ins <= max_in {
                    return ins;
                }
            }
        }
        n
    }
}

fn parsed_specs() -> &'static Vec<ParsedSpec> {
    static PARSED: OnceLock<Vec<ParsedSpec>> = OnceLock::new();
    PARSED.get_or_init(|| {
        table::OPS
            .iter()
            .map(|s| {
                // The table is fixed at compile time and a unit test parses every entry, so an
                // error here is a bug in the table, never a consequence of user input.
                parse_spec(s).unwrap_or_else(|e| panic!("op table entry `{}`: {e}", s.name))
            })
            .collect()
    })
}

/// Looks an op up by the name written in the text: `pto.tadd`, `tadd` (PTO-AS short form),
/// `arith.addi`, `return`, `module`, or any alias.
pub fn lookup(name: &str) -> Option<Opcode> {
    static NAMES: OnceLock<HashMap<String, Opcode>> = OnceLock::new();
    let map = NAMES.get_or_init(|| {
        let mut m = HashMap::new();
        for s in table::OPS {
            let prefix = s.dialect.prefix();
            for n in std::iter::once(&s.name).chain(s.aliases.iter()) {
                m.insert(format!("{prefix}.{n}"), s.opcode);
                if s.dialect == Dialect::Pto {
                    m.entry(n.to_string()).or_insert(s.opcode);
                }
            }
        }
        // Inside `func.func`, MLIR's default dialect spells `func.return` and `func.call` short.
        m.insert("return".into(), Opcode::FuncReturn);
        m.insert("call".into(), Opcode::FuncCall);
        m.insert("module".into(), Opcode::Module);
        m
    });
    map.get(name).copied()
}

/// Looks up a mnemonic that ends in mode suffixes (`mgather.row.clamp`, with or without the
/// `pto.` prefix): the op and the attributes its suffixes select. `None` when the name is not
/// an op with modes followed by distinct-attribute suffixes of that op.
pub fn lookup_with_modes(name: &str) -> Option<(Opcode, Vec<(String, Attr)>)> {
    let mut cut = name.len();
    while let Some(dot) = name[..cut].rfind('.') {
        cut = dot;
        let Some(op) = lookup(&name[..cut]) else { continue };
        let spec = op.spec();
        if spec.modes.is_empty() {
            return None;
        }
        let mut attrs: Vec<(String, Attr)> = Vec::new();
        for suffix in name[cut + 1..].split('.') {
            let mode = spec.modes.iter().find(|m| m.suffix == suffix)?;
            let kind = &op.parsed().attrs.iter().find(|a| a.name == mode.attr)?.kind;
            if attrs.iter().any(|(n, _)| n == mode.attr) {
                return None;
            }
            attrs.push((mode.attr.to_string(), Attr::Enum(EnumAttr::new(kind, mode.value)?)));
        }
        return Some((op, attrs));
    }
    None
}

/// Where a statement that binds no results writes its destinations among its operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DestinationOrder {
    /// Destinations first, as the C++ intrinsics and PTO-AS write them
    /// (`mgather.row %dst, %table, %idx`, `mscatter.row %table, %src, %idx`).
    First,
    /// Destinations last, after the `ins` (Level-1 SSA `pto.tstore %src, %mem`, PTO-AS
    /// `tstore %t, %v[%r, %c]`).
    Last,
}

/// Which operands of a result-less statement are the op's destinations (`outs`).
///
/// `groups` are the operand groups as written (a memory operand `%v[%r, %c]` is one group of
/// three); the destinations are a run of whole groups at the start or the end, tried in the
/// order of `orders`, shortest run first. `None` when the operands fit one of the op's forms
/// as `ins` alone (`tsetval`, `tprint`: no destination is written) or when no split fits.
pub fn split_destinations(op: Opcode, groups: &[Vec<&Type>], orders: &[DestinationOrder]) -> Option<(DestinationOrder, usize)> {
    let forms = &op.parsed().forms;
    if forms.iter().any(|f| f.fit(&flatten(groups), &[]).is_some()) {
        return None;
    }
    for &order in orders {
        for k in 1..=groups.len() {
            let (outs, ins) = match order {
                DestinationOrder::First => (&groups[..k], &groups[k..]),
                DestinationOrder::Last => (&groups[groups.len() - k..], &groups[..groups.len() - k]),
            };
            let (ins, outs) = (flatten(ins), flatten(outs));
            if forms.iter().any(|f| !f.outs.is_empty() && f.fit(&ins, &outs).is_some()) {
                return Some((order, k));
            }
        }
    }
    None
}

fn flatten<'t>(groups: &[Vec<&'t Type>]) -> Vec<&'t Type> {
    groups.iter().flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_rules_refine_the_pipe_column() {
        use crate::types::Loc;
        let facts = |a5: bool, has_tmp: bool, src: Option<Loc>, dst: Option<Loc>| PipeFacts { a5, has_tmp, src, dst };
        let v = Some(Loc::Vec);
        // tmov: the pair of locations decides (PTOAS TMovOp::getPipe).
        assert_eq!(Opcode::TMov.pipe_for(&facts(false, false, v, v)), Pipe::V);
        assert_eq!(Opcode::TMov.pipe_for(&facts(false, false, Some(Loc::Mat), Some(Loc::Left))), Pipe::Mte1);
        assert_eq!(Opcode::TMov.pipe_for(&facts(true, false, Some(Loc::Acc), v)), Pipe::Fix);
        assert_eq!(Opcode::TMov.pipe_for(&facts(false, false, None, None)), Pipe::Mte1, "the column's pipe when no rule holds");
        // The target decides (A2A3's scalar loops).
        assert_eq!(Opcode::TShl.pipe_for(&facts(false, false, v, v)), Pipe::S);
        assert_eq!(Opcode::TShl.pipe_for(&facts(true, false, v, v)), Pipe::V);
        // The scratch tile decides.
        assert_eq!(Opcode::TCi.pipe_for(&facts(false, true, None, v)), Pipe::V);
        assert_eq!(Opcode::TCi.pipe_for(&facts(false, false, None, v)), Pipe::S);
        // A2A3 pops load on MTE2; A5 pops run on no pipe.
        assert_eq!(Opcode::TPopFromAic.pipe_for(&facts(false, false, None, v)), Pipe::Mte2);
        assert_eq!(Opcode::TPopFromAic.pipe_for(&facts(true, false, None, v)), Pipe::None);
        assert_eq!(Opcode::TStore.pipe_for(&facts(false, false, Some(Loc::Acc), None)), Pipe::Fix);
        assert_eq!(Opcode::TStore.pipe_for(&facts(false, false, v, None)), Pipe::Mte3);
    }

    #[test]
    fn effect_words_are_columns() {
        assert!(Opcode::TAxpy.parsed().effects.reads_dst && !Opcode::TAdd.parsed().effects.reads_dst);
        assert!(Opcode::TPop.parsed().effects.pop && Opcode::TPushToAiv.parsed().effects.push);
        assert!(Opcode::SetFlag.parsed().effects.orders && Opcode::TSync.parsed().effects.orders);
        assert!(!Opcode::SyncSet.parsed().effects.orders, "cross-core sync is not an intra-core ordering op");
        let bad = OpSpec { effects: "reads_dst teleports", ..OpSpec::DEFAULT };
        assert!(parse_spec(&bad).is_err());
        let bad = OpSpec { pipes: "src=nowhere => V", ..OpSpec::DEFAULT };
        assert!(parse_spec(&bad).is_err());
        let bad = OpSpec { pipes: "a5 => WARP", ..OpSpec::DEFAULT };
        assert!(parse_spec(&bad).is_err());
    }

    #[test]
    fn every_entry_parses_and_is_indexed_by_its_opcode() {
        for (i, s) in all().iter().enumerate() {
            assert_eq!(s.opcode as usize, i, "entry {} out of order", s.name);
            parse_spec(s).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        }
    }

    #[test]
    fn tile_op_formats_are_tail_groups() {
        for s in all().iter().filter(|s| s.syntax == Syntax::Tile) {
            for item in &parse_spec(s).unwrap().format {
                assert!(item.tail_group().is_some(), "{}: `{item:?}` is not an optional group after the attribute dictionary", s.name);
            }
        }
    }

    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for s in all() {
            for n in std::iter::once(&s.name).chain(s.aliases) {
                assert!(seen.insert(format!("{}.{}", s.dialect.prefix(), n)), "duplicate name {n}");
            }
        }
    }

    #[test]
    fn lookup_finds_short_and_full_names() {
        assert_eq!(lookup("pto.tcolargmax"), Some(Opcode::TColArgMax));
        assert_eq!(lookup("tcolargmax"), Some(Opcode::TColArgMax));
        assert_eq!(lookup("pto.tmatmul.acc"), Some(Opcode::TMatmulAcc));
        assert_eq!(lookup("tmatmul_acc"), Some(Opcode::TMatmulAcc));
        assert_eq!(lookup("return"), Some(Opcode::FuncReturn));
        assert_eq!(lookup("pto.nope"), None);
    }

    #[test]
    fn mode_suffixes_select_attributes() {
        let (op, attrs) = lookup_with_modes("mscatter.row.clamp.atomic_add").expect("a moded mscatter");
        assert_eq!(op, Opcode::MScatter);
        let names: Vec<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["coalesce", "scatterOob", "scatterAtomicOp"]);
        assert_eq!(lookup_with_modes("pto.mgather.elem").map(|(op, a)| (op, a.len())), Some((Opcode::MGather, 1)));
        assert!(lookup_with_modes("mgather.row.row").is_none(), "one value per attribute");
        assert!(lookup_with_modes("mgather.skip").is_none(), "skip is a scatter mode");
        assert!(lookup_with_modes("tadd.row").is_none(), "tadd has no modes");
    }

    #[test]
    fn every_mode_suffix_names_a_value_of_its_attribute() {
        for s in all() {
            for m in s.modes {
                let slot = s.opcode.parsed().attrs.iter().find(|a| a.name == m.attr).expect("a declared attribute");
                assert!(EnumAttr::new(&slot.kind, m.value).is_some(), "{}.{}", s.name, m.suffix);
            }
        }
    }

    #[test]
    fn isa_pages_cover_the_150_instruction_pages() {
        let pages: std::collections::HashSet<&str> =
            all().iter().map(|s| s.page).filter(|p| !p.is_empty() && !p.starts_with("comm/")).collect();
        assert_eq!(pages.len(), 150, "ISA pages in the table");
        let comm = all().iter().filter(|s| s.page.starts_with("comm/")).count();
        assert_eq!(comm, 11, "communication pages");
    }

    /// The 150 per-instruction pages of pto-isa `docs/isa/` (commit 3186c381; README,
    /// conventions and `_zh` translations excluded), compared name by name with the table.
    const ISA_PAGES: &[&str] = &[
        "MGATHER",
        "MSCATTER",
        "SETFMATRIX",
        "SET_IMG2COL_PADDING",
        "SET_IMG2COL_RPT",
        "SET_QUANT_SCALAR",
        "SET_QUANT_VECTOR",
        "SYNCALL",
        "TABS",
        "TADD",
        "TADDC",
        "TADDReluConv",
        "TADDS",
        "TADDSC",
        "TALLOC",
        "TAND",
        "TANDS",
        "TASSIGN",
        "TAXPY",
        "TAddDeqRelu",
        "TCI",
        "TCMP",
        "TCMPS",
        "TCOLARGMAX",
        "TCOLARGMIN",
        "TCOLEXPAND",
        "TCOLEXPANDADD",
        "TCOLEXPANDDIV",
        "TCOLEXPANDEXPDIF",
        "TCOLEXPANDMAX",
        "TCOLEXPANDMIN",
        "TCOLEXPANDMUL",
        "TCOLEXPANDSUB",
        "TCOLMAX",
        "TCOLMIN",
        "TCOLPROD",
        "TCOLSUM",
        "TCONCAT",
        "TCVT",
        "TDEINTERLEAVE",
        "TDEQUANT",
        "TDIV",
        "TDIVS",
        "TEXP",
        "TEXPANDS",
        "TEXTRACT",
        "TEXTRACT_FP",
        "TFILLPAD",
        "TFILLPAD_EXPAND",
        "TFILLPAD_INPLACE",
        "TFMOD",
        "TFMODS",
        "TFREE",
        "TFUSEDMULADD",
        "TFUSEDMULADDRELU",
        "TGATHER",
        "TGATHERB",
        "TGEMV",
        "TGEMV_ACC",
        "TGEMV_BIAS",
        "TGEMV_MX",
        "TGET_SCALE_ADDR",
        "THISTOGRAM",
        "TIMG2COL",
        "TINSERT",
        "TINSERT_FP",
        "TINTERLEAVE",
        "TLOAD",
        "TLOG",
        "TLRELU",
        "TMATMUL",
        "TMATMUL_ACC",
        "TMATMUL_BIAS",
        "TMATMUL_MX",
        "TMATMUL_MX_HIF4",
        "TMAX",
        "TMAXS",
        "TMIN",
        "TMINS",
        "TMOV",
        "TMOV_FP",
        "TMRGSORT",
        "TMUL",
        "TMULADDDST",
        "TMULS",
        "TNEG",
        "TNOT",
        "TOR",
        "TORS",
        "TPARTADD",
        "TPARTARGMAX",
        "TPARTARGMIN",
        "TPARTMAX",
        "TPARTMIN",
        "TPARTMUL",
        "TPOP",
        "TPOW",
        "TPOWS",
        "TPREFETCH",
        "TPREFETCH_ASYNC",
        "TPRELU",
        "TPRINT",
        "TPUSH",
        "TPairReduceSum",
        "TQUANT",
        "TQUANT_DN",
        "TQUANT_HIF4",
        "TRANDOM",
        "TRECIP",
        "TRELU",
        "TREM",
        "TREMS",
        "TRESHAPE",
        "TROWARGMAX",
        "TROWARGMIN",
        "TROWEXPAND",
        "TROWEXPANDADD",
        "TROWEXPANDDIV",
        "TROWEXPANDEXPDIF",
        "TROWEXPANDMAX",
        "TROWEXPANDMIN",
        "TROWEXPANDMUL",
        "TROWEXPANDSUB",
        "TROWMAX",
        "TROWMIN",
        "TROWPROD",
        "TROWSUM",
        "TRSQRT",
        "TSCATTER",
        "TSEL",
        "TSELS",
        "TSHL",
        "TSHLS",
        "TSHR",
        "TSHRS",
        "TSORT32",
        "TSQRT",
        "TSTORE",
        "TSTORE_FP",
        "TSUB",
        "TSUBC",
        "TSUBRELU",
        "TSUBS",
        "TSUBSC",
        "TSUBVIEW",
        "TSYNC",
        "TTRANS",
        "TTRI",
        "TXOR",
        "TXORS",
    ];

    #[test]
    fn table_pages_are_exactly_the_isa_pages() {
        let mut table: Vec<&str> = all().iter().map(|s| s.page).filter(|p| !p.is_empty() && !p.starts_with("comm/")).collect();
        table.sort();
        table.dedup();
        let mut want = ISA_PAGES.to_vec();
        want.sort();
        assert_eq!(want.len(), 150);
        assert_eq!(table, want);
    }

    #[test]
    fn scratch_slot_and_scratch_rule_agree() {
        for s in all() {
            let has_tmp = parse_spec(s).unwrap().forms.iter().any(|f| f.ins.iter().any(|x| x.name == "tmp"));
            let rule_says = s.tmp.a2a3 != TmpRule::Forbidden || s.tmp.a5 != TmpRule::Forbidden;
            assert_eq!(has_tmp, rule_says, "{}: tmp slot vs rule", s.name);
        }
    }

    #[test]
    fn every_cmpi_predicate_has_a_meaning() {
        for p in CMPI_PREDICATES {
            assert!(cmpi_holds(p, 1, 2).is_some(), "{p}");
        }
        assert_eq!(cmpi_holds("slt", -1, 0), Some(true));
        assert_eq!(cmpi_holds("ult", -1, 0), Some(false), "-1 is the largest unsigned value");
        assert_eq!(cmpi_holds("oeq", 1, 1), None);
    }
}
