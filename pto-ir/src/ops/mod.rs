//! The op table: every instruction of the PTO ISA (the 150 pages of pto-isa `docs/isa/` and the
//! 11 pages of `docs/isa/comm/`), every other op of the PTOAS `pto` dialect, and the MLIR
//! `arith` / `scf` / `func` / `builtin` / `memref` ops PTOAS files use — each described exactly once.
//!
//! The reader, the printers, the structural verifier, `pto ops` and the generated ISA coverage
//! table all read this table; nothing else lists ops. The [`Opcode`] enum is generated from the
//! same list, so consumers that match on it exhaustively (the simulator) see every new op.

mod format;
mod spec;
mod table;

pub use format::{DictKey, FormatItem, TailGroup, parse_format};
pub use spec::*;
pub use table::Opcode;

use std::collections::HashMap;
use std::sync::OnceLock;

/// Every entry, indexed by `Opcode as usize`.
pub fn all() -> &'static [OpSpec] {
    table::OPS
}

impl Opcode {
    /// This op's table entry.
    pub fn spec(self) -> &'static OpSpec {
        &table::OPS[self as usize]
    }
    /// This op's parsed patterns.
    pub fn parsed(self) -> &'static ParsedSpec {
        &parsed_specs()[self as usize]
    }
    /// `dialect.name`.
    pub fn full_name(self) -> String {
        self.spec().full_name()
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
        m.insert("return".into(), Opcode::FuncReturn);
        m.insert("module".into(), Opcode::Module);
        m
    });
    map.get(name).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
