//! Global memory: one host array per kernel pointer argument, and the address arithmetic of
//! tensor and partition views (shape, strides, offsets; up to 5 dimensions, right-aligned as
//! in pto-isa: a 2-D tile maps onto the two innermost dimensions).
//!
//! Shapes, strides and offsets come from the program's scalars, so every address computation is
//! checked: an overflow is a fault, like an access outside the bound array.

use crate::elem::Elem;
use crate::gm_store::{CHUNK, Chunked};
use crate::memory::Fault;
use pto_ir::tile_rules::ViewFold;
use std::ops::Range;

/// Most dimensions a view may have.
pub const MAX_RANK: usize = 5;

/// A view into one GM array: element offset, and (size, stride) per dimension.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GmView {
    /// Which pointer argument.
    pub arg: usize,
    /// Element offset of element (0, ..., 0).
    pub offset: i64,
    /// Number of dimensions.
    pub rank: usize,
    /// Sizes.
    pub shape: [i64; MAX_RANK],
    /// Strides, in elements.
    pub strides: [i64; MAX_RANK],
}

impl GmView {
    /// A view over a pointer with the given shape and strides.
    pub fn new(arg: usize, shape: &[i64], strides: &[i64]) -> Result<GmView, Fault> {
        if shape.len() != strides.len() || shape.is_empty() || shape.len() > MAX_RANK {
            return Err(Fault(format!(
                "a view needs 1 to {MAX_RANK} dimensions with one stride each, found {} sizes and {} strides",
                shape.len(),
                strides.len()
            )));
        }
        let mut v = GmView { arg, offset: 0, rank: shape.len(), shape: [1; MAX_RANK], strides: [0; MAX_RANK] };
        v.shape[..shape.len()].copy_from_slice(shape);
        v.strides[..strides.len()].copy_from_slice(strides);
        Ok(v)
    }

    /// The sub-view at `offsets` with `sizes` (one per dimension).
    pub fn partition(&self, offsets: &[i64], sizes: &[i64]) -> Result<GmView, Fault> {
        if offsets.len() != self.rank || sizes.len() != self.rank {
            return Err(Fault(format!("partition of a rank-{} view needs {} offsets and sizes", self.rank, self.rank)));
        }
        let mut v = *self;
        for d in 0..self.rank {
            let end = offsets[d].checked_add(sizes[d]);
            if offsets[d] < 0 || sizes[d] < 0 || end.is_none_or(|e| e > self.shape[d]) {
                return Err(Fault(format!(
                    "partition [{}, {}) of dimension {d} is outside the view's size {}",
                    offsets[d],
                    offsets[d].saturating_add(sizes[d]),
                    self.shape[d]
                )));
            }
            v.offset = offsets[d]
                .checked_mul(self.strides[d])
                .and_then(|o| v.offset.checked_add(o))
                .ok_or_else(|| Fault(format!("the partition offset overflows at dimension {d}")))?;
            v.shape[d] = sizes[d];
        }
        Ok(v)
    }

    /// Element index of 2-D position `(r, c)` of the shape the view presents to a tile that
    /// folds it by `fold` ([`pto_ir::tile_rules::view_extent`]): the view is right-aligned to 5 dimensions and the
    /// folded coordinate is split over the leading dimensions, innermost first. A fault when the
    /// address overflows.
    pub fn index(&self, r: usize, c: usize, fold: ViewFold) -> Result<i64, Fault> {
        let overflow = || Fault(format!("the GM address of element ({r}, {c}) overflows"));
        let (r, c) = (i64::try_from(r).map_err(|_| overflow())?, i64::try_from(c).map_err(|_| overflow())?);
        let pad = MAX_RANK - self.rank;
        let size = |d: usize| if d < pad { 1 } else { self.shape[d - pad].max(1) };
        let stride = |d: usize| if d < pad { 0 } else { self.strides[d - pad] };
        let mut at = [0i64; MAX_RANK];
        let (mut rest, split): (i64, [usize; 4]) = match fold {
            ViewFold::Cols => {
                at[3] = r;
                (c, [4, 2, 1, 0])
            }
            ViewFold::Rows | ViewFold::Flat => {
                at[4] = c;
                (r, [3, 2, 1, 0])
            }
        };
        for (k, &d) in split.iter().enumerate() {
            if k + 1 == split.len() {
                at[d] = rest;
            } else {
                at[d] = rest % size(d);
                rest /= size(d);
            }
        }
        (0..MAX_RANK).try_fold(self.offset, |acc, d| at[d].checked_mul(stride(d)).and_then(|x| acc.checked_add(x))).ok_or_else(overflow)
    }

    /// The exact bytes (elements of `elem_size` bytes) of the `rows x cols` window at `(r0,
    /// c0)` as a tile folding the view by `fold` sees it: sorted, disjoint `[start, end)`
    /// ranges — one per row of a row-major window whose columns are contiguous (one per column
    /// of a column-major one), element by element where the innermost stride is not 1. What
    /// the hazard checkers compare: two windows of one array conflict only where these meet
    /// (interleaved column halves do not).
    pub fn window_bytes(
        &self,
        (r0, c0): (usize, usize),
        (rows, cols): (usize, usize),
        fold: ViewFold,
        elem_size: usize,
    ) -> Result<Vec<(u64, u64)>, Fault> {
        let size = elem_size as u64;
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut push = |first: i64, count: u64| {
            let start = first.max(0) as u64 * size;
            let end = start + count * size;
            match runs.last_mut() {
                Some(last) if last.1 == start => last.1 = end,
                _ => runs.push((start, end)),
            }
        };
        let inner = |d: usize| if d + self.rank < MAX_RANK { 0 } else { self.strides[d + self.rank - MAX_RANK] };
        match fold {
            // A row's columns are dimension 4 (`index`): consecutive when its stride is 1.
            ViewFold::Rows | ViewFold::Flat if inner(4) == 1 => {
                for r in 0..rows {
                    push(self.index(r0 + r, c0, fold)?, cols as u64);
                }
            }
            // A column's rows are dimension 3.
            ViewFold::Cols if inner(3) == 1 => {
                for c in 0..cols {
                    push(self.index(r0, c0 + c, fold)?, rows as u64);
                }
            }
            _ => {
                for r in 0..rows {
                    for c in 0..cols {
                        push(self.index(r0 + r, c0 + c, fold)?, 1);
                    }
                }
            }
        }
        Ok(crate::byteset::normalize(runs))
    }

    /// The view's dimensions.
    pub fn dims(&self) -> Vec<Option<u64>> {
        self.shape[..self.rank].iter().map(|&d| u64::try_from(d).ok()).collect()
    }

    /// Checks that a tile's `vrows x vcols` valid region moves through this view: at element
    /// `[r, c]` the view only has to contain the window; without offsets its shape must be
    /// the valid shape (pto-isa's `tload`/`tstore` contract).
    pub fn check_window(&self, tile: &crate::view::TileView, at: Option<(usize, usize)>) -> Result<(), Fault> {
        use pto_ir::types::{Dim, TileDesc};
        let Some((r0, c0)) = at else {
            let desc = TileDesc { valid_rows: Dim::Static(tile.vrows as u32), valid_cols: Dim::Static(tile.vcols as u32), ..tile.desc };
            return match pto_ir::tile_rules::view_mismatch(&self.dims(), &desc) {
                Some(why) => Err(Fault(format!("{why}: pto-isa requires the view's shape to equal the tile's valid shape"))),
                None => Ok(()),
            };
        };
        let (vr, vc) = pto_ir::tile_rules::view_extent(&self.dims(), ViewFold::of(&tile.desc))
            .map(|(r, c)| (r.unwrap_or(0), c.unwrap_or(0)))
            .map_err(|i| Fault(format!("leading view dimension {i} is not 1")))?;
        let past = |at: usize, n: usize, whole: u64| at.checked_add(n).is_none_or(|end| end as u64 > whole);
        if past(r0, tile.vrows, vr) || past(c0, tile.vcols, vc) {
            return Err(Fault(format!("the tile's valid region {}x{} at [{r0}, {c0}] exceeds the view {vr}x{vc}", tile.vrows, tile.vcols)));
        }
        Ok(())
    }
}

/// The deterministic input pattern: small values, exact in every element type, varying with
/// the index (`((7 i + 3) mod 17) / 4 - 2`).
pub fn pattern_value(i: usize) -> f64 {
    ((i * 7 + 3) % 17) as f64 / 4.0 - 2.0
}

/// Most bytes an unbound GM array grows to on demand by default (1 GiB; `Sim::max_gm_bytes`):
/// an access beyond it is a fault.
pub const MAX_GROWN: usize = 1 << 30;

/// `1 GiB`, `16 MiB`, `1000 bytes`: a byte count as written in a diagnostic.
pub(crate) fn bytes_text(n: usize) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n => format!("{n} bytes"),
    }
}

/// The bytes untouched elements of an array read as, repeating ([`crate::gm_store`]): with
/// `pattern`, element `i` holds [`pattern_value`]`(i)`, which repeats every 17 elements; else
/// zeros (an empty period), as for element types without a value model.
fn fill_period(pattern: bool, dtype: pto_ir::types::ElemType) -> Vec<u8> {
    let mut period = Vec::new();
    if pattern {
        crate::dispatch!(dtype, T => {
            let size = dtype.size_bytes() as usize;
            period.resize(17 * size, 0);
            for i in 0..17 {
                <T as crate::elem::Elem>::from_f64(pattern_value(i)).store(&mut period[i * size..]);
            }
        }, _ => {});
    }
    period
}

/// One GM array. Its bytes are private and sparse ([`crate::gm_store`]): every access goes
/// through an element, a byte run or the whole array.
#[derive(Clone, Debug)]
pub struct GmArray {
    /// Argument name.
    pub name: String,
    /// Element size in bytes.
    pub elem_size: usize,
    /// The bytes, by chunk.
    store: Chunked,
    /// The fill untouched bytes read as, for the (pattern, dtype) it was made for.
    fill: Option<(bool, pto_ir::types::ElemType, Vec<u8>)>,
    /// Bound by the user (bounds are enforced); otherwise it grows on demand.
    pub bound: bool,
    /// Element type (for the deterministic fill of unbound arrays).
    pub dtype: pto_ir::types::ElemType,
    /// Fill unbound arrays with a deterministic pattern instead of zeros.
    pub pattern: bool,
    /// Written by the kernel (`tstore`): only written arrays are outputs.
    pub written: bool,
    /// The (rows, cols) outputs keep: the bound array's, else the first dense row-major tensor
    /// view made over it ([`row_major_shape`]).
    pub shape: Option<(usize, usize)>,
    /// The simulator's own memory (a pipe's FIFO slots, [`crate::tpipe`]), not a kernel
    /// argument: never an output, and not merged between blocks.
    pub internal: bool,
    /// Every atomic add made to this copy, in order: (byte offset, the added element's raw
    /// bits in [`GmArray::dtype`]). Blocks run on copies of GM; merging a block replays its adds
    /// on the blocks before it ([`GmArray::merge_block`]), as the hardware's atomic unit sums
    /// them.
    pub atomic_adds: Vec<(usize, u64)>,
}

/// `(rows, cols)` of a dense row-major view of `shape` and `strides` (every stride the product
/// of the dimensions after it): the last dimension and the product of the others, as numpy
/// would reshape the array; `None` for any other view.
pub fn row_major_shape(shape: &[i64], strides: &[i64]) -> Option<(usize, usize)> {
    let (&cols, outer) = shape.split_last()?;
    let mut expected: i64 = 1;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if s != expected || d < 0 {
            return None;
        }
        expected = expected.checked_mul(d)?;
    }
    let rows = outer.iter().try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
    Some((rows, usize::try_from(cols).ok()?))
}

impl GmArray {
    /// An empty, unbound, unwritten argument array `name` of `dtype` elements.
    pub fn new(name: impl Into<String>, dtype: pto_ir::types::ElemType) -> GmArray {
        GmArray {
            name: name.into(),
            elem_size: dtype.size_bytes() as usize,
            store: Chunked::default(),
            fill: None,
            bound: false,
            dtype,
            pattern: false,
            written: false,
            shape: None,
            internal: false,
            atomic_adds: Vec::new(),
        }
    }

    /// The logical extent in bytes: what the array was bound to or has grown to.
    pub fn len_bytes(&self) -> usize {
        self.store.len()
    }

    /// The logical extent in elements.
    pub fn elements(&self) -> usize {
        self.store.len() / self.elem_size.max(1)
    }

    /// Binds the array to `bytes` (its extent from now on).
    pub fn set_bytes(&mut self, bytes: &[u8]) {
        self.store = Chunked::from_bytes(bytes);
    }

    /// The whole array, untouched bytes as their fill (outputs).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.store.to_vec(&fill_period(self.pattern, self.dtype))
    }

    /// How many [`CHUNK`]-byte chunks hold bytes (memory actually used).
    pub fn chunks_allocated(&self) -> usize {
        self.store.allocated()
    }

    /// The store and the fill period for the current pattern and element type (made once).
    fn parts(&mut self) -> (&mut Chunked, &[u8]) {
        if !matches!(&self.fill, Some((p, d, _)) if *p == self.pattern && *d == self.dtype) {
            self.fill = Some((self.pattern, self.dtype, fill_period(self.pattern, self.dtype)));
        }
        (&mut self.store, self.fill.as_ref().map_or(&[][..], |f| &f.2[..]))
    }

    /// Checks that element `index` exists (growing an unbound array to it, up to `limit`
    /// bytes): its first byte.
    pub fn touch(&mut self, index: i64, limit: usize) -> Result<usize, Fault> {
        let n = self.elements();
        if index < 0 || (self.bound && index as usize >= n) {
            return Err(Fault(format!("GM access to element {index} of `%{}`, which has {n} elements", self.name)));
        }
        let end = (index as usize).checked_add(1).and_then(|k| k.checked_mul(self.elem_size)).unwrap_or(usize::MAX);
        if end > self.store.len() {
            if end > limit {
                return Err(Fault(format!("GM access to element {index} of `%{}` is beyond {}", self.name, bytes_text(limit))));
            }
            self.store.grow(end);
        }
        Ok(end - self.elem_size)
    }

    /// Bytes of element `index`, growing an unbound array up to `limit` bytes.
    pub fn element(&mut self, index: i64, limit: usize) -> Result<&mut [u8], Fault> {
        let start = self.touch(index, limit)?;
        let end = start + self.elem_size;
        let (store, period) = self.parts();
        Ok(store.slice_mut(start..end, period))
    }

    /// Checks that elements `first..=last` exist, as an element-by-element access would —
    /// the first, then the last (growing an unbound array) — and returns their bytes; the
    /// fault of the end that has none.
    pub fn reach(&mut self, first: i64, last: i64, limit: usize) -> Result<Range<usize>, Fault> {
        let start = self.touch(first, limit)?;
        Ok(start..self.touch(last, limit)? + self.elem_size)
    }

    /// Copies bytes `start..start + out.len()` (inside the extent: [`GmArray::reach`]) into `out`.
    pub fn read_bytes(&mut self, start: usize, out: &mut [u8]) {
        debug_assert!(start + out.len() <= self.store.len());
        let (store, period) = self.parts();
        store.read(start, out, period);
    }

    /// Copies `src` to bytes `start..start + src.len()` (inside the extent).
    pub fn write_bytes(&mut self, start: usize, src: &[u8]) {
        debug_assert!(start + src.len() <= self.store.len());
        let (store, period) = self.parts();
        store.write(start, src, period);
    }

    /// Merges a block's final state `next` of this array into `self` (the blocks before it),
    /// against the array every block started from, `initial`: every byte the block changed
    /// is taken from it, and `self` grows to `next`'s extent. Chunks neither holds, of the
    /// same fill, are equal without a look.
    pub fn merge_block(&mut self, initial: &GmArray, next: &GmArray) {
        self.store.grow(next.store.len());
        // The elements `next` only added to start from what the blocks before it left.
        let mut base: Vec<(usize, u64)> = Vec::new();
        for &(at, _) in &next.atomic_adds {
            if !base.iter().any(|&(a, _)| a == at) && at + self.elem_size <= self.store.len() {
                base.push((at, self.element_bits(at)));
            }
        }
        self.copy_changed_bytes(initial, next);
        let dtype = self.dtype;
        for &(at, added) in &next.atomic_adds {
            if let Some(slot) = base.iter_mut().find(|(a, _)| *a == at) {
                slot.1 = add_bits(dtype, slot.1, added);
            }
        }
        for (at, bits) in base {
            let size = self.elem_size;
            self.write_bytes(at, &bits.to_le_bytes()[..size]);
        }
        self.atomic_adds.extend_from_slice(&next.atomic_adds);
    }

    /// The raw bits of the element at byte `at` (zero-extended).
    fn element_bits(&mut self, at: usize) -> u64 {
        let mut b = [0u8; 8];
        let size = self.elem_size.min(8);
        self.read_bytes(at, &mut b[..size]);
        u64::from_le_bytes(b)
    }

    /// Atomically adds `value` (raw bits of one [`GmArray::dtype`] element) to the element at
    /// byte `at`, and logs it for [`GmArray::merge_block`].
    pub fn atomic_add(&mut self, at: usize, value: u64) {
        let old = self.element_bits(at);
        let sum = add_bits(self.dtype, old, value);
        let size = self.elem_size.min(8);
        self.write_bytes(at, &sum.to_le_bytes()[..size]);
        self.atomic_adds.push((at, value));
    }

    /// Writes every byte `next` changed from `initial` into this array.
    fn copy_changed_bytes(&mut self, initial: &GmArray, next: &GmArray) {
        let (was_fill, now_fill) = (fill_period(initial.pattern, initial.dtype), fill_period(next.pattern, next.dtype));
        let len = next.store.len();
        self.store.grow(len);
        let (mut was, mut now) = (vec![0; CHUNK], vec![0; CHUNK]);
        for k in 0..len.div_ceil(CHUNK) {
            if was_fill == now_fill && !initial.store.holds(k) && !next.store.holds(k) {
                continue;
            }
            let start = k * CHUNK;
            let n = (len - start).min(CHUNK);
            let (was, now) = (&mut was[..n], &mut now[..n]);
            initial.store.read(start, was, &was_fill);
            next.store.read(start, now, &now_fill);
            let mut p = 0;
            while p < n {
                if now[p] == was[p] {
                    p += 1;
                    continue;
                }
                let end = (p..n).find(|&q| now[q] == was[q]).unwrap_or(n);
                self.write_bytes(start + p, &now[p..end]);
                p = end;
            }
        }
    }
}

/// `a + b` on the raw bits of two `dtype` elements (integers wrap; floats round once, as
/// pto-isa's CPU simulator's `AddToElement` does in the element type).
pub fn add_bits(dtype: pto_ir::types::ElemType, a: u64, b: u64) -> u64 {
    use crate::elem::Elem;
    crate::dispatch!(dtype, T => T::from_raw_bits(a).add(T::from_raw_bits(b)).raw_bits(), _ => a.wrapping_add(b))
}

/// How a `tstore` combines each element with GM: pto-isa's `AtomicType` and `ReluPreMode`
/// template arguments (`cpu/TStore.hpp:70-77`: the value is relu'd when `applyRelu`, then
/// added with `AddToElement` under `AtomicAdd`, else stored).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreMode {
    /// `atomicType = atomic_add`: GM element += value.
    pub atomic_add: bool,
    /// `reluPreMode = normal_relu`: max(value, 0) before it is stored.
    pub relu: bool,
}

impl StoreMode {
    /// What a `tstore`'s attributes ask of each element (PTOAS `PTOOps.td` TStoreOp:
    /// `atomicType`, `reluPreMode`, `stPhase`). `stPhase` is the fixpipe's unit-flag phase
    /// (`npu/a2a3/TStore.hpp:138`, `unitFlagCtrl`): a handshake with the cube with no effect on
    /// the bytes stored (`cpu/TStore.hpp:138`, `(void)Phase`), so it has no field here.
    pub fn of(data: &pto_ir::module::OpData) -> StoreMode {
        if data.opcode != pto_ir::ops::Opcode::TStore {
            return StoreMode::default();
        }
        let is = |name: &str, kind: &str, value: &str| data.attr(name).and_then(|a| a.enum_value(kind)) == Some(value);
        StoreMode { atomic_add: is("atomicType", "atomic_type", "atomic_add"), relu: is("reluPreMode", "relu_pre_mode", "normal_relu") }
    }
}

/// [`transfer`] of a store with a [`StoreMode`] other than a plain copy: element by element,
/// in the order a `tstore` moves them.
#[allow(clippy::too_many_arguments)]
pub fn store_combined(
    gm: &mut GmArray,
    view: &GmView,
    (r0, c0): (usize, usize),
    tile: &crate::view::TileView,
    storage: &[u8],
    fold: ViewFold,
    limit: usize,
    mode: StoreMode,
) -> Result<(), Fault> {
    use crate::elem::Elem;
    let dtype = tile.desc.dtype;
    let size = tile.elem_size().min(8);
    for r in 0..tile.vrows {
        for c in 0..tile.vcols {
            let at = gm.touch(view.index(r0 + r, c0 + c, fold)?, limit)?;
            let t = crate::view::element(storage, tile, r, c)?;
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(&t[..size]);
            let mut bits = u64::from_le_bytes(b);
            if mode.relu {
                bits = crate::dispatch!(dtype, T => {
                    let v = T::from_raw_bits(bits);
                    Elem::maximum(v, T::from_i64(0)).raw_bits()
                }, _ => bits);
            }
            if mode.atomic_add {
                gm.atomic_add(at, bits);
            } else {
                gm.write_bytes(at, &bits.to_le_bytes()[..size]);
            }
        }
    }
    Ok(())
}

/// Moves a tile's valid region between its storage and the window of `view` at `(r0, c0)`
/// (`load`: GM to tile, else tile to GM), as `tload` / `tstore` do. The window goes line by
/// line along the direction GM is contiguous in ([`gm_lines`]: rows over a view whose
/// innermost stride is 1, columns over one whose row stride is 1): each line is one GM run
/// (the array grown to its last element first, as an element-by-element copy would have grown
/// it), copied to or from the tile in the pieces the tile's storage holds contiguously
/// ([`crate::view::TileView::run_len`]: whole ND rows or DN columns, Nz/Zz box rows, Zn/Nn box
/// columns). A window GM does not hold in lines, or a line whose GM ends or tile pieces are
/// not all valid, goes element by element from there on, so the bytes and any fault are
/// exactly those of that copy ([`transfer_elements`]).
#[allow(clippy::too_many_arguments)]
pub fn transfer(
    gm: &mut GmArray,
    view: &GmView,
    (r0, c0): (usize, usize),
    tile: &crate::view::TileView,
    storage: &mut [u8],
    fold: ViewFold,
    load: bool,
    limit: usize,
) -> Result<(), Fault> {
    let size = tile.elem_size();
    let Some(along_row) = gm_lines(view, fold, r0, tile.vrows) else {
        return transfer_elements(gm, view, (r0, c0), tile, storage, fold, load, limit, 0);
    };
    let (count, len) = if along_row { (tile.vrows, tile.vcols) } else { (tile.vcols, tile.vrows) };
    if len == 0 {
        return Ok(());
    }
    let at = |k: usize, i: usize| if along_row { (k, i) } else { (i, k) };
    // The whole window's pieces when every one is valid (kept per layout: the common case),
    // else line by line below.
    let window = tile.pieces((0, 0), tile.vrows, tile.vcols, along_row).filter(|p| p.end <= storage.len());
    // Per line: (byte offset in the line, byte range in the storage) of each tile piece.
    let mut pieces: Vec<(usize, Range<usize>)> = Vec::new();
    let mut line = Vec::new();
    for k in 0..count {
        let ((rf, cf), (rl, cl)) = (at(k, 0), at(k, len - 1));
        let first = view.index(r0 + rf, c0 + cf, fold)?;
        // The tile's pieces valid, both GM ends valid (the last grows the array, so the tile
        // is checked first) and `len` apart: the run between is too.
        let run = view.index(r0 + rl, c0 + cl, fold).ok().filter(|&last| last.checked_sub(first) == Some(len as i64 - 1));
        let valid = match &window {
            Some(w) => {
                pieces.clear();
                let offset = |p: &crate::view::Piece| if along_row { p.at.1 } else { p.at.0 };
                pieces.extend(w.line(k).iter().map(|p| (offset(p) * size, p.start..p.start + p.count * size)));
                true
            }
            None => tile_pieces(tile, storage.len(), k, len, along_row, &mut pieces),
        };
        let run = run.filter(|_| valid);
        let Some(g) = run.and_then(|last| gm.reach(first, last, limit).ok()) else {
            return transfer_elements(gm, view, (r0, c0), tile, storage, fold, load, limit, k);
        };
        match (&pieces[..], load) {
            ([(_, t)], true) => gm.read_bytes(g.start, &mut storage[t.clone()]),
            ([(_, t)], false) => gm.write_bytes(g.start, &storage[t.clone()]),
            (_, true) => {
                line.resize(len * size, 0);
                gm.read_bytes(g.start, &mut line);
                for (off, t) in &pieces {
                    storage[t.clone()].copy_from_slice(&line[*off..*off + t.len()]);
                }
            }
            (_, false) => {
                line.resize(len * size, 0);
                for (off, t) in &pieces {
                    line[*off..*off + t.len()].copy_from_slice(&storage[t.clone()]);
                }
                gm.write_bytes(g.start, &line);
            }
        }
    }
    Ok(())
}

/// Whether the window of a tile with `vrows` valid rows at row `r0` lies in GM in contiguous
/// rows (`Some(true)`: the innermost stride is 1, and a row's columns are its innermost
/// dimension whatever the fold, [`GmView::index`]) or columns (`Some(false)`: the stride of
/// dimension 3 is 1 and a column's rows stay in it — always under a column fold, under a flat
/// one when the window's rows do not pass the dimension's size); `None` otherwise.
fn gm_lines(view: &GmView, fold: ViewFold, r0: usize, vrows: usize) -> Option<bool> {
    let dim =
        |d: usize| (d + view.rank >= MAX_RANK).then(|| (view.shape[d + view.rank - MAX_RANK], view.strides[d + view.rank - MAX_RANK]));
    let inner = |d: usize| dim(d).map_or(0, |(_, stride)| stride);
    match fold {
        ViewFold::Rows | ViewFold::Flat if inner(4) == 1 => Some(true),
        ViewFold::Cols if inner(3) == 1 => Some(false),
        ViewFold::Flat if inner(3) == 1 && r0.checked_add(vrows).is_some_and(|end| dim(3).is_some_and(|(n, _)| end as i64 <= n)) => {
            Some(false)
        }
        _ => None,
    }
}

/// The pieces of line `k` (`len` elements of a row when `along_row`, else of a column) of
/// `tile` that its storage holds contiguously, into `out`: (byte offset in the line, byte
/// range in the storage of `storage_len` bytes). False when an element of the line has no
/// valid bytes there (the element-by-element copy faults on it).
fn tile_pieces(
    tile: &crate::view::TileView,
    storage_len: usize,
    k: usize,
    len: usize,
    along_row: bool,
    out: &mut Vec<(usize, Range<usize>)>,
) -> bool {
    out.clear();
    let size = tile.elem_size();
    let at = |i: usize| if along_row { (k, i) } else { (i, k) };
    let mut i = 0;
    while i < len {
        let (r, c) = at(i);
        let n = tile.run_len(r, c, along_row).min(len - i);
        let (rl, cl) = at(i + n - 1);
        // The piece is consecutive in storage: its first element's bytes and its length bound
        // it; inside the capacity and the storage, every element of it is valid.
        let Ok(a) = tile.element_bytes(r, c) else { return false };
        let end = a.start + n * size;
        if rl >= tile.desc.rows as usize || cl >= tile.desc.cols as usize || end as u64 > tile.size_bytes() || end > storage_len {
            return false;
        }
        out.push((i * size, a.start..end));
        i += n;
    }
    true
}

/// [`transfer`] element by element in the order a `tload`/`tstore` moves them (row by row),
/// from line `from` on (a row when GM holds the window in rows, else a column; 0: the whole
/// window): the reference every faster copy must equal, byte for byte and fault for fault.
#[allow(clippy::too_many_arguments)]
pub fn transfer_elements(
    gm: &mut GmArray,
    view: &GmView,
    (r0, c0): (usize, usize),
    tile: &crate::view::TileView,
    storage: &mut [u8],
    fold: ViewFold,
    load: bool,
    limit: usize,
    from: usize,
) -> Result<(), Fault> {
    // Lines before `from` are done; with column lines the rest is columns `from..` of every row.
    let (from_r, from_c) = match gm_lines(view, fold, r0, tile.vrows) {
        Some(false) => (0, from),
        _ => (from, 0),
    };
    for r in from_r..tile.vrows {
        for c in from_c..tile.vcols {
            // A read allocates nothing: untouched bytes read as the array's fill.
            let at = gm.touch(view.index(r0 + r, c0 + c, fold)?, limit)?;
            let t = crate::view::element_mut(storage, tile, r, c)?;
            if load {
                gm.read_bytes(at, t);
            } else {
                gm.write_bytes(at, t);
            }
        }
    }
    Ok(())
}

/// The exact bytes of GM arrays a simulation read and wrote, per (array, read or write, op):
/// what a multi-block run feeds into the happens-before graph of its blocks (blocks without
/// `syncall` are unordered, so a byte one block writes and another reads or writes is a
/// hazard: `cores::machine`). Keyed by op, so the
/// record stays as small as the program whatever the trip counts.
#[derive(Clone, Debug, Default)]
pub struct Accessed {
    /// The union of the bytes each op read (or wrote) in each array.
    pub sets: Vec<AccessSet>,
}

/// How an op touched GM bytes: what the happens-before graph of blocks is told
/// (`crate::sync::graph::Kind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GmAccess {
    /// A read.
    Read,
    /// A plain write.
    Write,
    /// An atomic add (`tstore` with `atomic_add`): atomics commute.
    Atomic,
}

/// `(array, access, op, bytes)`: the bytes `op` read, wrote or atomically added in `array`.
pub type AccessSet = (usize, GmAccess, pto_ir::module::OpId, Vec<(u64, u64)>);

impl Accessed {
    /// Records an access of `bytes` (normalized, [`crate::byteset`]) of array `arg` by `op`.
    pub fn record(&mut self, arg: usize, bytes: &[(u64, u64)], access: GmAccess, op: pto_ir::module::OpId) {
        match self.sets.iter_mut().find(|s| s.0 == arg && s.1 == access && s.2 == op) {
            Some(s) => crate::byteset::union_into(&mut s.3, bytes),
            None => self.sets.push((arg, access, op, bytes.to_vec())),
        }
    }
}

#[cfg(test)]
mod accessed_tests {
    use super::*;
    use pto_ir::module::OpId;

    #[test]
    fn accesses_merge_per_op() {
        let mut a = Accessed::default();
        a.record(0, &[(0, 32)], GmAccess::Write, OpId(1));
        a.record(0, &[(64, 96)], GmAccess::Write, OpId(1));
        a.record(1, &[(0, 8)], GmAccess::Read, OpId(2));
        a.record(0, &[(32, 64)], GmAccess::Read, OpId(1));
        assert_eq!(
            a.sets,
            vec![
                (0, GmAccess::Write, OpId(1), vec![(0, 32), (64, 96)]),
                (1, GmAccess::Read, OpId(2), vec![(0, 8)]),
                (0, GmAccess::Read, OpId(1), vec![(32, 64)])
            ]
        );
    }
}

#[cfg(test)]
mod array_tests {
    use super::*;
    use pto_ir::types::ElemType;

    /// What the array held when it was one vector grown on demand: the pattern of `n` f32
    /// elements.
    fn pattern_f32(n: usize) -> Vec<u8> {
        (0..n).flat_map(|i| (pattern_value(i) as f32).to_le_bytes()).collect()
    }

    #[test]
    fn elements_and_runs_at_chunk_edges_read_as_one_grown_vector() {
        let mut a = GmArray::new("a", ElemType::F32);
        a.pattern = true;
        let per_chunk = CHUNK / 4;
        // The last element of chunk 0 and the first of chunk 1.
        a.element(per_chunk as i64 - 1, MAX_GROWN).unwrap().copy_from_slice(&1.5f32.to_le_bytes());
        a.element(per_chunk as i64, MAX_GROWN).unwrap().copy_from_slice(&2.5f32.to_le_bytes());
        // A run across the edge of chunks 2 and 3, reached as element by element would.
        let run = a.reach(3 * per_chunk as i64 - 2, 3 * per_chunk as i64 + 1, MAX_GROWN).unwrap();
        assert_eq!(run, 3 * CHUNK - 8..3 * CHUNK + 8);
        let mut seen = vec![0; run.len()];
        a.read_bytes(run.start, &mut seen);
        assert_eq!(seen, pattern_f32(3 * per_chunk + 2)[run.clone()]);
        a.write_bytes(run.start, &[0; 16]);
        assert_eq!(a.elements(), 3 * per_chunk + 2);
        let mut want = pattern_f32(3 * per_chunk + 2);
        want[CHUNK - 4..CHUNK].copy_from_slice(&1.5f32.to_le_bytes());
        want[CHUNK..CHUNK + 4].copy_from_slice(&2.5f32.to_le_bytes());
        want[run].fill(0);
        assert_eq!(a.to_bytes(), want);
        // Reading allocated nothing; chunks 0, 1 (elements) and 2, 3 (the run) were written.
        assert_eq!(a.chunks_allocated(), 4);
        // A run whose end faults reports that end, having grown to its start.
        let mut b = GmArray::new("b", ElemType::F32);
        let err = b.reach(10, (MAX_GROWN / 4) as i64, MAX_GROWN).unwrap_err();
        assert_eq!(err.0, format!("GM access to element {} of `%b` is beyond 1 GiB", MAX_GROWN / 4));
        assert_eq!(b.elements(), 11);
    }

    #[test]
    fn a_merge_takes_what_a_block_changed_whatever_it_allocated() {
        let nine = 9f32.to_le_bytes();
        for init_pattern in [true, false] {
            let mut init = GmArray::new("o", ElemType::F32);
            init.pattern = init_pattern;
            let block = |at: usize| {
                let mut b = init.clone();
                b.pattern = true;
                b.written = true;
                b.element(at as i64, MAX_GROWN).unwrap().copy_from_slice(&nine);
                b
            };
            let (first, second) = (block(3), block(2 * CHUNK));
            let mut acc = first.clone();
            acc.merge_block(&init, &second);
            let mut want = pattern_f32(2 * CHUNK + 1);
            want[8 * CHUNK..].copy_from_slice(&nine);
            if init_pattern {
                // Only the written element of each block differs from where it started.
                want[12..16].copy_from_slice(&nine);
                assert_eq!(acc.chunks_allocated(), 2);
            }
            // Blocks that started from zeros but ran with the pattern changed every byte
            // they grew over: the later block's pattern wins over the first block's write,
            // as when the array was one grown vector.
            assert!(acc.to_bytes() == want, "merge with the initial pattern {init_pattern}");
        }
    }
}
