//! The MLIR context of one export or import, and the capture of MLIR's diagnostics.
//!
//! The dialects `pto` files use besides `pto` — `builtin`, `func`, `arith`, `scf`, `memref` — are
//! loaded, so MLIR verifies those ops as `mlir-opt` does; every other dialect (`pto` first of
//! all) is allowed unregistered. Diagnostics are captured (never printed by MLIR) and turned into
//! located `pto` diagnostics by [`Captured::to_diagnostic`].

use melior::Context;
use mlir_sys::{
    MlirDiagnostic, MlirDiagnosticSeverity_MlirDiagnosticError, MlirDialectHandle, MlirLogicalResult, mlirContextAttachDiagnosticHandler,
    mlirDiagnosticGetLocation, mlirDiagnosticGetNote, mlirDiagnosticGetNumNotes, mlirDiagnosticGetSeverity, mlirDiagnosticPrint,
    mlirDialectHandleLoadDialect, mlirGetDialectHandle__arith__, mlirGetDialectHandle__func__, mlirGetDialectHandle__memref__,
    mlirGetDialectHandle__scf__,
};
use pto_ir::diag::{DiagClass, Diagnostic, FileId, SourceMap, Span};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::rc::Rc;

/// One diagnostic MLIR emitted: message, location text, notes.
#[derive(Debug, Clone)]
pub(super) struct Captured {
    /// MLIR's message.
    pub message: String,
    /// The location as MLIR prints it (`loc("k.mlir":3:5)`).
    pub location: String,
    /// Notes (`see current operation: ...`), in order.
    pub notes: Vec<String>,
    /// Error (as opposed to warning or remark).
    pub is_error: bool,
}

type Sink = RefCell<Vec<Captured>>;

/// A context with the dialects loaded and a diagnostic handler attached.
pub(super) struct Mlir {
    /// The context.
    pub ctx: Context,
    captured: Rc<Sink>,
}

impl Mlir {
    /// A fresh context: `func`, `arith`, `scf`, `memref` loaded, unregistered dialects allowed,
    /// single-threaded, diagnostics captured.
    pub fn new() -> Mlir {
        let ctx = Context::new();
        ctx.enable_multi_threading(false);
        let handles: [unsafe extern "C" fn() -> MlirDialectHandle; 4] =
            [mlirGetDialectHandle__func__, mlirGetDialectHandle__arith__, mlirGetDialectHandle__scf__, mlirGetDialectHandle__memref__];
        for handle in handles {
            // SAFETY: the handles are static dialect descriptors; loading one into a live context is always valid.
            unsafe { mlirDialectHandleLoadDialect(handle(), ctx.to_raw()) };
        }
        ctx.set_allow_unregistered_dialects(true);
        let captured: Rc<Sink> = Rc::new(RefCell::new(Vec::new()));
        let user_data = Rc::into_raw(Rc::clone(&captured)) as *mut c_void;
        // SAFETY: `user_data` is an `Rc<Sink>` that `release_sink` frees when MLIR drops the handler
        // (at the latest when the context is destroyed).
        unsafe { mlirContextAttachDiagnosticHandler(ctx.to_raw(), Some(capture), user_data, Some(release_sink)) };
        Mlir { ctx, captured }
    }

    /// Takes every diagnostic captured so far.
    pub fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.captured.borrow_mut())
    }
}

/// The diagnostic handler: records the diagnostic and tells MLIR it was handled (nothing is
/// printed). It never panics (a panic cannot unwind through MLIR).
unsafe extern "C" fn capture(d: MlirDiagnostic, user_data: *mut c_void) -> MlirLogicalResult {
    // SAFETY: `user_data` is the `Rc<Sink>` attached in `Mlir::new`, alive until `release_sink`.
    let sink = unsafe { &*(user_data as *const Sink) };
    let captured = unsafe {
        Captured {
            message: diagnostic_text(d),
            location: super::raw::location_text(mlirDiagnosticGetLocation(d)),
            notes: (0..mlirDiagnosticGetNumNotes(d)).map(|i| diagnostic_text(mlirDiagnosticGetNote(d, i))).collect(),
            is_error: mlirDiagnosticGetSeverity(d) == MlirDiagnosticSeverity_MlirDiagnosticError,
        }
    };
    if let Ok(mut v) = sink.try_borrow_mut() {
        v.push(captured);
    }
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn release_sink(user_data: *mut c_void) {
    // SAFETY: the pointer came from `Rc::into_raw` in `Mlir::new` and is released exactly once.
    drop(unsafe { Rc::from_raw(user_data as *const Sink) });
}

/// A diagnostic's message (without NUL bytes: some MLIR 19 messages contain one, as in
/// "expected 1 operand type\0 but had 2").
fn diagnostic_text(d: MlirDiagnostic) -> String {
    let bytes = super::raw::printed(|cb, data| unsafe { mlirDiagnosticPrint(d, cb, data) });
    String::from_utf8_lossy(&bytes).replace('\0', "")
}

/// `file`, line, column of the first file location inside an MLIR location text
/// (`loc("k.mlir":3:5)`, `loc(callsite(... at "k.mlir":3:5))`, `loc("name"("k.mlir":3:5))`).
pub(super) fn file_line_col(location: &str) -> Option<(String, usize, usize)> {
    let mut rest = location;
    while let Some(q) = rest.find('"') {
        let after = &rest[q + 1..];
        let end = after.find('"')?;
        let name = &after[..end];
        let tail = &after[end + 1..];
        if let Some(nums) = tail.strip_prefix(':') {
            let line_end = nums.find(':')?;
            let line: usize = nums[..line_end].parse().ok()?;
            let col_text: String = nums[line_end + 1..].chars().take_while(char::is_ascii_digit).collect();
            let col: usize = col_text.parse().ok()?;
            return Some((name.to_string(), line, col));
        }
        rest = tail;
    }
    None
}

/// Byte offsets of the starts of the lines of `text`.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// The byte offset of 1-based `line`, `col` (columns counted in characters) in `text`, whose
/// line starts are `starts`; clamped to the text.
fn offset_of(text: &str, starts: &[usize], line: usize, col: usize) -> usize {
    let Some(&start) = starts.get(line.saturating_sub(1)) else { return text.len() };
    let line_text = &text[start..text[start..].find('\n').map(|i| start + i).unwrap_or(text.len())];
    start + line_text.char_indices().nth(col.saturating_sub(1)).map(|(i, _)| i).unwrap_or(line_text.len())
}

/// Where MLIR locations point: the input's name as MLIR sees it, mapped to our file.
pub(super) struct Locator<'s> {
    /// Source texts, for offsets and for matching file names.
    sources: &'s SourceMap,
    /// The file a location with MLIR's anonymous buffer name (`""`, `"-"`) belongs to.
    pub input: FileId,
    /// Line starts per file, computed on first use.
    lines: RefCell<HashMap<FileId, Vec<usize>>>,
}

impl<'s> Locator<'s> {
    /// Locations in `sources`; anonymous ones in `input`.
    pub fn new(sources: &'s SourceMap, input: FileId) -> Locator<'s> {
        Locator { sources, input, lines: RefCell::new(HashMap::new()) }
    }

    /// The span of an MLIR location text: from the position to the end of its line, in the
    /// input (anonymous buffer) or in a source file with the same name; `None` otherwise.
    pub fn span(&self, location: &str) -> Option<Span> {
        let (name, line, col) = file_line_col(location)?;
        let file = if name.is_empty() || name == "-" {
            self.input
        } else {
            (0..)
                .map(FileId)
                .take_while(|&f| self.sources.get(f).is_some())
                .find(|&f| self.sources.get(f).is_some_and(|s| s.name == name))?
        };
        let text = &self.sources.get(file)?.text;
        let mut lines = self.lines.borrow_mut();
        let starts = lines.entry(file).or_insert_with(|| line_starts(text));
        let start = offset_of(text, starts, line, col);
        let end = text[start..].find('\n').map(|i| start + i).unwrap_or(text.len());
        Some(Span::new(file, start, end.max(start + 1).min(text.len().max(start))))
    }

    /// A captured MLIR diagnostic as ours: class `class`, located when the location is known
    /// (otherwise the location text becomes a note and the span is the input's start).
    pub fn diagnostic(&self, c: &Captured, class: DiagClass) -> Diagnostic {
        let span = self.span(&c.location);
        let mut d = Diagnostic::error(class, span.unwrap_or(Span::new(self.input, 0, 0)), c.message.clone());
        if !c.is_error {
            d.severity = pto_ir::diag::Severity::Warning;
        }
        if span.is_none() && c.location != "loc(unknown)" {
            d.notes.push(format!("MLIR location: {}", c.location));
        }
        // MLIR's notes, except the dump of the whole failing op in generic form.
        for n in c.notes.iter().filter(|n| !n.starts_with("see current operation")) {
            d.notes.push(n.lines().next().unwrap_or_default().to_string());
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_locations_are_found_inside_any_location_form() {
        assert_eq!(file_line_col("loc(\"k.mlir\":3:5)"), Some(("k.mlir".into(), 3, 5)));
        assert_eq!(file_line_col("loc(\"v\"(\"a b.pto\":12:1))"), Some(("a b.pto".into(), 12, 1)));
        assert_eq!(file_line_col("loc(\"-\":4:16)"), Some(("-".into(), 4, 16)));
        assert_eq!(file_line_col("loc(unknown)"), None);
    }

    #[test]
    fn offsets_count_lines_and_characters() {
        let text = "ab\ncdé\nf";
        let starts = line_starts(text);
        assert_eq!(starts, [0, 3, 8]);
        assert_eq!(offset_of(text, &starts, 1, 1), 0);
        assert_eq!(offset_of(text, &starts, 2, 3), 5);
        assert_eq!(offset_of(text, &starts, 3, 1), 8);
        assert_eq!(offset_of(text, &starts, 9, 1), text.len());
    }
}
