//! Target profiles as data: buffer capacities and alignments, and the per-op legality table.
//!
//! Sources: pto-isa `include/pto/common/buffer_limits.hpp` (capacities, ISA notes §2.5) and
//! PTOAS PlanMemory (alignment of L0A/L0B/L0C to 512 bytes). The legality table itself lives
//! in [`crate::legalize`] (one table per target, read by one legalizer).

use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics, Span};
use pto_ir::module::Module;
use pto_ir::ops::Opcode;
use pto_ir::types::{BLayout, Loc, SLayout};
use serde::Serialize;

/// Which NPU generation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TargetId {
    /// Ascend A2/A3 (910B/910C class).
    A2A3,
    /// Ascend A5.
    A5,
}

/// One on-chip buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Buffer {
    /// The tile location it backs.
    pub loc: Loc,
    /// Hardware name.
    pub name: &'static str,
    /// Capacity in bytes.
    pub capacity: u64,
    /// Required alignment of a tile's start address, in bytes.
    pub align: u64,
}

/// The layout a target gives every tile at one location.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FixedLayout {
    /// The location.
    pub loc: Loc,
    /// Outer layout.
    pub blayout: BLayout,
    /// Inner box layout.
    pub slayout: SLayout,
    /// Fractal size, when the target fixes it too (`None`: as written).
    pub fractal: Option<u32>,
}

const fn fixed(loc: Loc, blayout: BLayout, slayout: SLayout) -> FixedLayout {
    FixedLayout { loc, blayout, slayout, fractal: None }
}

/// A target profile.
#[derive(Debug, Serialize)]
pub struct Target {
    /// Which target.
    pub id: TargetId,
    /// Name used on the command line (`a2a3`, `a5`).
    pub name: &'static str,
    /// On-chip buffers.
    pub buffers: [Buffer; 9],
    /// Bytes in one vector repeat (A2A3 vector model).
    pub repeat_bytes: u32,
    /// Bytes in one datablock.
    pub block_bytes: u32,
    /// Largest repeat count of one vector instruction.
    pub max_repeat: u32,
    /// Locations whose (outer, inner) layout the target fixes: pto-isa's `TileLeft`,
    /// `TileRight` and `TileAcc` aliases (`include/pto/common/pto_tile.hpp`). `legalize` gives
    /// every tile there this layout, whatever the text says, as PTOAS's parser does for `left`.
    /// The layouts pto-isa fixes on every target ([`Loc::fixed_layout`], the MX scale tiles)
    /// apply as well ([`Target::fixed_layout`]).
    pub fixed_layouts: [FixedLayout; 3],
    /// Whether a cube<->vector pipe passes its slots through GM: on A2A3 PTOAS lowers
    /// `aic/aiv_initialize_pipe` to `initialize_l2g2l_pipe`, which needs the init's
    /// `gm_slot_buffer` (`lib/PTO/Transforms/PTOLowerFrontendPipeOpsPass.cpp:35-40`); on A5 to
    /// `initialize_l2l_pipe`, core to core.
    pub pipes_through_gm: bool,
    /// Whether `ptoas`'s op verifiers for this target check the layouts of the tiles at the
    /// locations the target fixes, which matters when a module naming this target is compiled
    /// for the other ([`crate::legalize`]'s module-arch check): A5's do (`PTO.cpp:2527-2541`
    /// for the matmuls, `4095-4097` for textract), A2A3's matmul verifier does not
    /// (`PTO.cpp:2483-2516`; its textract verifier does, `4047-4055`, which pto leaves out).
    pub ptoas_verifies_fixed_layouts: bool,
}

const KIB: u64 = 1024;

/// Ascend A2/A3.
pub static A2A3: Target = Target {
    id: TargetId::A2A3,
    name: "a2a3",
    buffers: [
        Buffer { loc: Loc::Vec, name: "UB", capacity: 192 * KIB, align: 32 },
        Buffer { loc: Loc::Mat, name: "L1", capacity: 512 * KIB, align: 32 },
        Buffer { loc: Loc::Left, name: "L0A", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Right, name: "L0B", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Acc, name: "L0C", capacity: 128 * KIB, align: 512 },
        Buffer { loc: Loc::Bias, name: "BT", capacity: KIB, align: 32 },
        Buffer { loc: Loc::Scaling, name: "FB", capacity: 2 * KIB, align: 32 },
        // No MX scale buffers on A2A3 (`PTO_SCALELEFT_SIZE_BYTES` is 0).
        Buffer { loc: Loc::ScaleLeft, name: "L0A(Scale)", capacity: 0, align: 32 },
        Buffer { loc: Loc::ScaleRight, name: "L0B(Scale)", capacity: 0, align: 32 },
    ],
    repeat_bytes: 256,
    block_bytes: 32,
    max_repeat: 255,
    // TileLeft is Zz on A2A3 (row_major outer, row_major boxes).
    fixed_layouts: [
        fixed(Loc::Left, BLayout::RowMajor, SLayout::RowMajor),
        fixed(Loc::Right, BLayout::RowMajor, SLayout::ColMajor),
        fixed(Loc::Acc, BLayout::ColMajor, SLayout::RowMajor),
    ],
    pipes_through_gm: true,
    ptoas_verifies_fixed_layouts: false,
};

/// Ascend A5.
pub static A5: Target = Target {
    id: TargetId::A5,
    name: "a5",
    buffers: [
        Buffer { loc: Loc::Vec, name: "UB", capacity: 256 * KIB, align: 32 },
        Buffer { loc: Loc::Mat, name: "L1", capacity: 512 * KIB, align: 32 },
        Buffer { loc: Loc::Left, name: "L0A", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Right, name: "L0B", capacity: 64 * KIB, align: 512 },
        Buffer { loc: Loc::Acc, name: "L0C", capacity: 256 * KIB, align: 512 },
        Buffer { loc: Loc::Bias, name: "BT", capacity: 4 * KIB, align: 32 },
        Buffer { loc: Loc::Scaling, name: "FB", capacity: 4 * KIB, align: 32 },
        Buffer { loc: Loc::ScaleLeft, name: "L0A(Scale)", capacity: 4 * KIB, align: 32 },
        Buffer { loc: Loc::ScaleRight, name: "L0B(Scale)", capacity: 4 * KIB, align: 32 },
    ],
    repeat_bytes: 256,
    block_bytes: 32,
    max_repeat: 255,
    // TileLeft is Nz on A5 (col_major outer, row_major boxes).
    fixed_layouts: [
        fixed(Loc::Left, BLayout::ColMajor, SLayout::RowMajor),
        fixed(Loc::Right, BLayout::RowMajor, SLayout::ColMajor),
        fixed(Loc::Acc, BLayout::ColMajor, SLayout::RowMajor),
    ],
    pipes_through_gm: false,
    ptoas_verifies_fixed_layouts: true,
};

impl Target {
    /// The profile for an id.
    pub fn get(id: TargetId) -> &'static Target {
        match id {
            TargetId::A2A3 => &A2A3,
            TargetId::A5 => &A5,
        }
    }
    /// The layout the target fixes for tiles at `loc`, if it does: its own table, else the
    /// layout pto-isa fixes on every target ([`Loc::fixed_layout`]).
    pub fn fixed_layout(&self, loc: Loc) -> Option<FixedLayout> {
        self.fixed_layouts
            .iter()
            .find(|f| f.loc == loc)
            .copied()
            .or_else(|| loc.fixed_layout().map(|(blayout, slayout, fractal)| FixedLayout { loc, blayout, slayout, fractal: Some(fractal) }))
    }
    /// The buffer backing a location.
    pub fn buffer(&self, loc: Loc) -> &Buffer {
        // Every Loc has exactly one entry (checked by a unit test).
        self.buffers.iter().find(|b| b.loc == loc).unwrap_or(&self.buffers[0])
    }
}

/// A target named by a module's `pto.target_arch` attribute, where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleArch {
    /// The value as written (`"a5"`, `"A3"`...).
    pub written: String,
    /// The target it selects.
    pub id: TargetId,
    /// The module op carrying it.
    pub span: Span,
}

/// The `pto.target_arch` of the module, if it has one. As in PTOAS, `a5` (any case) selects
/// A5 and `a2`, `a3`, `a2a3` select A2/A3; any other value is `Err` (PTOAS would silently take
/// A2/A3), located at the module.
#[allow(clippy::result_large_err)] // one located diagnostic, on a rare error path
pub fn module_arch(m: &Module) -> Result<Option<ModuleArch>, Diagnostic> {
    let top = m.body.map(|r| m.region(r).blocks.clone()).unwrap_or_default();
    for b in top {
        for &op in &m.block(b).ops {
            let data = m.op(op);
            if data.opcode != Opcode::Module {
                continue;
            }
            let Some(attr) = data.attr("pto.target_arch") else { continue };
            // The `module` keyword, not the whole module body.
            let whole = m.op_span(op);
            let span = Span { end: whole.end.min(whole.start + "module".len() as u32), ..whole };
            let Attr::Str(written) = attr else {
                return Err(Diagnostic::error(DiagClass::LegalTargetConflict, span, "`pto.target_arch` must be a string")
                    .with_expected("\"a2\", \"a3\", \"a2a3\" or \"a5\"", format!("{attr:?}")));
            };
            let id = match written.to_ascii_lowercase().as_str() {
                "a5" => TargetId::A5,
                "a2" | "a3" | "a2a3" => TargetId::A2A3,
                _ => {
                    return Err(Diagnostic::error(
                        DiagClass::LegalTargetConflict,
                        span,
                        format!("unknown `pto.target_arch = \"{written}\"`"),
                    )
                    .with_expected("\"a2\", \"a3\", \"a2a3\" or \"a5\"", format!("\"{written}\"")));
                }
            };
            return Ok(Some(ModuleArch { written: written.clone(), id, span }));
        }
    }
    Ok(None)
}

/// The target to compile `m` for: the one requested on the command line, else the module's
/// `pto.target_arch`, else A2/A3 (PTOAS's default).
///
/// A request that contradicts the module's attribute wins, as `ptoas --pto-arch` does for the
/// code it emits, with a `LEGAL_TARGET_CONFLICT` warning naming both (the second value); the
/// `legalize` pass makes the conflict an error when the program depends on it, i.e. when the
/// module's own target rejects an op once the layouts are fixed for the requested one
/// ([`conflict_error`]).
pub fn resolve(m: &Module, requested: Option<TargetId>) -> Result<(&'static Target, Option<Diagnostic>), Diagnostics> {
    let arch = module_arch(m).map_err(|d| Diagnostics(vec![d]))?;
    Ok(match (requested, arch) {
        (Some(want), Some(arch)) if want != arch.id => {
            let target = Target::get(want);
            let warning = Diagnostic::warning(DiagClass::LegalTargetConflict, arch.span, conflict_message(&arch, target))
                .with_expected(format!("--target {}", Target::get(arch.id).name), format!("--target {}", target.name))
                .with_note(format!("compiling for {} as requested (ptoas --pto-arch does the same)", target.name));
            (target, Some(warning))
        }
        (Some(want), _) => (Target::get(want), None),
        (None, Some(arch)) => (Target::get(arch.id), None),
        (None, None) => (&A2A3, None),
    })
}

fn conflict_message(arch: &ModuleArch, target: &Target) -> String {
    format!(
        "the module is for {} (`pto.target_arch = \"{}\"`) but the requested target is {}",
        Target::get(arch.id).name,
        arch.written,
        target.name
    )
}

/// The error for a program compiled for `target` whose module's `pto.target_arch` names
/// another target that rejects one of its ops (`rejected`: that target's diagnostic, after the
/// layouts were fixed for `target`).
pub fn conflict_error(arch: &ModuleArch, target: &Target, rejected: &Diagnostic) -> Diagnostic {
    let module_target = Target::get(arch.id).name;
    Diagnostic::error(DiagClass::LegalTargetConflict, arch.span, conflict_message(arch, target))
        .with_expected(format!("--target {module_target}"), format!("--target {}", target.name))
        .with_label(rejected.span, format!("{module_target} rejects this op: {}", rejected.message))
        .with_note(format!(
            "ptoas checks ops against the module's `pto.target_arch` ({module_target}) once its parser gave the tiles {}'s layouts, and lowers for --pto-arch ({})",
            target.name, target.name
        ))
        .with_note("drop --target to use the module's target, or change the module's `pto.target_arch`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_location_has_one_buffer() {
        for t in [&A2A3, &A5] {
            for (loc, _) in Loc::ALL {
                assert_eq!(t.buffers.iter().filter(|b| b.loc == *loc).count(), 1, "{} {loc:?}", t.name);
            }
        }
        assert_eq!(A2A3.buffer(Loc::Vec).capacity, 196_608);
        assert_eq!(A5.buffer(Loc::Vec).capacity, 262_144);
        assert_eq!(A5.buffer(Loc::Acc).capacity, 2 * A2A3.buffer(Loc::Acc).capacity);
    }
}
