//! The properties the fuzz targets check, one function per target. Each takes the raw input,
//! runs it through the same library calls as the `pto` subcommand it stands for, and returns a
//! one-line summary of where the input stopped (`parse: PARSE_SYNTAX: ...`, `a2a3: lowered`):
//! a diagnostic is a fine outcome. A broken property (a printed module that does not parse
//! again, a span outside the input, data that does not round-trip) is a panic, like a bug in
//! the code under test, so the fuzzer reports both as crashes.
//!
//! `tests/fuzz_regressions.rs` includes this file as a module and asserts the summaries of the
//! inputs under `tests/fuzz/regressions/`, so it uses only the workspace crates.

use pto_asm::{PrintOptions, print_module, print_module_with_comments};
use pto_ir::diag::{Diagnostic, Diagnostics, FileId};
use pto_ir::types::ElemType;
use pto_ir::verify::{Verified, verify};
use pto_lower::{Target, TargetId};
use pto_sim::{Sim, TileData};

/// The step budget of the `run` target: small, so a runaway loop ends in milliseconds.
pub const MAX_STEPS: u64 = 100_000;

/// How far the `run` target lets an unbound GM array grow: 16 MiB, so a mutated offset does not
/// fill a gigabyte with the default pattern on every execution.
pub const MAX_GM_BYTES: usize = 16 << 20;

/// `CLASS: message` of the first error (or of the first diagnostic if none is an error).
fn first(d: &[Diagnostic]) -> String {
    let d = d.iter().find(|d| d.is_error()).or(d.first());
    d.map_or_else(|| "no diagnostic".to_string(), |d| format!("{}: {}", d.class, d.message))
}

/// Panics unless every span of `d` lies inside a text of `len` bytes.
fn assert_spans_inside(d: &Diagnostics, len: usize, stage: &str) {
    for x in &d.0 {
        assert!(
            x.span.start <= x.span.end && x.span.end as usize <= len,
            "{stage}: span {}..{} outside the {len}-byte input: {x:?}",
            x.span.start,
            x.span.end
        );
    }
}

/// The input as text, as `pto` reads a file (it refuses bytes that are not UTF-8).
pub fn text(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("input: not UTF-8 (byte {})", e.valid_up_to()))
}

/// Parses `text`, checking that every diagnostic's span lies inside it.
fn parse(text: &str) -> Result<(pto_ir::Module, Diagnostics), String> {
    match pto_asm::parse(text, FileId(0)) {
        Ok((m, warnings)) => {
            assert_spans_inside(&warnings, text.len(), "parse warning");
            Ok((m, warnings))
        }
        Err(d) => {
            assert_spans_inside(&d, text.len(), "parse");
            Err(format!("parse: {}", first(&d.0)))
        }
    }
}

/// Prints `m` with `opts` (and `text`'s comments, as `pto fmt`), parses the output again and
/// prints that: panics unless the output parses and printing is idempotent.
fn assert_prints_back(m: &pto_ir::Module, text: &str, opts: &PrintOptions) {
    let printed = print_module_with_comments(m, opts, &pto_asm::comments(text))
        .unwrap_or_else(|e| panic!("a parsed module does not print ({opts:?}): {e}\ninput:\n{text}"));
    let (again, _) = pto_asm::parse(&printed, FileId(0))
        .unwrap_or_else(|d| panic!("printed text ({opts:?}) does not parse again: {}\nprinted:\n{printed}", first(&d.0)));
    let printed_again = print_module_with_comments(&again, opts, &pto_asm::comments(&printed))
        .unwrap_or_else(|e| panic!("re-read module does not print ({opts:?}): {e}\nprinted:\n{printed}"));
    assert_eq!(printed, printed_again, "printing is not idempotent ({opts:?})");
}

/// `read`: the reader, then the printer (`pto fmt`, own form and generic form): whatever parses
/// prints to text that parses again and prints the same.
pub fn read(bytes: &[u8]) -> String {
    let text = match text(bytes) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let (m, _) = match parse(text) {
        Ok(parsed) => parsed,
        Err(e) => return e,
    };
    assert_prints_back(&m, text, &PrintOptions::default());
    assert_prints_back(&m, text, &PrintOptions { generic: true, ..PrintOptions::default() });
    "parsed".into()
}

/// Parses and verifies: the module, or the summary of the first diagnostic.
fn parse_and_verify(text: &str) -> Result<pto_ir::Module, String> {
    let (m, _) = parse(text)?;
    let d = verify(&m);
    assert_spans_inside(&d, text.len(), "verify");
    if d.has_errors() {
        return Err(format!("verify: {}", first(&d.0)));
    }
    Ok(m)
}

/// `pto verify --target`, then `pto lower` for one target: the lowered module, or where it stopped.
fn verify_and_lower(m: &pto_ir::Module, id: Option<TargetId>) -> Result<(pto_ir::Module, &'static Target), String> {
    let (target, _) = pto_lower::target::resolve(m, id).map_err(|d| format!("target: {}", first(&d.0)))?;
    let mut copy = m.clone();
    pto_lower::legalize::run(&mut copy, target, &mut Diagnostics::default()).map_err(|d| format!("legalize: {}", first(&d.0)))?;
    let verified = Verified::new(m.clone()).map_err(|d| format!("verify: {}", first(&d.0)))?;
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).map_err(|d| format!("lower: {}", first(&d.0)))?;
    Ok((lowered, target))
}

/// `verify_lower`: the verifier, then for A2A3 and A5 `verify --target` and the whole lowering
/// pipeline (legalize, insert-scratch, bufferize, plan-memory, each re-verified); the lowered
/// module prints to text that parses again, and on A2A3 its vector programs are listed
/// (`lower --emit vector`).
pub fn verify_lower(bytes: &[u8]) -> String {
    let m = match text(bytes).and_then(parse_and_verify) {
        Ok(m) => m,
        Err(e) => return e,
    };
    let mut summary = Vec::new();
    for id in [TargetId::A2A3, TargetId::A5] {
        let name = Target::get(id).name;
        match verify_and_lower(&m, Some(id)) {
            Err(e) => summary.push(format!("{name}: {e}")),
            Ok((lowered, target)) => {
                let printed =
                    print_module(&lowered, &PrintOptions::default()).unwrap_or_else(|e| panic!("the lowered module does not print: {e}"));
                if let Err(d) = pto_asm::parse(&printed, FileId(0)) {
                    panic!("lowered text does not parse again: {}\nprinted:\n{printed}", first(&d.0));
                }
                let listed = match id {
                    TargetId::A2A3 => match pto_lower::vector::listing::list(&lowered, target) {
                        Ok(l) => format!(", {} vector listings", l.len()),
                        Err(d) => format!(", vector: {}", first(&d.0)),
                    },
                    TargetId::A5 => String::new(),
                };
                summary.push(format!("{name}: lowered{listed}"));
            }
        }
    }
    summary.join("; ")
}

/// One simulation of `lowered` with default inputs, [`MAX_STEPS`] and [`MAX_GM_BYTES`], its
/// outputs read back.
fn simulate(lowered: &pto_ir::Module, target: &'static Target, exec_vector: bool) -> String {
    let mut sim = match Sim::new(lowered, target) {
        Ok(s) => s,
        Err(d) => return format!("sim: {}", first(&d)),
    };
    sim.exec_vector = exec_vector;
    sim.max_steps = MAX_STEPS;
    sim.max_gm_bytes = MAX_GM_BYTES;
    sim.use_default_inputs();
    if let Err(d) = sim.run() {
        return format!("run: {}", first(&[d]));
    }
    let mut outputs = sim.gm_outputs().len();
    for (name, ty) in sim.arguments() {
        if ty.tile().is_some() {
            if let (Ok(region), Ok(full)) = (sim.read_tile(&name), sim.read_tile_full(&name)) {
                assert_well_formed(&region);
                assert_well_formed(&full);
            }
            outputs += 1;
        }
    }
    format!("ran, {outputs} outputs")
}

/// `run`: `pto run --default-inputs --max-steps 100000` (GM arrays up to 16 MiB) on the module's
/// target (A2A3 unless it says otherwise), and on A2A3 also `--exec vector`.
pub fn run(bytes: &[u8]) -> String {
    let m = match text(bytes).and_then(parse_and_verify) {
        Ok(m) => m,
        Err(e) => return e,
    };
    let (lowered, target) = match verify_and_lower(&m, None) {
        Ok(ok) => ok,
        Err(e) => return e,
    };
    let tile = simulate(&lowered, target, false);
    match target.id {
        TargetId::A2A3 => format!("{}: tile {tile}; vector {}", target.name, simulate(&lowered, target, true)),
        TargetId::A5 => format!("{}: tile {tile}", target.name),
    }
}

/// Panics unless `d` holds exactly `rows * cols` elements.
fn assert_well_formed(d: &TileData) {
    let want = d.rows.checked_mul(d.cols).and_then(|n| n.checked_mul(d.dtype.size_bytes() as usize));
    assert_eq!(Some(d.bytes.len()), want, "{}x{} {} tile data with {} bytes", d.rows, d.cols, d.dtype, d.bytes.len());
}

/// Panics unless `a` and `b` hold the same values (any NaN equals any NaN: JSON has one NaN).
fn assert_same_values(a: &TileData, b: &TileData, via: &str) {
    assert_eq!((a.dtype, a.rows, a.cols), (b.dtype, b.rows, b.cols), "{via}: shape or type changed");
    for (i, ((x, y), (fx, fy))) in a.bits().iter().zip(b.bits()).zip(a.as_f64().iter().zip(b.as_f64())).enumerate() {
        assert!(*x == y || (fx.is_nan() && fy.is_nan()), "{via}: value {i} changed: {x:#x} -> {y:#x}");
    }
}

/// `data`: the input is a dtype name on the first line (`f32`), then a file: the `.npy` reader
/// and the JSON tile reader read it for a tile of that type. What reads is well formed and
/// comes back unchanged through `.npy` and JSON output.
pub fn data(bytes: &[u8]) -> String {
    let Some(newline) = bytes.iter().position(|&b| b == b'\n') else { return "dtype: no first line".into() };
    let name = String::from_utf8_lossy(&bytes[..newline]);
    let Some(dtype) = ElemType::parse(&name) else { return format!("dtype: unknown `{name}`") };
    let file = &bytes[newline + 1..];
    let npy = pto_sim::npy::read(file, dtype);
    let json = pto_sim::json::read(&String::from_utf8_lossy(file), dtype);
    let mut outcome = Vec::new();
    for (format, result) in [("npy", npy), ("json", json)] {
        let d = match result {
            Ok(d) => d,
            Err(e) => {
                outcome.push(format!("{format}: {e}"));
                continue;
            }
        };
        assert_well_formed(&d);
        if let Ok(written) = pto_sim::npy::write(&d) {
            let back = pto_sim::npy::read(&written, dtype).unwrap_or_else(|e| panic!("written .npy does not read back: {e}"));
            assert_same_values(&d, &back, ".npy output");
        }
        let back = pto_sim::json::read(&d.to_json().to_string(), dtype).unwrap_or_else(|e| panic!("JSON output does not read back: {e}"));
        assert_same_values(&d, &back, "JSON output");
        outcome.push(format!("{format}: {}x{} {dtype}", d.rows, d.cols));
    }
    outcome.join("; ")
}
