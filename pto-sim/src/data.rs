//! Tile data exchanged with the outside: typed values in logical row-major order, stored as
//! little-endian bytes so every element type (f16/bf16 included) is exact.

use crate::dispatch;
use crate::elem::Elem;
use pto_ir::types::ElemType;
use serde_json::{Value, json};

/// A 2-D array of one element type (row-major, little-endian bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct TileData {
    /// Element type.
    pub dtype: ElemType,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// `rows * cols * size` bytes.
    pub bytes: Vec<u8>,
}

/// The number of elements of a `rows x cols` array, or an error naming the shape when it
/// does not fit `usize` (a shape read from a file is checked before anything is sized by it).
pub fn element_count(rows: usize, cols: usize) -> Result<usize, String> {
    rows.checked_mul(cols).ok_or_else(|| format!("shape {rows}x{cols} has more elements than this machine can address"))
}

impl TileData {
    /// The element count after checking that `bytes` holds exactly `rows x cols` elements (the
    /// fields are public: data built by hand is checked where it is used).
    pub fn elements(&self) -> Result<usize, String> {
        let n = element_count(self.rows, self.cols)?;
        if n.checked_mul(self.dtype.size_bytes() as usize) != Some(self.bytes.len()) {
            return Err(format!("{} bytes do not hold {}x{} {} elements", self.bytes.len(), self.rows, self.cols, self.dtype));
        }
        Ok(n)
    }

    /// Builds from JSON numbers (or the strings `"nan"`, `"inf"`, `"-inf"`).
    pub fn from_json(dtype: ElemType, rows: usize, cols: usize, values: &[Value]) -> Result<TileData, String> {
        let n = element_count(rows, cols)?;
        if values.len() != n {
            return Err(format!("expected {n} values ({rows}x{cols}), found {}", values.len()));
        }
        let size = dtype.size_bytes() as usize;
        // Sized by the values already in memory.
        let mut bytes = vec![0u8; n * size];
        dispatch!(dtype, T => {
            for (i, v) in values.iter().enumerate() {
                let out_of_range = |n: &serde_json::Number| format!("value {i} (`{n}`) does not fit {dtype}");
                let x: T = match v {
                    Value::Number(n) if !<T as Elem>::FLOAT => match (n.as_i64(), n.as_u64()) {
                        (Some(v), _) => {
                            let x = T::from_i64(v);
                            // Out of range, or negative for an unsigned type (which would wrap).
                            if x.to_i64() != v || (v < 0 && matches!(dtype, ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64)) {
                                return Err(out_of_range(n));
                            }
                            x
                        }
                        (None, Some(u)) if dtype == ElemType::U64 => T::from_raw_bits(u),
                        (None, Some(_)) => return Err(out_of_range(n)),
                        _ => return Err(format!("value {i} (`{n}`) is not an integer, the tile holds {dtype}")),
                    },
                    Value::Number(n) => {
                        let f = n.as_f64().unwrap_or(f64::NAN);
                        let x = T::from_f64(f);
                        if f.is_finite() && !x.to_f64().is_finite() {
                            return Err(out_of_range(n));
                        }
                        x
                    }
                    Value::String(s) if <T as Elem>::FLOAT => T::from_f64(match s.as_str() {
                        "nan" => f64::NAN,
                        "inf" => f64::INFINITY,
                        "-inf" => f64::NEG_INFINITY,
                        other => return Err(format!("value {i}: `{other}` is not a number")),
                    }),
                    other => return Err(format!("value {i}: `{other}` is not a number")),
                };
                x.store(&mut bytes[i * size..]);
            }
        }, _ => return Err(format!("element type {dtype} is not supported by the simulator")));
        Ok(TileData { dtype, rows, cols, bytes })
    }

    /// Values as JSON numbers (floats in shortest exact form); element types the simulator
    /// does not compute with (fp8, hif8, `index`, i1) as their raw bits, so every element is
    /// shown.
    pub fn to_json_values(&self) -> Vec<Value> {
        self.json_values(0..self.bytes.len() / (self.dtype.size_bytes() as usize).max(1))
    }

    /// [`Self::to_json_values`] of elements `range` only (a row at a time for a large output).
    pub fn json_values(&self, range: std::ops::Range<usize>) -> Vec<Value> {
        let size = (self.dtype.size_bytes() as usize).max(1);
        let bytes = &self.bytes[range.start * size..range.end * size];
        dispatch!(self.dtype, T => {
            bytes.chunks_exact(size).map(|b| {
                let x = T::load(b);
                if <T as Elem>::FLOAT {
                    let f = x.to_f64();
                    if f.is_finite() { json!(f) } else { json!(if f.is_nan() { "nan" } else if f > 0.0 { "inf" } else { "-inf" }) }
                } else if <T as Elem>::signed() {
                    json!(x.to_i64())
                } else {
                    json!(x.raw_bits())
                }
            }).collect()
        }, _ => bytes.chunks_exact(size).map(|b| json!(b.iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x)))).collect())
    }

    /// Raw bit patterns (unsigned, little-endian), one per element.
    pub fn bits(&self) -> Vec<u64> {
        let size = (self.dtype.size_bytes() as usize).clamp(1, 8);
        self.bytes.chunks_exact(size).map(|b| b.iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x))).collect()
    }

    /// Values as f64 (for tolerance comparisons).
    pub fn as_f64(&self) -> Vec<f64> {
        let size = self.dtype.size_bytes() as usize;
        dispatch!(self.dtype, T => self.bytes.chunks_exact(size).map(|b| T::load(b).to_f64()).collect(), _ => Vec::new())
    }

    /// `{"dtype": "f32", "shape": [R, C], "data": [...]}`.
    pub fn to_json(&self) -> Value {
        json!({"dtype": self.dtype.name(), "shape": [self.rows, self.cols], "data": self.to_json_values()})
    }
}
