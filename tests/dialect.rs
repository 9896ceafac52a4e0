//! The PTOAS `pto` dialect, walked entry by entry: `tests/dialect/ptoas-dialect.json` lists every
//! enum (with its full, opaque and stripped spellings), attribute, type and op format of PTOAS
//! a56b18c3 (`include/PTO/IR/*.td`, `lib/PTO/IR/*.cpp`), with an example program per op and
//! `rejected` snippets PTOAS refuses.
//!
//! For every entry the text is parsed, printed, parsed again and printed again: the two parses
//! must agree (equal attributes and types, structurally equal modules) and the two prints must be
//! identical. Enum spellings must also resolve to the enum kind and value they spell, and an op
//! example prints back as written (whitespace aside) unless [`RESPELLED`] says how its spelling
//! changes (an op with a custom format written in MLIR's generic form prints in the custom form). Every `rejected` snippet must be rejected, and so must every op example with a stray
//! word appended.
//!
//! Failures are collected, not stopped at. The test fails unless the failing set is exactly
//! [`NOT_YET`], the constructs other work items implement, so a fix must shorten that list and
//! nothing else may regress. [`ACCEPTED_ON_PURPOSE`] lists what PTOAS rejects and `pto` accepts
//! by design (docs/design.md, "Deliberate divergences").

use pto_asm::{PrintOptions, parse, parse_attribute, parse_type, print_attribute, print_module};
use pto_ir::attr::Attr;
use pto_ir::diag::{Diagnostics, FileId};
use pto_ir::equiv::structurally_equal;
use pto_ir::module::Module;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Entries that fail today because another work item implements them: (entry id, reason).
const NOT_YET: &[(&str, &str)] = &[];

/// `rejected` snippets `pto` accepts on purpose: (entry id, where the divergence is documented).
const ACCEPTED_ON_PURPOSE: &[(&str, &str)] =
    &[("rejected:enum#0", "`#pto.cmp<eq>`: both enum spellings are read (docs/design.md, \"Deliberate divergences\", enum attributes)")];

/// Op examples written in a spelling `pto` reads but prints differently, as PTOAS prints them:
/// (entry id, what changes). Every other op example prints back as written (whitespace aside).
const RESPELLED: &[(&str, &str)] = &[
    ("op:pto.alloc_tile#5", "legacy keyed tile_buf, printed in the compact form"),
    ("op:pto.tload#1", "full `#pto.padmode<..>`, printed stripped"),
    ("op:pto.record_event#0", "full `#pto.event<..>`, printed stripped"),
    ("op:pto.record_event#2", "full `#pto.event<..>`, printed stripped"),
    ("op:pto.wait_event#0", "full `#pto.event<..>`, printed stripped"),
    ("op:pto.barrier_sync#1", "full `#pto.sync_op_type<..>`, printed stripped"),
    ("op:pto.set_flag#1", "full `#pto.pipe<..>` / `#pto.event<..>`, printed stripped"),
    ("op:pto.wait_flag#1", "full `#pto.pipe<..>` / `#pto.event<..>`, printed stripped"),
    ("op:pto.barrier#1", "full `#pto.pipe<..>`, printed stripped"),
];

/// Ops whose operands take an enum's stripped spelling (`<PIPE_V>`): `{}` stands for it. The
/// other enums are only written in full, in attribute dictionaries.
const STRIPPED_CONTEXTS: &[(&str, &str)] = &[
    ("pipe", "pto.barrier {}"),
    ("event", "pto.set_flag[<PIPE_MTE2>, <PIPE_V>, {}]"),
    ("sync_op_type", "pto.barrier_sync[{}]"),
    ("address_space", "%a = pto.reserve_buffer {name = \"b\", size = 1024, location = {}, auto = true} -> i32"),
    ("padmode", "pto.tload ins(%src : !pto.partition_tensor_view<16x16xf32>) outs(%dst : !pto.tile_buf<vec, 16x16xf32>) pad_mode = {}"),
];

/// Ops whose operands take an enum's full spelling only (an `AnyAttrOf` of two enum kinds).
const FULL_CONTEXTS: &[(&str, &str)] =
    &[("pipe_event_type", "pto.record_event[{}, {}, <EVENT_ID0>]"), ("sync_op_type", "pto.record_event[{}, {}, <EVENT_ID0>]")];

/// What the checks of one category found.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<(String, String)>,
}

/// Every check's outcome, by category.
#[derive(Default)]
struct Report {
    categories: BTreeMap<&'static str, Tally>,
}

impl Report {
    fn record(&mut self, category: &'static str, id: String, outcome: Result<(), String>) {
        let tally = self.categories.entry(category).or_default();
        match outcome {
            Ok(()) => tally.passed += 1,
            Err(why) => tally.failed.push((id, why)),
        }
    }

    fn failures(&self) -> impl Iterator<Item = &(String, String)> {
        self.categories.values().flat_map(|t| &t.failed)
    }

    fn summary(&self) -> String {
        let mut out = String::from("category          passed / total\n");
        for (cat, t) in &self.categories {
            out += &format!("{cat:<17} {:>6} / {}\n", t.passed, t.passed + t.failed.len());
        }
        out
    }
}

fn inventory() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dialect/ptoas-dialect.json");
    let text = std::fs::read_to_string(path).expect("the dialect inventory is readable");
    serde_json::from_str(&text).expect("the dialect inventory is JSON")
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v[key].as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn name(v: &Value) -> &str {
    v["name"].as_str().unwrap_or("?")
}

fn first_error(d: &Diagnostics) -> String {
    d.0.iter().find(|d| d.is_error()).map(|d| format!("{}: {}", d.class.as_str(), d.message)).unwrap_or_default()
}

// ------------------------------------------------------------------------------------- checks

/// Parses, prints, re-parses and re-prints one attribute.
fn attribute_round_trip(text: &str) -> Result<Attr, String> {
    let mut m = Module::new();
    let first = parse_attribute(text, &mut m).map_err(|e| format!("rejected: {e}"))?;
    let printed = print_attribute(&m, &first);
    let again = parse_attribute(&printed, &mut m).map_err(|e| format!("printed `{printed}` does not re-parse: {e}"))?;
    if again != first {
        return Err(format!("`{printed}` re-parses to {again:?}, not {first:?}"));
    }
    let reprinted = print_attribute(&m, &again);
    if reprinted != printed {
        return Err(format!("printing is not idempotent: `{printed}` then `{reprinted}`"));
    }
    Ok(first)
}

/// An enum spelling: round-trips and names `kind` (or its alias) and `value`.
fn enum_spelling(text: &str, kind: &str, value: &str) -> Result<(), String> {
    match attribute_round_trip(text)? {
        Attr::Enum(e) if e.kind_name() == kind && e.value_name().eq_ignore_ascii_case(value) => Ok(()),
        other => Err(format!("read as {other:?}, not the enum `{kind}` value `{value}`")),
    }
}

/// Parses, prints, re-parses and re-prints one type.
fn type_round_trip(text: &str) -> Result<(), String> {
    let first = parse_type(text).map_err(|e| format!("rejected: {e}"))?;
    let printed = first.to_string();
    let again = parse_type(&printed).map_err(|e| format!("printed `{printed}` does not re-parse: {e}"))?;
    if again != first {
        return Err(format!("`{printed}` re-parses to {again:?}, not {first:?}"));
    }
    if again.to_string() != printed {
        return Err(format!("printing is not idempotent: `{printed}` then `{again}`"));
    }
    Ok(())
}

/// MLIR's opaque spelling `!pto<ptr<f32>>`: round-trips and is the type `!pto.ptr<f32>`.
fn opaque_type_spelling(text: &str) -> Result<(), String> {
    type_round_trip(text)?;
    let pretty = text.strip_prefix("!pto<").and_then(|t| t.strip_suffix('>')).map(|t| format!("!pto.{t}"));
    let pretty = pretty.ok_or_else(|| format!("`{text}` is not an opaque `!pto<...>` spelling"))?;
    match (parse_type(text), parse_type(&pretty)) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (a, b) => Err(format!("`{text}` is {a:?}, `{pretty}` is {b:?}")),
    }
}

/// Parses, prints, re-parses (structurally equal) and re-prints (identical) one program;
/// returns the printed text.
fn program_round_trip(text: &str) -> Result<String, String> {
    let (first, _) = parse(text, FileId(0)).map_err(|d| format!("rejected: {}", first_error(&d)))?;
    let printed = print_module(&first, &PrintOptions::default()).map_err(|e| e.to_string())?;
    let (again, _) = parse(&printed, FileId(0)).map_err(|d| format!("printed text does not re-parse: {}\n{printed}", first_error(&d)))?;
    structurally_equal(&first, &again).map_err(|e| format!("re-parse differs: {e}\n{printed}"))?;
    let reprinted = print_module(&again, &PrintOptions::default()).map_err(|e| e.to_string())?;
    if reprinted != printed {
        return Err(format!("printing is not idempotent:\n{printed}\nthen\n{reprinted}"));
    }
    Ok(printed)
}

/// Whether a program writes an op in MLIR's generic form (`"pto.op"(...)`).
fn is_generic_form(text: &str) -> bool {
    text.contains("\"pto.")
}

/// The printed text is the written text, whitespace aside.
fn printed_as_written(written: &str, printed: &str) -> Result<(), String> {
    let squeeze = |t: &str| t.split_whitespace().collect::<String>();
    if squeeze(written) == squeeze(printed) { Ok(()) } else { Err(format!("printed differently:\n{printed}")) }
}

fn rejected<T>(result: Result<T, String>) -> Result<(), String> {
    match result {
        Ok(_) => Err("accepted".into()),
        Err(_) => Ok(()),
    }
}

/// `op` as the only statement of a function with the arguments those examples use.
fn in_function(op: &str) -> String {
    let args = "%src: !pto.partition_tensor_view<16x16xf32>, %dst: !pto.tile_buf<vec, 16x16xf32>";
    format!("module {{\n  func.func @f({args}) {{\n    {op}\n    return\n  }}\n}}\n")
}

/// The example with ` junk_token` after the op (the line before `return`).
fn with_stray_word(example: &str) -> String {
    let lines: Vec<&str> = example.lines().collect();
    let ret = lines.iter().rposition(|l| l.trim() == "return").unwrap_or(lines.len());
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        out += line;
        if i + 1 == ret {
            out += " junk_token";
        }
        out.push('\n');
    }
    out
}

// ------------------------------------------------------------------------------------ walkers

fn check_enums(doc: &Value, r: &mut Report) {
    for e in doc["enums"].as_array().into_iter().flatten() {
        let kind = name(e);
        let values = strings(e, "values");
        for (i, text) in strings(e, "spellings").iter().enumerate() {
            r.record("enum", format!("enum:{kind}#{i}"), enum_spelling(text, kind, &values[i]));
        }
        for (i, text) in strings(e, "alt_spellings").iter().enumerate() {
            r.record("enum opaque", format!("enum_alt:{kind}#{i}"), enum_spelling(text, kind, &values[i]));
        }
        for (_, template) in STRIPPED_CONTEXTS.iter().filter(|(k, _)| *k == kind) {
            for (i, short) in strings(e, "short_spellings").iter().enumerate() {
                let program = in_function(&template.replace("{}", short));
                r.record("enum in op", format!("enum_short:{kind}#{i}"), program_round_trip(&program).map(drop));
            }
        }
        for (_, template) in FULL_CONTEXTS.iter().filter(|(k, _)| *k == kind) {
            for (i, full) in strings(e, "spellings").iter().enumerate() {
                let program = in_function(&template.replace("{}", full));
                r.record("enum in op", format!("enum_full:{kind}#{i}"), program_round_trip(&program).map(drop));
            }
        }
    }
    for (i, rej) in doc["enum_rejected"].as_array().into_iter().flatten().enumerate() {
        let text = rej["text"].as_str().unwrap_or_default();
        r.record("rejected", format!("rejected:enum#{i}"), rejected(parse_attribute(text, &mut Module::new())));
    }
}

fn check_attributes(doc: &Value, r: &mut Report) {
    for a in doc["attributes"].as_array().into_iter().flatten() {
        for (i, text) in strings(a, "examples").iter().enumerate() {
            r.record("attribute", format!("attr:{}#{i}", name(a)), attribute_round_trip(text).map(|_| ()));
        }
        for (i, rej) in a["rejected"].as_array().into_iter().flatten().enumerate() {
            let text = rej["text"].as_str().unwrap_or_default();
            r.record("rejected", format!("rejected:attr:{}#{i}", name(a)), rejected(parse_attribute(text, &mut Module::new())));
        }
    }
}

fn check_types(doc: &Value, r: &mut Report) {
    for t in doc["types"].as_array().into_iter().flatten() {
        for (i, text) in strings(t, "examples").iter().enumerate() {
            r.record("type", format!("type:{}#{i}", name(t)), type_round_trip(text));
        }
        for (i, text) in strings(t, "alt_examples").iter().enumerate() {
            r.record("type opaque", format!("type_alt:{}#{i}", name(t)), opaque_type_spelling(text));
        }
        for (i, rej) in t["rejected"].as_array().into_iter().flatten().enumerate() {
            let text = rej["text"].as_str().unwrap_or_default();
            r.record("rejected", format!("rejected:type:{}#{i}", name(t)), rejected(parse_type(text)));
        }
    }
}

fn check_ops(doc: &Value, r: &mut Report) {
    for op in doc["ops"].as_array().into_iter().flatten() {
        let example = op["example"].as_str().unwrap_or_default();
        let programs = std::iter::once(example.to_string()).chain(strings(op, "variants"));
        for (i, program) in programs.enumerate() {
            let id = format!("op:{}#{i}", name(op));
            let round_trip = program_round_trip(&program);
            if let Ok(printed) = &round_trip {
                let as_written = printed_as_written(&program, printed);
                if is_generic_form(&program) && !is_generic_form(printed) {
                    // MLIR's generic form of an op with a custom format prints in the custom
                    // format (the round trip above checked it is the same op).
                    r.record("print generic form", id.clone(), Ok(()));
                } else if RESPELLED.iter().any(|(r, _)| *r == id) {
                    let respelled = as_written.err().map(drop).ok_or_else(|| "prints as written: remove it from RESPELLED".to_string());
                    r.record("print respelled", id.clone(), respelled);
                } else {
                    r.record("print as written", id.clone(), as_written);
                }
            }
            r.record("op", id, round_trip.map(drop));
        }
        let stray = with_stray_word(example);
        r.record("stray word", format!("stray:{}", name(op)), rejected(parse(&stray, FileId(0)).map_err(|d| first_error(&d))));
    }
}

#[test]
fn every_dialect_entry_parses_and_round_trips() {
    let doc = inventory();
    let mut report = Report::default();
    check_enums(&doc, &mut report);
    check_attributes(&doc, &mut report);
    check_types(&doc, &mut report);
    check_ops(&doc, &mut report);
    eprintln!("{}", report.summary());

    let on_purpose: BTreeSet<&str> = ACCEPTED_ON_PURPOSE.iter().map(|(id, _)| *id).collect();
    let not_yet: BTreeSet<&str> = NOT_YET.iter().map(|(id, _)| *id).collect();
    let failing: BTreeSet<&str> = report.failures().map(|(id, _)| id.as_str()).filter(|id| !on_purpose.contains(id)).collect();
    let unexpected: Vec<String> = report
        .failures()
        .filter(|(id, _)| !not_yet.contains(id.as_str()) && !on_purpose.contains(id.as_str()))
        .map(|(id, why)| format!("{id}: {why}"))
        .collect();
    let fixed: Vec<&&str> = not_yet.difference(&failing).collect();
    assert!(unexpected.is_empty(), "{} dialect entries fail:\n{}", unexpected.len(), unexpected.join("\n"));
    assert!(fixed.is_empty(), "these entries pass now: remove them from NOT_YET: {fixed:?}");
    let accepted: BTreeSet<&str> = report.failures().map(|(id, _)| id.as_str()).filter(|id| on_purpose.contains(id)).collect();
    assert_eq!(accepted, on_purpose, "ACCEPTED_ON_PURPOSE must list exactly the rejected snippets pto accepts");
}

/// The op table's `ptoas_tmp` column (pto-ir `ops/table.rs`) names exactly the ops whose PTOAS
/// ODS declares a required `tmp` operand (`PTODpsType:$tmp`, not `Optional<...>`), and for each
/// the reader rejects the op's example with `tmp` taken out of `ins(...)` (`PARSE_BAD_OP_SYNTAX`
/// on the op's line, naming the `.td` line), as `ptoas`'s parser does. (A `PTO.cpp` line in the
/// column is a requirement of PTOAS's verifier instead, checked by the generated set.)
#[test]
fn tmp_is_required_in_the_dps_form_exactly_where_ptoas_ods_requires_it() {
    let doc = inventory();
    let mut required = Vec::new();
    for op in doc["ops"].as_array().expect("ops") {
        let full = name(op);
        let Some(opcode) = pto_ir::ops::lookup(full.trim_start_matches("pto.")) else { continue };
        let tmp = op["operands"].as_array().into_iter().flatten().find(|o| o["name"] == "tmp");
        let ods_requires = tmp.is_some_and(|o| !o["constraint"].as_str().unwrap_or("").starts_with("Optional<"));
        let at = opcode.spec().ptoas_tmp;
        // A `PTO.cpp` line: PTOAS's verifier (not its ODS) requires the operand (`tgather`'s
        // index form).
        let by_verifier = at.starts_with("PTO.cpp");
        assert_eq!(!at.is_empty() && !by_verifier, ods_requires, "{full}: op table `ptoas_tmp` = {at:?}, PTOAS ODS tmp = {tmp:?}");
        if !ods_requires {
            continue;
        }
        required.push(full.to_string());
        let example = op["example"].as_str().expect("an example");
        let without = without_tmp(example).unwrap_or_else(|| panic!("{full}: no `%tmp` in the example's ins"));
        let diags = parse(&without, FileId(0)).err().unwrap_or_else(|| panic!("{full}: accepted without tmp:\n{without}"));
        let d = &diags.0[0];
        assert_eq!(d.class.as_str(), "PARSE_BAD_OP_SYNTAX", "{full}: {}", d.message);
        assert!(d.notes.iter().any(|n| n.contains(&format!("include/PTO/IR/{at}"))), "{full}: {:?}", d.notes);
        let line = without[..d.span.start as usize].lines().count();
        assert!(without.lines().nth(line - 1).is_some_and(|l| l.contains(full)), "{full}: reported on line {line}");
    }
    assert_eq!(required.len(), 16, "{required:?}");
}

/// An op example with its `%tmp` operand (and its type) taken out of `ins(...)`.
fn without_tmp(example: &str) -> Option<String> {
    let start = example.find("ins(")? + 4;
    let mut depth = 0;
    let (mut colon, mut end) = (None, None);
    for (i, ch) in example[start..].char_indices() {
        match ch {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if depth == 0 => {
                end = Some(start + i);
                break;
            }
            ')' | '>' | ']' | '}' => depth -= 1,
            ':' if depth == 0 && colon.is_none() => colon = Some(start + i),
            _ => {}
        }
    }
    let (colon, end) = (colon?, end?);
    let split = |s: &str| -> Vec<String> {
        let (mut out, mut cur, mut d) = (Vec::new(), String::new(), 0);
        for ch in s.chars() {
            match ch {
                '(' | '<' | '[' | '{' => d += 1,
                ')' | '>' | ']' | '}' => d -= 1,
                ',' if d == 0 => {
                    out.push(cur.trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        out.push(cur.trim().to_string());
        out
    };
    let (mut names, mut types) = (split(&example[start..colon]), split(&example[colon + 1..end]));
    let i = names.iter().position(|n| n == "%tmp")?;
    names.remove(i);
    types.remove(i);
    Some(format!("{}{} : {}{}", &example[..start], names.join(", "), types.join(", "), &example[end..]))
}
