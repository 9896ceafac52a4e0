//! Pass `plan-memory`: liveness-based placement of every tile buffer in its on-chip buffer,
//! producing Level 3 (`pto.alloc_tile addr = %a`).
//!
//! * A buffer is live from its `alloc_tile` (or, for a tile argument, from the start of its
//!   function) to its last use; uses inside a loop keep outer buffers alive to the loop's end
//!   ([`crate::liveness`]).
//! * Tile arguments are provided by the caller; by convention they occupy the bottom of their
//!   buffer in argument order, and they are live for the whole function.
//! * Placement is first-fit by start position: each buffer gets the lowest address, aligned as
//!   the target requires, that overlaps no buffer live at the same time.
//! * A program that does not fit fails with `LEGAL_BUFFER_OVERFLOW`, listing the peak live set
//!   (tiles, sizes, source lines) and the capacity.
//! * Level-3 input keeps its addresses; they are checked (alignment, bounds, and no two live
//!   tiles on partially overlapping bytes: `LEGAL_OVERLAPPING_TILES`; two handles at the same
//!   base address are an intentional alias of one buffer and are accepted).

use crate::liveness::Liveness;
use crate::pipeline::Changed;
use crate::target::Target;
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics, Span};
use pto_ir::module::{BlockId, Module, OpData, OpId, Payload, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::{ElemType, Loc, Type};
use std::collections::HashMap;

/// One tile buffer and its placement.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The buffer value (alloc result or tile argument).
    pub value: ValueId,
    /// Name for listings.
    pub name: String,
    /// Location.
    pub loc: Loc,
    /// Bytes.
    pub size: u64,
    /// First live position.
    pub start: u32,
    /// Last live position.
    pub end: u32,
    /// Byte offset in the buffer, once placed.
    pub addr: Option<u64>,
    /// Where it was defined.
    pub span: Span,
}

impl Placement {
    fn overlaps_in_time(&self, o: &Placement) -> bool {
        self.loc == o.loc && self.start <= o.end && o.start <= self.end
    }
    fn overlaps_in_space(&self, o: &Placement) -> bool {
        match (self.addr, o.addr) {
            (Some(a), Some(b)) => a < b.saturating_add(o.size) && b < a.saturating_add(self.size),
            _ => false,
        }
    }
}

/// The address written in an `alloc_tile addr = %c` (when `%c` is an integer constant).
fn written_addr(m: &Module, alloc: OpId) -> Option<Option<u64>> {
    let data = m.op(alloc);
    let Payload::Segments(segs) = &data.payload else { return Some(None) };
    if segs.first() != Some(&1) {
        return Some(None);
    }
    let addr = *data.operands.first()?;
    m.int_constant(addr).and_then(|v| u64::try_from(v).ok()).map(Some)
}

/// Collects every tile buffer with its live range (and written address, if any).
pub fn collect(m: &Module, live: &Liveness) -> Vec<Placement> {
    let mut out = Vec::new();
    // Tile arguments of functions and of the top-level block (PTO-AS `.arg`).
    let mut arg_blocks: Vec<(BlockId, u32)> = Vec::new();
    if let Some(body) = m.body
        && let Some(&b) = m.region(body).blocks.first()
    {
        arg_blocks.push((b, 0));
    }
    for &op in &m.walk() {
        let data = m.op(op);
        if data.opcode == Opcode::FuncFunc
            && let Some(b) = data.regions.first().and_then(|&r| m.region(r).blocks.first())
        {
            arg_blocks.push((*b, live.pos[op.index()]));
        }
        if data.opcode == Opcode::AllocTile {
            let Some(&v) = data.results.first() else { continue };
            let Some(t) = m.value_type(v).tile() else { continue };
            let addr = written_addr(m, op).flatten();
            out.push(Placement {
                value: v,
                name: m.values[v.index()].name.clone(),
                loc: t.loc,
                size: t.size_bytes(),
                start: live.pos[op.index()],
                end: live.last_use[v.index()].max(live.pos[op.index()]),
                addr,
                span: m.op_span(op),
            });
        }
    }
    for (b, start) in arg_blocks {
        for &a in &m.block(b).args {
            let Some(t) = m.value_type(a).tile() else { continue };
            let end = m.block(b).ops.last().map(|&o| live.end[o.index()]).unwrap_or(start);
            out.push(Placement {
                value: a,
                name: m.values[a.index()].name.clone(),
                loc: t.loc,
                size: t.size_bytes(),
                start,
                end,
                addr: None,
                span: m.value_span(a),
            });
        }
    }
    out
}

/// Places every tile buffer without changing the module: written (Level-3) addresses are
/// checked and kept, the others are chosen. The simulator uses it to find tile arguments.
pub fn assign(m: &Module, target: &Target) -> Result<Vec<Placement>, Diagnostics> {
    let live = Liveness::compute(m);
    let mut tiles = collect(m, &live);
    let mut diags = Diagnostics::default();
    check_written(&tiles, target, &mut diags);
    if !diags.has_errors() {
        place(&mut tiles, target, &mut diags);
    }
    if diags.has_errors() { Err(diags) } else { Ok(tiles) }
}

/// Runs the pass.
pub fn run(m: &mut Module, target: &Target, _notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    let tiles = assign(m, target)?;
    if tiles.is_empty() {
        return Ok(Changed::No);
    }
    let changed = write_addresses(m, &tiles);
    Ok(if changed { Changed::Yes } else { Changed::No })
}

/// Level-3 addresses: aligned, inside the buffer, no overlap between live tiles.
fn check_written(tiles: &[Placement], target: &Target, diags: &mut Diagnostics) {
    for t in tiles {
        let Some(a) = t.addr else { continue };
        let buf = target.buffer(t.loc);
        let end = a.saturating_add(t.size);
        if a % buf.align != 0 || end > buf.capacity {
            let what = if a % buf.align != 0 {
                format!("is not {}-byte aligned", buf.align)
            } else {
                format!("ends at {end}, past the {} B {} buffer", buf.capacity, buf.name)
            };
            let d = Diagnostic::error(DiagClass::LegalBadAddress, t.span, format!("tile `%{}` at address {a} {what}", t.name))
                .with_expected(
                    format!(
                        "a multiple of {} with address + {} bytes <= {} ({} capacity on {})",
                        buf.align, t.size, buf.capacity, buf.name, target.name
                    ),
                    format!("address {a}, end {end}"),
                );
            diags.push(d);
        }
    }
    // Sweep in start order, keeping the tiles still live; conflicts are reported in tile order.
    let mut written: Vec<usize> = (0..tiles.len()).filter(|&i| tiles[i].addr.is_some()).collect();
    written.sort_by_key(|&i| (tiles[i].start, i));
    let mut live: Vec<usize> = Vec::new();
    let mut conflicts: Vec<(usize, usize)> = Vec::new();
    for &j in &written {
        live.retain(|&i| tiles[i].end >= tiles[j].start);
        for &i in &live {
            let (a, b) = (&tiles[i], &tiles[j]);
            // Two handles at the same base address are one buffer seen twice (PTOAS emits such
            // aliases, e.g. a loop-carried `%x_mv` written through a second `alloc_tile` at
            // `%x`'s address); a partial overlap is a real conflict.
            if a.addr != b.addr && a.overlaps_in_time(b) && a.overlaps_in_space(b) {
                conflicts.push((i.min(j), i.max(j)));
            }
        }
        live.push(j);
    }
    conflicts.sort_unstable();
    for (i, j) in conflicts {
        let (a, b) = (&tiles[i], &tiles[j]);
        let (aa, ba) = (a.addr.unwrap_or(0), b.addr.unwrap_or(0));
        let d = Diagnostic::error(
            DiagClass::LegalOverlappingTiles,
            b.span,
            format!("tiles `%{}` and `%{}` are live at the same time and overlap in {}", a.name, b.name, target.buffer(a.loc).name),
        )
        .with_expected(
            "disjoint byte ranges".to_string(),
            format!("[{aa}, {}) and [{ba}, {})", aa.saturating_add(a.size), ba.saturating_add(b.size)),
        )
        .with_label(a.span, format!("`%{}` allocated here", a.name));
        diags.push(d);
    }
}

/// First-fit placement of the tiles without a written address.
fn place(tiles: &mut [Placement], target: &Target, diags: &mut Diagnostics) {
    let mut order: Vec<usize> = (0..tiles.len()).filter(|&i| tiles[i].addr.is_none()).collect();
    // Arguments (which start first) are placed first, then by start position, larger first.
    order.sort_by_key(|&i| (tiles[i].start, std::cmp::Reverse(tiles[i].size), i));
    // Tiles with a written address may start anywhere; the ones placed here start in order,
    // so the earlier ones still live are those whose range reaches the current start.
    let fixed: Vec<usize> = (0..tiles.len()).filter(|&i| tiles[i].addr.is_some()).collect();
    let mut placed_live: Vec<usize> = Vec::new();
    let mut reported: Vec<Loc> = Vec::new();
    for i in order {
        let buf = target.buffer(tiles[i].loc);
        placed_live.retain(|&j| tiles[j].end >= tiles[i].start);
        let mut busy: Vec<(u64, u64)> = fixed
            .iter()
            .chain(&placed_live)
            .map(|&j| &tiles[j])
            .filter(|o| o.overlaps_in_time(&tiles[i]))
            .map(|o| (o.addr.unwrap_or(0), o.addr.unwrap_or(0).saturating_add(o.size)))
            .collect();
        busy.sort();
        let mut addr = 0u64;
        for (s, e) in busy {
            if addr.saturating_add(tiles[i].size) <= s {
                break;
            }
            addr = addr.max(e.div_ceil(buf.align).saturating_mul(buf.align));
        }
        if addr.saturating_add(tiles[i].size) > buf.capacity {
            if !reported.contains(&tiles[i].loc) {
                reported.push(tiles[i].loc);
                diags.push(overflow(tiles, i, target));
            }
            continue;
        }
        tiles[i].addr = Some(addr);
        placed_live.push(i);
    }
}

/// Where the references disagree on the scaling buffer (FB): `ptoas` plans scaling tiles in a
/// space as large as UB and accepts what pto-isa's `TASSIGN` check rejects; pto follows pto-isa.
const SCALING_REFERENCES: &str = "the references disagree: pto-isa's TASSIGN check rejects a scaling tile that ends past the FB capacity (PTO_FBUF_SIZE_BYTES, common/buffer_limits.hpp:152-166; tassign_check.hpp SA-0353), while ptoas's PlanMemory gives scaling tiles a space as large as UB (PTOPlanMemory.cpp:1959-1966) and accepts this; pto follows pto-isa";

/// `LEGAL_BUFFER_OVERFLOW` with the peak live set of the buffer that overflowed.
fn overflow(tiles: &[Placement], failed: usize, target: &Target) -> Diagnostic {
    let loc = tiles[failed].loc;
    let buf = target.buffer(loc);
    // Peak: the position where the sum of live sizes in this buffer is largest.
    let mut points: Vec<u32> = tiles.iter().filter(|t| t.loc == loc).map(|t| t.start).collect();
    points.sort();
    points.dedup();
    let live_at = |p: u32| tiles.iter().filter(move |t| t.loc == loc && t.start <= p && p <= t.end);
    let total_at = |p: u32| live_at(p).fold(0u64, |acc, t| acc.saturating_add(t.size));
    let peak = points.iter().copied().max_by_key(|&p| total_at(p)).unwrap_or(0);
    let set: Vec<&Placement> = live_at(peak).collect();
    let total = total_at(peak);
    let mut d = Diagnostic::error(
        DiagClass::LegalBufferOverflow,
        tiles[failed].span,
        format!("the tiles live here need {total} bytes of {}, which holds {} bytes on {}", buf.name, buf.capacity, target.name),
    )
    .with_expected(format!("at most {} bytes live in {}", buf.capacity, buf.name), format!("{total} bytes"));
    for t in &set {
        d = d.with_label(t.span, format!("`%{}`: {} bytes", t.name, t.size));
    }
    if loc == Loc::Scaling {
        d = d.with_note(SCALING_REFERENCES);
    }
    d.with_note(format!(
        "peak live set ({} tiles): {}",
        set.len(),
        set.iter().map(|t| format!("%{} ({} B)", t.name, t.size)).collect::<Vec<_>>().join(", ")
    ))
}

/// Adds `addr = %c` to every alloc without one. Returns whether anything changed.
fn write_addresses(m: &mut Module, tiles: &[Placement]) -> bool {
    let mut changed = false;
    let i64_ty = m.intern(Type::Scalar(ElemType::I64));
    let addr_of: HashMap<ValueId, u64> = tiles.iter().filter_map(|t| Some((t.value, t.addr?))).collect();
    let blocks: Vec<BlockId> = (0..m.blocks.len() as u32).map(BlockId).collect();
    for b in blocks {
        let old = std::mem::take(&mut m.blocks[b.index()].ops);
        let mut new_ops = Vec::with_capacity(old.len());
        for op in old {
            let data = m.op(op);
            let needs = data.opcode == Opcode::AllocTile && matches!(&data.payload, Payload::Segments(s) if s.first() != Some(&1));
            if needs {
                let v = data.results[0];
                if let Some(&addr) = addr_of.get(&v) {
                    let mut c = OpData::new(Opcode::ArithConstant);
                    c.attrs.push(("value".into(), Attr::Int(addr as i64, None)));
                    let span = m.op_span(op);
                    let cop = m.add_op(c, span);
                    let name = format!("{}_addr", m.values[v.index()].name);
                    let cv = m.add_result(cop, i64_ty, name, span);
                    new_ops.push(cop);
                    let data = m.op_mut(op);
                    data.operands.insert(0, cv);
                    data.num_ins += 1;
                    if let Payload::Segments(s) = &mut data.payload {
                        if s.is_empty() {
                            s.extend([0, 0, 0]);
                        }
                        s[0] = 1;
                    }
                    changed = true;
                }
            }
            new_ops.push(op);
        }
        m.blocks[b.index()].ops = new_ops;
    }
    changed
}
