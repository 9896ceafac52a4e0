//! JSON tiles in: `{"dtype": "f32", "shape": [R, C], "data": [...]}` with `data` flat or nested
//! (numpy's `tolist()`), or a bare nested list `[[...], ...]` of the tile's element type. The
//! values go through [`TileData::from_json`], which checks each against the element type
//! (floats round to nearest, ties to even). Instead of `data`, `bits` gives exact bit patterns
//! (unsigned integers of the element's width; the shape is the list's), e.g. for bf16 and the
//! one-byte floats.

use crate::data::TileData;
use pto_ir::types::ElemType;
use serde_json::Value;

/// Reads a JSON tile file (either form above) for a tile of element type `want`.
pub fn read(text: &str, want: ElemType) -> Result<TileData, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if v.is_array() {
        let (shape, values) = nested(&v)?;
        let (rows, cols) = rows_cols(&shape)?;
        return TileData::from_json(want, rows, cols, &values);
    }
    let dtype_name = v["dtype"].as_str().ok_or("missing \"dtype\"")?;
    let dtype = ElemType::parse(dtype_name).ok_or_else(|| format!("unknown dtype `{dtype_name}`"))?;
    if dtype != want {
        return Err(format!("the file holds {dtype}, the tile holds {want}"));
    }
    if let Some(bits) = v.get("bits") {
        let (shape, values) = nested(bits)?;
        let (rows, cols) = rows_cols(&shape)?;
        return from_bits(dtype, rows, cols, &values);
    }
    let (data_shape, values) = nested(v.get("data").ok_or("missing \"data\"")?)?;
    let shape: Vec<usize> = match v.get("shape") {
        Some(s) => s
            .as_array()
            .ok_or("\"shape\" must be a list")?
            .iter()
            .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()).ok_or_else(|| format!("bad dimension `{d}` in \"shape\"")))
            .collect::<Result<_, _>>()?,
        None => data_shape,
    };
    let (rows, cols) = rows_cols(&shape)?;
    TileData::from_json(dtype, rows, cols, &values)
}

/// A tile from bit patterns, each checked against the element width.
fn from_bits(dtype: ElemType, rows: usize, cols: usize, values: &[Value]) -> Result<TileData, String> {
    let size = dtype.size_bytes() as usize;
    let mut bytes = Vec::with_capacity(values.len() * size);
    for (i, v) in values.iter().enumerate() {
        let b = v
            .as_u64()
            .filter(|b| size >= 8 || *b >> (size * 8) == 0)
            .ok_or_else(|| format!("bits {i} (`{v}`) is not a {}-bit pattern", size * 8))?;
        bytes.extend_from_slice(&b.to_le_bytes()[..size]);
    }
    let data = TileData { dtype, rows, cols, bytes };
    data.elements()?;
    Ok(data)
}

/// (rows, cols) of a 1-D or 2-D shape.
fn rows_cols(shape: &[usize]) -> Result<(usize, usize), String> {
    match shape {
        [n] => Ok((1, *n)),
        [r, c] => Ok((*r, *c)),
        _ => Err(format!("a tile has 1 or 2 dimensions, found {shape:?}")),
    }
}

/// The shape and the values (row-major) of a flat or nested JSON list; ragged lists are errors.
fn nested(v: &Value) -> Result<(Vec<usize>, Vec<Value>), String> {
    let Some(items) = v.as_array() else { return Ok((Vec::new(), vec![v.clone()])) };
    let mut shape = None;
    let mut values = Vec::new();
    for item in items {
        let (inner, vals) = nested(item)?;
        match &shape {
            None => shape = Some(inner),
            Some(s) if *s != inner => return Err(format!("ragged list: rows of shape {s:?} and {inner:?}")),
            Some(_) => {}
        }
        values.extend(vals);
    }
    let mut full = vec![items.len()];
    full.extend(shape.unwrap_or_default());
    Ok((full, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_floats_from_values_or_bits() {
        // Values round to nearest, ties to even: 1.0625 -> 1.0 (0x38), 3.0 -> 0x44.
        let t = read(r#"{"dtype": "f8E4M3FN", "data": [[1.0625, 3.0]]}"#, ElemType::F8E4M3).unwrap();
        assert_eq!(t.bytes, [0x38, 0x44]);
        let t = read(r#"{"dtype": "f8E8M0FNU", "shape": [1, 3], "bits": [127, 128, 255]}"#, ElemType::F8E8M0).unwrap();
        assert_eq!((t.rows, t.cols, t.bytes.clone()), (1, 3, vec![127, 128, 255]));
        assert_eq!(t.as_f64()[..2], [1.0, 2.0]);
        assert!(t.as_f64()[2].is_nan());
        let e = read(r#"{"dtype": "f8E4M3FN", "bits": [256]}"#, ElemType::F8E4M3).unwrap_err();
        assert_eq!(e, "bits 0 (`256`) is not a 8-bit pattern");
        // Beyond the range (E4M3FN has no infinity) or a negative scale: errors.
        assert!(read(r#"{"dtype": "f8E4M3FN", "data": [500.0]}"#, ElemType::F8E4M3).unwrap_err().contains("does not fit"));
        assert!(read(r#"{"dtype": "f8E8M0FNU", "data": [-1.0]}"#, ElemType::F8E8M0).unwrap_err().contains("does not fit"));
        let t = read(r#"{"dtype": "bf16", "bits": [16256]}"#, ElemType::BF16).unwrap();
        assert_eq!(t.as_f64(), [1.0]);
    }
}
