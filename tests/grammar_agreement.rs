//! The hand-written statement reader and the normative pest grammar (`pto-asm/src/pto.pest`)
//! must accept and reject the same texts. Checked on every corpus and conformance file, and
//! on systematic truncations and line deletions of them.

use std::path::PathBuf;

mod common;

/// The files, and how many there must be at least: the repository's ~97, and 106 more with the
/// shared corpus.
fn inputs() -> (Vec<PathBuf>, usize) {
    let corpus = common::corpus_dir();
    let min = if corpus.is_some() { 190 } else { 90 };
    let dirs: Vec<_> = corpus.into_iter().chain([common::root().join("tests/conformance"), common::root().join("examples")]).collect();
    (common::pto_files(&dirs), min)
}

fn agree(text: &str, what: &str) {
    let reader = pto_asm::check_syntax(text);
    let grammar = pto_asm::grammar_accepts(text);
    assert_eq!(
        reader.is_ok(),
        grammar.is_ok(),
        "{what}: reader {:?} vs grammar {:?}",
        reader.err().map(|d| (d.span, d.message)),
        grammar.err().map(|d| (d.span, d.message))
    );
}

#[test]
fn reader_and_grammar_agree() {
    let (files, min) = inputs();
    assert!(files.len() > min, "found {} inputs", files.len());
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = path.display().to_string();
        agree(&text, &name);
        // Every line deleted in turn (bounded), and truncations at line ends.
        let lines: Vec<&str> = text.lines().collect();
        for i in (0..lines.len()).step_by(1 + lines.len() / 12) {
            let mut l = lines.clone();
            l.remove(i);
            agree(&l.join("\n"), &format!("{name} without line {}", i + 1));
            agree(&lines[..i].join("\n"), &format!("{name} truncated before line {}", i + 1));
            checked += 2;
        }
    }
    assert!(checked > 500, "{checked} variants checked");
}
