//! The interpreter: executes a Level-3 module op by op on [`Memory`].
//!
//! State: one [`Val`] per IR value (tile views, scalars). Tile ops dispatch on the element type
//! once and run one generic helper per family ([`crate::family`]). Program faults become
//! `SIM_TRAP` diagnostics located at the op that faulted; ops the simulator does not model yet
//! are reported the same way ("not executable yet"), never by a panic.

use crate::data::TileData;
use crate::dispatch;
use crate::elem::Elem;
use crate::family::{self, Num};
use crate::gm::{GmArray, GmView};
use crate::memory::Memory;
use crate::view::TileView;
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{BlockId, Module, OpId, Payload, ValueDef, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::tile_rules::ViewFold;
use pto_ir::types::{Dim, ElemType, TileDesc, Type};
use pto_lower::Target;

pub use crate::value::Val;

/// The way to the happens-before graph of a machine's cores ([`crate::sync::graph::Graph`]):
/// runs the function given on it, under the lock of the scheduler's shared state.
pub type SharedGraph = Box<dyn Fn(&mut dyn FnMut(&mut crate::sync::graph::Graph)) + Send>;

/// A machine's wording of a GM hazard between two of its cores (`crate::cores::ops`).
pub type CrossRender = Box<dyn Fn(&Module, &crate::sync::graph::CrossHazard) -> Diagnostic + Send>;

/// What watches the interpreter run: told of each op before it executes (with the operands'
/// values), of each loop iteration and loop end, asked for its state at a loop head (the static
/// check's fixpoint, [`crate::sync::paths`]) and for its findings at the end. The sync checker
/// (`crate::sync::Checker`, a layer above the interpreter and the machine) is one; the
/// interpreter knows only this interface.
pub trait Observer: Send {
    /// `op` is about to execute with operand values `vals`.
    fn observe(&mut self, m: &Module, op: OpId, vals: &[Val]);
    /// `op` executed, leaving values `vals`: told only of the ops that place the tile they
    /// write as they run ([`pto_lower::sync::pipes::places_its_tile`]: the pops), whose bytes
    /// [`Observer::observe`] cannot know yet.
    fn executed(&mut self, _m: &Module, _op: OpId, _vals: &[Val]) {}
    /// From now on this observer reports to the machine's happens-before graph, as its core
    /// `core` (the sync checker of a core on a machine of several cores); `render` words a
    /// hazard with another core.
    fn share_graph(&mut self, _core: usize, _graph: SharedGraph, _render: CrossRender) {}
    /// Loop `op` starts iteration `index` (from 0).
    fn iteration(&mut self, op: OpId, index: u64);
    /// Loop `op` ended.
    fn loop_done(&mut self, op: OpId);
    /// The observer's state abstracted for a loop fixpoint (equal states behave alike).
    fn loop_state(&self) -> u64;
    /// The end of the run: every finding, as located diagnostics.
    fn finish(&mut self, m: &Module) -> Vec<Diagnostic>;
    /// Starts afresh for another run on `target`, keeping what it learned of the module.
    fn restart(&mut self, target: pto_lower::TargetId);
    /// Whether this observer checks the kernel's synchronisation (the sync checker): with one
    /// installed the interpreter also checks GM accesses between cores.
    fn checks_sync(&self) -> bool {
        false
    }
}

impl Val {
    fn num(self) -> Option<Num> {
        match self {
            Val::Int(i) => Some(Num::I(i)),
            Val::Float(f) => Some(Num::F(f)),
            _ => None,
        }
    }
}

/// What executing a block ended with.
enum Flow {
    /// Fell off the end.
    Done,
    /// Hit `return` with these values.
    Return(Vec<Val>),
    /// Hit a `scf.yield` / `scf.condition` with these values.
    Yield(Vec<Val>),
}

/// One executed op, for `--trace`.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEntry {
    /// Where the op is in the source.
    pub span: pto_ir::diag::Span,
    /// Its full name (`pto.tadd`).
    pub op: String,
    /// What it wrote, one item per value: `%c = f32 16x16 [1, 2, 3, 4, …, 256]`, `%i = 3`,
    /// `%t at UB+4096 (1024 B)` for an allocation.
    pub wrote: Vec<String>,
}

/// How many leading elements a trace line shows (and the last one).
const TRACE_ELEMENTS: usize = 4;

/// The values an integer scalar of type `e` holds (`index` as `i64`, `i1` as 0 and 1).
fn integer_range(e: ElemType) -> (f64, f64) {
    let bits = (e.size_bytes() * 8) as i32;
    match e {
        ElemType::I1 => (0.0, 1.0),
        ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => (0.0, 2f64.powi(bits) - 1.0),
        _ => (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0),
    }
}

/// A Level-1 value's tile right after the op that computed it: its valid region and its whole
/// capacity, both in logical order.
#[derive(Clone, Debug)]
struct Snapshot {
    region: TileData,
    full: TileData,
}

/// Whether the simulator executes `op` (with tile semantics from [`crate::exec`], or in the
/// interpreter itself: GM moves, element access, reshapes, views and the sync ops, which order
/// only). The coverage table (`pto ops --markdown`) reads it.
pub fn executes(op: Opcode) -> bool {
    crate::tables::semantics(op).is_some()
        || crate::cores::ops::semantics(op).is_some()
        || crate::comm::ops::semantics(op).is_some()
        || op.spec().family == pto_ir::ops::Family::Sync
        || matches!(
            op,
            Opcode::TLoad
                | Opcode::TStore
                | Opcode::TGetVal
                | Opcode::TSetVal
                | Opcode::TReshape
                | Opcode::Bitcast
                | Opcode::MakeTensorView
                | Opcode::PartitionView
                | Opcode::Subview
                | Opcode::TSync
                | Opcode::SyncAll
                | Opcode::AllocTile
        )
}

/// Slots of `ins` operands that an op writes without reading them first.
const WRITTEN_INS: &[&str] = &["tmp", "max", "scaling"];

/// An op's operands bound to the op table's slots: which form matched, and `(slot, value)` in
/// operand order; `None` when no form of the op matches its operands.
type SlotBinding = Option<(usize, std::rc::Rc<[(&'static str, ValueId)]>)>;

/// A simulation of one module on one target.
pub struct Sim<'m> {
    m: &'m Module,
    target: &'static Target,
    mem: Memory,
    vals: Vec<Val>,
    /// Executed ops with what they wrote, when tracing (`pto run --trace`).
    pub trace: Option<Vec<TraceEntry>>,
    /// Level-1 result values that bufferization moved into `outs`: per op, (out index, value).
    orphans: std::collections::HashMap<OpId, Vec<(usize, ValueId)>>,
    /// Their contents right after the op that defined them ran.
    snapshots: std::collections::HashMap<ValueId, Snapshot>,
    /// One array per GM pointer argument.
    gm: Vec<GmArray>,
    /// Set when a `return` inside a section ends the function.
    returned: Option<Vec<Val>>,
    /// Call depth (bounded: recursion is a trap, not a stack overflow).
    depth: usize,
    /// Run the lowerable tile ops as A2A3 vector programs (`--exec vector`).
    pub exec_vector: bool,
    /// Per tile op executed under `exec_vector`, in order of first execution: what ran, how
    /// often, and what it cost. Clearing it is fine (the index below is rebuilt).
    pub vector_log: Vec<VectorRecord>,
    /// Where each op's record is in `vector_log`.
    vector_log_index: std::collections::HashMap<OpId, usize>,
    /// The vector unit's registers.
    vstate: crate::vector::VectorState,
    /// The last vector program of each op, with the operands it was lowered for.
    vcache: std::collections::HashMap<OpId, VectorCache>,
    /// Each executed tile op's operands bound to the op table's slots ([`Self::bound_slots`]),
    /// indexed by op (a dense table: the lookup is on every tile op's path).
    bindings: Vec<Option<SlotBinding>>,
    /// Reused for the operands of each execution.
    operand_buf: Vec<(&'static str, Val)>,
    /// What the program printed (`tprint`), in pto-isa's CPU-simulator format.
    pub printed: String,
    /// Tile arguments an input was bound to.
    bound_tiles: std::collections::HashSet<ValueId>,
    /// Tile arguments of the running kernel with no input that no op has written yet: reading
    /// one is a trap naming it (unless `--default-inputs`).
    unwritten_args: std::collections::HashSet<ValueId>,
    /// `use_default_inputs` was called: unbound arguments read as their defaults.
    defaults: bool,
    /// How many ops a run may execute ([`DEFAULT_MAX_STEPS`]; `pto run --max-steps`).
    pub max_steps: u64,
    /// How far an unbound GM array may grow, in bytes ([`DEFAULT_MAX_GM_BYTES`]); an access
    /// beyond it is a trap.
    pub max_gm_bytes: usize,
    /// How matrix products accumulate ([`crate::family::MatmulOrder`]; `pto run --matmul-order`).
    pub matmul_order: crate::family::MatmulOrder,
    /// Whose words a trap about a missing input uses (the CLI's flags or Python's arguments).
    pub front_end: crate::advice::FrontEnd,
    /// What `get_block_idx` and `get_block_num` return: (0, 1) unless the kernel runs on several
    /// blocks ([`crate::cores::machine::run`]).
    pub block: (i64, i64),
    /// Ops executed so far.
    steps: u64,
    /// The step count at which [`Sim::count_step`] next leaves its fast path: the end of the
    /// budget, or the next progress report, whichever comes first.
    checkpoint: u64,
    /// Called with the number of steps executed so far (and the budget) every
    /// [`PROGRESS_EVERY`] steps (`pto run`'s progress bar). It costs the loop nothing between
    /// calls: the budget check and the report share one comparison.
    pub progress: Option<Box<dyn FnMut(u64, u64)>>,
    /// Per op (indexed by [`OpId`]), how many times it ran, when set to `Some` before
    /// [`Sim::run`] (`pto run --stats`).
    pub op_counts: Option<Vec<u64>>,
    /// The loops being executed, innermost last (where a budget overrun is reported).
    loops: Vec<OpId>,
    /// The observers installed ([`Sim::observe_with`]: the sync checker, the timeline): each
    /// op is reported to every one, in installation order.
    observers: Vec<Box<dyn Observer>>,
    /// The event-id arrays declared so far ([`crate::sync::arrays`]).
    eventid_arrays: crate::sync::arrays::EventIdArrays,
    /// Chooses the outcome of `scf.if`s and of loops with a dynamic trip count instead of the
    /// data (`pto verify --sync` explores every path, [`crate::sync::paths`]).
    pub explorer: Option<Box<crate::sync::paths::Explorer>>,
    /// Chooses the outcome of `scf.if`s whose condition is the same on every core, for every
    /// core of a machine's run (`pto verify --sync` on several cores:
    /// [`crate::sync::branches`]).
    pub branches: Option<crate::sync::branches::SharedBranches>,
    /// The configuration registers that config instructions write and later ops read.
    pub regs: crate::config::Registers,
    /// What the running op changed that no operand shows ([`crate::exec::Machine::notes`]).
    notes: Vec<String>,
    /// Tiles the running op placed anew ([`crate::exec::Machine::rebind`]).
    rebind: Vec<(&'static str, Val)>,
    /// The IMG2COL configuration arguments, parsed from their types ([`crate::fmatrix::parse`]).
    configs: Vec<Result<crate::fmatrix::ConvConfig, String>>,
    /// One TPipe FIFO per `!pto.pipe` argument.
    pub pipes: Vec<crate::fifo::Fifo>,
    /// The GM bytes `tload` read and `tstore` wrote, when a multi-block run compares them with
    /// the other blocks' ([`crate::cores::machine`]).
    pub gm_accessed: Option<crate::gm::Accessed>,
    /// Orders between cores, blocks and ranks are checked even without the pipe checker
    /// ([`Sim::check_cross`]; `--sync-check=auto` on a program without sync ops).
    cross: bool,
    /// Which core this is, its cross-core pipe handles and its block's scheduler
    /// ([`crate::cores`]); one core that runs everything unless a multi-core run set it.
    pub core: crate::cores::ops::CoreState,
    /// What `get_subblock_idx` and `get_subblock_num` return.
    pub subblock: (i64, i64),
    /// Which rank this is and how it addresses its peers' GM ([`crate::comm`]); one rank
    /// unless a multi-rank run set it.
    pub ranks: crate::comm::Ranks,
}

/// The default step budget: far more ops than a real kernel executes (the largest shared
/// sample runs a few hundred thousand), reached by a runaway loop in a few seconds.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

/// Steps between two calls of [`Sim::progress`].
pub const PROGRESS_EVERY: u64 = 4096;

/// The default size limit of an unbound GM array (which grows to the furthest element a kernel
/// touches): 1 GiB.
pub const DEFAULT_MAX_GM_BYTES: usize = crate::gm::MAX_GROWN;

/// What `--exec vector` keeps per op: its operand slots and its last program with the
/// operands it was lowered for.
struct VectorCache {
    slots: Vec<(&'static str, ValueId)>,
    lowered: Option<(pto_lower::vector::TileOp, pto_lower::vector::ir::Program)>,
}

/// One tile op executed under `--exec vector`, its executions summed (one record per op, so
/// a long run's log stays as small as its program).
#[derive(Clone, Debug, PartialEq)]
pub struct VectorRecord {
    /// The op.
    pub id: OpId,
    /// `pto.trowsum`.
    pub op: String,
    /// Where the op is in the source.
    pub span: pto_ir::diag::Span,
    /// How many times it ran.
    pub runs: u64,
    /// Vector cost of all its runs, or why it ran with tile semantics (the first reason).
    pub cost: Result<pto_lower::vector::ir::Stats, String>,
}

fn trap(m: &Module, op: OpId, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagClass::SimTrap, m.op_span(op), msg).with_op(m.op(op).opcode.full_name())
}

impl<'m> Sim<'m> {
    /// Prepares a simulation: memories sized for `target`, tile arguments placed as the
    /// memory planner places them.
    pub fn new(m: &'m Module, target: &'static Target) -> Result<Sim<'m>, Vec<Diagnostic>> {
        let mut orphans: std::collections::HashMap<OpId, Vec<(usize, ValueId)>> = std::collections::HashMap::new();
        for (i, v) in m.values.iter().enumerate() {
            if let ValueDef::OpResult(op, n) = v.def
                && m.ops.get(op.index()).is_some_and(|d| !d.results.contains(&ValueId(i as u32)))
            {
                orphans.entry(op).or_default().push((n as usize, ValueId(i as u32)));
            }
        }
        let mut sim = Sim {
            m,
            target,
            mem: Memory::new(target),
            vals: vec![Val::Unset; m.values.len()],
            trace: None,
            orphans,
            snapshots: std::collections::HashMap::new(),
            gm: Vec::new(),
            returned: None,
            depth: 0,
            exec_vector: false,
            vector_log: Vec::new(),
            vstate: Default::default(),
            vcache: Default::default(),
            vector_log_index: Default::default(),
            bindings: vec![None; m.ops.len()],
            operand_buf: Vec::new(),
            printed: String::new(),
            bound_tiles: Default::default(),
            unwritten_args: Default::default(),
            defaults: false,
            max_steps: DEFAULT_MAX_STEPS,
            max_gm_bytes: DEFAULT_MAX_GM_BYTES,
            matmul_order: Default::default(),
            front_end: Default::default(),
            block: (0, 1),
            steps: 0,
            checkpoint: 0,
            progress: None,
            op_counts: None,
            loops: Vec::new(),
            observers: Vec::new(),
            explorer: None,
            branches: None,
            eventid_arrays: Default::default(),
            regs: Default::default(),
            notes: Vec::new(),
            rebind: Vec::new(),
            configs: Vec::new(),
            pipes: Vec::new(),
            gm_accessed: None,
            cross: false,
            core: Default::default(),
            subblock: (0, 1),
            ranks: Default::default(),
        };
        let mut pipe_names = Vec::new();
        for (i, v) in m.values.iter().enumerate() {
            if let (ValueDef::BlockArg(..), Type::Opaque(ty)) = (v.def, m.types.get(v.ty))
                && ty.starts_with("!pto.fmatrix_config")
            {
                sim.vals[i] = Val::Conv(sim.configs.len() as u32);
                sim.configs.push(crate::fmatrix::parse(ty));
            }
            if let (ValueDef::BlockArg(..), Type::Pipe) = (v.def, m.types.get(v.ty)) {
                sim.vals[i] = Val::Pipe(sim.pipes.len() as u32);
                sim.pipes.push(Default::default());
                pipe_names.push(v.name.as_str());
            }
            let gm_elem = match m.types.get(v.ty) {
                Type::Ptr(e) => Some(*e),
                // A `!pto.group` argument is one GM buffer per rank ([`crate::comm`]).
                ty @ Type::Opaque(_) if ty.is_opaque("!pto.group<") => ty.elem_type(),
                // A GM `memref` argument: a tensor of its static shape (as `pto compile`'s
                // `memref_arg_view` takes it).
                ty if ty.is_gm_memref() => ty.elem_type(),
                _ => None,
            };
            if let (ValueDef::BlockArg(..), Some(e)) = (v.def, gm_elem) {
                let mut array = GmArray::new(v.name.clone(), e);
                sim.vals[i] = Val::Ptr(sim.gm.len());
                if let Some((view, shape)) = memref_view(m.types.get(v.ty), sim.gm.len()) {
                    array.shape = shape;
                    sim.vals[i] = Val::View(view);
                }
                sim.gm.push(array);
            }
        }
        // Each pipe's FIFO slots in GM (`talloc`, the GM-slot forms of `tpush`/`tpop`/`tfree`).
        for (fifo, name) in sim.pipes.iter_mut().zip(pipe_names) {
            fifo.slots.array = sim.gm.len();
            sim.gm.push(crate::fifo::slot_array(name));
        }
        let placements = pto_lower::plan::assign(m, target).map_err(|d| d.0)?;
        for p in placements {
            if let (Some(addr), ValueDef::BlockArg(..)) = (p.addr, m.values[p.value.index()].def)
                && let Some(t) = m.value_type(p.value).tile()
            {
                sim.vals[p.value.index()] = Val::Tile(view_of(t, p.loc, addr, None, None));
            }
        }
        Ok(sim)
    }

    /// The value named `%name` (without `%`), if any.
    pub fn find(&self, name: &str) -> Option<ValueId> {
        let name = name.strip_prefix('%').unwrap_or(name);
        self.m.values.iter().position(|v| v.name == name).map(|i| ValueId(i as u32))
    }

    /// The tile argument `name` that `data` may be bound to (same element type).
    fn tile_argument(&self, name: &str, data: &TileData) -> Result<(ValueId, TileView), String> {
        let v = self.find(name).ok_or_else(|| format!("no value named `%{name}`"))?;
        let Val::Tile(view) = self.vals[v.index()] else {
            return Err(format!("`%{name}` is not a tile argument (inputs bind to `.arg` / function tile arguments)"));
        };
        if data.dtype != view.desc.dtype {
            return Err(format!("`%{name}` holds {}, the data is {}", view.desc.dtype, data.dtype));
        }
        Ok((v, view))
    }

    /// Writes `data` into the tile argument `name`, in logical (row, column) order whatever
    /// the tile's layout: a full-capacity array (or a flat one with as many elements) fills the
    /// whole tile; a valid-shape array fills the valid region and the rest is poisoned with 0xA5
    /// bytes.
    pub fn bind_tile(&mut self, name: &str, data: &TileData) -> Result<(), String> {
        let (v, view) = self.tile_argument(name, data)?;
        let (rows, cols) = (view.desc.rows as usize, view.desc.cols as usize);
        let size = view.elem_size();
        let n = data.elements()?;
        let storage = self.mem.slice_mut(view.loc, view.addr, view.size_bytes() as usize).map_err(|f| f.0)?;
        let fill = |storage: &mut [u8], (rows, cols): (usize, usize)| -> Result<(), String> {
            for r in 0..rows {
                for c in 0..cols {
                    let src = (r * cols + c) * size;
                    crate::view::element_mut(storage, &view, r, c).map_err(|f| f.0)?.copy_from_slice(&data.bytes[src..src + size]);
                }
            }
            Ok(())
        };
        if (data.rows, data.cols) == (rows, cols) || n == rows * cols {
            fill(storage, (rows, cols))?;
            self.bound_tiles.insert(v);
            Ok(())
        } else if (data.rows, data.cols) == (view.vrows, view.vcols) {
            storage.fill(0xA5);
            fill(storage, (view.vrows, view.vcols))?;
            self.bound_tiles.insert(v);
            Ok(())
        } else {
            Err(format!("`%{name}` is {rows}x{cols} (valid {}x{}), the data is {}x{}", view.vrows, view.vcols, data.rows, data.cols))
        }
    }

    /// Writes a full-capacity array into the tile argument `name` byte for byte in the tile's
    /// storage order (boxes of a fractal tile, columns of a col-major one) — the order the
    /// pto-isa CPU simulator's golden vectors are written in.
    pub fn bind_tile_storage(&mut self, name: &str, data: &TileData) -> Result<(), String> {
        let (v, view) = self.tile_argument(name, data)?;
        let (rows, cols) = (view.desc.rows as usize, view.desc.cols as usize);
        if data.elements()? != rows * cols {
            return Err(format!("`%{name}` is {rows}x{cols}; storage-order data must fill it, the data is {}x{}", data.rows, data.cols));
        }
        let storage = self.mem.slice_mut(view.loc, view.addr, rows * cols * view.elem_size()).map_err(|f| f.0)?;
        storage.copy_from_slice(&data.bytes);
        self.bound_tiles.insert(v);
        Ok(())
    }

    /// Binds the GM array of pointer argument `name` (flat, in element order).
    pub fn bind_gm(&mut self, name: &str, data: &TileData) -> Result<(), String> {
        let v = self.find(name).ok_or_else(|| format!("no value named `%{name}`"))?;
        let i = match self.vals[v.index()] {
            Val::Ptr(i) => i,
            Val::View(view) if self.m.value_type(v).is_gm_memref() => view.arg,
            _ => return Err(format!("`%{name}` is not a pointer argument")),
        };
        let Some(e) = self.m.value_type(v).elem_type() else { return Err(format!("`%{name}` is not a pointer argument")) };
        if e != data.dtype {
            return Err(format!("`%{name}` points to {e}, the data is {}", data.dtype));
        }
        self.gm[i].set_bytes(&data.bytes);
        self.gm[i].bound = true;
        self.gm[i].shape = Some((data.rows, data.cols));
        Ok(())
    }

    /// Every GM array the kernel wrote, after the run: in the shape of the array bound to it
    /// (a bound array keeps its size), 1-D for an array that grew on demand.
    pub fn gm_outputs(&self) -> Vec<(String, TileData)> {
        gm_outputs(self.m, &self.gm)
    }

    /// The GM arrays (one per pointer argument, in argument order): a multi-core run starts
    /// every block from a copy of a prepared simulation's arrays.
    pub fn gm_arrays(&self) -> &[GmArray] {
        &self.gm
    }

    /// Replaces the GM arrays with `gm`, returning the old ones (a multi-core run moves a
    /// block's shared arrays in and out).
    pub fn replace_gm(&mut self, gm: Vec<GmArray>) -> Vec<GmArray> {
        std::mem::replace(&mut self.gm, gm)
    }

    /// Moves this simulation's GM arrays to indices `base..` of a larger vector (a
    /// multi-rank run puts every rank's arrays in one vector, rank `r`'s at `r * n`): every
    /// pointer argument's value is shifted by `base`.
    pub fn shift_gm(&mut self, base: usize) {
        for v in &mut self.vals {
            match v {
                Val::Ptr(i) => *i += base,
                // A GM `memref` argument's view (the only views made before the run).
                Val::View(view) => view.arg += base,
                _ => {}
            }
        }
        for fifo in &mut self.pipes {
            fifo.slots.array += base;
        }
    }

    /// Ops (and loop iterations) executed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Deterministic inputs for everything not bound: GM arrays that are not bound get the
    /// pattern of [`crate::gm::pattern_value`] (a signal of `tnotify`/`twait`/`ttest`: 0),
    /// scalar arguments `1.0` (floats), the size they
    /// declare (integers that size a valid shape or a tensor view, [`crate::defaults`]) or `0`
    /// (other integers: block 0), tile arguments keep their (zeroed) storage.
    pub fn use_default_inputs(&mut self) {
        self.defaults = true;
        for a in &mut self.gm {
            a.pattern = !a.bound;
        }
        // A signal starts at 0 ([`crate::defaults::signal_pointers`]).
        for v in crate::defaults::signal_pointers(self.m) {
            if let Val::Ptr(i) = self.vals[v.index()]
                && let Some(a) = self.gm.get_mut(i)
            {
                a.pattern = false;
            }
        }
        let sizes = crate::defaults::size_defaults(self.m, self.block.1);
        for (i, v) in self.m.values.iter().enumerate() {
            if let (ValueDef::BlockArg(..), Type::Scalar(e), Val::Unset) = (v.def, self.m.types.get(v.ty), self.vals[i]) {
                let size = sizes.get(&ValueId(i as u32)).copied();
                self.vals[i] = if e.is_float() { Val::Float(1.0) } else { Val::Int(size.unwrap_or(0)) };
            }
        }
    }

    /// Binds a scalar argument.
    pub fn bind_scalar(&mut self, name: &str, value: f64) -> Result<(), String> {
        let v = self.find(name).ok_or_else(|| format!("no value named `%{name}`"))?;
        self.vals[v.index()] = match self.m.value_type(v) {
            Type::Scalar(e) if e.is_float() => {
                let rounded = dispatch!(*e, T => T::from_f64(value).to_f64(), _ => value);
                if value.is_finite() && !rounded.is_finite() {
                    return Err(format!("{value} does not fit `%{name}` ({e})"));
                }
                Val::Float(value)
            }
            Type::Scalar(e) => {
                if value.fract() != 0.0 || !value.is_finite() {
                    return Err(format!("`%{name}` is {e}: {value} is not an integer"));
                }
                let (lo, hi) = integer_range(*e);
                if value < lo || value > hi {
                    return Err(format!("{value} does not fit `%{name}` ({e}: {lo} to {hi})"));
                }
                Val::Int(value as i64)
            }
            other => return Err(format!("`%{name}` is a {}, not a scalar", other.class_name())),
        };
        Ok(())
    }

    /// The valid region of the tile value `name` (row-major): its contents at the end of the
    /// run, or — for a Level-1 value whose buffer later ops reused — right after it was computed.
    pub fn read_tile(&self, name: &str) -> Result<TileData, String> {
        let v = self.find(name).ok_or_else(|| format!("no value named `%{name}`"))?;
        if let Some(snap) = self.snapshots.get(&v) {
            return Ok(snap.region.clone());
        }
        let Val::Tile(view) = self.vals[v.index()] else { return Err(format!("`%{name}` is not a computed tile")) };
        family::read_region(&self.mem, &view).map_err(|f| f.0)
    }

    /// The whole tile value `name` (its capacity, padding included), in logical (row, column)
    /// order whatever its layout.
    pub fn read_tile_full(&self, name: &str) -> Result<TileData, String> {
        let v = self.find(name).ok_or_else(|| format!("no value named `%{name}`"))?;
        if let Some(snap) = self.snapshots.get(&v) {
            return Ok(snap.full.clone());
        }
        let Val::Tile(view) = self.vals[v.index()] else { return Err(format!("`%{name}` is not a computed tile")) };
        self.read_view_full(&view)
    }

    /// The whole capacity of a tile in logical order.
    fn read_view_full(&self, view: &TileView) -> Result<TileData, String> {
        let storage = self.mem.slice(view.loc, view.addr, view.size_bytes() as usize).map_err(|f| f.0)?;
        let (rows, cols) = (view.desc.rows as usize, view.desc.cols as usize);
        let mut bytes = Vec::with_capacity(storage.len());
        for r in 0..rows {
            for c in 0..cols {
                bytes.extend_from_slice(crate::view::element(storage, view, r, c).map_err(|f| f.0)?);
            }
        }
        Ok(TileData { dtype: view.desc.dtype, rows, cols, bytes })
    }

    /// Adds `observer`, which sees every op of the run from now on, after those installed
    /// before (the sync checker: `pto_sim::sync::check`; the timeline:
    /// `pto_sim::timeline::Timeline`); their findings are [`Sim::sync_diagnostics`] after the run.
    pub fn observe_with(&mut self, observer: Box<dyn Observer>) {
        self.observers.push(observer);
    }

    /// The sync checker installed, if any (to restart it for another run of the same module).
    pub fn observer_mut(&mut self) -> Option<&mut (dyn Observer + 'static)> {
        self.observers.iter_mut().find(|o| o.checks_sync()).map(|o| &mut **o)
    }

    /// Whether a sync checker is installed.
    fn checking_sync(&self) -> bool {
        self.observers.iter().any(|o| o.checks_sync())
    }

    /// The module this simulation runs.
    pub fn module(&self) -> &'m Module {
        self.m
    }

    /// The target it runs for.
    pub fn target(&self) -> &'static Target {
        self.target
    }

    /// Checks the orders between cores, blocks and ranks (GM accesses against pipe slots,
    /// FFTS flags, `syncall` and signals) but not between the pipes of one core: what
    /// `--sync-check=auto` does for a program with no sync op, whose pipes the insertion pass
    /// would order (it never adds an order between cores).
    pub fn check_cross(&mut self) {
        self.cross = true;
    }

    /// Whether GM accesses are checked against other cores, blocks and ranks.
    pub fn checks_cross(&self) -> bool {
        self.cross || self.checking_sync()
    }

    /// The sync checker's findings at the end of the run (hazards, deadlocks, unpaired flags,
    /// misuse); empty when not checking.
    pub fn sync_diagnostics(&mut self) -> Vec<Diagnostic> {
        let m = self.m;
        self.observers.iter_mut().flat_map(|o| o.finish(m)).collect()
    }

    /// Runs the entry function (the one marked `pto.entry`, else the first with a body), or
    /// the top-level statements of a PTO-AS program.
    pub fn run(&mut self) -> Result<(), Diagnostic> {
        let Some((func, block)) = self.entry() else { return Ok(()) };
        if let Some(Payload::Func { name, .. }) = func.map(|f| &self.m.op(f).payload)
            && !self.runs_here(name)
        {
            return Ok(());
        }
        if !self.defaults {
            self.unwritten_args = self
                .m
                .block(block)
                .args
                .iter()
                .copied()
                .filter(|a| matches!(self.vals[a.index()], Val::Tile(_)) && !self.bound_tiles.contains(a))
                .collect();
        }
        if let Some(counts) = &mut self.op_counts {
            counts.resize(self.m.ops.len(), 0);
        }
        self.checkpoint = self.next_checkpoint();
        self.exec_block(block).map(|_| ())
    }

    /// Traps when tile op `op` reads a kernel argument that has no input and nothing wrote
    /// (an operand the op only writes, [`WRITTEN_INS`], may be unset); afterwards its `outs`
    /// and those count as written.
    fn check_arguments_written(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        if data.opcode.spec().syntax == pto_ir::ops::Syntax::Tile {
            let slots = pto_lower::binding::bind(m, op).map(|(_, b)| b).unwrap_or_default();
            let written_only = |v: ValueId| slots.iter().any(|b| b.value == v && WRITTEN_INS.contains(&b.slot));
            if let Some(&v) = data.ins().iter().find(|&&v| self.unwritten_args.contains(&v) && !written_only(v)) {
                let name = &m.values[v.index()].name;
                return Err(trap(
                    m,
                    op,
                    format!(
                        "reads tile argument `%{name}`, which has no input and no op wrote ({})",
                        self.front_end.give(name, crate::advice::Missing::Data)
                    ),
                ));
            }
            for b in slots.iter().filter(|b| WRITTEN_INS.contains(&b.slot) && b.slot != "tmp") {
                self.unwritten_args.remove(&b.value);
            }
        }
        for v in data.outs() {
            self.unwritten_args.remove(v);
        }
        Ok(())
    }

    /// The block `run` executes: the entry function's body (the one marked `pto.entry`, else
    /// the first with a body), or the top-level block of a PTO-AS program.
    fn entry_block(&self) -> Option<BlockId> {
        self.entry().map(|(_, b)| b)
    }

    /// The entry function (if the program has functions) and the block `run` executes.
    fn entry(&self) -> Option<(Option<OpId>, BlockId)> {
        let m = self.m;
        let &top = m.region(m.body?).blocks.first()?;
        let mut funcs = Vec::new();
        let mut stack = vec![top];
        while let Some(b) = stack.pop() {
            for &op in &m.block(b).ops {
                match m.op(op).opcode {
                    Opcode::FuncFunc if !m.op(op).regions.is_empty() => funcs.push(op),
                    Opcode::Module => stack.extend(m.op(op).regions.iter().flat_map(|&r| m.region(r).blocks.iter().copied())),
                    _ => {}
                }
            }
        }
        let entry = funcs.iter().copied().find(|&f| m.op(f).attr("pto.entry").is_some()).or(funcs.first().copied());
        Some(match entry {
            Some(f) => (Some(f), m.region(m.op(f).regions[0]).blocks[0]),
            None => (None, top),
        })
    }

    /// Whether function `name` runs on this core: a cube function only on the AIC, a vector
    /// function only on AIVs (only AIV0 under A5's no-split guard); everything on the one
    /// core of a run that is not a mix kernel ([`crate::cores::topology`]).
    fn runs_here(&self, name: &str) -> bool {
        let kind = self.core.actor.core;
        let Some(topo) = self.core.topo.as_ref().filter(|_| kind != crate::cores::CoreKind::Whole) else { return true };
        let side_ok = topo.sides.get(name).is_none_or(|&side| kind.runs(side));
        side_ok && !(topo.subblock0_only.contains(name) && matches!(kind, crate::cores::CoreKind::Aiv(i) if i > 0))
    }

    /// Runs an op between cores ([`crate::cores::ops`]); where it would wait, the core waits
    /// for its scheduler to run it again and retries.
    fn exec_core_op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        use crate::cores::ops::{CoreCx, Stop};
        let m = self.m;
        let opcode = m.op(op).opcode;
        let run = crate::cores::ops::semantics(opcode)
            .or_else(|| crate::comm::ops::semantics(opcode))
            .ok_or_else(|| trap(m, op, "not an op between cores"))?;
        loop {
            let mut cx = CoreCx {
                m,
                op,
                vals: &mut self.vals,
                mem: &mut self.mem,
                gm: &mut self.gm,
                gm_limit: self.max_gm_bytes,
                notes: &mut self.notes,
                core: &mut self.core,
                target: self.target,
                ranks: &self.ranks,
                check_gm: self.cross || self.observers.iter().any(|o| o.checks_sync()),
            };
            match run(&mut cx) {
                Ok(()) => break,
                Err(Stop::Fault(f)) => return Err(trap(m, op, f)),
                // A kernel's own `!pto.pipe` argument: the single-core FIFO.
                Err(Stop::Local) => return self.exec_tile(op),
                Err(Stop::Wait(w)) => {
                    let Some(link) = self.core.link.clone() else {
                        return Err(trap(m, op, format!("waits for {}, and no other core is simulated", w.0)));
                    };
                    let len = self.trace.as_ref().map_or(0, Vec::len);
                    link.block(&mut self.gm, op, w.0, len).map_err(|_| crate::cores::sched::stopped(m, op))?;
                }
            }
        }
        if let Some(link) = self.core.link.clone() {
            let len = self.trace.as_ref().map_or(0, Vec::len);
            link.preempt(&mut self.gm, len).map_err(|_| crate::cores::sched::stopped(m, op))?;
        }
        Ok(())
    }

    /// The kernel's arguments (of the block `run` executes), with their types: what inputs
    /// bind to.
    pub fn arguments(&self) -> Vec<(String, Type)> {
        let Some(block) = self.entry_block() else { return Vec::new() };
        self.m.block(block).args.iter().map(|&a| (self.m.values[a.index()].name.clone(), self.m.value_type(a).clone())).collect()
    }

    fn exec_block(&mut self, b: BlockId) -> Result<Flow, Diagnostic> {
        for &op in &self.m.block(b).ops {
            if let Some(counts) = &mut self.op_counts {
                counts[op.index()] += 1;
            }
            match self.m.op(op).opcode {
                Opcode::FuncFunc | Opcode::Module => continue,
                Opcode::FuncReturn => {
                    let vals = self.m.op(op).operands.iter().map(|v| self.vals[v.index()]).collect();
                    return Ok(Flow::Return(vals));
                }
                Opcode::ScfYield | Opcode::ScfCondition => {
                    let vals = self.m.op(op).operands.iter().map(|v| self.vals[v.index()]).collect();
                    return Ok(Flow::Yield(vals));
                }
                _ => {
                    self.count_step(op)?;
                    if !self.unwritten_args.is_empty() {
                        self.check_arguments_written(op)?;
                    }
                    for o in &mut self.observers {
                        o.observe(self.m, op, &self.vals);
                    }
                    self.exec_op(op)?;
                    if pto_lower::sync::pipes::places_its_tile(self.m.op(op).opcode) {
                        for o in &mut self.observers {
                            o.executed(self.m, op, &self.vals);
                        }
                    }
                    if let Some(v) = self.returned.take() {
                        return Ok(Flow::Return(v));
                    }
                }
            }
            if self.trace.is_some() {
                let mut entry = self.trace_entry(op);
                entry.wrote.append(&mut self.notes);
                self.trace.get_or_insert_default().push(entry);
            } else if !self.notes.is_empty() {
                self.notes.clear();
            }
        }
        Ok(Flow::Done)
    }

    /// The trace line of `op`, which just ran: its results and `outs` (named as the source
    /// names them: a Level-1 result moved into a buffer keeps its SSA name).
    fn trace_entry(&self, op: OpId) -> TraceEntry {
        let data = self.m.op(op);
        let moved = self.orphans.get(&op);
        let source_name = |i: usize, v: ValueId| moved.and_then(|l| l.iter().find(|(k, _)| *k == i)).map_or(v, |&(_, orig)| orig);
        let outs = data.outs().iter().enumerate().map(|(i, &v)| (source_name(i, v), v));
        let wrote =
            data.results.iter().map(|&v| (v, v)).chain(outs).filter_map(|(named, v)| self.describe(data.opcode, named, v)).collect();
        TraceEntry { span: self.m.op_span(op), op: data.opcode.full_name().to_string(), wrote }
    }

    /// `%name = …` for a value an op wrote (`named` gives the name, `v` the contents).
    fn describe(&self, opcode: Opcode, named: ValueId, v: ValueId) -> Option<String> {
        let name = &self.m.values[named.index()].name;
        Some(match &self.vals[v.index()] {
            Val::Tile(view) if opcode == Opcode::AllocTile => {
                format!("%{name} at {}+{} ({} B)", self.target.buffer(view.loc).name, view.addr, view.size_bytes())
            }
            Val::Tile(view) => {
                let values = family::read_region(&self.mem, view).map(|d| d.to_json_values()).unwrap_or_default();
                let shown: Vec<String> = values.iter().take(TRACE_ELEMENTS).map(|x| x.to_string()).collect();
                let tail = match values.len() {
                    n if n > TRACE_ELEMENTS + 1 => format!(", …, {}", values[n - 1]),
                    n if n == TRACE_ELEMENTS + 1 => format!(", {}", values[n - 1]),
                    _ => String::new(),
                };
                format!("%{name} = {} {}x{} [{}{tail}]", view.desc.dtype, view.vrows, view.vcols, shown.join(", "))
            }
            Val::Int(i) => format!("%{name} = {i}"),
            Val::Float(f) => format!("%{name} = {f}"),
            Val::View(view) => {
                let dims = |d: &[i64]| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
                let (shape, strides) = (&view.shape[..view.rank], &view.strides[..view.rank]);
                let base = self.gm.get(view.arg).map_or("?", |a| a.name.as_str());
                format!("%{name} = view of %{base} at {}, shape [{}], strides [{}]", view.offset, dims(shape), dims(strides))
            }
            _ => return None,
        })
    }

    /// `set_validshape %tile, %rows, %cols`: the tile's valid shape from now on, within its
    /// static shape (pto-isa `Tile::SetValidShape` on a tile with a dynamic valid shape).
    fn exec_set_validshape(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let &[tile, rows, cols] = m.op(op).operands.as_slice() else {
            return Err(trap(m, op, "set_validshape takes a tile, a row count and a column count"));
        };
        let Val::Tile(mut view) = self.vals[tile.index()] else {
            return Err(trap(m, op, format!("`%{}` is not a tile", m.values[tile.index()].name)));
        };
        let (r, c) = (self.int(op, rows)?, self.int(op, cols)?);
        let (cap_r, cap_c) = (view.desc.rows as i64, view.desc.cols as i64);
        if !(0..=cap_r).contains(&r) || !(0..=cap_c).contains(&c) {
            return Err(trap(m, op, format!("valid shape {r}x{c} is outside the tile's {cap_r}x{cap_c}")));
        }
        (view.vrows, view.vcols) = (r as usize, c as usize);
        self.vals[tile.index()] = Val::Tile(view);
        Ok(())
    }

    fn int(&self, op: OpId, v: ValueId) -> Result<i64, Diagnostic> {
        match self.vals[v.index()] {
            Val::Int(i) => Ok(i),
            Val::Unset if matches!(self.m.values[v.index()].def, ValueDef::BlockArg(..)) => {
                let name = &self.m.values[v.index()].name;
                Err(trap(
                    self.m,
                    op,
                    format!("argument `%{name}` has no value ({})", self.front_end.give(name, crate::advice::Missing::Number)),
                ))
            }
            other => Err(trap(self.m, op, format!("`%{}` is not an integer ({other:?})", self.m.values[v.index()].name))),
        }
    }

    /// Sets the single result of `op` (most scalar ops: no vector allocated per step).
    fn set_result(&mut self, op: OpId, val: Val) {
        if let Some(&r) = self.m.op(op).results.first() {
            self.vals[r.index()] = val;
        }
    }

    fn set_results(&mut self, op: OpId, vals: Vec<Val>) {
        for (&r, v) in self.m.op(op).results.iter().zip(vals) {
            self.vals[r.index()] = v;
        }
    }

    fn exec_op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let spec = data.opcode.spec();
        match data.opcode {
            Opcode::ArithConstant => {
                let v = match data.attr("value") {
                    Some(Attr::Int(i, _)) => Val::Int(*i),
                    Some(Attr::Bool(b)) => Val::Int(*b as i64),
                    Some(Attr::Float(f, _)) => Val::Float(*f),
                    // A vector constant (`dense<...> : vector<4xi16>`) only fills tmrgsort's
                    // `executed` slot, which the simulator writes and never reads.
                    Some(Attr::Opaque(d)) if d.starts_with("dense<") => Val::Unset,
                    _ => return Err(trap(m, op, "unsupported constant")),
                };
                self.set_result(op, v);
            }
            Opcode::ArithAddi
            | Opcode::ArithSubi
            | Opcode::ArithMuli
            | Opcode::ArithDivsi
            | Opcode::ArithRemsi
            | Opcode::ArithAndi
            | Opcode::ArithOri
            | Opcode::ArithXori
            | Opcode::ArithMinsi
            | Opcode::ArithMaxsi => {
                let (a, b) = (self.int(op, data.operands[0])?, self.int(op, data.operands[1])?);
                let r = match data.opcode {
                    Opcode::ArithAddi => a.wrapping_add(b),
                    Opcode::ArithSubi => a.wrapping_sub(b),
                    Opcode::ArithMuli => a.wrapping_mul(b),
                    Opcode::ArithDivsi | Opcode::ArithRemsi if b == 0 => return Err(trap(m, op, "integer division by zero")),
                    Opcode::ArithDivsi => a.wrapping_div(b),
                    Opcode::ArithRemsi => a.wrapping_rem(b),
                    Opcode::ArithAndi => a & b,
                    Opcode::ArithOri => a | b,
                    Opcode::ArithXori => a ^ b,
                    Opcode::ArithMinsi => a.min(b),
                    _ => a.max(b),
                };
                self.set_result(op, Val::Int(r));
            }
            Opcode::ArithCmpi => {
                let (a, b) = (self.int(op, data.operands[0])?, self.int(op, data.operands[1])?);
                let pred = match data.attr("predicate") {
                    Some(Attr::Opaque(p)) => p.as_str(),
                    _ => "eq",
                };
                let Some(r) = pto_ir::ops::cmpi_holds(pred, a, b) else {
                    return Err(trap(m, op, format!("`{pred}` is not an `arith.cmpi` predicate")));
                };
                self.set_result(op, Val::Int(r as i64));
            }
            Opcode::ArithSelect => {
                let c = self.int(op, data.operands[0])?;
                let v = self.vals[data.operands[if c != 0 { 1 } else { 2 }].index()];
                self.set_result(op, v);
            }
            Opcode::ArithDivui
            | Opcode::ArithRemui
            | Opcode::ArithCeildivsi
            | Opcode::ArithCeildivui
            | Opcode::ArithFloordivsi
            | Opcode::ArithShli
            | Opcode::ArithShrsi
            | Opcode::ArithShrui
            | Opcode::ArithMaxui
            | Opcode::ArithMinui
            | Opcode::ArithAddf
            | Opcode::ArithSubf
            | Opcode::ArithMulf
            | Opcode::ArithDivf
            | Opcode::ArithRemf
            | Opcode::ArithMaximumf
            | Opcode::ArithMinimumf
            | Opcode::ArithMaxnumf
            | Opcode::ArithMinnumf => {
                let (a, b) = (self.scalar(op, data.operands[0])?, self.scalar(op, data.operands[1])?);
                let t = self.scalar_type(data.results.first().copied().unwrap_or(data.operands[0]));
                let r = crate::scalar_arith::binary(data.opcode, a, b, t).map_err(|e| trap(m, op, e))?;
                self.set_scalar(op, r);
            }
            Opcode::ArithCmpf => {
                let (a, b) = (self.scalar(op, data.operands[0])?, self.scalar(op, data.operands[1])?);
                let pred = match data.attr("predicate") {
                    Some(Attr::Opaque(p)) => p.as_str(),
                    Some(Attr::Int(i, _)) => pto_ir::ops::CMPF_PREDICATES.get(*i as usize).copied().unwrap_or("?"),
                    _ => "?",
                };
                let (crate::scalar_arith::Scalar::Float(a), crate::scalar_arith::Scalar::Float(b)) = (a, b) else {
                    return Err(trap(m, op, "`arith.cmpf` of integer operands"));
                };
                let Some(r) = crate::scalar_arith::cmpf_holds(pred, a, b) else {
                    return Err(trap(m, op, format!("`{pred}` is not an `arith.cmpf` predicate")));
                };
                self.set_result(op, Val::Int(r as i64));
            }
            Opcode::ArithIndexCast
            | Opcode::ArithIndexCastui
            | Opcode::ArithExtsi
            | Opcode::ArithExtui
            | Opcode::ArithTrunci
            | Opcode::ArithSitofp
            | Opcode::ArithUitofp
            | Opcode::ArithFptosi
            | Opcode::ArithFptoui
            | Opcode::ArithExtf
            | Opcode::ArithTruncf
            | Opcode::ArithNegf
            | Opcode::ArithBitcast => {
                let (v, from) = (data.operands[0], self.scalar_type(data.operands[0]));
                let to = self.scalar_type(data.results.first().copied().unwrap_or(v));
                let r = crate::scalar_arith::convert(data.opcode, self.scalar(op, v)?, from, to).map_err(|e| trap(m, op, e))?;
                self.set_scalar(op, r);
            }
            Opcode::ScfFor => return self.exec_for(op),
            // The end of a `memref.alloc`'s lifetime: placement already accounted for it.
            Opcode::MemrefDealloc => {}
            Opcode::ScfWhile => return self.exec_while(op),
            Opcode::FuncCall => return self.exec_call(op),
            Opcode::GetBlockIdx => self.set_results(op, vec![Val::Int(self.block.0)]),
            Opcode::GetBlockNum => self.set_results(op, vec![Val::Int(self.block.1)]),
            Opcode::GetSubblockIdx => self.set_results(op, vec![Val::Int(self.subblock.0)]),
            Opcode::GetSubblockNum => self.set_results(op, vec![Val::Int(self.subblock.1)]),
            Opcode::SectionCube | Opcode::SectionVector => {
                let side = if data.opcode == Opcode::SectionCube { crate::cores::Side::Cube } else { crate::cores::Side::Vector };
                if !self.core.actor.core.runs(side) {
                    return Ok(());
                }
                for &r in &data.regions {
                    for &b in &m.region(r).blocks {
                        if let Flow::Return(v) = self.exec_block(b)? {
                            self.returned = Some(v);
                            return Ok(());
                        }
                    }
                }
            }
            Opcode::ScfIf => {
                let c = self.int(op, data.operands[0])?;
                let c = match (&mut self.explorer, &self.branches) {
                    (Some(e), _) if !is_constant(m, data.operands[0]) => e.decide(crate::sync::paths::Decision::Branch, c != 0) as i64,
                    (None, Some(b)) if !is_constant(m, data.operands[0]) => {
                        let mut b = b.lock().unwrap_or_else(|e| e.into_inner());
                        b.decide(m, op, data.operands[0], c != 0) as i64
                    }
                    _ => c,
                };
                let region = if c != 0 { data.regions.first() } else { data.regions.get(1) };
                if let Some(&r) = region
                    && let Flow::Yield(vals) = self.exec_block(m.region(r).blocks[0])?
                {
                    self.set_results(op, vals);
                }
            }
            Opcode::AllocTile => self.exec_alloc(op)?,
            Opcode::TGetVal | Opcode::TSetVal => {
                let (tile_v, index_v, value_v) = element_operands(data);
                let tile = self.tile(op, tile_v)?;
                let index = self.int(op, index_v)?;
                if data.opcode == Opcode::TGetVal {
                    let v = family::get_element(&self.mem, &tile, index).map_err(|f| trap(m, op, f.0))?;
                    let is_float = matches!(m.value_type(data.results[0]), pto_ir::Type::Scalar(e) if e.is_float());
                    let val = match v {
                        Num::I(i) if is_float => Val::Float(i as f64),
                        Num::I(i) => Val::Int(i),
                        Num::F(f) if is_float => Val::Float(f),
                        Num::F(f) => Val::Int(f as i64),
                    };
                    self.set_result(op, val);
                } else {
                    let value = value_v.and_then(|v| self.vals[v.index()].num()).ok_or_else(|| trap(m, op, "missing value operand"))?;
                    family::set_element(&mut self.mem, &tile, index, value).map_err(|f| trap(m, op, f.0))?;
                }
            }
            Opcode::TReshape | Opcode::Bitcast => {
                // Same bytes, another tile type: a view at the source's address.
                let src = self.tile(op, data.operands[0])?;
                let res = data.results[0];
                let Some(desc) = m.value_type(res).tile().copied() else { return Err(trap(m, op, "the cast result is not a tile")) };
                if desc.size_bytes() > src.size_bytes() {
                    return Err(trap(m, op, format!("cast to {} B of storage from a {} B tile", desc.size_bytes(), src.size_bytes())));
                }
                self.set_result(op, Val::Tile(view_of(&desc, src.loc, src.addr, None, None)));
            }
            Opcode::MakeTensorView => {
                let Payload::Segments(segs) = &data.payload else { return Err(trap(m, op, "malformed make_tensor_view")) };
                let Val::Ptr(arg) = self.vals[data.operands[0].index()] else {
                    return Err(trap(m, op, "make_tensor_view needs a pointer argument"));
                };
                let n = segs.get(1).copied().unwrap_or(0) as usize;
                let ints = |sim: &Self, vs: &[ValueId]| vs.iter().map(|&v| sim.int(op, v)).collect::<Result<Vec<i64>, _>>();
                let (Some(shape), Some(strides)) = (data.operands.get(1..n.saturating_add(1)), data.operands.get(n.saturating_add(1)..))
                else {
                    return Err(trap(m, op, "malformed make_tensor_view operands"));
                };
                let (shape, strides) = (ints(self, shape)?, ints(self, strides)?);
                let view = GmView::new(arg, &shape, &strides).map_err(|f| trap(m, op, f.0))?;
                if let Some(a) = self.gm.get_mut(arg).filter(|a| a.shape.is_none()) {
                    a.shape = crate::gm::row_major_shape(&shape, &strides);
                }
                self.set_result(op, Val::View(view));
            }
            Opcode::PartitionView | Opcode::Subview => {
                let Payload::IndexLists(lists) = &data.payload else { return Err(trap(m, op, "malformed partition_view")) };
                let Val::View(src) = self.vals[data.operands[0].index()] else { return Err(trap(m, op, "partition of a non-view")) };
                let mut dynamic = data.operands[1..].iter();
                let mut resolved = Vec::new();
                for list in lists {
                    let mut vals = Vec::new();
                    for e in list {
                        vals.push(match e {
                            Some(c) => *c,
                            None => match dynamic.next() {
                                Some(&v) => self.int(op, v)?,
                                None => return Err(trap(m, op, "malformed partition_view operands")),
                            },
                        });
                    }
                    resolved.push(vals);
                }
                let view = src.partition(&resolved[0], &resolved[1]).map_err(|f| trap(m, op, f.0))?;
                self.set_result(op, Val::View(view));
            }
            // Ops between cores (pipes, FFTS, reserved buffers): their own table.
            _ if crate::cores::ops::is_core_op(data.opcode) => self.exec_core_op(op)?,
            // Ops between ranks (`comm.*`, async DMA): their own table, run like the above.
            _ if crate::comm::ops::is_comm_op(data.opcode) => self.exec_core_op(op)?,
            // Ordering only: the simulator executes one core in program order, so every
            // intra-core flag, barrier and buffer-id op is satisfied when reached.
            Opcode::TSync => {}
            Opcode::SetValidShape => self.exec_set_validshape(op)?,
            _ if crate::sync::arrays::is_array_op(data.opcode) => self.exec_eventid_array(op)?,
            _ if spec.family == pto_ir::ops::Family::Sync && data.results.is_empty() => {}
            _ if spec.syntax == pto_ir::ops::Syntax::Tile || crate::tables::semantics(data.opcode).is_some() => {
                self.exec_tile(op)?;
                if let Some(list) = self.orphans.get(&op) {
                    for &(i, v) in list {
                        if let Some(&out) = data.outs().get(i)
                            && let Val::Tile(view) = self.vals[out.index()]
                        {
                            let region = family::read_region(&self.mem, &view).map_err(|f| trap(m, op, f.0))?;
                            let full = self.read_view_full(&view).map_err(|e| trap(m, op, e))?;
                            self.snapshots.insert(v, Snapshot { region, full });
                        }
                    }
                }
            }
            _ => return Err(trap(m, op, format!("`{}` is not executable by the simulator yet", spec.full_name()))),
        }
        Ok(())
    }

    /// The value of scalar operand `v` (integer or float).
    fn scalar(&self, op: OpId, v: pto_ir::ValueId) -> Result<crate::scalar_arith::Scalar, Diagnostic> {
        match self.vals[v.index()] {
            Val::Int(i) => Ok(crate::scalar_arith::Scalar::Int(i)),
            Val::Float(f) => Ok(crate::scalar_arith::Scalar::Float(f)),
            _ => Err(trap(self.m, op, "expected a scalar operand")),
        }
    }

    /// The element type of scalar value `v` (`index` when it is not a builtin scalar).
    fn scalar_type(&self, v: pto_ir::ValueId) -> pto_ir::types::ElemType {
        match self.m.value_type(v) {
            pto_ir::types::Type::Scalar(e) => *e,
            _ => pto_ir::types::ElemType::Index,
        }
    }

    fn set_scalar(&mut self, op: OpId, s: crate::scalar_arith::Scalar) {
        let v = match s {
            crate::scalar_arith::Scalar::Int(i) => Val::Int(i),
            crate::scalar_arith::Scalar::Float(f) => Val::Float(f),
        };
        self.set_result(op, v);
    }

    /// Counts one executed op (or loop iteration) against the budget.
    #[inline]
    fn count_step(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.steps += 1;
        if self.steps >= self.checkpoint { self.at_checkpoint(op) } else { Ok(()) }
    }

    /// The slow path of [`Sim::count_step`]: the budget is spent, or progress is due.
    #[cold]
    fn at_checkpoint(&mut self, op: OpId) -> Result<(), Diagnostic> {
        if self.steps > self.max_steps {
            return Err(self.budget_exceeded(op));
        }
        if let Some(report) = &mut self.progress {
            report(self.steps, self.max_steps);
        }
        self.checkpoint = self.next_checkpoint();
        Ok(())
    }

    /// The first step count past the budget, or the next progress report if that is earlier.
    fn next_checkpoint(&self) -> u64 {
        let end = self.max_steps.saturating_add(1);
        if self.progress.is_some() { end.min(self.steps.saturating_add(PROGRESS_EVERY)) } else { end }
    }

    /// `SIM_BUDGET` at the innermost running loop (or at `op` outside loops).
    fn budget_exceeded(&self, op: OpId) -> Diagnostic {
        let m = self.m;
        let at = self.loops.last().copied().unwrap_or(op);
        let mut d = Diagnostic::error(
            DiagClass::SimBudget,
            m.op_span(at),
            format!("the run executed {} ops, its budget; stopped here", self.max_steps),
        )
        .with_op(m.op(at).opcode.full_name())
        .with_note("raise the budget with `--max-steps N` if the kernel really runs this long");
        if at != op {
            d = d.with_label(m.op_span(op), "executing this op");
        }
        d
    }

    fn exec_for(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.loops.push(op);
        let result = self.exec_for_iterations(op);
        self.loops.pop();
        for o in &mut self.observers {
            o.loop_done(op);
        }
        result
    }

    fn exec_for_iterations(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let (lb, ub, step) = (self.int(op, data.operands[0])?, self.int(op, data.operands[1])?, self.int(op, data.operands[2])?);
        if step <= 0 {
            return Err(trap(m, op, format!("scf.for step must be positive, found {step}")));
        }
        let mut iters: Vec<Val> = data.operands[3..].iter().map(|v| self.vals[v.index()]).collect();
        let body = m.region(data.regions[0]).blocks[0];
        let args = m.block(body).args.clone();
        let mut i = lb;
        let explored = self.explorer.is_some() && !data.operands[..2].iter().all(|&v| is_constant(m, v));
        for n in 0u64.. {
            let go = match &mut self.explorer {
                _ if explored => self.explore_iteration(op, n, n, &iters, i < ub),
                _ => i < ub,
            };
            if !go {
                break;
            }
            self.count_step(op)?;
            for o in &mut self.observers {
                o.iteration(op, (i.wrapping_sub(lb) as u64) / step as u64);
            }
            self.vals[args[0].index()] = Val::Int(i);
            for (a, v) in args[1..].iter().zip(&iters) {
                self.vals[a.index()] = *v;
            }
            if let Flow::Yield(vals) = self.exec_block(body)? {
                iters = vals;
            }
            // The next index past i64::MAX is past every upper bound.
            let Some(next) = i.checked_add(step) else { break };
            i = next;
        }
        self.set_results(op, iters);
        Ok(())
    }

    /// Whether a loop with a dynamic trip count runs another iteration under `pto verify
    /// --sync` (`natural` otherwise): the path explorer decides from the abstract state at the
    /// loop head — the sync checker's, the iteration `index` modulo the program's index period
    /// and the carried values (`crate::sync::paths`).
    fn explore_iteration(&mut self, op: OpId, done: u64, index: u64, carried: &[Val], natural: bool) -> bool {
        let Some(e) = &mut self.explorer else { return natural };
        let sync = self.observers.iter().fold(0, |h, o| h ^ o.loop_state()) ^ {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.eventid_arrays.hash(&mut h);
            h.finish()
        };
        let carried = carried.iter().map(|v| match *v {
            Val::Int(i) => (i, false),
            Val::Tile(t) => (t.addr as i64, true),
            _ => (0, true),
        });
        let state = e.head_state(sync, index, carried);
        e.decide(crate::sync::paths::Decision::Iterate { looped: op.index() as u32, done, state }, natural)
    }

    /// `declare_eventid_array`, `eventid_array_get`, `eventid_array_set`
    /// ([`crate::sync::arrays`]).
    fn exec_eventid_array(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let (array, rest) = match data.operands.split_first() {
            Some((&a, rest)) => (if let Val::EventIds(h) = self.vals[a.index()] { Some(h) } else { None }, rest),
            None => (None, &[][..]),
        };
        let ints = rest.iter().map(|&v| self.int(op, v)).collect::<Result<Vec<_>, _>>()?;
        let ty = match data.results.first().map(|&r| m.value_type(r)) {
            Some(Type::Opaque(text)) => text.as_str(),
            _ => "",
        };
        let declare = data.opcode == Opcode::DeclareEventIdArray;
        match self.eventid_arrays.exec(data.opcode, array, &ints, ty).map_err(|e| trap(m, op, e))? {
            Some(h) if declare => self.set_results(op, vec![Val::EventIds(h as u32)]),
            Some(v) => self.set_results(op, vec![Val::Int(v)]),
            None => {}
        }
        Ok(())
    }

    fn exec_while(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.loops.push(op);
        let result = self.exec_while_iterations(op);
        self.loops.pop();
        for o in &mut self.observers {
            o.loop_done(op);
        }
        result
    }

    fn exec_while_iterations(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let (before, after) = (m.region(data.regions[0]).blocks[0], m.region(data.regions[1]).blocks[0]);
        let mut args: Vec<Val> = data.operands.iter().map(|v| self.vals[v.index()]).collect();
        for n in 0u64.. {
            self.count_step(op)?;
            for o in &mut self.observers {
                o.iteration(op, n);
            }
            for (a, v) in m.block(before).args.iter().zip(&args) {
                self.vals[a.index()] = *v;
            }
            let Flow::Yield(cond) = self.exec_block(before)? else { return Err(trap(m, op, "scf.while: missing scf.condition")) };
            let go = matches!(cond.first(), Some(Val::Int(c)) if *c != 0);
            let go = self.explore_iteration(op, n, n, &cond[1.min(cond.len())..], go);
            let carried = cond.get(1..).unwrap_or_default().to_vec();
            if !go {
                self.set_results(op, carried);
                return Ok(());
            }
            for (a, v) in m.block(after).args.iter().zip(&carried) {
                self.vals[a.index()] = *v;
            }
            match self.exec_block(after)? {
                Flow::Yield(next) => args = next,
                _ => return Err(trap(m, op, "scf.while: the `do` region must end with scf.yield")),
            }
        }
        Err(trap(m, op, "scf.while ran more iterations than a u64 counts"))
    }

    fn exec_call(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let Payload::Call { callee } = &data.payload else { return Err(trap(m, op, "malformed call")) };
        let func = m
            .walk()
            .into_iter()
            .find(|&f| matches!(&m.op(f).payload, Payload::Func { name, .. } if name == callee) && !m.op(f).regions.is_empty());
        let Some(func) = func else { return Err(trap(m, op, format!("`@{callee}` has no body to run"))) };
        if !self.runs_here(callee) {
            return Ok(());
        }
        if self.depth >= 64 {
            return Err(trap(m, op, "calls nested more than 64 deep"));
        }
        let entry = m.region(m.op(func).regions[0]).blocks[0];
        for (a, v) in m.block(entry).args.iter().zip(&data.operands) {
            self.vals[a.index()] = self.vals[v.index()];
        }
        self.depth += 1;
        let flow = self.exec_block(entry);
        self.depth -= 1;
        if let Flow::Return(vals) = flow? {
            self.set_results(op, vals);
        }
        Ok(())
    }

    fn exec_alloc(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let Payload::Segments(segs) = &data.payload else { return Err(trap(m, op, "malformed alloc_tile")) };
        let mut it = data.operands.iter();
        let mut next = |present: u32| if present == 1 { it.next().copied() } else { None };
        let (addr, vr, vc) = (next(segs[0]), next(segs[1]), next(segs[2]));
        let Some(addr) = addr else { return Err(trap(m, op, "alloc_tile has no address: lower the program first (`pto lower`)")) };
        let addr = self.int(op, addr)?;
        let res = data.results[0];
        let Some(t) = m.value_type(res).tile() else { return Err(trap(m, op, "alloc_tile of a non-tile type")) };
        let vr = vr.map(|v| self.int(op, v)).transpose()?;
        let vc = vc.map(|v| self.int(op, v)).transpose()?;
        let buf = self.target.buffer(t.loc);
        if addr < 0 || !(addr as u64).is_multiple_of(buf.align) || (addr as u64).saturating_add(t.size_bytes()) > buf.capacity {
            return Err(trap(
                m,
                op,
                format!("tile at address {addr} ({} bytes) is misaligned or outside {} ({} bytes)", t.size_bytes(), buf.name, buf.capacity),
            ));
        }
        let view = view_of(t, t.loc, addr as u64, vr, vc);
        if view.vrows > t.rows as usize || view.vcols > t.cols as usize {
            return Err(trap(m, op, format!("valid shape {}x{} exceeds the capacity {}x{}", view.vrows, view.vcols, t.rows, t.cols)));
        }
        self.vals[res.index()] = Val::Tile(view);
        Ok(())
    }

    fn tile(&self, op: OpId, v: ValueId) -> Result<TileView, Diagnostic> {
        match self.vals[v.index()] {
            Val::Tile(t) => Ok(t),
            _ => Err(trap(self.m, op, format!("`%{}` is not a tile in memory", self.m.values[v.index()].name))),
        }
    }

    /// The target's legality rules the legalizer could not decide because a tile's valid shape
    /// is dynamic, checked with the run-time valid shapes (pto-isa asserts most of them only in
    /// debug builds; here they are traps). `tload`/`tstore` check their view in [`Self::exec_move`].
    fn check_run_time_rules(&self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        let dynamic = |v: &ValueId| m.value_type(*v).tile().is_some_and(|t| t.valid_rows == Dim::Dynamic || t.valid_cols == Dim::Dynamic);
        if !data.operands.iter().chain(&data.results).any(dynamic) {
            return Ok(());
        }
        let tile_of = |v: ValueId| -> Option<TileDesc> {
            let t = *m.value_type(v).tile()?;
            match self.vals[v.index()] {
                Val::Tile(view) => {
                    Some(TileDesc { valid_rows: Dim::Static(view.vrows as u32), valid_cols: Dim::Static(view.vcols as u32), ..t })
                }
                _ => Some(t),
            }
        };
        let table = pto_lower::legality::table(self.target.id);
        match pto_lower::legalize::run_time_violation(m, op, table, &tile_of) {
            Some(why) => Err(trap(m, op, format!("`{}` {why}", data.opcode.full_name()))),
            None => Ok(()),
        }
    }

    /// `tload` (GM view -> tile) and `tstore` (tile -> GM view) over the tile's valid region,
    /// from / to element `[r, c]` of the view when the op gives offsets (`%v[%r, %c]`; the view
    /// then only has to contain the window), else over the whole view, whose shape must be the
    /// valid shape.
    /// `tload` / `tstore` between a tile and a GM view; a store applies its `atomicType` and
    /// `reluPreMode` ([`crate::gm::StoreMode::of`]).
    fn exec_move(&mut self, op: OpId, load: bool) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        if let Payload::TailGroups(_) = data.payload {
            // The extra ins are PTOAS's padding groups (`pad_value = %v : f32`...), not offsets.
            return Err(trap(m, op, "the padding groups of `tload` (`pad_value = ...`) are not simulated"));
        }
        let (view_side, tile_side) = if load { (data.ins(), data.outs()) } else { (data.outs(), data.ins()) };
        let (Some((&view_v, offsets)), Some(&tile_v)) = (view_side.split_first(), tile_side.first()) else {
            return Err(trap(m, op, "expected a GM view and a tile operand"));
        };
        let Val::View(view) = self.vals[view_v.index()] else { return Err(trap(m, op, "expected a GM view operand")) };
        let (r0, c0) = match offsets {
            [] => (0, 0),
            [r, c] => (self.int(op, *r)?, self.int(op, *c)?),
            _ => return Err(trap(m, op, "only two-dimensional offsets `[row, col]` are simulated")),
        };
        if r0 < 0 || c0 < 0 {
            return Err(trap(m, op, format!("negative offset [{r0}, {c0}]")));
        }
        let (r0, c0) = (r0 as usize, c0 as usize);
        let tile = self.tile(op, tile_v)?;
        let mode = if load { crate::gm::StoreMode::default() } else { crate::gm::StoreMode::of(data) };
        let size = tile.elem_size();
        let gm = &mut self.gm[view.arg];
        if gm.elem_size != size {
            return Err(trap(m, op, format!("GM elements are {} bytes, tile elements {size}", gm.elem_size)));
        }
        let fold = ViewFold::of(&tile.desc);
        view.check_window(&tile, if offsets.is_empty() { None } else { Some((r0, c0)) }).map_err(|f| trap(m, op, f.0))?;
        if load && !gm.bound && !gm.written && !gm.pattern && !self.defaults {
            let name = gm.name.clone();
            return Err(trap(
                m,
                op,
                format!(
                    "loads from GM argument `%{name}`, which has no input and nothing stored to ({})",
                    self.front_end.give(&name, crate::advice::Missing::Data)
                ),
            ));
        }
        gm.written |= !load;
        // A core whose pipes are checked reports its accesses through its sync checker, into
        // the machine's happens-before graph; one whose pipes are not reports them here.
        let cross = self.cross && !self.observers.iter().any(|o| o.checks_sync()) && self.core.link.is_some();
        if (cross || self.gm_accessed.is_some()) && tile.vrows > 0 && tile.vcols > 0 {
            // The exact bytes of the window, for GM hazards between cores
            // (`crate::sync::graph`) and between blocks (`crate::cores::machine`).
            let bytes = view.window_bytes((r0, c0), (tile.vrows, tile.vcols), fold, size).map_err(|f| trap(m, op, f.0))?;
            if cross {
                let name = if self.ranks.count > 1 { format!("{}@{}", gm.name, self.ranks.owner(view.arg)) } else { gm.name.clone() };
                let kind = match (load, mode.atomic_add) {
                    (true, _) => crate::sync::graph::Kind::Read,
                    (false, true) => crate::sync::graph::Kind::Atomic,
                    (false, false) => crate::sync::graph::Kind::Write,
                };
                // `tload` on MTE2, `tstore` on MTE3, or FIX from L0C (docs/sync.md).
                use crate::sync::model::Pipe;
                let pipe = match (load, tile.loc) {
                    (true, _) => Pipe::Mte2,
                    (false, pto_ir::types::Loc::Acc) => Pipe::Fix,
                    (false, _) => Pipe::Mte3,
                };
                crate::cores::ops::gm_access(m, &mut self.core, op, pipe, view.arg, &bytes, kind, &name);
            }
            if let Some(accessed) = &mut self.gm_accessed {
                let kind = match (load, mode.atomic_add) {
                    (true, _) => crate::gm::GmAccess::Read,
                    (false, true) => crate::gm::GmAccess::Atomic,
                    (false, false) => crate::gm::GmAccess::Write,
                };
                accessed.record(view.arg, &bytes, kind, op);
            }
        }
        let gm = &mut self.gm[view.arg];
        let storage = self.mem.slice_mut(tile.loc, tile.addr, tile.size_bytes() as usize).map_err(|f| trap(m, op, f.0))?;
        tile.valid_inside().map_err(|f| trap(m, op, f.0))?;
        if mode != crate::gm::StoreMode::default() {
            return crate::gm::store_combined(gm, &view, (r0, c0), &tile, storage, fold, self.max_gm_bytes, mode)
                .map_err(|f| trap(m, op, f.0));
        }
        crate::gm::transfer(gm, &view, (r0, c0), &tile, storage, fold, load, self.max_gm_bytes).map_err(|f| trap(m, op, f.0))
    }

    fn exec_tile(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = m.op(op);
        if !matches!(data.opcode, Opcode::TLoad | Opcode::TStore) {
            self.check_run_time_rules(op)?;
        }
        if self.exec_vector && self.target.id == pto_lower::TargetId::A2A3 && pto_lower::vector::is_lowered(data.opcode) {
            match self.exec_as_vector(op)? {
                Ok(()) => return Ok(()),
                Err(reason) => self.log_vector(op, Err(reason)),
            }
        }
        match data.opcode {
            Opcode::TLoad => return self.exec_move(op, true),
            Opcode::TStore => return self.exec_move(op, false),
            _ => {}
        }
        let not_yet = || trap(m, op, format!("`{}` is not executable by the simulator yet", data.opcode.full_name()));
        let run = crate::tables::semantics(data.opcode).ok_or_else(not_yet)?;
        let (form, slots) = self
            .bound_slots(op)
            .ok_or_else(|| trap(m, op, format!("this form of `{}` is not executable by the simulator yet", data.opcode.full_name())))?;
        let mut operands = std::mem::take(&mut self.operand_buf);
        operands.clear();
        operands.extend(slots.iter().map(|&(slot, v)| (slot, self.vals[v.index()])));
        let args = crate::exec::Args {
            operands: &operands,
            attrs: &data.attrs,
            target: self.target.id,
            form,
            types: &m.types,
            configs: &self.configs,
            module: m,
            slots: &slots,
            read: std::cell::Cell::new(0),
        };
        let result = run(
            &mut crate::exec::Machine {
                mem: &mut self.mem,
                gm: &mut self.gm,
                gm_limit: self.max_gm_bytes,
                printed: &mut self.printed,
                regs: &mut self.regs,
                notes: &mut self.notes,
                rebind: &mut self.rebind,
                pipes: &mut self.pipes,
                matmul_order: self.matmul_order,
                front_end: self.front_end,
            },
            &args,
        );
        let unread = args.unread_attr(data.opcode).map(str::to_string);
        self.operand_buf = operands;
        result.map_err(|f| trap(m, op, f.0))?;
        if let Some(name) = unread {
            return Err(trap(
                m,
                op,
                format!(
                    "attribute `{name}` of `{}` is not applied by the simulator (docs/compile.md lists what each attribute does)",
                    data.opcode.full_name()
                ),
            ));
        }
        // The op bound values anew (placed tiles, slot views): the values in those slots are
        // these from now on.
        for (slot, val) in std::mem::take(&mut self.rebind) {
            for &(_, v) in slots.iter().filter(|(s, _)| *s == slot) {
                self.vals[v.index()] = val;
                self.unwritten_args.remove(&v);
            }
        }
        Ok(())
    }

    /// The op table's binding of `op`'s operands to its slots (which form, and `(slot, value)`
    /// in operand order), computed once per op.
    fn bound_slots(&mut self, op: OpId) -> SlotBinding {
        if let Some(b) = self.bindings.get(op.index()).and_then(Option::as_ref) {
            return b.clone();
        }
        let bound: SlotBinding =
            pto_lower::binding::bind(self.m, op).map(|(form, b)| (form, b.iter().map(|b| (b.slot, b.value)).collect()));
        if let Some(entry) = self.bindings.get_mut(op.index()) {
            *entry = Some(bound.clone());
        }
        bound
    }

    /// Lowers `op` to its A2A3 vector program and runs it; `Ok(Err(reason))` when the op has
    /// no vector lowering in this form (it then runs with tile semantics).
    fn exec_as_vector(&mut self, op: OpId) -> Result<Result<(), String>, Diagnostic> {
        use pto_lower::vector::{self, Placed, ir::Scalar};
        let m = self.m;
        let vals = &self.vals;
        let place = |v: ValueId| match vals[v.index()] {
            Val::Tile(t) => Some(Placed { addr: t.addr, vrows: t.vrows as u32, vcols: t.vcols as u32 }),
            _ => None,
        };
        let value = |v: ValueId| match vals[v.index()] {
            Val::Int(i) => Some(Scalar::Int(i)),
            Val::Float(f) => Some(Scalar::Float(f)),
            _ => None,
        };
        let cache = match self.vcache.entry(op) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => match vector::operand_slots(m, op) {
                Ok(slots) => e.insert(VectorCache { slots, lowered: None }),
                Err(err) => return Ok(Err(err.0)),
            },
        };
        let resolved = match vector::resolve(m, op, &cache.slots, place, value) {
            Ok(t) => t,
            Err(e) => return Ok(Err(e.0)),
        };
        if cache.lowered.as_ref().is_none_or(|(t, _)| *t != resolved) {
            match vector::lower(&resolved) {
                Ok(p) => cache.lowered = Some((resolved, p)),
                Err(e) => return Ok(Err(e.0)),
            }
        }
        let prog = &cache.lowered.as_ref().expect("lowered above").1;
        crate::vector::execute(&mut self.mem, prog, &mut self.vstate).map_err(|f| trap(m, op, f.0))?;
        let stats = prog.stats();
        self.log_vector(op, Ok(stats));
        Ok(Ok(()))
    }

    fn log_vector(&mut self, op: OpId, cost: Result<pto_lower::vector::ir::Stats, String>) {
        if let Some(record) = self.vector_log_index.get(&op).and_then(|&at| self.vector_log.get_mut(at)).filter(|r| r.id == op) {
            record.runs += 1;
            match (&mut record.cost, cost) {
                (Ok(total), Ok(more)) => *total += more,
                // The vector cost of the runs that had a program; a reason only while none did.
                (done @ Err(_), Ok(more)) => *done = Ok(more),
                _ => {}
            }
            return;
        }
        self.vector_log_index.insert(op, self.vector_log.len());
        let span = self.m.op_span(op);
        self.vector_log.push(VectorRecord { id: op, op: self.m.op(op).opcode.full_name().to_string(), span, runs: 1, cost });
    }
}

/// Every GM array in `gm` that a kernel of `m` wrote, once per name (a callee's pointer
/// parameter often has its caller's name): in the shape of the array bound to it (a bound array
/// keeps its size), 1-D for an array that grew on demand.
pub fn gm_outputs(m: &Module, gm: &[GmArray]) -> Vec<(String, TileData)> {
    let mut out = Vec::new();
    for v in &m.values {
        // Pointer arguments and `!pto.group` arguments (one buffer per rank).
        let ty = m.types.get(v.ty);
        let gm_arg = matches!(ty, Type::Ptr(_)) || ty.is_opaque("!pto.group<") || ty.is_gm_memref();
        if let (ValueDef::BlockArg(..), true) = (v.def, gm_arg)
            && let Some(a) = gm.iter().find(|a| a.name == v.name && a.written && !a.internal)
            && !out.iter().any(|(n, _): &(String, TileData)| *n == v.name)
        {
            let n = a.elements();
            let (rows, cols) = a.shape.filter(|(r, c)| r.checked_mul(*c) == Some(n)).unwrap_or((1, n));
            out.push((v.name.clone(), TileData { dtype: a.dtype, rows, cols, bytes: a.to_bytes() }));
        }
    }
    out
}

/// Whether `v` is an `arith.constant` (its control-flow decisions are not explored).
fn is_constant(m: &Module, v: ValueId) -> bool {
    matches!(m.values[v.index()].def, ValueDef::OpResult(op, _) if m.op(op).opcode == Opcode::ArithConstant)
}

/// A view of tile type `t` at `addr`, with dynamic valid extents resolved.
pub(crate) fn view_of(t: &pto_ir::types::TileDesc, loc: pto_ir::types::Loc, addr: u64, vr: Option<i64>, vc: Option<i64>) -> TileView {
    let resolve = |d: Dim, given: Option<i64>, cap: u32| match (d, given) {
        (Dim::Static(n), _) => n as usize,
        (Dim::Dynamic, Some(g)) => g.max(0) as usize,
        (Dim::Dynamic, None) => cap as usize,
    };
    TileView { loc, addr, desc: *t, vrows: resolve(t.valid_rows, vr, t.rows), vcols: resolve(t.valid_cols, vc, t.cols) }
}

/// The row-major view of a GM `memref` argument of static shape (array `arg`), and the (rows,
/// cols) its outputs keep; `None` for any other type or a dynamic shape.
fn memref_view(ty: &Type, arg: usize) -> Option<(GmView, Option<(usize, usize)>)> {
    if !ty.is_gm_memref() {
        return None;
    }
    let shape: Vec<i64> = ty.view_shape()?.iter().map(|d| d.map(|n| n as i64)).collect::<Option<_>>()?;
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].checked_mul(shape[k + 1])?;
    }
    Some((GmView::new(arg, &shape, &strides).ok()?, crate::gm::row_major_shape(&shape, &strides)))
}

/// The tile, index and value of `tgetval` / `tsetval`: `tsetval ins(%dst, %index, %value)`
/// (the ISA's form), or `tsetval ins(%index, %value) outs(%dst)` (PTOAS's); `tgetval ins(%src,
/// %index)`.
fn element_operands(data: &pto_ir::module::OpData) -> (pto_ir::ValueId, pto_ir::ValueId, Option<pto_ir::ValueId>) {
    match (data.ins(), data.outs()) {
        ([index, value], [dst]) => (*dst, *index, Some(*value)),
        _ => (data.operands[0], data.operands[1], data.operands.get(2).copied()),
    }
}
