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

/// One element of [`TileData`] as JSON shows it: a finite float as a number (shortest exact form
/// of its f64 value), a NaN or infinity as the string `"nan"`, `"inf"` or `"-inf"`, an integer as
/// an integer, and element types the simulator does not compute with as their raw bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JsonScalar {
    /// A finite float.
    Float(f64),
    /// A signed integer.
    Signed(i64),
    /// An unsigned integer or raw bits.
    Unsigned(u64),
    /// A float that JSON has no number for.
    Named(&'static str),
}

impl JsonScalar {
    /// As a JSON value.
    pub fn to_value(self) -> Value {
        match self {
            JsonScalar::Float(f) => json!(f),
            JsonScalar::Signed(i) => json!(i),
            JsonScalar::Unsigned(u) => json!(u),
            JsonScalar::Named(s) => json!(s),
        }
    }

    /// Appends its JSON text to `out`: the same text as [`Self::to_value`]'s `Display`
    /// (serde_json writes floats with zmij and integers with itoa too), without building a
    /// value — what a large `--json` output costs per element.
    pub fn write(self, out: &mut String) {
        match self {
            // Whole numbers below 10^15 (zeros above all) print as the integer and `.0`, as
            // zmij prints them, without its general algorithm.
            JsonScalar::Float(f) if f.abs() < 1e15 && f.trunc() == f && !(f == 0.0 && f.is_sign_negative()) => {
                out.push_str(itoa::Buffer::new().format(f as i64));
                out.push_str(".0");
            }
            JsonScalar::Float(f) => out.push_str(zmij::Buffer::new().format_finite(f)),
            JsonScalar::Signed(i) => out.push_str(itoa::Buffer::new().format(i)),
            JsonScalar::Unsigned(u) => out.push_str(itoa::Buffer::new().format(u)),
            JsonScalar::Named(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
        }
    }
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

    /// [`Self::to_json_values`] of elements `range` only.
    pub fn json_values(&self, range: std::ops::Range<usize>) -> Vec<Value> {
        let mut values = Vec::with_capacity(range.len());
        self.for_each_json_scalar(range, |x| values.push(x.to_value()));
        values
    }

    /// Each element of `range` as JSON sees it, in order: what [`Self::json_values`] and a
    /// text writer ([`JsonScalar::write`]) both build on.
    pub fn for_each_json_scalar(&self, range: std::ops::Range<usize>, mut f: impl FnMut(JsonScalar)) {
        let size = (self.dtype.size_bytes() as usize).max(1);
        let bytes = &self.bytes[range.start * size..range.end * size];
        dispatch!(self.dtype, T => {
            for b in bytes.chunks_exact(size) {
                let x = T::load(b);
                f(if <T as Elem>::FLOAT {
                    let v = x.to_f64();
                    if v.is_finite() {
                        JsonScalar::Float(v)
                    } else {
                        JsonScalar::Named(if v.is_nan() { "nan" } else if v > 0.0 { "inf" } else { "-inf" })
                    }
                } else if <T as Elem>::signed() {
                    JsonScalar::Signed(x.to_i64())
                } else {
                    JsonScalar::Unsigned(x.raw_bits())
                });
            }
        }, _ => for b in bytes.chunks_exact(size) {
            f(JsonScalar::Unsigned(b.iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x))));
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_of_a_scalar_is_the_text_of_its_value() {
        let floats = [0.0, -0.0, 1.0, -2.5, 0.1, f64::from(0.1f32), 1e300, 5e-324, f64::MAX, 123456789.125, 1e16, 1e-7];
        let scalars = floats
            .into_iter()
            .map(JsonScalar::Float)
            .chain([i64::MIN, -1, 0, 42, i64::MAX].map(JsonScalar::Signed))
            .chain([0, 7, u64::MAX].map(JsonScalar::Unsigned))
            .chain(["nan", "inf", "-inf"].map(JsonScalar::Named));
        for x in scalars {
            let mut text = String::new();
            x.write(&mut text);
            assert_eq!(text, x.to_value().to_string(), "{x:?}");
        }
    }

    #[test]
    fn whole_numbers_take_the_short_way_to_the_same_text() {
        let whole =
            (-2000..2000).map(f64::from).chain((0..52).map(|k| 2f64.powi(k) * 3.0)).chain([999_999_999_999_999.0, -1e14, 1e15, 1e16]);
        for f in whole.flat_map(|f| [f, -f]) {
            let mut text = String::new();
            JsonScalar::Float(f).write(&mut text);
            assert_eq!(text, zmij::Buffer::new().format_finite(f), "{f}");
        }
    }

    #[test]
    fn every_element_type_reaches_the_writer_as_the_value_does() {
        let data = TileData {
            dtype: ElemType::F16,
            rows: 1,
            cols: 4,
            bytes: [0x3c00u16, 0x7c00, 0xfe00, 0x8001].iter().flat_map(|h| h.to_le_bytes()).collect(),
        };
        let mut seen = Vec::new();
        data.for_each_json_scalar(0..4, |x| seen.push(x));
        assert_eq!(
            seen,
            [JsonScalar::Float(1.0), JsonScalar::Named("inf"), JsonScalar::Named("nan"), JsonScalar::Float(-5.960464477539063e-8)]
        );
        assert_eq!(data.to_json_values(), seen.iter().map(|x| x.to_value()).collect::<Vec<_>>());
    }
}
