//! The MLIR generic op form: every program of the corpus, the conformance files, the ISA
//! Level-1 examples and the examples is printed with `pto fmt --generic` (every op as
//! `"name"(operands) <{properties}> ({regions}) : (types) -> (types)`), read back by the
//! native reader and compared with the original IR. The ops covered are counted against the op
//! table: every op that appears in those files goes through the generic form.

use common::{corpus_dir, pto_files, root};
use pto_asm::print::{PrintOptions, print_module};
use pto_ir::ops::{Opcode, Syntax};
use std::collections::BTreeSet;

mod common;

/// Every program: the files of the corpus, conformance, ISA Level-1 and example directories,
/// then the op examples (and variants) of the PTOAS dialect inventory.
fn programs() -> Vec<(String, String)> {
    let dirs: Vec<_> = corpus_dir()
        .into_iter()
        .chain([root().join("tests/conformance"), root().join("tests/isa-level1"), root().join("examples")])
        .collect();
    let mut out: Vec<(String, String)> = pto_files(&dirs)
        .into_iter()
        .map(|p| (p.strip_prefix(root()).unwrap_or(&p).display().to_string(), std::fs::read_to_string(&p).expect("readable")))
        .collect();
    let inventory: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/dialect/ptoas-dialect.json")).expect("inventory")).expect("json");
    for op in inventory["ops"].as_array().into_iter().flatten() {
        let name = op["name"].as_str().unwrap_or("?");
        let examples = std::iter::once(&op["example"]).chain(op["variants"].as_array().into_iter().flatten());
        for (i, e) in examples.enumerate() {
            if let Some(text) = e.as_str() {
                out.push((format!("tests/dialect/ptoas-dialect.json {name} #{i}"), text.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_program_round_trips_through_the_generic_form() {
    let mut failures = Vec::new();
    let mut covered: BTreeSet<Opcode> = BTreeSet::new();
    let mut programs_read = 0;
    for (name, text) in programs() {
        let Ok((module, _)) = pto_asm::parse(&text, pto_ir::FileId(0)) else { continue };
        if pto_ir::verify::verify(&module).has_errors() {
            continue;
        }
        programs_read += 1;
        let generic = match print_module(&module, &PrintOptions { generic: true, ..Default::default() }) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: cannot print: {e}"));
                continue;
            }
        };
        let mut again = match pto_asm::parse(&generic, pto_ir::FileId(0)) {
            Ok((m, _)) => m,
            Err(d) => {
                failures.push(format!("{name}: the generic form does not read back: {}\n{generic}", d.0[0].message));
                continue;
            }
        };
        // How Level-1 tile ops were written (short form or SSA) is presentation the generic
        // form does not record (the MLIR bridge keeps it in `pto.form`).
        if module.level() == pto_ir::Level::Level1 {
            again.form = module.form;
        }
        if let Err(e) = pto_ir::equiv::structurally_equal(&module, &again) {
            failures.push(format!("{name}: the generic form reads back as another module: {e}"));
            continue;
        }
        // Printing back in custom form gives the text of the original.
        let custom = print_module(&module, &PrintOptions::default()).expect("prints");
        let custom_again = print_module(&again, &PrintOptions::default()).expect("prints");
        if custom != custom_again {
            failures.push(format!("{name}: custom form differs after the generic round trip"));
            continue;
        }
        for op in module.walk() {
            let d = module.op(op);
            if d.opcode.spec().syntax != Syntax::Generic {
                covered.insert(d.opcode);
            }
        }
    }
    assert!(failures.is_empty(), "{} of {programs_read} programs fail:\n{}", failures.len(), failures.join("\n"));
    assert!(programs_read > 350, "only {programs_read} programs read");
    let uncovered: Vec<String> = pto_ir::ops::all()
        .iter()
        .filter(|spec| spec.syntax != Syntax::Generic && !covered.contains(&spec.opcode))
        .map(|spec| spec.full_name())
        .collect();
    println!("{programs_read} programs, {} distinct ops through the generic form; not covered: {uncovered:?}", covered.len());
    assert!(covered.len() >= 150, "only {} ops covered", covered.len());
}

#[test]
fn generic_form_reads_like_the_custom_form() {
    // ptoas --mlir-print-op-generic style: properties, operand segments, enum arguments.
    let generic = r#"func.func @k(%a: !pto.tile_buf<vec, 16x16xf32>, %b: !pto.tile_buf<vec, 16x16xf32>, %m: !pto.tile_buf<vec, 16x32xui8>, %i: index) {
  "pto.tcmp"(%a, %b, %m) <{cmpMode = #pto<cmp lt>}> : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x32xui8>) -> ()
  "pto.set_flag"() <{dst_pipe = #pto.pipe<PIPE_V>, event_id = #pto.event<EVENT_ID0>, src_pipe = #pto.pipe<PIPE_MTE2>}> : () -> ()
  %t = "pto.alloc_tile"(%i, %i) <{operandSegmentSizes = array<i32: 0, 1, 1>}> : (index, index) -> !pto.tile_buf<vec, 16x16xf32, valid=?x?>
  %c = "arith.cmpi"(%i, %i) <{predicate = 2 : i64}> : (index, index) -> i1
  return
}
"#;
    let custom = r#"func.func @k(%a: !pto.tile_buf<vec, 16x16xf32>, %b: !pto.tile_buf<vec, 16x16xf32>, %m: !pto.tile_buf<vec, 16x32xui8>, %i: index) {
  pto.tcmp ins(%a, %b {cmpMode = #pto<cmp lt>} : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%m : !pto.tile_buf<vec, 16x32xui8>)
  pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  %t = pto.alloc_tile valid_row = %i valid_col = %i : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
  %c = arith.cmpi slt, %i, %i : index
  return
}
"#;
    let (g, _) = pto_asm::parse(generic, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{:?}", d.0));
    let (c, _) = pto_asm::parse(custom, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{:?}", d.0));
    assert_eq!(print_module(&g, &PrintOptions::default()).unwrap(), custom);
    assert_eq!(print_module(&c, &PrintOptions::default()).unwrap(), custom);
    assert!(pto_ir::verify::verify(&g).0.iter().all(|d| !d.is_error()));
}

#[test]
fn malformed_generic_forms_are_located_errors() {
    for (text, words) in [
        ("func.func @k() {\n  \"pto.tadd\"(%x) : () -> ()\n  return\n}\n", "undefined"),
        ("func.func @k(%i: index) {\n  \"arith.addi\"(%i, %i) : (index) -> index\n  return\n}\n", "operand type"),
        ("func.func @k() {\n  \"pto.barrier\"() : () -> ()\n  return\n}\n", "pipe"),
        (
            "func.func @k(%i: index) {\n  \"pto.alloc_tile\"(%i) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (index) -> !pto.tile_buf<vec, 16x16xf32>\n  return\n}\n",
            "add up",
        ),
    ] {
        let err = pto_asm::parse(text, pto_ir::FileId(0)).err().unwrap_or_else(|| panic!("accepted: {text}"));
        let d = &err.0[0];
        assert!(d.message.contains(words), "{text}: {}", d.message);
        assert!(d.span.start > 0, "{text}: no location");
    }
}
