//! The compact form of `pto run`'s outputs (its default on a terminal): per output, its name,
//! element type and shape, and its values as numpy prints them, with the first and last
//! [`EDGE`] rows and columns of a larger array and `...` for the rest.

use pto_sim::TileData;

/// Rows and columns shown at each end of a dimension longer than `2 * EDGE + 1`.
pub const EDGE: usize = 3;

/// Indices shown of a dimension of length `n`; `None` stands for the elided middle.
fn shown(n: usize) -> Vec<Option<usize>> {
    if n > 2 * EDGE + 1 { (0..EDGE).map(Some).chain([None]).chain((n - EDGE..n).map(Some)).collect() } else { (0..n).map(Some).collect() }
}

/// The text of every element (integers exact; floats in their shortest form, `f32` precision
/// for types of 32 bits or fewer).
fn element_texts(data: &TileData) -> Vec<String> {
    if data.dtype.is_float() {
        let narrow = data.dtype.size_bytes() <= 4;
        data.as_f64().into_iter().map(|f| if narrow { format!("{:?}", f as f32) } else { format!("{f:?}") }).collect()
    } else {
        data.to_json_values().iter().map(|v| v.to_string()).collect()
    }
}

/// `name: f32 (16, 64)` and the numpy-like rows of the values; the second value tells whether
/// anything was elided.
pub fn preview(name: &str, data: &TileData) -> (String, bool) {
    let texts = element_texts(data);
    let (rows, cols) = (shown(data.rows), shown(data.cols));
    let cell = |r: usize, c: usize| texts.get(r * data.cols + c).map_or("?", String::as_str);
    let width =
        rows.iter().flatten().flat_map(|&r| cols.iter().flatten().map(move |&c| (r, c))).map(|(r, c)| cell(r, c).len()).max().unwrap_or(0);
    let mut out = format!("{name}: {} ({}, {})\n", data.dtype, data.rows, data.cols);
    for (i, r) in rows.iter().enumerate() {
        out.push_str(if i == 0 { "[" } else { " " });
        match r {
            Some(r) => {
                let items: Vec<String> = cols.iter().map(|c| c.map_or("...".to_string(), |c| format!("{:>width$}", cell(*r, c)))).collect();
                out.push('[');
                out.push_str(&items.join(" "));
                out.push(']');
            }
            None => out.push_str("..."),
        }
        out.push_str(if i + 1 == rows.len() { "]\n" } else { "\n" });
    }
    if rows.is_empty() {
        out.push_str("[]\n");
    }
    (out, rows.len() < data.rows || cols.len() < data.cols)
}
