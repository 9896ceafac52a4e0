//! Rendering of diagnostics: human (source line + caret, via `codespan-reporting`) or JSON lines.

use crate::ErrorFormat;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::term::{Config, DisplayStyle, emit_into_string};
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

/// How many errors a compact report shows in full; the later ones show their first line and
/// notes (`--error-format json` keeps everything).
const FULL_ERRORS: usize = 1;
/// From how many diagnostics a compact report starts with a line of counts.
const SUMMARY_FROM: usize = 4;

/// The width human diagnostics are wrapped to, 0 for none: set by the `pto` binary when its
/// stderr is a terminal (or `COLUMNS` is set), see [`set_terminal_width`].
static TERMINAL_WIDTH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Lays human diagnostics out for a terminal `width` columns wide (capped at
/// [`crate::source_window::WIDTH`]): messages and notes wrapped, and a report of several
/// errors compact — counts first from four diagnostics on, the first error in full, the later
/// ones as their location line and notes. `None`: the plain layout (piped output, library
/// callers, Python), one line per message, every diagnostic in full.
pub fn set_terminal_width(width: Option<usize>) {
    let w = width.map_or(0, |w| w.clamp(60, crate::source_window::WIDTH));
    TERMINAL_WIDTH.store(w, std::sync::atomic::Ordering::Relaxed);
}

fn terminal_width() -> Option<usize> {
    Some(TERMINAL_WIDTH.load(std::sync::atomic::Ordering::Relaxed)).filter(|&w| w > 0)
}

fn render_human(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    let width = terminal_width();
    let shown = diags.iter().filter(|d| d.severity != Severity::Note).count();
    if width.is_some() && shown >= SUMMARY_FROM {
        out.push_str(&count_line(diags, ErrorFormat::Human).replace('\n', ":\n"));
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let mut full_errors = 0;
    for d in diags {
        let d = &in_window(sources, d);
        let brief = width.is_some() && d.severity == Severity::Error && errors > 1 && full_errors >= FULL_ERRORS;
        full_errors += usize::from(d.severity == Severity::Error);
        out.push_str(&render_one(sources, d, brief, width));
    }
    out
}

/// `d` with wide labels narrowed to their op's name ([`crate::source_window::mnemonic_span`]).
fn in_window(sources: &SourceMap, d: &Diagnostic) -> Diagnostic {
    let narrow = |s: Span| -> Span {
        let Some(f) = sources.get(s.file) else { return s };
        match crate::source_window::mnemonic_span(&f.text, s.start as usize, s.end as usize) {
            Some((a, b)) => Span { file: s.file, start: a as u32, end: b as u32 },
            None => s,
        }
    };
    let mut d = d.clone();
    d.span = narrow(d.span);
    for (s, _) in &mut d.labels {
        *s = narrow(*s);
    }
    d
}

/// One diagnostic: the source lines its labels are on cut to a window around them; on a
/// terminal `width` columns wide the message and notes wrapped; `brief`: the location line and
/// notes without the source.
fn render_one(sources: &SourceMap, d: &Diagnostic, brief: bool, width: Option<usize>) -> String {
    use crate::source_window::{WindowFiles, wrap};
    let mut files = WindowFiles::new();
    let mut i = 0;
    while let Some(f) = sources.get(pto_ir::FileId(i)) {
        let anchors: Vec<usize> =
            std::iter::once(d.span).chain(d.labels.iter().map(|(s, _)| *s)).filter(|s| s.file.0 == i).map(|s| s.start as usize).collect();
        files.add(f.name.clone(), &f.text, &anchors);
        i += 1;
    }
    let config = Config { display_style: if brief { DisplayStyle::Medium } else { DisplayStyle::Rich }, ..Config::default() };
    {
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
            Severity::Note => CsSeverity::Note,
        };
        let clamp = |s: Span| -> Option<(usize, std::ops::Range<usize>)> {
            let w = files.window(s.file.0 as usize)?;
            let len = w.text.len();
            let start = w.map(s.start as usize).min(len);
            let end = w.map(s.end as usize).clamp(start, len);
            Some((s.file.0 as usize, start..end))
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
        // The op's name, unless the message already names it and no operand is at fault.
        // A brief diagnostic's location already points at the op.
        let named = |op: &String| d.operand.is_some() || !(brief || d.message.contains(&format!("`{op}`")));
        if let Some(op) = d.op.as_ref().filter(|op| named(op)) {
            let operand = d.operand.as_ref().map(|o| format!(", operand {o}")).unwrap_or_default();
            notes.push(format!("op: {op}{operand}"));
        } else if let Some(operand) = &d.operand {
            notes.push(format!("operand: {operand}"));
        }
        notes.extend(d.notes.iter().cloned());
        let location = if brief { format!("{}: ", sources.location(d.span)) } else { String::new() };
        let header = format!("{location}{}[{}]: ", severity_word(d.severity), d.class).chars().count();
        let (notes, message) = match width {
            Some(w) => (notes.iter().map(|n| wrap(n, 5, 2, w)).collect(), wrap(&d.message, header, 2, w)),
            None => (notes, d.message.clone()),
        };
        let cs = CsDiagnostic::new(severity).with_code(d.class.as_str()).with_message(message).with_labels(labels).with_notes(notes);
        match emit_into_string(&config, &files, &cs) {
            // A gutter line with nothing on it only spaces the snippet out.
            Ok(s) => s.lines().filter(|l| !is_empty_gutter(l)).map(|l| l.to_string() + "\n").collect(),
            Err(_) => format!("{}: {}[{}]: {}\n", sources.location(d.span), "error", d.class, d.message),
        }
    }
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// `   │` with nothing after it, or the `   ·` between two snippets of a file (their line
/// numbers show the gap).
fn is_empty_gutter(line: &str) -> bool {
    matches!(line.trim(), "│" | "|" | "·" | ":")
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
