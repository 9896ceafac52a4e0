//! The generated conformance set (issue 40): one-op PTOAS kernels over the whole op table,
//! legal bases and one-step near misses, seeded and deterministic.
//!
//! For every op with an operand pattern, for each of its operand forms and each target:
//!
//! * **bases**: up to [`BASES_PER_TARGET`] programs legal on the target, one per choice of
//!   element types the legality table admits ([`super::plan::legal_plans`]);
//! * **optional slots**: each optional operand of the form filled (the `fp` of `tmov`...), where
//!   some choice of types makes it legal;
//! * **attributes**: every value of every enum and `bool` attribute, on the first base;
//! * **near misses** of the first base, one step away: one tile's element type changed, its
//!   layout flipped, its row one element longer (32-byte alignment), its capacity past the
//!   buffer, its location changed; every valid shape halved (legal in most ops: valid shapes
//!   smaller than the tile) or dynamic.
//!
//! Ops without an operand pattern (views, allocation, sync, control flow, `arith`) get the one
//! program [`super::sketch`] writes for them. Each program is the Level-2 kernel as PTOAS files
//! are written (tiles from `pto.alloc_tile`, GM through `!pto.ptr` arguments), printed in the
//! pretty form by pto's printer when pto can read it, in MLIR's generic form otherwise.
//!
//! The seed picks the replacement element type and location of the near misses; the set of
//! programs for one seed never changes between runs. Names are stable, so recorded references
//! (`tests/data/generated/`) key on them.

use super::plan::{self, Plan, ValTy, Wrap};
use pto_ir::TextForm;
use pto_ir::ops::{self, Opcode};
use pto_ir::types::{BLayout, Dim, ElemType, Loc};
use pto_lower::TargetId;
use std::collections::HashSet;

/// How many legal bases (choices of element types) each form gets per target.
pub const BASES_PER_TARGET: usize = 3;
/// Attribute values tried per attribute.
const VALUES_PER_ATTR: usize = 8;

/// One generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Stable name: `op.form.kind.detail` (`tadd.f0.near.dtype-src1-i16`).
    pub name: String,
    /// The op under test.
    pub op: Opcode,
    /// `base`, `optional`, `attr`, `near`, `module` (the first base in an `scf.for` / `scf.if`)
    /// or `sketch`.
    pub kind: &'static str,
    /// The program text.
    pub text: String,
}

/// A small deterministic generator (splitmix64): the choices of the near misses.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// Every program of the set for `seed`, in op-table order.
pub fn programs(seed: u64) -> Vec<Program> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for spec in ops::all() {
        for p in of_op(spec.opcode, seed) {
            if seen.insert(p.text.clone()) {
                out.push(p);
            }
        }
    }
    out
}

/// The programs of one op for `seed`.
pub fn of_op(op: Opcode, seed: u64) -> Vec<Program> {
    let mut rng = Rng(seed ^ (op as u64).wrapping_mul(0x1000_0001));
    let rng = &mut rng;
    let short = op.spec().name.replace('.', "_");
    let mut out = Vec::new();
    let mut push = |kind: &'static str, detail: String, text: String| {
        out.push(Program { name: format!("{short}.{detail}"), op, kind, text });
    };
    let forms = op.parsed().forms.len();
    if forms == 0 || op.spec().syntax == ops::Syntax::Generic {
        push("sketch", "sketch".into(), super::sketch::program(op, &short, &[]));
        return out;
    }
    let targets = [TargetId::A2A3, TargetId::A5];
    for form in 0..forms {
        let mut first: Option<Plan> = None;
        for target in targets {
            for (i, p) in plan::legal_plans(op, form, &[], &[], target, BASES_PER_TARGET).into_iter().enumerate() {
                push("base", format!("f{form}.base-{}-{i}-{}", target_name(target), dtypes(&p)), pretty(&p));
                first.get_or_insert(p);
            }
            for slot in plan::optional_slots(op, form) {
                if let Some(p) = plan::legal_plans(op, form, &[slot.as_str()], &[], target, 1).pop() {
                    push("optional", format!("f{form}.optional-{slot}-{}", target_name(target)), pretty(&p));
                }
            }
        }
        let base = match first {
            Some(p) => p,
            // Legal nowhere: the example `pto ops` shows (it verifies), so the near misses of an
            // op both references reject still run.
            None if form == 0 => match plan::choose(op, &[]) {
                Some(p) => {
                    push("base", format!("f{form}.base-none"), pretty(&p));
                    p
                }
                None => continue,
            },
            None => continue,
        };
        for (name, value) in attribute_values(op) {
            let mut p = base.clone();
            p.attrs.retain(|(n, _)| *n != name);
            p.attrs.push((name.clone(), value.clone()));
            push("attr", format!("f{form}.attr-{name}-{}", slug(&value)), pretty(&p));
        }
        for (detail, p) in near_misses(&base, rng) {
            push("near", format!("f{form}.near-{detail}"), pretty(&p));
        }
        // Results of an op in a region are scoped to it: only ops whose results are unused
        // outside (all of them here, one op per kernel) move into one.
        for (detail, wrap) in [("in_for", Wrap::For), ("in_if", Wrap::If)] {
            push("module", format!("f{form}.{detail}"), pretty_wrapped(&base, wrap));
        }
    }
    out
}

fn target_name(t: TargetId) -> &'static str {
    match t {
        TargetId::A2A3 => "a2a3",
        TargetId::A5 => "a5",
    }
}

/// The element types of a plan's tiles, joined (`f32-f32-i8`).
fn dtypes(p: &Plan) -> String {
    let names: Vec<&str> = p
        .vals
        .iter()
        .filter_map(|v| match &v.ty {
            ValTy::Tile(t) => Some(t.dtype.name()),
            ValTy::View(e, ..) | ValTy::Scalar(e) => Some(e.name()),
            _ => None,
        })
        .collect();
    names.join("-")
}

/// A name-safe spelling of an attribute value (`#pto.cmp<eq>` -> `eq`).
fn slug(value: &str) -> String {
    let inner = value.rsplit('<').next().unwrap_or(value).trim_end_matches('>');
    inner.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// Every (attribute, value) to try: each enum attribute's values (up to
/// [`VALUES_PER_ATTR`]), `true` and `false` for a `bool`, `0` and `1` for an `int`.
fn attribute_values(op: Opcode) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in &op.parsed().attrs {
        if let Some((_, k)) = pto_ir::attr::EnumKind::find(&a.kind) {
            let integer = plan::PTOAS_INTEGER_ENUMS.contains(&k.name);
            for (i, v) in k.values.iter().enumerate().take(VALUES_PER_ATTR) {
                out.push((a.name.clone(), if integer { i.to_string() } else { format!("#pto.{}<{v}>", k.name) }));
            }
            continue;
        }
        match a.kind.as_str() {
            "bool" => out.extend(["true", "false"].map(|v| (a.name.clone(), v.to_string()))),
            "int" => out.extend(["0", "1"].map(|v| (a.name.clone(), v.to_string()))),
            "i32" => out.extend(["0 : i32", "1 : i32"].map(|v| (a.name.clone(), v.to_string()))),
            _ => {}
        }
    }
    out
}

/// The locations a near miss moves a tile to.
const LOCS: &[Loc] = &[Loc::Vec, Loc::Mat, Loc::Left, Loc::Right, Loc::Acc];

/// The one-step variations of `base`: per tile operand, its element type, layout, row length,
/// capacity and location; for the whole program, halved and dynamic valid shapes.
fn near_misses(base: &Plan, rng: &mut Rng) -> Vec<(String, Plan)> {
    let mut out = Vec::new();
    let dtypes: Vec<ElemType> = ElemType::ALL.iter().map(|(e, _)| *e).filter(|e| e.is_float() || e.is_int()).collect();
    for (i, v) in base.vals.iter().enumerate() {
        let ValTy::Tile(t) = v.ty else { continue };
        let mut with = |detail: String, f: &dyn Fn(&mut pto_ir::types::TileDesc)| {
            let mut p = base.clone();
            if let ValTy::Tile(ref mut t) = p.vals[i].ty {
                f(t);
            }
            out.push((format!("{detail}-{}", v.name), p));
        };
        let other: Vec<ElemType> = dtypes.iter().copied().filter(|&e| e != t.dtype).collect();
        let d = rng.pick(&other);
        with(format!("dtype_{}", d.name()), &|t| t.dtype = d);
        with("layout".into(), &|t| t.blayout = if t.blayout == BLayout::RowMajor { BLayout::ColMajor } else { BLayout::RowMajor });
        with("align".into(), &|t| {
            t.cols += 1;
            t.valid_cols = Dim::Static(t.cols);
        });
        with("capacity".into(), &|t| {
            // Past the largest on-chip buffer of either target (A5's 256 KiB UB).
            let rows = (512 * 1024 / (t.cols * t.dtype.size_bytes()).max(1)).max(t.rows + 1);
            t.rows = rows;
            t.valid_rows = Dim::Static(rows);
        });
        let locs: Vec<Loc> = LOCS.iter().copied().filter(|&l| l != t.loc).collect();
        let l = rng.pick(&locs);
        with(format!("loc_{}", loc_name(l)), &|t| t.loc = l);
    }
    let mut all = |detail: &str, f: &dyn Fn(&mut pto_ir::types::TileDesc)| {
        let mut p = base.clone();
        let mut any = false;
        for v in &mut p.vals {
            if let ValTy::Tile(ref mut t) = v.ty {
                f(t);
                any = true;
            }
        }
        if any {
            out.push((detail.to_string(), p));
        }
    };
    all("valid_half", &|t| {
        t.valid_rows = Dim::Static((t.rows / 2).max(1));
        t.valid_cols = Dim::Static((t.cols / 2).max(1));
    });
    all("valid_dynamic", &|t| {
        t.valid_rows = Dim::Dynamic;
        t.valid_cols = Dim::Dynamic;
    });
    out
}

fn loc_name(l: Loc) -> &'static str {
    Loc::ALL.iter().find(|(x, _)| *x == l).map_or("?", |(_, n)| n)
}

/// The kernel of `p`, in the pretty form when pto reads it back (whether or not it verifies),
/// else as written (the op in MLIR's generic form).
fn pretty(p: &Plan) -> String {
    pretty_wrapped(p, Wrap::None)
}

/// [`pretty`] with the op inside `wrap`.
fn pretty_wrapped(p: &Plan, wrap: Wrap) -> String {
    let text = p.kernel("kernel", wrap);
    let Ok((module, _)) = pto_asm::parse(&text, pto_ir::FileId(0)) else { return text };
    let opts = pto_asm::print::PrintOptions { form: Some(TextForm::Dps), generic: false };
    pto_asm::print::print_module(&module, &opts).unwrap_or(text)
}

/// Every program `seed` gives, written as `DIR/NAME.pto`, with `DIR/MANIFEST.tsv` (name, op,
/// kind) listing them: the input of the reference harness that records `ptoas`'s verdicts.
pub fn write_set(dir: &std::path::Path, seed: u64) -> std::io::Result<usize> {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir)?;
    let set = programs(seed);
    let mut manifest = format!("# pto's generated conformance set, seed {seed}: name, op, kind\n");
    for p in &set {
        std::fs::write(dir.join(format!("{}.pto", p.name)), &p.text)?;
        let _ = writeln!(manifest, "{}\t{}\t{}", p.name, p.op.full_name(), p.kind);
    }
    std::fs::write(dir.join("MANIFEST.tsv"), manifest)?;
    Ok(set.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_deterministic_and_names_are_unique() {
        let op = Opcode::TAdd;
        let a = of_op(op, 7);
        let b = of_op(op, 7);
        assert_eq!(a, b);
        let names: HashSet<&str> = a.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names.len(), a.len(), "{:?}", a.iter().map(|p| &p.name).collect::<Vec<_>>());
        assert!(a.iter().any(|p| p.kind == "base") && a.iter().any(|p| p.kind == "near"), "{a:?}");
        assert!(a.iter().all(|p| p.text.contains("pto.alloc_tile")), "{a:?}");
    }

    #[test]
    fn attribute_values_cover_every_enum_value() {
        let vals = attribute_values(Opcode::TCmp);
        let cmp: Vec<&String> = vals.iter().filter(|(n, _)| n == "cmpMode").map(|(_, v)| v).collect();
        assert_eq!(cmp.len(), 6, "{vals:?}");
    }
}
