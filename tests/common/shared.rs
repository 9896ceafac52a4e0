//! The material the tests read from outside the repository: the PTOAS sample corpus and the
//! pto-isa golden vectors, kept beside the checkout (`../shared`) rather than in it.
//!
//! Its location is `$PTO_SHARED` (a relative path is taken from the workspace root), else
//! `../shared` beside the workspace root. When a piece is missing, the tests that need it skip
//! loudly — one line per test binary and piece on stderr, naming the suite, what it skips and the
//! repository and commit the material comes from — so `cargo test` passes on a fresh clone. With
//! `PTO_REQUIRE_SHARED=1` (what `.ci/run` sets) a missing piece fails the test instead.
//!
//! Every test crate of the workspace uses this one file (the root package's `tests/common` and,
//! through a `#[path]` module, `pto-sim/tests/common`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// One piece of the shared material.
pub struct Material {
    /// Its directory below the shared root.
    pub sub: &'static str,
    /// What it is, for the skip line.
    pub what: &'static str,
    /// Where it comes from: the repository and the pinned commit.
    pub origin: &'static str,
    /// Prints the skip line once per test binary.
    once: &'static Once,
}

static CORPUS_ONCE: Once = Once::new();
static BASIC_ONCE: Once = Once::new();
static GOLDEN_ONCE: Once = Once::new();
static COSTMODEL_ONCE: Once = Once::new();

/// The PTOAS samples with `VERDICTS.tsv`.
pub static CORPUS: Material = Material {
    sub: "corpus/ptoas-samples",
    what: "the PTOAS sample corpus",
    origin: "hw-native-sys/PTOAS at commit a56b18c3 (test/samples, with ptoas's verdicts in VERDICTS.tsv)",
    once: &CORPUS_ONCE,
};

/// The PTOAS lit tests of `test/basic` with `FILECHECK.tsv`.
pub static BASIC: Material = Material {
    sub: "corpus/ptoas-basic",
    what: "the PTOAS lit tests",
    origin: "hw-native-sys/PTOAS at commit a56b18c3 (test/basic, with ptoas's verdicts and FileCheck results)",
    once: &BASIC_ONCE,
};

/// The golden vectors of the pto-isa CPU simulator.
pub static GOLDEN: Material = Material {
    sub: "golden/cases",
    what: "the pto-isa golden vectors",
    origin: "hw-native-sys/pto-isa at commit 3186c381 (vectors of its CPU simulator)",
    once: &GOLDEN_ONCE,
};

/// The cycle counts of pto-isa's cost-model tests (`cycles-train.tsv`).
pub static COSTMODEL: Material = Material {
    sub: "costmodel",
    what: "the cost-model cycle counts",
    origin: "hw-native-sys/pto-isa at commit 3186c381 (tests/costmodel, about half of the cases)",
    once: &COSTMODEL_ONCE,
};

/// The environment variable naming the shared directory.
pub const ENV: &str = "PTO_SHARED";
/// The environment variable that turns a skip into a failure.
pub const REQUIRE_ENV: &str = "PTO_REQUIRE_SHARED";

/// The workspace root: the nearest ancestor of this crate's manifest directory with a `Cargo.lock`.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().find(|d| d.join("Cargo.lock").is_file()).unwrap_or(here).to_path_buf()
}

/// The shared directory: `$PTO_SHARED` (relative to the workspace root), else `../shared`.
pub fn root() -> PathBuf {
    let ws = workspace_root();
    match std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        Some(v) => ws.join(v),
        None => ws.join("../shared"),
    }
}

/// Whether a missing piece must fail the tests (`PTO_REQUIRE_SHARED` set, and not `0`).
fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The line a suite prints when `m` is missing at `path`.
pub fn skip_line(m: &Material, suite: &str, path: &Path) -> String {
    format!(
        "skipped: the `{suite}` tests that read {} ({} not found); it comes from {}; set {ENV}=DIR to run them",
        m.what,
        path.display(),
        m.origin
    )
}

/// The directory of `m`, or `None` after saying once (per test binary) what is skipped. Panics
/// instead when `PTO_REQUIRE_SHARED` is set.
pub fn dir(m: &Material) -> Option<PathBuf> {
    let path = root().join(m.sub);
    if path.is_dir() {
        return Some(path);
    }
    let line = skip_line(m, env!("CARGO_CRATE_NAME"), &path);
    if required() {
        panic!("{line}\n{REQUIRE_ENV} is set: the shared material is required here");
    }
    // Straight to stderr, past the test harness's capture: the line must show in `cargo test`.
    m.once.call_once(|| {
        let _ = writeln!(std::io::stderr(), "{line}");
    });
    None
}

/// The corpus directory, if present (see [`dir`]).
pub fn corpus() -> Option<PathBuf> {
    dir(&CORPUS)
}

/// The PTOAS lit tests directory, if present (see [`dir`]).
pub fn basic() -> Option<PathBuf> {
    dir(&BASIC)
}

/// The golden-vector cases directory, if present (see [`dir`]).
pub fn golden() -> Option<PathBuf> {
    dir(&GOLDEN)
}

/// The cost-model cycle counts directory, if present (see [`dir`]).
pub fn costmodel() -> Option<PathBuf> {
    dir(&COSTMODEL)
}
