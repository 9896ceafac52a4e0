//! Running small hand-written kernels from the instruction tests: scratch directories, the
//! target's verdict, JSON inputs and outputs.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A fresh directory for one test's files, unique per test process.
pub fn scratch_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pto-{suite}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `pto verify --target TARGET` accepts the program.
pub fn legal(program: &Path, target: &str) -> bool {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto")).args(["verify", "--target", target]).arg(program).output().unwrap();
    out.status.success()
}

/// A JSON output value (`"inf"`, `"-inf"` and `"nan"` are strings).
pub fn number(v: &Value) -> f64 {
    match v.as_str() {
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        Some(_) => f64::NAN,
        None => v.as_f64().expect("a number"),
    }
}

/// `--input` arguments for `inputs`: a plain number inline (`x=1.5`), anything else as a JSON
/// file written into `dir`.
pub fn input_args(dir: &Path, inputs: &[(&str, Value)]) -> Vec<String> {
    inputs
        .iter()
        .map(|(arg, v)| {
            if let Some(n) = v.as_f64().filter(|_| !v.is_array()) {
                return format!("{arg}={n}");
            }
            let path = dir.join(format!("{arg}.json"));
            std::fs::write(&path, v.to_string()).unwrap();
            format!("{arg}={}", path.display())
        })
        .collect()
}

/// `x` rounded to element type `dtype` as the simulator stores it: floats to nearest, integers
/// truncated and wrapped.
pub fn round_to_dtype(dtype: &str, x: f64) -> f64 {
    let i = x.trunc() as i64;
    match dtype {
        "f32" => x as f32 as f64,
        "f16" => half::f16::from_f64(x).to_f64(),
        "bf16" => half::bf16::from_f64(x).to_f64(),
        "i32" => (i as i32) as f64,
        "i16" => (i as i16) as f64,
        "i8" => (i as i8) as f64,
        "ui32" => (i as u32) as f64,
        "ui16" => (i as u16) as f64,
        "ui8" => (i as u8) as f64,
        "ui64" => (i as u64) as f64,
        _ => i as f64,
    }
}
