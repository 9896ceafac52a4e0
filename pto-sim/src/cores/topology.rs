//! What a module says about its cores, decided once before a run:
//!
//! * **Mix or not.** A module is a mix kernel when it has code for both sides (a function with
//!   `pto.kernel_kind<cube>` / `func_core_type<AIC>` or a `section.cube`, and one with
//!   `<vector>` / `<AIV>` or a `section.vector`), a `func_core_type<MIX>` /
//!   `module_core_type<MIX>`, or a cube/vector pipe op. Other kernels run on one core per block
//!   that has every buffer, as `pto run` always did.
//! * **Sides.** Which side each function runs on; a cube function called on an AIV (or a
//!   vector function on the AIC) is skipped, as PTOAS guards its body with
//!   `#if defined(__DAV_CUBE__)` (`PTOToEmitC.cpp`, `FuncToEmitC`). On A5 a vector function
//!   with a `split = 0` pipe op and no `get_subblock_idx/num` runs on AIV0 only (PTOAS's
//!   `needsA5NoSplitVectorGuard` wraps it in `if (get_subblockid() == 0)`).
//! * **Reserved buffers.** `reserve_buffer` with `auto = false` is at its `base`; with
//!   `auto = true` PTOAS's PlanMemory places it in a hole after the function's other buffers
//!   (docs/designs/ptoas-tpush-tpop-design.md §7.4): here, after the highest constant
//!   `alloc_tile` address of its location in the module, aligned. `import_reserved_buffer`
//!   resolves to the peer function's buffer of the same name.
//! * **`memref.alloc`** (PTOAS's lowered allocation, no address): placed the same way, one
//!   after the other.
//! * **Pipes.** Each init op (`aic/aiv_initialize_pipe`, `initialize_l2l_pipe`,
//!   `initialize_l2g2l_pipe`) names a consumer buffer per direction; the two inits whose
//!   buffer is the same `reserve_buffer` (directly or imported) are the two ends of one
//!   logical pipe, as PTOAS's `pto-resolve-reserved-buffers` pairs them.

use super::Side;
use crate::memory::Fault;
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Module, OpId, Payload, ValueDef, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::{Loc, TileDesc, Type};
use pto_lower::{Target, TargetId};
use std::collections::HashMap;

/// Cube-to-vector (`dir_mask` bit 1).
pub const C2V: usize = 0;
/// Vector-to-cube (`dir_mask` bit 2).
pub const V2C: usize = 1;

/// One logical pipe (one direction between two peer functions).
#[derive(Clone, Debug, PartialEq)]
pub struct PipeSpec {
    /// [`C2V`] or [`V2C`].
    pub dir: usize,
    /// Bytes per slot (the whole, unsplit tile).
    pub slot_size: u64,
    /// Slots in the FIFO.
    pub slot_num: u64,
    /// How the pair was recognised, for messages (`reserve_buffer "c2v_fifo" of @vec`).
    pub name: String,
    /// How many vector cores take part on the vector side (2, or 1 under A5's no-split guard).
    pub aivs: usize,
}

/// The static facts of one module; shared by every core and block of a run.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// A mix kernel: one AIC and [`super::AIVS_PER_BLOCK`] AIVs per block.
    pub mix: bool,
    /// Functions (by name) that run on one side only.
    pub sides: HashMap<String, Side>,
    /// Vector functions that run on AIV0 only (A5 no-split guard).
    pub subblock0_only: std::collections::HashSet<String>,
    /// Address of each `reserve_buffer` / `import_reserved_buffer` result, or why it has none.
    pub reserved: HashMap<OpId, Result<i64, String>>,
    /// Placement of each `memref.alloc`, or why it has none.
    pub allocs: HashMap<OpId, Result<(TileDesc, u64), String>>,
    /// For each pipe-init op, its logical pipe per direction ([`C2V`], [`V2C`]).
    pub inits: HashMap<OpId, [Option<usize>; 2]>,
    /// The logical pipes.
    pub pipes: Vec<PipeSpec>,
}

/// The side an attribute list assigns: `pto.kernel_kind`, `pto.func_core_type` (AIC / AIV).
fn side_of(attrs: &[(String, Attr)]) -> Option<Side> {
    for (k, a) in attrs {
        let v = a.enum_value("kernel_kind").or_else(|| a.enum_value("func_core_type"));
        if k.ends_with("kernel_kind") || k.ends_with("func_core_type") {
            match v {
                Some("cube" | "AIC") => return Some(Side::Cube),
                Some("vector" | "AIV") => return Some(Side::Vector),
                _ => {}
            }
        }
    }
    None
}

/// A `MIX` core type on a function or the module.
fn is_mix_attr(attrs: &[(String, Attr)]) -> bool {
    attrs.iter().any(|(_, a)| a.enum_value("func_core_type") == Some("MIX") || a.enum_value("module_core_type") == Some("MIX"))
}

/// Every op nested in `op`'s regions (not `op` itself), in program order.
fn nested(m: &Module, op: OpId, out: &mut Vec<OpId>) {
    for &r in &m.op(op).regions {
        for &b in &m.region(r).blocks {
            for &o in &m.block(b).ops {
                out.push(o);
                nested(m, o, out);
            }
        }
    }
}

/// The function op of every op nested in a function.
pub(crate) fn owners(m: &Module, walk: &[OpId]) -> HashMap<OpId, OpId> {
    let mut owner = HashMap::new();
    for &f in walk.iter().filter(|&&o| m.op(o).opcode == Opcode::FuncFunc) {
        let mut body = Vec::new();
        nested(m, f, &mut body);
        for o in body {
            owner.insert(o, f);
        }
    }
    owner
}

/// `name` of a function op.
fn func_name(m: &Module, f: OpId) -> Option<&str> {
    match &m.op(f).payload {
        Payload::Func { name, .. } => Some(name),
        _ => None,
    }
}

/// Attribute `name` of `op`, from its attribute list or, for an op in generic syntax, the
/// attribute dictionary written in its text (`{split = 1}`).
pub fn op_attr<'a>(m: &'a Module, op: OpId, name: &str) -> Option<&'a Attr> {
    let data = m.op(op);
    data.attr(name).or_else(|| match &data.payload {
        Payload::Generic(pieces) => pieces.iter().find_map(|p| match p {
            pto_ir::module::Piece::Dict(d) => d.iter().find(|(k, _)| k == name).map(|(_, a)| a),
            _ => None,
        }),
        _ => None,
    })
}

fn str_attr<'a>(m: &'a Module, op: OpId, name: &str) -> Option<&'a str> {
    match op_attr(m, op, name)? {
        Attr::Str(s) => Some(s),
        Attr::Symbol(s) => Some(s),
        Attr::Opaque(s) => Some(s.trim_start_matches('@')),
        _ => None,
    }
}

fn int_attr(m: &Module, op: OpId, name: &str) -> Option<i64> {
    match op_attr(m, op, name)? {
        Attr::Int(i, _) => Some(*i),
        Attr::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// `#pto.address_space<vec>` → `Loc::Vec`.
fn loc_attr(m: &Module, op: OpId) -> Option<Loc> {
    let name = op_attr(m, op, "location")?.enum_value("address_space")?;
    Loc::ALL.iter().find(|(_, n)| *n == name).map(|(l, _)| *l)
}

/// The tile a `memref<16x16xf16, #pto.address_space<vec>>` type describes (row-major, all
/// valid), or why it does not describe one.
pub fn memref_tile(ty: &Type) -> Result<TileDesc, String> {
    let Type::Opaque(text) = ty else { return Err(format!("`memref.alloc` of a {}", ty.class_name())) };
    let inner = text.strip_prefix("memref<").and_then(|t| t.strip_suffix('>')).ok_or_else(|| format!("`{text}` is not a memref type"))?;
    let (shape, space) = inner.split_once(',').map_or((inner, ""), |(a, b)| (a.trim(), b.trim()));
    let loc = match space.strip_prefix("#pto.address_space<").and_then(|s| s.strip_suffix('>')) {
        Some(name) => pto_lower::sync::pipes::memref_loc(ty).ok_or_else(|| format!("address space `{name}` is not on-chip"))?,
        None => return Err(format!("`{text}` has no on-chip `#pto.address_space<...>`")),
    };
    // `NxT` is one row; `d0x...xdkxT` folds every dimension but the last into rows.
    let parts: Vec<&str> = shape.split('x').collect();
    let Some((dtype, dims)) = parts.split_last().filter(|(_, dims)| !dims.is_empty()) else {
        return Err(format!("`{text}`: a memref of no dimension is not a tile"));
    };
    let dim = |s: &str| s.parse::<u32>().map_err(|_| format!("`{text}`: dimension `{s}` is not a static size"));
    let dtype = pto_ir::types::ElemType::parse(dtype).ok_or_else(|| format!("`{text}`: unknown element type `{dtype}`"))?;
    let (outer, last) = dims.split_at(dims.len() - 1);
    let rows = outer.iter().try_fold(1u32, |acc, d| dim(d)?.checked_mul(acc).ok_or_else(|| format!("`{text}` is too large")))?;
    let mut desc = TileDesc::vec(dtype, rows, dim(last[0])?);
    desc.loc = loc;
    Ok(desc)
}

impl Topology {
    /// Analyses `m` for `target`.
    pub fn new(m: &Module, target: &Target) -> Topology {
        let mut t = Topology::default();
        let all = m.walk();
        let funcs: Vec<OpId> = all.iter().copied().filter(|&o| m.op(o).opcode == Opcode::FuncFunc).collect();
        let owner = owners(m, &all);
        let (mut cube, mut vector, mut mix) = (false, false, false);
        for &o in &all {
            let data = m.op(o);
            match data.opcode {
                Opcode::FuncFunc => {
                    if let (Some(side), Some(name)) = (side_of(&data.attrs), func_name(m, o)) {
                        t.sides.insert(name.to_string(), side);
                        cube |= side == Side::Cube;
                        vector |= side == Side::Vector;
                    }
                    mix |= is_mix_attr(&data.attrs);
                }
                Opcode::Module => mix |= is_mix_attr(&data.attrs),
                Opcode::SectionCube => cube = true,
                Opcode::SectionVector => vector = true,
                _ if data.opcode.spec().family == pto_ir::ops::Family::Pipe => mix = true,
                _ => {}
            }
        }
        t.mix = mix || (cube && vector);
        // A5's no-split guard.
        if target.id == TargetId::A5 {
            for &f in &funcs {
                let Some(name) = func_name(m, f) else { continue };
                if t.sides.get(name) != Some(&Side::Vector) {
                    continue;
                }
                let mut body = Vec::new();
                nested(m, f, &mut body);
                let explicit = body.iter().any(|&o| matches!(m.op(o).opcode, Opcode::GetSubblockIdx | Opcode::GetSubblockNum));
                let no_split = body.iter().any(|&o| is_pipe_data_op(m.op(o).opcode) && split_of(m, o) == Some(0));
                if no_split && !explicit {
                    t.subblock0_only.insert(name.to_string());
                }
            }
        }
        // Highest constant tile end per location: where unplanned buffers go.
        let mut next: HashMap<Loc, u64> = HashMap::new();
        for &o in &all {
            let data = m.op(o);
            if data.opcode == Opcode::AllocTile
                && let (Some(&addr), Some(desc)) = (data.operands.first(), data.results.first().and_then(|&r| m.value_type(r).tile()))
                && let Some(a) = m.int_constant(addr)
            {
                let end = (a.max(0) as u64).saturating_add(desc.size_bytes());
                let e = next.entry(desc.loc).or_insert(0);
                *e = (*e).max(end);
            }
        }
        let mut place = |loc: Loc, size: u64| -> Result<u64, String> {
            let buf = target.buffer(loc);
            let align = buf.align.max(32);
            let at = next.get(&loc).copied().unwrap_or(0).div_ceil(align) * align;
            if at.saturating_add(size) > buf.capacity {
                return Err(format!(
                    "{size} bytes do not fit in {} after the planned tiles (free from {at} of {} bytes)",
                    buf.name, buf.capacity
                ));
            }
            next.insert(loc, at + size);
            Ok(at)
        };
        // reserve_buffer first (auto ones placed in program order), then imports.
        let mut by_name: HashMap<(String, String), (OpId, Result<i64, String>)> = HashMap::new();
        for &o in &all {
            if m.op(o).opcode != Opcode::ReserveBuffer {
                continue;
            }
            let name = str_attr(m, o, "name").unwrap_or("").to_string();
            let func = owner.get(&o).and_then(|&f| func_name(m, f)).unwrap_or("").to_string();
            let auto = matches!(op_attr(m, o, "auto"), Some(Attr::Bool(true)) | Some(Attr::Unit));
            let addr = match (auto, int_attr(m, o, "base")) {
                (false, Some(base)) => Ok(base),
                (false, None) => Err("`reserve_buffer` with `auto = false` needs a `base`".to_string()),
                (true, _) => match (loc_attr(m, o), int_attr(m, o, "size")) {
                    (Some(loc), Some(size)) if size >= 0 => place(loc, size as u64).map(|a| a as i64),
                    _ => Err("`reserve_buffer` needs a `location` and a `size`".to_string()),
                },
            };
            t.reserved.insert(o, addr.clone());
            by_name.insert((func, name), (o, addr));
        }
        for &o in &all {
            let data = m.op(o);
            match data.opcode {
                Opcode::ImportReservedBuffer => {
                    let name = str_attr(m, o, "name").unwrap_or("").to_string();
                    let peer = str_attr(m, o, "peer_func").unwrap_or("").to_string();
                    let addr = match by_name.get(&(peer.clone(), name.clone())) {
                        Some((_, a)) => a.clone(),
                        None => Err(format!("`@{peer}` has no `reserve_buffer` named \"{name}\"")),
                    };
                    t.reserved.insert(o, addr);
                }
                Opcode::MemrefAlloc => {
                    let placed = data
                        .results
                        .first()
                        .ok_or_else(|| "`memref.alloc` without a result".to_string())
                        .and_then(|&r| memref_tile(m.value_type(r)))
                        .and_then(|d| place(d.loc, d.size_bytes()).map(|a| (d, a)));
                    t.allocs.insert(o, placed);
                }
                _ => {}
            }
        }
        // Pipe pairing.
        let mut keys: HashMap<String, usize> = HashMap::new();
        for &o in &all {
            let data = m.op(o);
            let Some(addrs) = init_addresses(m, o) else { continue };
            let mut ids = [None, None];
            for (dir, v) in addrs.into_iter().enumerate() {
                let Some(v) = v else { continue };
                let key = pipe_key(m, v, dir, &owner);
                let vec_fn = owner.get(&o).and_then(|&f| func_name(m, f)).filter(|n| t.sides.get(*n) == Some(&Side::Vector));
                let id = *keys.entry(key.clone()).or_insert_with(|| {
                    let (slot_size, slot_num) = slots_of(m, o);
                    t.pipes.push(PipeSpec { dir, slot_size, slot_num, name: key, aivs: super::AIVS_PER_BLOCK });
                    t.pipes.len() - 1
                });
                if let Some(f) = vec_fn
                    && t.subblock0_only.contains(f)
                {
                    t.pipes[id].aivs = 1;
                }
                ids[dir] = Some(id);
            }
            let _ = data;
            t.inits.insert(o, ids);
        }
        t
    }
}

/// `(slot_size, slot_num)` of a pipe-init op: its attributes, else PTOAS's defaults (8 slots,
/// 4 for a both-ways pipe, `dir_mask = 3`).
fn slots_of(m: &Module, init: OpId) -> (u64, u64) {
    let slot_num = int_attr(m, init, "slot_num").unwrap_or(if int_attr(m, init, "dir_mask") == Some(3) { 4 } else { 8 });
    (int_attr(m, init, "slot_size").unwrap_or(0).max(0) as u64, slot_num.max(1) as u64)
}

/// The static errors of the module's cube/vector pipes, reported by `pto verify` and before a
/// run:
///
/// * a `reserve_buffer` that a pipe uses as its consumer buffer must hold the pipe's
///   `slot_num x slot_size` bytes (the slots are laid out from its base; PTOAS's
///   `pto-resolve-reserved-buffers` sizes them so), or the slots past its end overlap whatever
///   the planner put there;
/// * an `initialize_l2l_pipe` / `initialize_l2g2l_pipe` without `flag_base` takes a local
///   address from `reserve_buffer` / `import_reserved_buffer` (else nothing pairs it with its
///   peer: `PTOResolveReservedBuffersPass.cpp:139-158`);
/// * a `tpop_from_aic` / `tpop_from_aiv` with `valid_row`/`valid_col` operands yields a tile
///   whose valid shape is dynamic (`?x?`), as PTOAS's verifier requires (`PTO.cpp:10537-10559`);
/// * the pipe inits that take one reserved buffer for one direction are a complete peer pair:
///   exactly two, in two functions, the owner of the `reserve_buffer` and one importer
///   (`PTOResolveReservedBuffersPass.cpp:108-122, 159-169` [`peer_groups`]);
/// * `tpush` / `tpop` / `tfree` sit in a section or a `kernel_kind` function
///   ([`pipe_op_placement`]).
///
/// The split usage of a pipe's two ends is [`super::split`]'s (built on these helpers);
/// [`super::machine::static_errors`] reports both.
pub fn check(m: &Module) -> Vec<Diagnostic> {
    let mut out = consumer_buffer_sizes(m);
    out.extend(init_sources(m));
    out.extend(peer_groups(m));
    out.extend(pop_valid_shapes(m));
    out.extend(pipe_op_placement(m));
    out
}

/// `tpush`, `tpop` and `tfree` outside a `pto.section.cube` / `pto.section.vector` and outside a
/// function with a `kernel_kind`: PTOAS's verifiers reject them ("must be inside
/// pto.section.cube/vector or a kernel_kind function", `PTO.cpp:10413-10416, 10752-10779`), as the
/// pipe's side (cube or vector) is then unknown.
fn pipe_op_placement(m: &Module) -> Vec<Diagnostic> {
    let all = m.walk();
    let owner = owners(m, &all);
    let mut in_section = std::collections::HashSet::new();
    for &s in all.iter().filter(|&&o| matches!(m.op(o).opcode, Opcode::SectionCube | Opcode::SectionVector)) {
        let mut body = Vec::new();
        nested(m, s, &mut body);
        in_section.extend(body);
    }
    all.iter()
        .copied()
        .filter(|&o| matches!(m.op(o).opcode, Opcode::TPush | Opcode::TPop | Opcode::TFree))
        .filter(|o| !in_section.contains(o) && owner.get(o).is_none_or(|&f| side_of(&m.op(f).attrs).is_none()))
        .map(|o| {
            let name = m.op(o).opcode.full_name();
            Diagnostic::error(
                DiagClass::StructPlacement,
                m.op_span(o),
                format!("`{name}` must be inside `pto.section.cube` / `pto.section.vector` or a function with a `pto.kernel_kind`, which say the pipe's side"),
            )
            .with_op(name)
            .with_expected("a section or a kernel_kind function", "neither")
        })
        .collect()
}

/// Peer pipe inits that are not a complete pair (see [`check`]). As PTOAS's
/// `collectPeerAwareInit` (`PTOResolveReservedBuffersPass.cpp:124-158`, after
/// `PTOLowerFrontendPipeOpsPass` turned `aic/aiv_initialize_pipe` into the low-level inits with
/// the C2V consumer buffer as the local address and the V2C one as the peer's): each
/// direction's address that comes from `reserve_buffer` (keyed by its function and name) or
/// `import_reserved_buffer` (keyed by `peer_func` and name) joins the group of that key and
/// direction; a group needs exactly two inits, in two different functions, and the owner among
/// its two participants.
/// A peer group's key: the reserved buffer's owner function, its name, and the direction (0
/// C2V, 1 V2C).
type PeerKey = (String, String, usize);

fn peer_groups(m: &Module) -> Vec<Diagnostic> {
    let all = m.walk();
    let owner = owners(m, &all);
    let func_of = |o: OpId| owner.get(&o).and_then(|&f| func_name(m, f)).unwrap_or("").to_string();
    let mut groups: Vec<(PeerKey, Vec<(OpId, String)>)> = Vec::new();
    for &o in &all {
        let Some(addrs) = init_addresses(m, o) else { continue };
        for (dir, v) in addrs.into_iter().enumerate() {
            let Some(v) = v else { continue };
            let ValueDef::OpResult(def, _) = m.values[v.index()].def else { continue };
            let owner_func = match m.op(def).opcode {
                Opcode::ReserveBuffer => func_of(def),
                Opcode::ImportReservedBuffer => str_attr(m, def, "peer_func").unwrap_or("").to_string(),
                _ => continue,
            };
            let key = (owner_func, str_attr(m, def, "name").unwrap_or("").to_string(), dir);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, inits)) => inits.push((o, func_of(o))),
                None => groups.push((key, vec![(o, func_of(o))])),
            }
        }
    }
    let mut out = Vec::new();
    for ((owner_func, name, dir), inits) in groups {
        let mut funcs: Vec<&str> = inits.iter().map(|(_, f)| f.as_str()).collect();
        funcs.sort_unstable();
        funcs.dedup();
        let mut participants = funcs.clone();
        if !participants.contains(&owner_func.as_str()) {
            participants.push(&owner_func);
        }
        if inits.len() == 2 && funcs.len() == 2 && participants.len() == 2 {
            continue;
        }
        let first = inits[0].0;
        let op = m.op(first).opcode.full_name();
        let direction = if dir == 0 { "C2V" } else { "V2C" };
        out.push(
            Diagnostic::error(
                DiagClass::StructBadAttribute,
                m.op_span(first),
                format!(
                    "`{op}` takes reserved buffer \"{name}\" of `@{owner_func}` for the {direction} direction, but its peer group is not a complete pair: {} init(s) in {} ({}); ptoas needs one init in the owner and one in the importing peer (PTOResolveReservedBuffersPass.cpp:108-122)",
                    inits.len(),
                    if funcs.len() == 1 { "one function".to_string() } else { format!("{} functions", funcs.len()) },
                    funcs.iter().map(|f| format!("@{f}")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_op(op)
            .with_expected("two inits: one in the buffer's owner, one in its peer", format!("{} init(s)", inits.len())),
        );
    }
    out
}

/// Low-level pipe inits whose local address names no reserved buffer and that have no
/// explicit `flag_base` (see [`check`]).
fn init_sources(m: &Module) -> Vec<Diagnostic> {
    let reserved = |v: ValueId| match m.values[v.index()].def {
        ValueDef::OpResult(def, _) => matches!(m.op(def).opcode, Opcode::ReserveBuffer | Opcode::ImportReservedBuffer),
        _ => false,
    };
    m.walk()
        .into_iter()
        .filter(|&o| matches!(m.op(o).opcode, Opcode::InitializeL2lPipe | Opcode::InitializeL2g2lPipe))
        .filter(|&o| op_attr(m, o, "flag_base").is_none())
        .filter(|&o| !init_addresses(m, o).into_iter().flatten().flatten().any(reserved))
        .map(|o| {
            let name = m.op(o).opcode.full_name();
            Diagnostic::error(
                DiagClass::StructBadAttribute,
                m.op_span(o),
                // PTOAS's words (PTOResolveReservedBuffersPass), which its lit tests check.
                "requires local_addr to come from pto.reserve_buffer or pto.import_reserved_buffer when 'flag_base' is not explicit",
            )
            .with_op(name)
            .with_note("those pair the pipe with its peer's buffer; `flag_base = N` names the flags instead")
            .with_expected("a local address from reserve_buffer / import_reserved_buffer, or flag_base = N", "neither")
        })
        .collect()
}

/// Pops with explicit valid extents whose tile type has a static valid shape (see [`check`]).
fn pop_valid_shapes(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for o in m.walk() {
        let data = m.op(o);
        if !matches!(data.opcode, Opcode::TPopFromAic | Opcode::TPopFromAiv) || data.operands.is_empty() {
            continue;
        }
        let Some(&r) = data.results.first() else { continue };
        let Some(t) = m.value_type(r).tile() else { continue };
        if matches!((t.valid_rows, t.valid_cols), (pto_ir::types::Dim::Dynamic, pto_ir::types::Dim::Dynamic)) {
            continue;
        }
        let name = data.opcode.full_name();
        out.push(
            Diagnostic::error(
                DiagClass::StructBadAttribute,
                m.op_span(o),
                // PTOAS's words (TPopFromAicOp's verifier), which its lit tests check.
                "expects tile result to have dynamic validShape (?, ?) when valid_row/valid_col operands are provided",
            )
            .with_op(name)
            .with_note("the valid_row/valid_col operands set the popped tile's valid shape: write it `v_row=?, v_col=?`")
            .with_expected("valid shape ?x?", format!("valid shape {}x{}", t.valid_rows, t.valid_cols)),
        );
    }
    out
}

/// Consumer buffers smaller than their pipe's slots (see [`check`]).
fn consumer_buffer_sizes(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let reserves: Vec<OpId> = m.walk().into_iter().filter(|&o| m.op(o).opcode == Opcode::ReserveBuffer).collect();
    let mut reported: Vec<OpId> = Vec::new();
    for o in m.walk() {
        let Some(addrs) = init_addresses(m, o) else { continue };
        let (slot_size, slot_num) = slots_of(m, o);
        for (dir, v) in addrs.into_iter().enumerate() {
            let Some(v) = v else { continue };
            let ValueDef::OpResult(def, _) = m.values[v.index()].def else { continue };
            let reserve = match m.op(def).opcode {
                Opcode::ReserveBuffer => Some(def),
                Opcode::ImportReservedBuffer => {
                    let name = str_attr(m, def, "name");
                    reserves.iter().copied().find(|&r| name.is_some() && str_attr(m, r, "name") == name)
                }
                _ => None,
            };
            // One error per reserved buffer, however many inits name it.
            let Some(r) = reserve.filter(|r| !reported.contains(r)) else { continue };
            let Some(size) = int_attr(m, r, "size") else { continue };
            let need = slot_size.saturating_mul(slot_num);
            if slot_size > 0 && (size.max(0) as u64) < need {
                reported.push(r);
                let name = str_attr(m, r, "name").unwrap_or("");
                let fit = size.max(0) as u64 / slot_size;
                out.push(
                    Diagnostic::error(
                        DiagClass::StructBadAttribute,
                        m.op_span(o),
                        format!(
                            "the {} pipe has {slot_num} slots of {slot_size} bytes ({need} bytes), but its consumer buffer, reserve_buffer \"{name}\", has {size}: slots {fit}..{} would lie past its end",
                            if dir == C2V { "c2v" } else { "v2c" },
                            slot_num - 1
                        ),
                    )
                    .with_op(m.op(o).opcode.full_name())
                    .with_label(m.op_span(r), format!("reserve_buffer \"{name}\" of {size} bytes"))
                    .with_expected(format!("size >= {need}"), format!("size = {size}")),
                );
            }
        }
    }
    out
}

/// The name `ptoas` reports a diagnostic of `op` under on `target`: its frontend lowers
/// `aic/aiv_initialize_pipe` to `initialize_l2l_pipe` (A5) or `initialize_l2g2l_pipe` (A2A3)
/// before the pipe-init checks run (PTOAS `lib/PTO/Transforms/PTOLowerFrontendPipeOpsPass.cpp`
/// `createFrontendPipe`).
pub fn ptoas_op_name(op: Opcode, target: &Target) -> String {
    let lowered = match (op, target.id) {
        (Opcode::AicInitializePipe | Opcode::AivInitializePipe, pto_lower::TargetId::A5) => Opcode::InitializeL2lPipe,
        (Opcode::AicInitializePipe | Opcode::AivInitializePipe, _) => Opcode::InitializeL2g2lPipe,
        (op, _) => op,
    };
    lowered.full_name()
}

/// What a target asks of the pipes: where cube<->vector pipes pass through GM
/// ([`Target::pipes_through_gm`], A2A3), every `aic_initialize_pipe` / `aiv_initialize_pipe`
/// needs a `gm_slot_buffer`, as `ptoas` requires when it lowers them
/// (`PTOLowerFrontendPipeOpsPass.cpp:35-40`). `pto run` would run such a pipe core to core,
/// which the target cannot do.
pub fn check_target(m: &Module, target: &Target) -> Vec<Diagnostic> {
    if !target.pipes_through_gm {
        return Vec::new();
    }
    m.walk()
        .into_iter()
        .filter(|&o| matches!(m.op(o).opcode, Opcode::AicInitializePipe | Opcode::AivInitializePipe) && init_gm_slots(m, o).is_none())
        .map(|o| {
            let name = m.op(o).opcode.full_name();
            Diagnostic::error(
                DiagClass::StructBadAttribute,
                m.op_span(o),
                format!("`{name}` needs a `gm_slot_buffer` on {}: its cube<->vector pipe passes through GM there", target.name),
            )
            .with_op(name)
            .with_expected("gm_slot_buffer = %buf : !pto.ptr<...>".to_string(), "no gm_slot_buffer".to_string())
        })
        .collect()
}

/// The `split` attribute of a pipe data op (0 no split, 1 up-down, 2 left-right).
pub fn split_of(m: &Module, op: OpId) -> Option<i64> {
    let a = op_attr(m, op, "split")?;
    match a {
        Attr::Int(i, _) => Some(*i),
        _ => a
            .enum_value("tile_split")
            .and_then(|v| ["TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"].iter().position(|n| *n == v))
            .map(|i| i as i64),
    }
}

/// Whether `op` moves data through a cube/vector pipe.
pub fn is_pipe_data_op(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TPushToAiv
            | Opcode::TPushToAic
            | Opcode::TPopFromAic
            | Opcode::TPopFromAiv
            | Opcode::TFreeFromAic
            | Opcode::TFreeFromAiv
            | Opcode::TPush
            | Opcode::TPop
            | Opcode::TFree
    )
}

/// The consumer-buffer operand of a pipe-init op per direction ([`C2V`], [`V2C`]), and its
/// GM slot buffer (A2A3), or `None` for other ops.
pub fn init_addresses(m: &Module, op: OpId) -> Option<[Option<ValueId>; 2]> {
    let data = m.op(op);
    let dir = int_attr(m, op, "dir_mask").unwrap_or(1);
    let ops = &data.operands;
    let (c2v, v2c) = match data.opcode {
        Opcode::AicInitializePipe | Opcode::AivInitializePipe => {
            let n = ops.len();
            (ops.get(n.checked_sub(2)?).copied(), ops.get(n - 1).copied())
        }
        Opcode::InitializeL2lPipe | Opcode::InitializeL2g2lPipe => {
            let skip = usize::from(data.opcode == Opcode::InitializeL2g2lPipe);
            let local = ops.get(skip).copied();
            match dir {
                2 => (None, local),
                3 => (local, ops.get(skip + 1).copied()),
                _ => (local, None),
            }
        }
        _ => return None,
    };
    Some([c2v.filter(|_| dir & 1 != 0), v2c.filter(|_| dir & 2 != 0)])
}

/// The GM slot buffer operand of a pipe-init op (A2A3's path through GM), if it has one.
pub fn init_gm_slots(m: &Module, op: OpId) -> Option<ValueId> {
    let data = m.op(op);
    match data.opcode {
        Opcode::AicInitializePipe | Opcode::AivInitializePipe if data.operands.len() == 3 => data.operands.first().copied(),
        Opcode::InitializeL2g2lPipe => data.operands.first().copied(),
        _ => None,
    }
}

/// What pairs two inits: the reserved buffer behind the consumer address (by function and
/// name), else the direction and the constant address.
pub(crate) fn pipe_key(m: &Module, v: ValueId, dir: usize, owner: &HashMap<OpId, OpId>) -> String {
    let dir_name = if dir == C2V { "c2v" } else { "v2c" };
    if let ValueDef::OpResult(def, _) = m.values[v.index()].def {
        let d = m.op(def);
        match d.opcode {
            Opcode::ReserveBuffer => {
                let f = owner.get(&def).and_then(|&f| func_name(m, f)).unwrap_or("");
                return format!("{dir_name} pipe into reserve_buffer \"{}\" of @{f}", str_attr(m, def, "name").unwrap_or(""));
            }
            Opcode::ImportReservedBuffer => {
                return format!(
                    "{dir_name} pipe into reserve_buffer \"{}\" of @{}",
                    str_attr(m, def, "name").unwrap_or(""),
                    str_attr(m, def, "peer_func").unwrap_or("")
                );
            }
            _ => {}
        }
    }
    match m.int_constant(v) {
        Some(c) => format!("{dir_name} pipe into the consumer buffer at {c}"),
        None => format!("{dir_name} pipe of %{}", m.values[v.index()].name),
    }
}

/// A fault for an op the topology could not resolve.
pub fn unresolved(why: &str) -> Fault {
    Fault(why.to_string())
}

/// A located error at `op`.
pub fn error_at(m: &Module, op: OpId, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagClass::SimTrap, m.op_span(op), msg).with_op(m.op(op).opcode.full_name())
}
