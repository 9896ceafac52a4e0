//! Shared by the root package's tests: where the inputs are.

#![allow(dead_code)]

pub mod kernel;
pub mod shared;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The PTOAS samples (`$PTO_SHARED/corpus/ptoas-samples`), or `None` when they are not there
/// (the suite then says once what it skips: [`shared::dir`]).
pub fn corpus_dir() -> Option<PathBuf> {
    shared::corpus()
}

/// The rows of `VERDICTS.tsv` in the corpus directory `corpus`: (file, PTOAS's verdict for a3,
/// for a5).
pub fn verdicts(corpus: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(corpus.join("VERDICTS.tsv")).expect("VERDICTS.tsv is readable");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[0].to_string(), cols[1].to_string(), cols[2].to_string())
        })
        .collect()
}

/// The shared samples below `root` without an explicit sync op (those sync insertion orders, as
/// `ptoas --enable-insert-sync` does), parsed: each with its path relative to `root`, sorted;
/// files that do not parse are left out.
pub fn samples_without_sync(root: &Path) -> Vec<(String, pto_ir::module::Module)> {
    let mut out = Vec::new();
    for f in pto_files(&[root.to_path_buf()]) {
        let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        let text = std::fs::read_to_string(&f).expect("readable");
        let mut sources = pto_ir::diag::SourceMap::default();
        let fid = sources.add(rel.clone(), text.clone());
        let Ok((module, _)) = pto_asm::parse(&text, fid) else { continue };
        if !pto_sim::sync::has_explicit_sync(&module) {
            out.push((rel, module));
        }
    }
    out
}

/// Every `.pto` file below `dirs`, sorted.
pub fn pto_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pto") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Human diagnostics with the lines a terminal-width wrap broke joined again
/// (`pto::source_window::wrap`): a continuation line starts with spaces and then neither a
/// gutter (`│`, `┌`, `·`, `=`, a line number) nor another diagnostic, so tests can look for a
/// phrase whatever the width put a line break in it.
pub fn unwrapped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split('\n') {
        let rest = line.trim_start_matches(' ');
        let indented = rest.len() < line.len();
        let gutter = rest.starts_with(['│', '┌', '·', '=', '|', ':'])
            || rest.split_once(" │").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if indented && !rest.is_empty() && !gutter && !out.is_empty() {
            out.push(' ');
            out.push_str(rest);
        } else {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line);
        }
    }
    out
}
