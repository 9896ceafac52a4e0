//! The PTOAS sample corpus (`../shared/corpus/ptoas-samples`, 106 files) against `VERDICTS.tsv`.
//!
//! * every file whose row is not `PARSE_FAIL` parses, verifies structurally, and its canonical
//!   print re-parses to a structurally equal module (and prints identically);
//! * the `PARSE_FAIL` files are rejected with a `PARSE_*` diagnostic on the line PTOAS rejects:
//!   the three with obsolete syntax, and `Complex/mix_kernel.pto`, whose `trowmax` leaves out
//!   the `tmp` operand PTOAS's assembly format requires (`PTOOps.td:4887`).

use common::{corpus_dir, verdicts};
use pto_asm::print::{PrintOptions, print_module};
use pto_ir::diag::SourceMap;
use pto_ir::equiv::structurally_equal;
use pto_ir::verify::verify;

mod common;

/// The line of the construct PTOAS rejects in each stale file.
fn expected_reject_line(file: &str, text: &str) -> usize {
    // The first line holding the obsolete construct.
    let needle = match file {
        "MatMul/0.pto" => ", blayout=col_major, v_row",
        "MatMul/tmatmulk.pto" => ": <loc=",
        "Subset/Subset.pto" => "!pto.tile_buf<32x64xf32",
        "Complex/mix_kernel.pto" => "pto.trowmax ins(%21 :",
        other => panic!("no expectation for {other}"),
    };
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1).unwrap_or_else(|| panic!("{file}: `{needle}` not found"))
}

#[test]
fn corpus_matches_verdicts_and_round_trips() {
    let Some(corpus) = corpus_dir() else { return };
    let rows = verdicts(&corpus);
    assert_eq!(rows.len(), 106, "VERDICTS.tsv rows");
    let mut parsed = 0;
    let mut rejected = 0;
    for (file, a3, _) in &rows {
        let path = corpus.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut sources = SourceMap::default();
        let fid = sources.add(file.clone(), text.clone());
        let result = pto_asm::parse(&text, fid);
        if a3 == "PARSE_FAIL" {
            let diags = result.err().unwrap_or_else(|| panic!("{file}: PTOAS rejects it, pto accepted it"));
            let first = &diags.0[0];
            assert!(first.class.as_str().starts_with("PARSE_"), "{file}: {:?}", first.class);
            let (line, _) = sources.get(fid).unwrap().line_col(first.span.start);
            assert_eq!(line, expected_reject_line(file, &text), "{file}: rejected on the wrong line ({})", first.message);
            rejected += 1;
            continue;
        }
        let (module, _) = result.unwrap_or_else(|d| panic!("{file}: {:?}", d.0[0]));
        let diags = verify(&module);
        assert!(!diags.has_errors(), "{file}: {:?}", diags.0);
        let printed = print_module(&module, &PrintOptions::default()).expect("prints");
        let (again, _) = pto_asm::parse(&printed, fid).unwrap_or_else(|d| panic!("{file}: re-parse failed: {:?}\n{printed}", d.0[0]));
        structurally_equal(&module, &again).unwrap_or_else(|e| panic!("{file}: round trip changed the IR: {e}"));
        let printed_again = print_module(&again, &PrintOptions::default()).expect("prints");
        assert_eq!(printed, printed_again, "{file}: printing is not idempotent");
        parsed += 1;
    }
    assert_eq!(parsed, 102, "files parsed and round-tripped");
    assert_eq!(rejected, 4, "stale files and the tmp-less trowmax rejected");
}
