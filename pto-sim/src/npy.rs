//! `.npy` files in and out (via the `npyz` crate): little-endian, C order, 1-D or 2-D.
//! bf16 travels as `uint16` bit patterns (numpy has no bf16), the one-byte floats (`f8E4M3FN`,
//! `f8E5M2`, `f8E8M0FNU`, `hif8`) as `uint8` bit patterns (`ml_dtypes` arrays viewed as
//! `np.uint8`).
//!
//! Before `npyz` sees a file, [`check_sizes`] checks what it would size allocations by: the
//! header length must lie inside the file, and the shape's element count (checked
//! multiplication, no negative dimension) times the element size must be the data the file
//! holds. So a damaged or hostile header is an error, never a huge allocation, an overflow or an
//! array silently taken as empty.

use crate::data::TileData;
use crate::elem::Elem;

/// Like [`crate::dispatch!`] over the element types numpy knows: bf16 travels as its u16 bits.
macro_rules! npy_dispatch {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        $crate::dispatch_over!($dtype, $T => $body, _ => $other;
            E::I8 => i8, E::I16 => i16, E::I32 => i32, E::I64 => i64,
            E::U8 | E::F8E4M3 | E::F8E5M2 | E::F8E8M0 | E::HiF8 => u8, E::U16 | E::BF16 => u16, E::U32 => u32, E::U64 => u64,
            E::F16 => half::f16, E::F32 => f32, E::F64 => f64)
    };
}
use pto_ir::types::ElemType;

fn elem_of(descr: &str) -> Option<ElemType> {
    Some(match descr.trim_start_matches(['<', '|', '=']) {
        "f2" => ElemType::F16,
        "f4" => ElemType::F32,
        "f8" => ElemType::F64,
        "i1" => ElemType::I8,
        "i2" => ElemType::I16,
        "i4" => ElemType::I32,
        "i8" => ElemType::I64,
        "u1" => ElemType::U8,
        "u2" => ElemType::U16,
        "u4" => ElemType::U32,
        "u8" => ElemType::U64,
        "b1" => ElemType::U8,
        _ => return None,
    })
}

fn typed<T: Elem + npyz::Deserialize>(npy: npyz::NpyFile<&[u8]>) -> Result<Vec<u8>, String> {
    let vals: Vec<T> = npy.into_vec().map_err(|e| format!("cannot read the array data: {e}"))?;
    let mut bytes = vec![0u8; vals.len() * T::SIZE];
    for (i, v) in vals.iter().enumerate() {
        v.store(&mut bytes[i * T::SIZE..]);
    }
    Ok(bytes)
}

/// The magic string every `.npy` file starts with.
const MAGIC: &[u8] = b"\x93NUMPY";

/// The header text of an `.npy` file and the number of data bytes after it, with the header
/// length checked against the file.
fn header(bytes: &[u8]) -> Result<(&str, usize), String> {
    let bad = |why: &str| format!("not a valid .npy file: {why}");
    if bytes.len() < MAGIC.len() + 2 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad("missing the \\x93NUMPY magic string"));
    }
    let major = bytes[MAGIC.len()];
    let (len_at, len_size) = (MAGIC.len() + 2, if major == 1 { 2 } else { 4 });
    let field = bytes.get(len_at..len_at + len_size).ok_or_else(|| bad("the file ends inside the header length"))?;
    let header_len = field.iter().rev().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let start = len_at + len_size;
    let text = start
        .checked_add(header_len)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| bad(&format!("the header length {header_len} runs past the end of the file ({} bytes)", bytes.len())))?;
    let text = std::str::from_utf8(text).map_err(|_| bad("the header is not UTF-8"))?;
    Ok((text, bytes.len() - start - header_len))
}

/// The dimensions of the header's `'shape': (d0, d1, ...)` entry (each a non-negative integer
/// that fits `u64`); `None` when the header has no such entry.
fn header_shape(text: &str) -> Result<Option<Vec<u64>>, String> {
    let Some(at) = text.find("'shape'").or_else(|| text.find("\"shape\"")) else { return Ok(None) };
    let rest = text[at + "'shape'".len()..].trim_start().strip_prefix(':').unwrap_or("").trim_start();
    let Some(body) = rest.strip_prefix('(').and_then(|r| r.split_once(')')).map(|(b, _)| b) else { return Ok(None) };
    body.split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_end_matches('L').parse::<u64>().map_err(|_| format!("bad dimension `{d}` in the .npy shape ({body})")))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The element size a simple `'descr': '<f4'` entry names (its trailing digits), else 1.
fn header_elem_size(text: &str) -> usize {
    let descr = text.find("'descr'").map(|at| text[at + "'descr'".len()..].trim_start().trim_start_matches(':').trim_start());
    let quoted = descr.and_then(|d| d.strip_prefix('\'')).and_then(|d| d.split_once('\'')).map(|(d, _)| d);
    quoted.and_then(|d| d.get(2..)).and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(1)
}

/// How deep brackets nest in a header numpy writes for a plain array: the dict and the shape tuple.
const MAX_HEADER_NESTING: usize = 2;

/// Refuses a header whose brackets nest deeper than [`MAX_HEADER_NESTING`] before npyz parses
/// it: its header parser backtracks exponentially in the depth (a 250-byte header of nested `[`
/// ran for minutes). Structured dtypes, the only deeper headers numpy writes, are not supported.
fn check_nesting(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err(format!(
                        "unsupported .npy header: brackets nest more than {MAX_HEADER_NESTING} deep (a structured dtype?)"
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Checks the sizes an `.npy` header declares against the file (see the module doc); returns
/// the shape.
fn check_sizes(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let (text, data_len) = header(bytes)?;
    check_nesting(text)?;
    let elem_size = header_elem_size(text);
    let Some(shape) = header_shape(text)? else { return Err("not a valid .npy file: the header has no shape".into()) };
    let count = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    let needed = count.and_then(|n| n.checked_mul(elem_size as u64));
    match needed {
        Some(n) if n <= data_len as u64 => Ok(shape),
        Some(n) => Err(format!("the .npy shape {shape:?} needs {n} bytes of data, the file holds {data_len}")),
        None => Err(format!("the .npy shape {shape:?} has more elements than this machine can address")),
    }
}

/// Reads an `.npy` file. `want` is the element type of the tile it is bound to: a `uint16`
/// array is accepted for a bf16 tile and a `uint8` array for a one-byte float tile (bit
/// patterns).
pub fn read(bytes: &[u8], want: ElemType) -> Result<TileData, String> {
    let shape = check_sizes(bytes)?;
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let descr = npy.dtype().descr().trim_matches('\'').to_string();
    let elem = elem_of(&descr).ok_or_else(|| format!("unsupported .npy dtype `{descr}`"))?;
    if descr.starts_with('>') {
        return Err(format!("big-endian .npy data (`{descr}`) is not supported"));
    }
    if npy.order() == npyz::Order::Fortran {
        return Err("Fortran-ordered .npy data is not supported; save with numpy's default C order".into());
    }
    if npy.shape() != shape.as_slice() {
        return Err(format!("not a valid .npy file: unreadable shape in the header (read {shape:?}, npyz read {:?})", npy.shape()));
    }
    let dim = |d: u64| usize::try_from(d).map_err(|_| format!("the .npy dimension {d} does not fit this machine"));
    let (rows, cols) = match shape.as_slice() {
        [n] => (1, dim(*n)?),
        [r, c] => (dim(*r)?, dim(*c)?),
        other => return Err(format!("expected a 1-D or 2-D array, found shape {other:?}")),
    };
    let byte_float = matches!(want, ElemType::F8E4M3 | ElemType::F8E5M2 | ElemType::F8E8M0 | ElemType::HiF8);
    let dtype = if (want == ElemType::BF16 && elem == ElemType::U16) || (byte_float && elem == ElemType::U8) { want } else { elem };
    if dtype != want {
        return Err(format!("the array holds {elem} ({descr}), the tile holds {want}"));
    }
    let raw = npy_dispatch!(elem, T => typed::<T>(npy)?, _ => return Err(format!("unsupported element type {elem}")));
    Ok(TileData { dtype, rows, cols, bytes: raw })
}

/// Writes a 2-D `.npy` file: npyz writes the header (its dtype for the element type, C order,
/// the shape), and the data is the tile's own bytes, which are already what every dtype here
/// stores (little-endian, row-major; bf16 and the one-byte floats as their bit patterns).
pub fn write(data: &TileData) -> Result<Vec<u8>, String> {
    data.elements()?;
    let mut out = Vec::with_capacity(128 + data.bytes.len());
    let shape = [data.rows as u64, data.cols as u64];
    fn header<T: Elem + npyz::Serialize + npyz::AutoSerialize>(out: &mut Vec<u8>, shape: &[u64]) -> Result<(), String> {
        use npyz::WriterBuilder;
        // With a known shape the header is written here; the writer is dropped before any
        // element (its count check on drop is not an error path: the bytes follow below).
        let writer = npyz::WriteOptions::<T>::new().default_dtype().shape(shape).writer(out).begin_nd().map_err(|e| e.to_string())?;
        drop(writer);
        Ok(())
    }
    npy_dispatch!(data.dtype, T => header::<T>(&mut out, &shape)?, _ => return Err(format!("cannot write {} as .npy", data.dtype)));
    out.extend_from_slice(&data.bytes);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file npyz writes when given every element.
    fn element_by_element(data: &TileData) -> Vec<u8> {
        fn emit<T: Elem + npyz::Serialize + npyz::AutoSerialize>(out: &mut Vec<u8>, shape: &[u64], bytes: &[u8]) {
            use npyz::WriterBuilder;
            let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(out).begin_nd().unwrap();
            for chunk in bytes.chunks_exact(T::SIZE) {
                w.push(&T::load(chunk)).unwrap();
            }
            w.finish().unwrap();
        }
        let mut out = Vec::new();
        npy_dispatch!(data.dtype, T => emit::<T>(&mut out, &[data.rows as u64, data.cols as u64], &data.bytes), _ => unreachable!());
        out
    }

    #[test]
    fn round_trip_every_supported_type() {
        for dtype in
            [ElemType::F16, ElemType::BF16, ElemType::F32, ElemType::I8, ElemType::U16, ElemType::I32, ElemType::U32, ElemType::F64]
                .into_iter()
                .chain([ElemType::F8E4M3, ElemType::F8E5M2, ElemType::F8E8M0, ElemType::HiF8])
        {
            let n = 6;
            let size = dtype.size_bytes() as usize;
            let bytes: Vec<u8> = (0..n * size).map(|i| (i * 37 % 251) as u8 & 0x3F).collect();
            let data = TileData { dtype, rows: 2, cols: 3, bytes };
            let file = write(&data).unwrap();
            let back = read(&file, dtype).unwrap();
            assert_eq!(back, data, "{dtype}");
            assert_eq!(file, element_by_element(&data), "{dtype}: the same file as npyz writing each element");
        }
    }

    #[test]
    fn mismatched_dtype_is_an_error() {
        let data = TileData { dtype: ElemType::F32, rows: 1, cols: 2, bytes: vec![0; 8] };
        let file = write(&data).unwrap();
        assert_eq!(read(&file, ElemType::I32).unwrap_err(), "the array holds f32 (<f4), the tile holds i32");
        assert!(read(b"not numpy", ElemType::F32).unwrap_err().starts_with("not a valid .npy file"));
    }

    /// An `.npy` v1 file with this header dictionary and `data` bytes.
    fn npy_v1(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut header = dict.to_string();
        while !(MAGIC.len() + 4 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut out = MAGIC.to_vec();
        out.extend([1, 0]);
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn hostile_headers_are_errors_before_anything_is_allocated() {
        let ok = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", &[0; 24]);
        assert_eq!(read(&ok, ElemType::F32).map(|d| (d.rows, d.cols)), Ok((2, 3)));
        // A v2 header length of 0xFFFFFFF0 in a 20-byte file.
        let mut v2 = MAGIC.to_vec();
        v2.extend([2, 0, 0xF0, 0xFF, 0xFF, 0xFF, b'{', b'}']);
        assert!(read(&v2, ElemType::F32).unwrap_err().contains("header length 4294967280 runs past the end of the file"));
        // Dimensions whose product overflows, a negative one, and one the data cannot hold.
        let huge = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", &[0; 8]);
        assert!(read(&huge, ElemType::F32).unwrap_err().contains("more elements than this machine can address"));
        let negative = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 4), }", &[0; 8]);
        assert_eq!(read(&negative, ElemType::F32).unwrap_err(), "bad dimension `-1` in the .npy shape (-1, 4)");
        let short = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 4), }", &[0; 8]);
        assert_eq!(
            read(&short, ElemType::F32).unwrap_err(),
            "the .npy shape [1000000000, 4] needs 16000000000 bytes of data, the file holds 8"
        );
    }
}
