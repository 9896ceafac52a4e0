//! MLIR interop benchmark (needs `--features mlir`; see docs/mlir.md): export and import of the
//! N = 10,000 module of the foundation benchmark (`pto::workload`, 20,000 `tadd`/`tmax` ops),
//! as MLIR text and as bytecode, next to the native parse of the same module. Export includes
//! building the MLIR module through melior, MLIR's verifier and writing; import includes MLIR's
//! parser and verifier and the walk back to a `pto` module.
//! Run with `cargo bench --features mlir --bench mlir`; figures are in docs/mlir.md.

use pto::mlir::{Format, export, import};
use pto::workload::{Spelling, tadd_tmax_kernel_spelled};
use pto_ir::Module;
use pto_ir::diag::{FileId, SourceMap};
use std::sync::OnceLock;

const N: usize = 10_000;

fn main() {
    divan::main();
}

/// The kernel, parsed, and its two MLIR forms (built once).
struct Fixture {
    legacy: String,
    compact: String,
    sources: SourceMap,
    module: Module,
    text: Vec<u8>,
    text_sources: SourceMap,
    bytecode: Vec<u8>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let legacy = tadd_tmax_kernel_spelled(N, Spelling::Legacy);
        let compact = tadd_tmax_kernel_spelled(N, Spelling::Compact);
        let mut sources = SourceMap::default();
        let file = sources.add("tadd_tmax.pto", legacy.clone());
        let (module, _) = pto_asm::parse(&legacy, file).expect("the generated kernel parses");
        let text = export(&module, &sources, Format::Text).expect("the kernel exports");
        let mut text_sources = SourceMap::default();
        text_sources.add("tadd_tmax.mlir", String::from_utf8(text.clone()).expect("MLIR text is UTF-8"));
        let bytecode = export(&module, &sources, Format::Bytecode).expect("the kernel exports");
        Fixture { legacy, compact, sources, module, text, text_sources, bytecode }
    })
}

/// Native parse, legacy `tile_buf` spelling (the foundation benchmark's input, 8.5 MB).
#[divan::bench(sample_count = 20)]
fn native_parse_legacy(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .counter(divan::counter::BytesCount::new(f.legacy.len()))
        .bench(|| pto_asm::parse(divan::black_box(&f.legacy), FileId(0)).unwrap());
}

/// Native parse, compact spelling (2.6 MB; the spelling the MLIR forms carry).
#[divan::bench(sample_count = 20)]
fn native_parse_compact(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .counter(divan::counter::BytesCount::new(f.compact.len()))
        .bench(|| pto_asm::parse(divan::black_box(&f.compact), FileId(0)).unwrap());
}

/// `pto` module → MLIR text (generic form).
#[divan::bench(sample_count = 10)]
fn export_text(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .counter(divan::counter::BytesCount::new(f.text.len()))
        .bench(|| export(divan::black_box(&f.module), &f.sources, Format::Text).unwrap());
}

/// `pto` module → MLIR bytecode.
#[divan::bench(sample_count = 10)]
fn export_bytecode(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .counter(divan::counter::BytesCount::new(f.bytecode.len()))
        .bench(|| export(divan::black_box(&f.module), &f.sources, Format::Bytecode).unwrap());
}

/// MLIR text → `pto` module.
#[divan::bench(sample_count = 10)]
fn import_text(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .counter(divan::counter::BytesCount::new(f.text.len()))
        .bench(|| import(divan::black_box(&f.text), FileId(0), &f.text_sources).unwrap());
}

/// MLIR bytecode → `pto` module.
#[divan::bench(sample_count = 10)]
fn import_bytecode(bencher: divan::Bencher) {
    let f = fixture();
    let sources = SourceMap::default();
    bencher
        .counter(divan::counter::BytesCount::new(f.bytecode.len()))
        .bench(|| import(divan::black_box(&f.bytecode), FileId(0), &sources).unwrap());
}
