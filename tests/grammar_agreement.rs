//! The hand-written statement reader and the normative pest grammar (`pto-asm/src/pto.pest`)
//! must accept and reject the same texts. Checked on every corpus and conformance file, and
//! on systematic truncations and line deletions of them.

use std::path::PathBuf;

mod common;

fn inputs() -> Vec<PathBuf> {
    common::pto_files(&[common::corpus_dir(), common::root().join("tests/conformance"), common::root().join("examples")])
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
    let files = inputs();
    assert!(files.len() > 100, "found {} inputs", files.len());
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
