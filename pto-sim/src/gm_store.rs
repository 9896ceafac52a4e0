//! The bytes of one GM array, held by what is touched: a logical extent (`len`, what the array
//! has grown to, as if it were one vector) over fixed-size chunks allocated on first write.
//! A byte no chunk holds reads as the array's *fill* — zeros, or the deterministic input
//! pattern ([`crate::gm::pattern_value`]) — a byte sequence repeating every `period.len()`
//! bytes (empty: zeros). A chunk is filled whole when it is allocated, so what it holds past
//! the last write is what an untouched byte reads.
//!
//! Chunks are [`CHUNK`] bytes: small enough that a kernel reading a 512-byte row piece out of
//! every 51,200-byte row of a weight matrix (Qwen3's `w_gate`) allocates nothing for the reads
//! and a few pages for what it writes, large enough that the chunk table of the largest array
//! an unbound argument grows to (1 GiB) is 1 MiB. Chunks are a multiple of every element size,
//! so an element never straddles two.

use std::ops::Range;

/// Bytes per chunk.
pub const CHUNK: usize = 4096;

/// Sparse bytes: see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Chunked {
    /// The logical extent in bytes.
    len: usize,
    /// Per chunk: 0 when absent, else 1 + its slot in `slab`.
    index: Vec<u32>,
    /// The allocated chunks, [`CHUNK`] bytes each, in allocation order.
    slab: Vec<u8>,
}

/// Writes the fill of bytes `start..start + out.len()` into `out`.
pub fn fill_into(period: &[u8], start: usize, out: &mut [u8]) {
    if period.is_empty() {
        out.fill(0);
        return;
    }
    let p = period.len();
    let mut rot = start % p;
    let mut at = 0;
    while at < out.len() {
        let n = (p - rot).min(out.len() - at);
        out[at..at + n].copy_from_slice(&period[rot..rot + n]);
        at += n;
        rot = 0;
    }
}

impl Chunked {
    /// Bytes `bytes`, every chunk allocated (a bound array).
    pub fn from_bytes(bytes: &[u8]) -> Chunked {
        let count = bytes.len().div_ceil(CHUNK);
        let mut slab = Vec::with_capacity(count * CHUNK);
        slab.extend_from_slice(bytes);
        slab.resize(count * CHUNK, 0);
        Chunked { len: bytes.len(), index: (1..=count as u32).collect(), slab }
    }

    /// The logical extent in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the extent is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Extends the logical extent to `len` bytes (never shrinks it): the new bytes read as the fill.
    pub fn grow(&mut self, len: usize) {
        self.len = self.len.max(len);
    }

    /// How many chunks are allocated.
    pub fn allocated(&self) -> usize {
        self.slab.len() / CHUNK
    }

    /// Chunk `k`, allocated (and filled) if it is not.
    fn chunk_mut(&mut self, k: usize, period: &[u8]) -> &mut [u8] {
        if self.index.len() <= k {
            self.index.resize(k + 1, 0);
        }
        let slot = match self.index[k] {
            0 => {
                let slot = self.allocated();
                self.slab.resize((slot + 1) * CHUNK, 0);
                fill_into(period, k * CHUNK, &mut self.slab[slot * CHUNK..]);
                self.index[k] = slot as u32 + 1;
                slot
            }
            s => s as usize - 1,
        };
        &mut self.slab[slot * CHUNK..(slot + 1) * CHUNK]
    }

    /// Whether chunk `k` is allocated.
    pub fn holds(&self, k: usize) -> bool {
        self.index.get(k).is_some_and(|&s| s != 0)
    }

    /// Chunk `k` if it is allocated.
    fn chunk(&self, k: usize) -> Option<&[u8]> {
        match self.index.get(k).copied().unwrap_or(0) {
            0 => None,
            s => Some(&self.slab[(s as usize - 1) * CHUNK..s as usize * CHUNK]),
        }
    }

    /// Bytes `range`, writable, inside one chunk (an element: chunks hold whole elements);
    /// the chunk is allocated. Panics when the range crosses a chunk boundary.
    pub fn slice_mut(&mut self, range: Range<usize>, period: &[u8]) -> &mut [u8] {
        let k = range.start / CHUNK;
        assert!(range.end <= (k + 1) * CHUNK, "bytes {range:?} cross a GM chunk boundary");
        let at = k * CHUNK;
        &mut self.chunk_mut(k, period)[range.start - at..range.end - at]
    }

    /// The pieces of bytes `start..start + n` split at chunk boundaries: `(chunk, offset in it,
    /// offset in the run, length)`.
    fn pieces(start: usize, n: usize) -> impl Iterator<Item = (usize, usize, usize, usize)> {
        let mut at = 0;
        std::iter::from_fn(move || {
            (at < n).then(|| {
                let b = start + at;
                let (k, off) = (b / CHUNK, b % CHUNK);
                let len = (CHUNK - off).min(n - at);
                at += len;
                (k, off, at - len, len)
            })
        })
    }

    /// Copies bytes `start..start + out.len()` into `out` (an absent chunk reads as the fill;
    /// nothing is allocated).
    pub fn read(&self, start: usize, out: &mut [u8], period: &[u8]) {
        for (k, off, at, len) in Self::pieces(start, out.len()) {
            match self.chunk(k) {
                Some(c) => out[at..at + len].copy_from_slice(&c[off..off + len]),
                None => fill_into(period, start + at, &mut out[at..at + len]),
            }
        }
    }

    /// Copies `src` to bytes `start..start + src.len()`, allocating the chunks it reaches.
    pub fn write(&mut self, start: usize, src: &[u8], period: &[u8]) {
        for (k, off, at, len) in Self::pieces(start, src.len()) {
            self.chunk_mut(k, period)[off..off + len].copy_from_slice(&src[at..at + len]);
        }
    }

    /// The whole extent as one vector.
    pub fn to_vec(&self, period: &[u8]) -> Vec<u8> {
        let mut out = vec![0; self.len];
        self.read(0, &mut out, period);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fill of a 3-byte period: byte `b` reads `b % 3 + 1`.
    const P: &[u8] = &[1, 2, 3];

    fn filled(start: usize, n: usize) -> Vec<u8> {
        (start..start + n).map(|b| (b % 3 + 1) as u8).collect()
    }

    #[test]
    fn runs_across_chunk_edges_read_and_write_like_one_vector() {
        let mut s = Chunked::default();
        // A run ending exactly at a chunk edge, one starting there, one straddling two edges.
        s.write(CHUNK - 4, &[9; 4], P);
        assert_eq!(s.allocated(), 1);
        s.write(CHUNK, &[8; 2], P);
        s.write(2 * CHUNK - 1, &vec![7; CHUNK + 2], P);
        assert_eq!(s.allocated(), 4);
        s.grow(3 * CHUNK + 1);
        let all = s.to_vec(P);
        let mut want = filled(0, 3 * CHUNK + 1);
        want[CHUNK - 4..CHUNK].fill(9);
        want[CHUNK..CHUNK + 2].fill(8);
        want[2 * CHUNK - 1..3 * CHUNK + 1].fill(7);
        assert_eq!(all, want);
        // A read across an allocated and an absent chunk allocates nothing.
        let mut out = vec![0; CHUNK + 4];
        s.read(3 * CHUNK - 2, &mut out, P);
        assert_eq!(out, [vec![7; 3], filled(3 * CHUNK + 1, CHUNK + 1)].concat());
        let mut out = vec![0; 6];
        s.read(5 * CHUNK - 3, &mut out, P);
        assert_eq!(out, filled(5 * CHUNK - 3, 6));
        assert_eq!(s.allocated(), 4);
    }

    #[test]
    fn a_chunk_is_filled_whole_past_the_extent() {
        let mut s = Chunked::default();
        s.slice_mut(2 * CHUNK + 8..2 * CHUNK + 10, P).copy_from_slice(&[0, 0]);
        s.grow(2 * CHUNK + 10);
        assert_eq!((s.allocated(), s.holds(1), s.holds(2)), (1, false, true));
        let all = s.to_vec(P);
        assert_eq!(all.len(), 2 * CHUNK + 10);
        assert_eq!(&all[2 * CHUNK..], &[filled(2 * CHUNK, 8), vec![0, 0]].concat()[..]);
        // Past the extent the chunk already holds the fill: growing shows it.
        s.grow(3 * CHUNK);
        let mut out = vec![0; 4];
        s.read(3 * CHUNK - 4, &mut out, P);
        assert_eq!(out, filled(3 * CHUNK - 4, 4));
        // Zeros without a period.
        let mut z = Chunked::default();
        z.write(CHUNK - 1, &[5, 5], &[]);
        z.grow(CHUNK + 3);
        assert_eq!(&z.to_vec(&[])[CHUNK - 2..], &[0, 5, 5, 0, 0]);
    }

    #[test]
    #[should_panic(expected = "cross a GM chunk boundary")]
    fn an_element_never_straddles_chunks() {
        Chunked::default().slice_mut(CHUNK - 2..CHUNK + 2, &[]);
    }

    #[test]
    fn bound_bytes_are_one_allocated_run() {
        let bytes: Vec<u8> = (0..CHUNK + 5).map(|b| b as u8).collect();
        let s = Chunked::from_bytes(&bytes);
        assert_eq!((s.len(), s.allocated()), (CHUNK + 5, 2));
        assert_eq!(s.to_vec(P), bytes);
    }
}
