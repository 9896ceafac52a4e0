//! Rendering of diagnostics: human (source line + caret, via `codespan-reporting`) or JSON lines.

use crate::ErrorFormat;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{Config, emit_into_string};
use pto_ir::diag::{Diagnostic, Severity, SourceMap, Span};
use serde_json::json;

/// Renders diagnostics in the chosen format, each about one operand located at that operand
/// ([`crate::operand_span`]).
pub fn render(sources: &SourceMap, diags: &[Diagnostic], format: ErrorFormat) -> String {
    let diags: Vec<Diagnostic> = diags.iter().map(|d| crate::operand_span::narrowed(sources, d)).collect();
    match format {
        ErrorFormat::Human => render_human(sources, &diags),
        ErrorFormat::Json => diags.iter().map(|d| render_json(sources, d) + "\n").collect(),
        ErrorFormat::Mlir => diags.iter().map(|d| render_mlir(sources, d)).collect(),
    }
}

/// One diagnostic in MLIR's form, as `ptoas` prints it: `file:line:col: error: 'pto.op' op
/// message` (without the op when the diagnostic names none), then `[CLASS]`, and any
/// secondary label as a `note:` line at its own location.
pub fn render_mlir(sources: &SourceMap, d: &Diagnostic) -> String {
    let at = |s: Span| match sources.get(s.file) {
        Some(f) => {
            let (l, c) = f.line_col(s.start);
            format!("{}:{l}:{c}: ", f.name)
        }
        None => String::new(),
    };
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let op = d.op.as_deref().map(|o| format!("'{o}' op ")).unwrap_or_default();
    let mut out = format!("{}{severity}: {op}{} [{}]\n", at(d.span), d.message, d.class);
    for (s, m) in &d.labels {
        out.push_str(&format!("{}note: {m}\n", at(*s)));
    }
    out
}

fn render_human(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut files = SimpleFiles::new();
    let mut ids = Vec::new();
    let mut i = 0;
    while let Some(f) = sources.get(pto_ir::FileId(i)) {
        ids.push(files.add(f.name.clone(), f.text.clone()));
        i += 1;
    }
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
            Severity::Note => CsSeverity::Note,
        };
        let clamp = |s: Span| -> Option<(usize, std::ops::Range<usize>)> {
            let f = sources.get(s.file)?;
            let len = f.text.len();
            let start = (s.start as usize).min(len);
            let end = (s.end as usize).clamp(start, len);
            Some((*ids.get(s.file.0 as usize)?, start..end))
        };
        let mut labels = Vec::new();
        if let Some((fid, range)) = clamp(d.span) {
            let text = match (&d.expected, &d.actual) {
                (Some(e), Some(a)) => format!("expected {e}, found {a}"),
                _ => String::new(),
            };
            labels.push(Label::primary(fid, range).with_message(text));
        }
        for (span, msg) in &d.labels {
            if let Some((fid, range)) = clamp(*span) {
                labels.push(Label::secondary(fid, range).with_message(msg.clone()));
            }
        }
        let mut notes = Vec::new();
        if let Some(op) = &d.op {
            let operand = d.operand.as_ref().map(|o| format!(", operand {o}")).unwrap_or_default();
            notes.push(format!("op: {op}{operand}"));
        } else if let Some(operand) = &d.operand {
            notes.push(format!("operand: {operand}"));
        }
        notes.extend(d.notes.iter().cloned());
        let cs =
            CsDiagnostic::new(severity).with_code(d.class.as_str()).with_message(d.message.clone()).with_labels(labels).with_notes(notes);
        match emit_into_string(&config, &files, &cs) {
            Ok(s) => out.push_str(&s),
            Err(_) => out.push_str(&format!("{}: {}[{}]: {}\n", sources.location(d.span), "error", d.class, d.message)),
        }
    }
    out
}

/// A report's closing line for a human reader: `3 errors, 1 warning` (notes are not counted),
/// or nothing when the report has neither (and for JSON and MLIR output, line-oriented forms).
pub fn count_line(diags: &[Diagnostic], format: ErrorFormat) -> String {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diags.iter().filter(|d| d.severity == Severity::Warning).count();
    if format != ErrorFormat::Human || errors + warnings == 0 {
        return String::new();
    }
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    format!("{}, {}\n", plural(errors, "error"), plural(warnings, "warning"))
}

/// One diagnostic as a JSON object (one line).
pub fn render_json(sources: &SourceMap, d: &Diagnostic) -> String {
    let (file, line, col, end_line, end_col) = match sources.get(d.span.file) {
        Some(f) => {
            let (l, c) = f.line_col(d.span.start);
            let (el, ec) = f.line_col(d.span.end);
            (f.name.clone(), l, c, el, ec)
        }
        None => (String::new(), 0, 0, 0, 0),
    };
    let labels: Vec<_> = d
        .labels
        .iter()
        .map(|(s, m)| {
            let (l, c) = sources.get(s.file).map(|f| f.line_col(s.start)).unwrap_or((0, 0));
            json!({"line": l, "col": c, "message": m})
        })
        .collect();
    json!({
        "class": d.class.as_str(),
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Note => "note" },
        "message": d.message,
        "file": file,
        "line": line,
        "col": col,
        "end_line": end_line,
        "end_col": end_col,
        "op": d.op,
        "operand": d.operand,
        "expected": d.expected,
        "actual": d.actual,
        "labels": labels,
        "notes": d.notes,
    })
    .to_string()
}

/// With `--error-format json`, the plain `error: ...` lines a command writes for usage, I/O and
/// input-data errors (they have no source location) become JSON objects like the diagnostics:
/// class `USAGE` for exit code 2, `INPUT` for exit code 1. Other lines are kept.
pub fn plain_errors_as_json(stderr: &str, code: i32) -> String {
    let class = if code == 2 { "USAGE" } else { "INPUT" };
    stderr
        .lines()
        .map(|line| match line.strip_prefix("error: ") {
            Some(message) => json!({"class": class, "severity": "error", "message": message}).to_string(),
            None => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}
