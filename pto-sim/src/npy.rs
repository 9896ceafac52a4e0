//! `.npy` files in and out (via the `npyz` crate): little-endian, C order, 1-D or 2-D.
//! bf16 travels as `uint16` bit patterns (numpy has no bf16).

use crate::data::TileData;
use crate::elem::Elem;

/// Like [`crate::dispatch!`] over the element types numpy knows: bf16 travels as its u16 bits.
macro_rules! npy_dispatch {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        $crate::dispatch_over!($dtype, $T => $body, _ => $other;
            E::I8 => i8, E::I16 => i16, E::I32 => i32, E::I64 => i64,
            E::U8 => u8, E::U16 | E::BF16 => u16, E::U32 => u32, E::U64 => u64,
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

/// Reads an `.npy` file. `want` is the element type of the tile it is bound to: a `uint16`
/// array is accepted for a bf16 tile (bit patterns).
pub fn read(bytes: &[u8], want: ElemType) -> Result<TileData, String> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let descr = npy.dtype().descr().trim_matches('\'').to_string();
    let elem = elem_of(&descr).ok_or_else(|| format!("unsupported .npy dtype `{descr}`"))?;
    if descr.starts_with('>') {
        return Err(format!("big-endian .npy data (`{descr}`) is not supported"));
    }
    if npy.order() == npyz::Order::Fortran {
        return Err("Fortran-ordered .npy data is not supported; save with numpy's default C order".into());
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let (rows, cols) = match shape.as_slice() {
        [n] => (1, *n),
        [r, c] => (*r, *c),
        other => return Err(format!("expected a 1-D or 2-D array, found shape {other:?}")),
    };
    let dtype = if want == ElemType::BF16 && elem == ElemType::U16 { ElemType::BF16 } else { elem };
    if dtype != want {
        return Err(format!("the array holds {elem} ({descr}), the tile holds {want}"));
    }
    let raw = npy_dispatch!(elem, T => typed::<T>(npy)?, _ => return Err(format!("unsupported element type {elem}")));
    Ok(TileData { dtype, rows, cols, bytes: raw })
}

/// Writes a 2-D `.npy` file.
pub fn write(data: &TileData) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let shape = [data.rows as u64, data.cols as u64];
    fn emit<T: Elem + npyz::Serialize + npyz::AutoSerialize>(out: &mut Vec<u8>, shape: &[u64], bytes: &[u8]) -> Result<(), String> {
        use npyz::WriterBuilder;
        let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(out).begin_nd().map_err(|e| e.to_string())?;
        for chunk in bytes.chunks_exact(T::SIZE) {
            w.push(&T::load(chunk)).map_err(|e| e.to_string())?;
        }
        w.finish().map_err(|e| e.to_string())
    }
    npy_dispatch!(data.dtype, T => emit::<T>(&mut out, &shape, &data.bytes)?, _ => return Err(format!("cannot write {} as .npy", data.dtype)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_supported_type() {
        for dtype in
            [ElemType::F16, ElemType::BF16, ElemType::F32, ElemType::I8, ElemType::U16, ElemType::I32, ElemType::U32, ElemType::F64]
        {
            let n = 6;
            let size = dtype.size_bytes() as usize;
            let bytes: Vec<u8> = (0..n * size).map(|i| (i * 37 % 251) as u8 & 0x3F).collect();
            let data = TileData { dtype, rows: 2, cols: 3, bytes };
            let file = write(&data).unwrap();
            let back = read(&file, dtype).unwrap();
            assert_eq!(back, data, "{dtype}");
        }
    }

    #[test]
    fn mismatched_dtype_is_an_error() {
        let data = TileData { dtype: ElemType::F32, rows: 1, cols: 2, bytes: vec![0; 8] };
        let file = write(&data).unwrap();
        assert_eq!(read(&file, ElemType::I32).unwrap_err(), "the array holds f32 (<f4), the tile holds i32");
        assert!(read(b"not numpy", ElemType::F32).unwrap_err().starts_with("not a valid .npy file"));
    }
}
