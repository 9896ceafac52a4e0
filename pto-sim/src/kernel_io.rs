//! A kernel's inputs and outputs as `pto run` and the Python package (`python/`) see them: which
//! argument an input binds to and what it expects, binding a number or an array to it, and the
//! outputs a run returns by default. Both front ends call these, so a name resolves, a value is
//! checked and an output is shaped the same way whichever one runs the kernel.

use crate::data::TileData;
use crate::interp::Sim;
use pto_ir::module::{Module, ValueDef};
use pto_ir::types::{ElemType, Type};

/// What a kernel argument takes as input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar argument of this type: a number.
    Scalar(ElemType),
    /// A tile argument (`.arg`, a function's tile argument): an array of this element type,
    /// 1-D or 2-D, of the tile's capacity or of its valid shape.
    Tile(ElemType),
    /// A GM pointer argument: an array of this element type, bound flat in element order.
    Gm(ElemType),
}

impl ArgKind {
    /// The element type the input must hold.
    pub fn dtype(self) -> ElemType {
        match self {
            ArgKind::Scalar(e) | ArgKind::Tile(e) | ArgKind::Gm(e) => e,
        }
    }

    /// `scalar`, `tile` or `gm`.
    pub fn name(self) -> &'static str {
        match self {
            ArgKind::Scalar(_) => "scalar",
            ArgKind::Tile(_) => "tile",
            ArgKind::Gm(_) => "gm",
        }
    }
}

/// An input value.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// For a scalar argument.
    Number(f64),
    /// For a tile or GM argument.
    Data(TileData),
}

/// `%a (!pto.ptr<f32>), %n (i32)`: the arguments inputs bind to (for messages).
pub fn argument_list(sim: &Sim) -> String {
    let args: Vec<String> = sim.arguments().iter().map(|(n, t)| format!("%{n} ({t})")).collect();
    if args.is_empty() { "none".into() } else { args.join(", ") }
}

/// Why no input binds to a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgError {
    /// The kernel has no argument of that name (the message lists its arguments): a usage error.
    Unknown(String),
    /// The argument's type takes no input (a tensor view...).
    NotBindable(String),
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::Unknown(m) | ArgError::NotBindable(m) => f.write_str(m),
        }
    }
}

/// What the kernel argument `name` (with or without `%`) takes, or why nothing binds to it.
pub fn argument_kind(sim: &Sim, name: &str) -> Result<ArgKind, ArgError> {
    let name = name.trim_start_matches('%');
    let Some((_, ty)) = sim.arguments().into_iter().find(|(n, _)| n == name) else {
        return Err(ArgError::Unknown(format!("the kernel has no argument `%{name}`; its arguments: {}", argument_list(sim))));
    };
    match ty {
        Type::Scalar(e) => Ok(ArgKind::Scalar(e)),
        Type::Tile(t) | Type::TileBuf(t) => Ok(ArgKind::Tile(t.dtype)),
        Type::Ptr(e) => Ok(ArgKind::Gm(e)),
        // A group argument is one GM buffer per rank (crate::comm).
        ref g @ Type::Opaque(_)
            if (g.is_opaque("!pto.group<") || g.is_gm_memref())
                && let Some(e) = g.elem_type() =>
        {
            Ok(ArgKind::Gm(e))
        }
        other => {
            Err(ArgError::NotBindable(format!("`%{name}` is a {}; inputs bind to tiles, scalars and GM pointers", other.class_name())))
        }
    }
}

/// Binds `value` to the argument `name` of kind `kind` (from [`argument_kind`]): a number to a
/// scalar (checked against its type), an array to a tile (logical order whatever the layout)
/// or to a GM pointer.
pub fn bind(sim: &mut Sim, name: &str, kind: ArgKind, value: &Input) -> Result<(), String> {
    let name = name.trim_start_matches('%');
    match (kind, value) {
        (ArgKind::Scalar(_), Input::Number(x)) => sim.bind_scalar(name, *x),
        (ArgKind::Tile(_), Input::Data(d)) => sim.bind_tile(name, d),
        (ArgKind::Gm(_), Input::Data(d)) => sim.bind_gm(name, d),
        (ArgKind::Scalar(e), Input::Data(_)) => Err(format!("`%{name}` is a scalar ({e}): give a number, not an array")),
        (k, Input::Number(_)) => Err(format!("`%{name}` is a {} argument ({}): give an array, not a number", k.name(), k.dtype())),
    }
}

/// The named tiles a program computes and never reads again (SSA results and DPS `outs`,
/// minus every `ins` operand; a value returned by `return` counts as computed), in order of
/// definition: what a run outputs when the program has no GM array, no tile argument and no
/// requested output.
pub fn final_tiles(m: &Module) -> Vec<String> {
    use pto_ir::ops::Opcode;
    // A `memref<..., #pto.address_space<vec>>` from `memref.alloc` is a tile too.
    let is_tile = |v: pto_ir::ValueId| m.value_type(v).tile().is_some() || m.value_type(v).is_opaque("memref<");
    let (mut written, mut read) = (Vec::new(), std::collections::HashSet::new());
    for op in m.walk() {
        let data = m.op(op);
        written.extend(data.results.iter().chain(data.outs()).copied().filter(|&v| is_tile(v)));
        if data.opcode != Opcode::FuncReturn {
            read.extend(data.ins().iter().copied());
        }
    }
    let mut seen = std::collections::HashSet::new();
    written
        .into_iter()
        .filter(|v| !read.contains(v) && seen.insert(*v))
        .map(|v| m.values[v.index()].name.clone())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The tiles a run outputs after its GM arrays ([`outputs`]): those `requested` (GM arguments
/// among them are output as GM arrays, [`check_requested_gm`]), else every tile argument of
/// `lowered`, else (when the run also wrote no GM array, `wrote_gm`) the tiles `computed`.
pub fn output_tiles(lowered: &Module, computed: Vec<String>, requested: &[String], wrote_gm: bool) -> Vec<String> {
    let names: Vec<String> = if requested.is_empty() {
        lowered
            .values
            .iter()
            .filter(|v| matches!(v.def, ValueDef::BlockArg(..)) && lowered.types.get(v.ty).tile().is_some())
            .map(|v| v.name.clone())
            .collect()
    } else {
        requested.iter().map(|n| n.trim_start_matches('%').to_string()).filter(|n| !is_gm_argument(lowered, n)).collect()
    };
    if names.is_empty() && !wrote_gm && requested.is_empty() { computed } else { names }
}

/// Whether `name` is a GM pointer argument of a function of `m`.
fn is_gm_argument(m: &Module, name: &str) -> bool {
    m.values.iter().any(|v| {
        let ty = m.types.get(v.ty);
        v.name == name && matches!(v.def, ValueDef::BlockArg(..)) && (matches!(ty, Type::Ptr(_)) || ty.is_gm_memref())
    })
}

/// Checks the GM arguments among the `requested` outputs: each is output when the kernel wrote
/// it (`written(name)`); one it never wrote is an error: the name and why.
pub fn check_requested_gm(lowered: &Module, requested: &[String], written: impl Fn(&str) -> bool) -> Result<(), (String, String)> {
    for name in requested.iter().map(|n| n.trim_start_matches('%')) {
        if is_gm_argument(lowered, name) && !written(name) {
            return Err((name.to_string(), format!("the kernel never wrote GM argument `%{name}`, so it has no output")));
        }
    }
    Ok(())
}

/// The outputs of a finished run, in order: every GM array the kernel wrote (in the shape of
/// the array bound to it), then the tiles `requested` (without `%`) or, when none are, every tile
/// argument of `lowered`; when that is nothing at all, the tiles `computed` ([`final_tiles`] of
/// the module before lowering). `full` reads whole tiles (capacity) instead of valid regions.
/// A requested GM argument is one of the GM arrays; a requested name that is neither a GM
/// array the kernel wrote nor a tile is an error: the name and why.
pub fn outputs(
    sim: &Sim,
    lowered: &Module,
    computed: Vec<String>,
    requested: &[String],
    full: bool,
) -> Result<Vec<(String, TileData)>, (String, String)> {
    let mut all = sim.gm_outputs();
    check_requested_gm(lowered, requested, |n| all.iter().any(|(a, _)| a == n))?;
    for name in output_tiles(lowered, computed, requested, !all.is_empty()) {
        let data = if full { sim.read_tile_full(&name) } else { sim.read_tile(&name) };
        match data {
            Ok(d) => all.push((name, d)),
            Err(e) => return Err((name, e)),
        }
    }
    Ok(all)
}

/// The tiles each core of a multi-core run reads after it ends ([`crate::cores::Launch::tiles`]):
/// those [`machine_outputs`] may output.
pub fn launch_tiles(lowered: &Module, computed: Vec<String>, requested: &[String]) -> Vec<String> {
    let mut t = output_tiles(lowered, computed.clone(), requested, true);
    t.extend(output_tiles(lowered, computed, requested, false));
    t.dedup();
    t
}

/// The outputs of a multi-core run ([`crate::cores::machine::run`] with the tiles of
/// [`launch_tiles`]), as [`outputs`] gives those of one core: the GM arrays the blocks wrote,
/// then the requested tiles (or the defaults), each from the first core that holds it. A
/// requested tile no core computed is an error: the name and why.
pub fn machine_outputs(
    lowered: &Module,
    ran: &crate::cores::machine::MachineRun,
    computed: Vec<String>,
    requested: &[String],
) -> Result<Vec<(String, TileData)>, (String, String)> {
    let mut all = crate::interp::gm_outputs(lowered, &ran.gm);
    check_requested_gm(lowered, requested, |n| all.iter().any(|(a, _)| a == n))?;
    let tiles = output_tiles(lowered, Vec::new(), requested, !all.is_empty());
    let names = if tiles.is_empty() && all.is_empty() { launch_tiles(lowered, computed, requested) } else { tiles };
    for name in names {
        match ran.cores.iter().find_map(|c| c.tiles.iter().find(|(n, _)| *n == name)) {
            Some((_, d)) => all.push((name, d.clone())),
            None if requested.iter().any(|o| o.trim_start_matches('%') == name) => {
                return Err((name.clone(), format!("no core computed a tile `%{name}`")));
            }
            None => {}
        }
    }
    Ok(all)
}

/// `x@2` → `("x", Some(2))`; `x` → `("x", None)`: an input or output of one rank of a
/// multi-rank run (docs/comm.md). The rank must be below `ranks`.
pub fn split_rank(name: &str, ranks: u32) -> Result<(&str, Option<u32>), String> {
    let Some((name, rank)) = name.split_once('@') else { return Ok((name, None)) };
    match rank.parse::<u32>() {
        Ok(r) if r < ranks.max(1) => Ok((name, Some(r))),
        Ok(r) => Err(format!("rank {r} does not exist: the run has {} rank(s)", ranks.max(1))),
        Err(_) => Err(format!("`@{rank}` is not a rank number")),
    }
}

/// The outputs of a multi-rank run ([`crate::comm::machine::run`] with the tiles of
/// [`launch_tiles`]), as [`outputs`] gives those of one core, each named `NAME@RANK` when
/// there are several ranks: every rank's GM arrays, then the requested tiles (or the defaults)
/// of every rank that holds them. A requested tile no rank computed is an error.
pub fn rank_outputs(
    lowered: &Module,
    ran: &crate::comm::machine::RankRun,
    computed: Vec<String>,
    requested: &[String],
) -> Result<Vec<(String, TileData)>, (String, String)> {
    let several = ran.gm.len() > 1;
    let named = |name: &str, rank: usize| if several { format!("{name}@{rank}") } else { name.to_string() };
    let mut all = Vec::new();
    for (rank, gm) in ran.gm.iter().enumerate() {
        all.extend(crate::interp::gm_outputs(lowered, gm).into_iter().map(|(n, d)| (named(&n, rank), d)));
    }
    let written = |n: &str| all.iter().any(|(a, _)| a == n || a.strip_prefix(n).is_some_and(|rest| rest.starts_with('@')));
    check_requested_gm(lowered, requested, written)?;
    let tiles = output_tiles(lowered, Vec::new(), requested, !all.is_empty());
    let names = if tiles.is_empty() && all.is_empty() { launch_tiles(lowered, computed, requested) } else { tiles };
    for name in names {
        let mut found = false;
        // Each rank's tile from its first block that holds it.
        let mut ranks_done = std::collections::HashSet::new();
        for c in &ran.cores {
            if let Some((_, d)) = c.tiles.iter().find(|(n, _)| *n == name)
                && ranks_done.insert(c.actor.rank)
            {
                all.push((named(&name, c.actor.rank as usize), d.clone()));
                found = true;
            }
        }
        if !found && requested.iter().any(|o| o.trim_start_matches('%') == name) {
            return Err((name.clone(), format!("no rank computed a tile `%{name}`")));
        }
    }
    Ok(all)
}

/// The peer binding `arg = peer` of a multi-rank run (`next`, `prev`, `local` or a rank,
/// [`crate::comm::Peer::parse`]): `arg` must be an argument of the kernel.
pub fn peer_binding(lowered: &Module, arg: &str, peer: &str, ranks: u32) -> Result<(String, crate::comm::Peer), String> {
    let arg = arg.trim_start_matches('%');
    if !lowered.values.iter().any(|v| matches!(v.def, ValueDef::BlockArg(..)) && v.name == arg) {
        return Err(format!("the kernel has no argument `%{arg}`"));
    }
    Ok((arg.to_string(), crate::comm::Peer::parse(peer, ranks.max(1))?))
}

/// An input bound to every rank: `(name, kind, value)`.
pub type Bound = (String, ArgKind, Input);
/// An input bound to one rank: `(rank, name, kind, value)`.
pub type RankBound = (u32, String, ArgKind, Input);

/// Binds one core's (or rank's) inputs before its run: `bound`, then the inputs of `rank`
/// among `rank_inputs` (which win), then, with `defaults`, deterministic values for the rest
/// ([`Sim::use_default_inputs`]).
pub fn bind_all(sim: &mut Sim, bound: &[Bound], rank_inputs: &[RankBound], rank: Option<u32>, defaults: bool) -> Result<(), String> {
    for (name, kind, value) in bound {
        bind(sim, name, *kind, value)?;
    }
    for (r, name, kind, value) in rank_inputs.iter().filter(|(k, ..)| Some(*k) == rank) {
        bind(sim, name, *kind, value).map_err(|e| format!("input {name}@{r}: {e}"))?;
    }
    if defaults {
        sim.use_default_inputs();
    }
    Ok(())
}
