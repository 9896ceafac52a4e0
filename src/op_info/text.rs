//! `pto ops NAME` as text and as JSON.

use super::{OpInfo, sketch};
use pto_ir::attr::EnumKind;
use pto_ir::ops::{Slot, TmpRule};
use serde_json::{Value, json};
use std::fmt::Write;

fn tmp_text(rule: TmpRule) -> &'static str {
    pto_lower::legality::tmp_text(rule)
}

fn slot_text(s: &Slot) -> String {
    let mark = if s.variadic {
        " (zero or more)"
    } else if s.optional && s.name == "tmp" {
        " (optional: scratch, see tmp below)"
    } else if s.optional {
        " (optional)"
    } else {
        ""
    };
    let class = s.class.map(|c| format!(" ({})", c.describe())).unwrap_or_default();
    format!("{}: {}{class}{mark}", s.name, kind_name(s.kind))
}

fn kind_name(k: pto_ir::ops::SlotKind) -> &'static str {
    pto_ir::ops::SlotKind::ALL.iter().find(|(x, _)| *x == k).map(|(_, n)| *n).unwrap_or("?")
}

/// The values of an attribute kind, when it is an enum.
fn enum_values(kind: &str) -> Option<&'static [&'static str]> {
    EnumKind::find(kind).map(|(_, k)| k.values)
}

/// The human page.
pub fn text(info: &OpInfo) -> String {
    let spec = info.op.spec();
    let parsed = info.op.parsed();
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", spec.full_name(), spec.doc);
    let mut facts = vec![format!("family: {}", spec.family.title()), format!("pipe: {:?}", spec.pipe)];
    if !spec.page.is_empty() {
        facts.push(format!("pto-isa page: docs/isa/{}.md", spec.page));
        let [a2a3, a5] = crate::golden_coverage::vectors(spec.name);
        facts.push(format!("golden vectors: A2A3 {a2a3}, A5 {a5}"));
    }
    let _ = writeln!(out, "{}", facts.join(" · "));
    if !spec.pipes.is_empty() {
        let _ = writeln!(out, "pipe rules (first that holds; else {:?}): {}", spec.pipe, spec.pipes);
    }
    if !spec.effects.is_empty() {
        let _ = writeln!(out, "effects: {}", spec.effects);
    }
    if !spec.aliases.is_empty() {
        let _ = writeln!(out, "also spelled: {}", spec.aliases.join(", "));
    }
    if !spec.modes.is_empty() {
        let suffixes: Vec<String> = spec.modes.iter().map(|m| format!(".{} ({} = {})", m.suffix, m.attr, m.value)).collect();
        let _ = writeln!(out, "mnemonic suffixes: {}", suffixes.join(", "));
    }
    if !info.modes.is_empty() {
        let set: Vec<String> = info.modes.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let _ = writeln!(out, "`{}` sets: {}", info.asked, set.join(", "));
    }

    out.push_str("\nOperands");
    if parsed.forms.is_empty() {
        let _ =
            writeln!(out, " (text format{})", if spec.format.is_empty() { format!(": {:?} syntax", spec.syntax) } else { String::new() });
        if !spec.format.is_empty() {
            let _ = writeln!(out, "  {}", spec.format);
            out.push_str("  ($v an operand, $t a type, $r a result type, $<kind> an enum value `<VALUE>`, opt(...) optional;\n   docs/cli.md lists every item)\n");
            for kind in sketch::enum_kinds(info.op) {
                if let Some(values) = enum_values(&kind) {
                    let _ = writeln!(out, "  {kind}: one of {}", values.join(", "));
                }
            }
        }
    } else {
        out.push('\n');
        for (i, f) in parsed.forms.iter().enumerate() {
            let list = |slots: &[Slot]| {
                if slots.is_empty() { "—".to_string() } else { slots.iter().map(slot_text).collect::<Vec<_>>().join(", ") }
            };
            let label = if parsed.forms.len() > 1 { format!("  form {}: ", i + 1) } else { "  ".to_string() };
            let _ = writeln!(out, "{label}ins:  {}", list(&f.ins));
            let _ = writeln!(out, "{}outs: {}", " ".repeat(label.len()), list(&f.outs));
        }
        if parsed.forms.len() > 1 {
            out.push_str("  (the operand counts and kinds decide the form; the examples use form 1)\n");
        }
    }
    for g in &parsed.same {
        let what = match g.what.as_str() {
            "dtype" => "same element type",
            "valid" => "same valid shape",
            "shape" => "same static shape",
            _ => "static, logically 1-D GM view",
        };
        let _ = writeln!(out, "  {}({}): {what}", g.what, g.slots.join(", "));
    }
    for p in &parsed.present {
        match p.value.as_str() {
            "" => writeln!(out, "  {} is given exactly when {} is written", p.slot, p.attr),
            v => writeln!(out, "  {} is given exactly when {} = {v}", p.slot, p.attr),
        }
        .ok();
    }

    out.push_str("\nAttributes\n");
    if parsed.attrs.is_empty() {
        out.push_str("  none\n");
    }
    for a in &parsed.attrs {
        let need = match (a.required, a.form) {
            (true, Some(f)) => format!("form {f} only, required there"),
            (false, Some(f)) => format!("form {f} only"),
            (true, None) => "required".to_string(),
            (false, None) => "optional".to_string(),
        };
        let values = enum_values(&a.kind).map(|v| format!(": one of {}", v.join(", "))).unwrap_or_default();
        let _ = writeln!(out, "  {}: {} ({need}){values}", a.name, a.kind);
    }

    out.push_str("\nRules per target (pto-lower legality tables; docs/legality.md)\n");
    let tables = pto_lower::legality::TABLES;
    let has_tmp = parsed.forms.iter().any(|f| f.ins.iter().any(|s| s.name == "tmp"));
    if has_tmp {
        let _ =
            writeln!(out, "  tmp (scratch): {} {}; {} {}", tables[0].name, tmp_text(spec.tmp.a2a3), tables[1].name, tmp_text(spec.tmp.a5));
        if !spec.ptoas_tmp.is_empty() {
            let _ = writeln!(
                out,
                "    the DPS form must write it: PTOAS declares `PTODpsType:$tmp` (include/PTO/IR/{}); the Level-1 forms may omit it",
                spec.ptoas_tmp
            );
        }
        match &info.scratch {
            Some((tile, why)) => {
                let _ = writeln!(out, "    for the Level-2 example, a2a3 `insert-scratch` adds {tile} ({why}; docs/scratch.md)");
            }
            None if matches!(spec.tmp.a2a3, TmpRule::Optional | TmpRule::Required) => {
                out.push_str("    the Level-2 example's path on a2a3 uses no scratch tile (docs/scratch.md)\n");
            }
            None => {}
        }
    }
    if info.rules.is_empty() {
        out.push_str("  no target rules: `legalize` does not check this op (structure only)\n");
    }
    for (label, rows) in &info.rules {
        if !label.is_empty() {
            let _ = writeln!(out, "  form{label}:");
        }
        for (t, table) in tables.iter().enumerate() {
            let _ = writeln!(out, "  {}:", table.name);
            for row in rows {
                if row[0] == "tmp" && has_tmp {
                    continue;
                }
                let cell = row[t + 1].replace("<br>", "; ");
                let _ = writeln!(out, "    {}: {cell}", row[0]);
            }
        }
    }

    out.push_str("\nExamples (generated from the op table, each read back and verified)\n");
    if sketch::uses_placeholders(info.op) {
        out.push_str("  The op table gives this op's syntax, not its operand types: the types below are placeholders.\n");
    }
    if info.op.spec().syntax == pto_ir::ops::Syntax::Generic {
        out.push_str("  `pto fmt --generic` prints this op as written (`pto` keeps its syntax verbatim).\n");
    }
    for e in &info.examples {
        let status = match &e.error {
            Some(err) => format!("INVALID: {err}"),
            None if info.rules.is_empty() => "verifies (no target rules apply)".to_string(),
            None => legality_text(&e.legality),
        };
        let _ = writeln!(out, "\n  {} — {status}", e.form.title());
        for line in e.text.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

/// `pto verify --target`: ok on a2a3 and a5 / ok on a2a3; a5: LEGAL_...
fn legality_text(l: &[super::check::Legality]) -> String {
    let ok: Vec<&str> = l.iter().filter(|x| x.ok()).map(|x| x.target).collect();
    let bad: Vec<String> = l.iter().filter_map(|x| x.error.as_ref().map(|e| format!("{}: {e}", x.target))).collect();
    let mut parts = Vec::new();
    if !ok.is_empty() {
        parts.push(format!("legal on {}", ok.join(" and ")));
    }
    for x in l.iter().filter(|x| x.ok() && x.rewritten > 0) {
        let tiles = if x.rewritten == 1 { "1 tile".to_string() } else { format!("{} tiles", x.rewritten) };
        parts.push(format!("{} gives {tiles} the layout it fixes", x.target));
    }
    if !bad.is_empty() {
        parts.push(format!("not legal on {}", bad.join("; ")));
    }
    parts.join("; ")
}

/// The JSON page.
pub fn json(info: &OpInfo) -> Value {
    let spec = info.op.spec();
    let parsed = info.op.parsed();
    let slot = |s: &Slot| json!({"name": s.name, "kind": kind_name(s.kind), "optional": s.optional, "variadic": s.variadic});
    let forms: Vec<Value> = parsed
        .forms
        .iter()
        .map(|f| json!({"ins": f.ins.iter().map(slot).collect::<Vec<_>>(), "outs": f.outs.iter().map(slot).collect::<Vec<_>>()}))
        .collect();
    let attrs: Vec<Value> = parsed
        .attrs
        .iter()
        .map(|a| json!({"name": a.name, "kind": a.kind, "required": a.required, "form": a.form, "values": enum_values(&a.kind)}))
        .collect();
    let tables = pto_lower::legality::TABLES;
    let rules: Vec<Value> = info
        .rules
        .iter()
        .map(|(label, rows)| {
            let rows: Vec<Value> = rows.iter().map(|r| json!({"aspect": r[0], tables[0].name: r[1], tables[1].name: r[2]})).collect();
            json!({"form": label.trim(), "rows": rows})
        })
        .collect();
    let examples: Vec<Value> = info
        .examples
        .iter()
        .map(|e| {
            let legal: serde_json::Map<String, Value> = e.legality.iter().map(|l| (l.target.to_string(), json!(l.error))).collect();
            let rewritten: serde_json::Map<String, Value> = e.legality.iter().map(|l| (l.target.to_string(), json!(l.rewritten))).collect();
            json!({"form": e.form.key(), "title": e.form.title(), "text": e.text, "errors_by_target": legal, "layouts_rewritten": rewritten, "error": e.error})
        })
        .collect();
    let [a2a3_golden, a5_golden] = crate::golden_coverage::vectors(spec.name);
    let golden = json!({tables[0].name: a2a3_golden, tables[1].name: a5_golden});
    json!({
        "name": spec.full_name(),
        "asked": info.asked,
        "mnemonic": spec.name,
        "aliases": spec.aliases,
        "family": spec.family.title(),
        "doc": spec.doc,
        "pipe": format!("{:?}", spec.pipe),
        "pipe_rules": parsed.pipes,
        "effects": parsed.effects,
        "isa_page": if spec.page.is_empty() { Value::Null } else { json!(format!("docs/isa/{}.md", spec.page)) },
        "golden_vectors": golden,
        "syntax": format!("{:?}", spec.syntax),
        "format": if spec.format.is_empty() { Value::Null } else { json!(spec.format) },
        "forms": forms,
        "attributes": attrs,
        "modes": spec.modes,
        "selected_modes": info.modes.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
        "constraints": parsed.same,
        "presence": parsed.present,
        "tmp": {tables[0].name: tmp_text(spec.tmp.a2a3), tables[1].name: tmp_text(spec.tmp.a5)},
        "a2a3_scratch_for_example": info.scratch.as_ref().map(|(tile, why)| json!({"tile": tile, "why": why})),
        "rules": rules,
        "examples": examples,
        "placeholder_types": sketch::uses_placeholders(info.op),
    })
}
