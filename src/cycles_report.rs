//! `pto run --cycles`: the timeline's totals (`pto_sim::timeline::Summary`) as a table on
//! stderr or, with `--json`, as a `%cycles` entry of the JSON on stdout (outputs are named
//! without `%`, so the key never collides with one).

use pto_sim::timeline::Summary;
use std::fmt::Write;

/// `cycles: N` then one line per pipe that ran something: busy cycles and utilisation.
pub fn table(s: &Summary) -> String {
    let mut out = format!("cycles: {} (modelled, docs/performance-model.md)\n", s.total);
    for &(pipe, busy) in &s.pipes {
        let _ = writeln!(out, "  {:<10} busy {busy:>10}  {:>5.1} %", pipe.name(), 100.0 * s.utilisation(busy));
    }
    out
}

/// `{"total": N, "pipes": {"PIPE_V": {"busy": B, "utilisation": U}, ...}}`.
pub fn json(s: &Summary) -> serde_json::Value {
    let pipes: serde_json::Map<String, serde_json::Value> = s
        .pipes
        .iter()
        .map(|&(p, busy)| (p.name().to_string(), serde_json::json!({ "busy": busy, "utilisation": s.utilisation(busy) })))
        .collect();
    serde_json::json!({ "total": s.total, "pipes": pipes })
}

/// The outputs' JSON object `stdout` with a `%cycles` entry added last (unchanged when there
/// is no JSON object, as with `--output-dir`).
pub fn with_json(stdout: &str, cycles: &serde_json::Value) -> String {
    let Some(close) = stdout.rfind('}') else { return stdout.to_string() };
    let body = stdout[..close].trim_end();
    let sep = if body == "{" { "" } else { "," };
    format!("{body}{sep}\n  \"%cycles\": {cycles}\n}}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_goes_last_in_the_object() {
        let c = serde_json::json!({ "total": 3 });
        assert_eq!(with_json("{}\n", &c), "{\n  \"%cycles\": {\"total\":3}\n}\n");
        let out = with_json("{\n  \"x\": 1\n}\n", &c);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["x"], 1);
        assert_eq!(v["%cycles"]["total"], 3);
        assert_eq!(with_json("", &c), "");
    }
}
