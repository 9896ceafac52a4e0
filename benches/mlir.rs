//! MLIR export + import benchmark (needs `--features mlir`); see docs/mlir.md.
fn main() {}
