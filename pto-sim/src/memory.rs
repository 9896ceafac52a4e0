//! The machine's memories: one byte vector per on-chip buffer, sized to the target's capacity,
//! and GM arrays bound to kernel pointer arguments. Every access is bounds-checked and returns
//! a [`Fault`] instead of panicking.

use pto_ir::types::Loc;
use pto_lower::Target;

/// A program fault: what went wrong, without a location (the interpreter adds the op's).
#[derive(Clone, Debug, PartialEq)]
pub struct Fault(pub String);

/// All on-chip buffers.
pub struct Memory {
    bufs: Vec<(Loc, Vec<u8>)>,
}

impl Memory {
    /// Zero-filled buffers with the target's capacities.
    pub fn new(target: &Target) -> Memory {
        Memory { bufs: target.buffers.iter().map(|b| (b.loc, vec![0u8; b.capacity as usize])).collect() }
    }

    fn buf(&self, loc: Loc) -> &[u8] {
        self.bufs.iter().find(|(l, _)| *l == loc).map(|(_, b)| b.as_slice()).unwrap_or(&[])
    }

    fn buf_mut(&mut self, loc: Loc) -> &mut [u8] {
        match self.bufs.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, b)) => b.as_mut_slice(),
            None => &mut [],
        }
    }

    /// `len` bytes at `addr` in `loc`.
    pub fn slice(&self, loc: Loc, addr: u64, len: usize) -> Result<&[u8], Fault> {
        let b = self.buf(loc);
        let n = b.len();
        range(addr, len).and_then(|r| b.get(r)).ok_or_else(|| outside(loc, addr, len, n))
    }

    /// The whole buffer of `loc`, writable (callers check tile bounds with [`Memory::slice`] first).
    pub fn buffer_mut(&mut self, loc: Loc) -> &mut [u8] {
        self.buf_mut(loc)
    }

    /// `len` bytes at `addr` in `loc`, writable.
    pub fn slice_mut(&mut self, loc: Loc, addr: u64, len: usize) -> Result<&mut [u8], Fault> {
        let b = self.buf_mut(loc);
        let n = b.len();
        range(addr, len).and_then(|r| b.get_mut(r)).ok_or_else(|| outside(loc, addr, len, n))
    }
}

/// The byte range `[addr, addr + len)`, if it is addressable at all.
fn range(addr: u64, len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(addr).ok()?;
    Some(start..start.checked_add(len)?)
}

fn outside(loc: Loc, addr: u64, len: usize, n: usize) -> Fault {
    Fault(format!("access to bytes [{addr}, {}) of {} is outside its {n} bytes", (addr as u128) + len as u128, loc.name()))
}
