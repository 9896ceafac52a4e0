//! Global memory: one host array per kernel pointer argument, and the address arithmetic of
//! tensor and partition views (shape, strides, offsets; up to 5 dimensions, right-aligned as
//! in pto-isa: a 2-D tile maps onto the two innermost dimensions).

use crate::elem::Elem;
use crate::memory::Fault;

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
            if offsets[d] < 0 || sizes[d] < 0 || offsets[d] + sizes[d] > self.shape[d] {
                return Err(Fault(format!(
                    "partition [{}, {}) of dimension {d} is outside the view's size {}",
                    offsets[d],
                    offsets[d] + sizes[d],
                    self.shape[d]
                )));
            }
            v.offset += offsets[d] * self.strides[d];
            v.shape[d] = sizes[d];
        }
        Ok(v)
    }

    /// Element index of 2-D position `(r, c)` over the two innermost dimensions.
    pub fn index(&self, r: usize, c: usize) -> i64 {
        match self.rank {
            1 => self.offset + c as i64 * self.strides[0] + r as i64 * self.shape[0] * self.strides[0],
            n => self.offset + r as i64 * self.strides[n - 2] + c as i64 * self.strides[n - 1],
        }
    }

    /// The 2-D extent `(rows, cols)` of the two innermost dimensions (outer dimensions must be 1).
    pub fn extent(&self) -> (i64, i64) {
        match self.rank {
            1 => (1, self.shape[0]),
            n => (self.shape[..n - 2].iter().product::<i64>() * self.shape[n - 2], self.shape[n - 1]),
        }
    }
}

/// The deterministic input pattern: small values, exact in every element type, varying with
/// the index (`((7 i + 3) mod 17) / 4 - 2`).
pub fn pattern_value(i: usize) -> f64 {
    ((i * 7 + 3) % 17) as f64 / 4.0 - 2.0
}

/// One GM array.
#[derive(Clone, Debug)]
pub struct GmArray {
    /// Argument name.
    pub name: String,
    /// Element size in bytes.
    pub elem_size: usize,
    /// Bytes.
    pub bytes: Vec<u8>,
    /// Bound by the user (bounds are enforced); otherwise it grows on demand.
    pub bound: bool,
    /// Element type (for the deterministic fill of unbound arrays).
    pub dtype: pto_ir::types::ElemType,
    /// Fill unbound arrays with a deterministic pattern instead of zeros.
    pub pattern: bool,
    /// Written by the kernel (`tstore`): only written arrays are outputs.
    pub written: bool,
    /// The (rows, cols) of the array bound to it, which outputs keep.
    pub shape: Option<(usize, usize)>,
}

impl GmArray {
    /// Bytes of element `index`, growing an unbound array.
    pub fn element(&mut self, index: i64) -> Result<&mut [u8], Fault> {
        let n = self.bytes.len() / self.elem_size.max(1);
        if index < 0 || (self.bound && index as usize >= n) {
            return Err(Fault(format!("GM access to element {index} of `%{}`, which has {n} elements", self.name)));
        }
        let end = (index as usize + 1) * self.elem_size;
        if end > self.bytes.len() {
            if end > (1 << 30) {
                return Err(Fault(format!("GM access to element {index} of `%{}` is beyond 1 GiB", self.name)));
            }
            let old = self.bytes.len() / self.elem_size.max(1);
            self.bytes.resize(end, 0);
            if self.pattern {
                let size = self.elem_size;
                crate::dispatch!(self.dtype, T => {
                    for i in old..(end / size) {
                        <T as crate::elem::Elem>::from_f64(pattern_value(i)).store(&mut self.bytes[i * size..]);
                    }
                }, _ => {});
            }
        }
        Ok(&mut self.bytes[end - self.elem_size..end])
    }
}
