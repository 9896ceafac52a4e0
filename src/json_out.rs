//! `pto run --json`: the outputs as one JSON object, compact enough to read — each output's
//! `dtype` and `shape` on its first line, then its `data` (still one flat list, row-major) one
//! row per line, instead of one number per line.

use pto_sim::TileData;
use std::fmt::Write as _;

/// The JSON text of `outputs` (sorted by name), ending with a newline.
pub fn outputs(outputs: &[(String, TileData)]) -> String {
    let mut sorted: Vec<&(String, TileData)> = outputs.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    // Room for the longest text of every element up front (a float is at most 24 characters, an
    // integer 20, each with its ", "): the text never moves while it grows, and the pages of
    // room it does not use are never touched.
    let elements: usize = sorted.iter().map(|(_, d)| d.bytes.len() / (d.dtype.size_bytes() as usize).max(1)).sum();
    let mut out = String::with_capacity(64 * (sorted.len() + 1) + 26 * elements);
    out.push('{');
    for (i, (name, data)) in sorted.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let key = serde_json::Value::from(name.as_str());
        let _ =
            write!(out, "{sep}\n  {key}: {{\"dtype\": \"{}\", \"shape\": [{}, {}], \"data\": [", data.dtype.name(), data.rows, data.cols);
        // Element by element straight into the text: a large output costs its text, not a
        // value and a string per element.
        let (n, cols) = (data.bytes.len() / (data.dtype.size_bytes() as usize).max(1), data.cols.max(1));
        let mut column = 0;
        data.for_each_json_scalar(0..n, |x| {
            out.push_str(match column {
                0 if out.ends_with('[') => "\n    ",
                0 => ",\n    ",
                _ => ", ",
            });
            x.write(&mut out);
            column = (column + 1) % cols;
        });
        if n > 0 {
            out.push_str("\n  ");
        }
        out.push_str("]}");
    }
    out.push_str(if outputs.is_empty() { "}\n" } else { "\n}\n" });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pto_ir::ElemType;

    fn tile(rows: usize, cols: usize) -> TileData {
        let bytes = (0..rows * cols).flat_map(|i| (i as i32).to_le_bytes()).collect();
        TileData { dtype: ElemType::I32, rows, cols, bytes }
    }

    #[test]
    fn one_row_per_line_and_the_same_value_as_before() {
        let all = vec![("b".to_string(), tile(2, 3)), ("a".to_string(), tile(1, 2))];
        let text = outputs(&all);
        assert_eq!(
            text,
            "{\n  \"a\": {\"dtype\": \"i32\", \"shape\": [1, 2], \"data\": [\n    0, 1\n  ]},\n  \"b\": {\"dtype\": \"i32\", \"shape\": [2, 3], \"data\": [\n    0, 1, 2,\n    3, 4, 5\n  ]}\n}\n"
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        let want: serde_json::Map<String, serde_json::Value> = all.iter().map(|(n, d)| (n.clone(), d.to_json())).collect();
        assert_eq!(parsed, serde_json::Value::Object(want));
        assert_eq!(outputs(&[]), "{}\n");
    }
}
