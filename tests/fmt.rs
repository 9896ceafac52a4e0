//! `pto fmt`: it keeps every comment, puts each back where it was, and is idempotent on every
//! input it accepts (the shared samples, the conformance files, the ISA Level-1 examples, the
//! examples, the docs' test programs), in the file's own form and converted.

use pto_asm::{PrintOptions, comments, print_module_with_comments};
use pto_ir::TextForm;
use pto_ir::equiv::structurally_equal;
use std::process::Command;

mod common;

/// `pto fmt`'s output for `text` (the library path the CLI takes).
fn fmt(text: &str, opts: &PrintOptions) -> Result<String, String> {
    let (module, _) = pto_asm::parse(text, pto_ir::FileId(0)).map_err(|d| d.0[0].message.clone())?;
    print_module_with_comments(&module, opts, &comments(text)).map_err(|e| e.0)
}

fn comment_texts(text: &str) -> Vec<String> {
    comments(text).into_iter().map(|c| c.text).collect()
}

#[test]
fn comments_go_back_where_they_were() {
    let input = "\
// A kernel with comments.
# and a hash comment
module {   // the module
  func.func @k(%x: !pto.ptr<f32>) {  // entry
    // before the constant
    %c0 = arith.constant 0 : index   // zero
    scf.if %t {
      // then
      %d = arith.addi %c0, %c0 : index // trailing in then
      // last in then
    } else {
      %e = arith.addi %c0, %c0 : index
    }
    return
  }
  // end of module body
}
// end of file
";
    let input = input.replace("scf.if %t", "%t = arith.cmpi eq, %c0, %c0 : index\n    scf.if %t");
    let expected = "\
// A kernel with comments.
# and a hash comment
module { // the module
  func.func @k(%x: !pto.ptr<f32>) { // entry
    // before the constant
    %c0 = arith.constant 0 : index // zero
    %t = arith.cmpi eq, %c0, %c0 : index
    scf.if %t {
      // then
      %d = arith.addi %c0, %c0 : index // trailing in then
      // last in then
    } else {
      %e = arith.addi %c0, %c0 : index
    }
    return
  }
  // end of module body
}
// end of file
";
    assert_eq!(fmt(&input, &PrintOptions::default()).unwrap(), expected);
}

#[test]
fn level1_short_form_keeps_comments_through_conversion() {
    let input = "# inputs\n.arg %a : !pto.tile<16x16xf32>  # the tile\n.const %c = 2.0 : f32\n# double it\n%b = tmuls %a, %c : !pto.tile<16x16xf32>\n";
    let ssa = fmt(input, &PrintOptions { form: Some(TextForm::Ssa), ..Default::default() }).unwrap();
    assert_eq!(comment_texts(&ssa), ["# inputs", "# the tile", "# double it"], "{ssa}");
    assert!(ssa.contains(": !pto.tile<16x16xf32> # the tile\n"), "{ssa}");
    assert!(ssa.contains("# double it\n%b = pto.tmuls"), "{ssa}");
    let back = fmt(&ssa, &PrintOptions { form: Some(TextForm::Short), ..Default::default() }).unwrap();
    assert_eq!(fmt(&back, &PrintOptions::default()).unwrap(), back);
    assert_eq!(comment_texts(&back), comment_texts(input));
}

#[test]
fn comment_markers_inside_code_are_not_comments() {
    // `#pto...` starts an attribute, `//` inside a string is text.
    let text = "func.func @k() attributes {note = \"a // b # c\"} {\n  return\n}\n";
    assert!(comments(text).is_empty());
    assert_eq!(fmt(text, &PrintOptions::default()).unwrap().matches("//").count(), 1);
}

/// Every file the reader accepts: formatting keeps the comments (same texts, same order, unless
/// a comment inside a multi-line statement moves before the next op), changes nothing else, and
/// formatting the result again gives the same text.
#[test]
fn every_accepted_file_keeps_comments_and_is_idempotent() {
    let root = common::root();
    // The shared corpus too, when it is there.
    let corpus = common::corpus_dir();
    let dirs: Vec<_> = corpus
        .iter()
        .cloned()
        .chain([
            root.join("tests/conformance"),
            root.join("tests/isa-level1"),
            root.join("examples"),
            root.join("tests/diagnostics"),
            root.join("tests/faults"),
        ])
        .collect();
    let (mut checked, mut with_comments) = (0, 0);
    for path in common::pto_files(&dirs) {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok((module, _)) = pto_asm::parse(&text, pto_ir::FileId(0)) else { continue };
        for opts in [PrintOptions::default(), PrintOptions { generic: true, ..Default::default() }] {
            let Ok(once) = print_module_with_comments(&module, &opts, &comments(&text)) else { continue };
            let mut kept = comment_texts(&once);
            let mut written = comment_texts(&text);
            kept.sort();
            written.sort();
            assert_eq!(kept, written, "{}: comments lost or invented\n{once}", path.display());
            let (again, _) =
                pto_asm::parse(&once, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{}: {:?}\n{once}", path.display(), d.0[0]));
            if !opts.generic {
                structurally_equal(&module, &again).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            let twice = print_module_with_comments(&again, &opts, &comments(&once)).unwrap();
            assert_eq!(once, twice, "{}: fmt is not idempotent", path.display());
            checked += 1;
        }
        with_comments += usize::from(!comments(&text).is_empty());
    }
    eprintln!("{checked} formattings of {} files with comments checked", with_comments);
    // The repository's files alone, and with the shared corpus.
    let (min_checked, min_commented) = if corpus.is_some() { (1000, 100) } else { (800, 100) };
    assert!(checked >= min_checked, "only {checked} formattings checked");
    assert!(with_comments > min_commented, "only {with_comments} files with comments");
}

#[test]
fn cli_fmt_keeps_comments() {
    let dir = std::env::temp_dir().join(format!("pto-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.pto");
    std::fs::write(&file, "// header\n.arg %a : !pto.tile<8x8xf32> // input\n%b = tabs %a : !pto.tile<8x8xf32>\n// done\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).arg("fmt").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "// header\n.arg %a : !pto.tile<8x8xf32> // input\n%b = tabs %a : !pto.tile<8x8xf32>\n// done\n"
    );
}
