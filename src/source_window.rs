//! Diagnostics a terminal can hold: source lines cut to a window around what they point at,
//! labels over a whole op narrowed to its mnemonic, and (on a terminal) text wrapped to its
//! width.
//!
//! PTOAS-style lines run to 300 columns (keyed `tile_buf` types); a caret under a whole
//! statement is as wide. Before rendering, a label that spans an op without naming an operand
//! shrinks to the op's name ([`mnemonic_span`]), and each long line a label sits on is shown as
//! a window of at most [`WIDTH`] columns around the label, `…` marking what was cut
//! ([`Window`]).

/// The widest line a rendered diagnostic may have, in columns.
pub const WIDTH: usize = 118;
/// How many columns of source a shown line keeps (the gutter, `NN │ `, takes the rest).
const SOURCE_COLUMNS: usize = WIDTH - 12;
/// Columns kept before the label when a line is cut.
const LEAD: usize = 12;
/// Columns a label needs after its start for a window that starts at the line's start.
const TAIL: usize = 24;
/// A span longer than this (bytes) that names no operand is narrowed to the op's mnemonic.
const WIDE_SPAN: usize = 48;

/// The byte range `[start, end)` of the op mnemonic in `text[start..end]`, when the span is
/// wider than [`WIDE_SPAN`] or covers several lines and starts at an op (`%r = pto.tadd ...`,
/// `pto.tload ...`, `scf.if ...`): the results' names are skipped, the name ends at the first
/// space, `(`, `[` or `<`.
pub fn mnemonic_span(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let span = text.get(start..end)?;
    if span.len() <= WIDE_SPAN && !span.contains('\n') {
        return None;
    }
    let mut at = 0;
    if span.starts_with('%') {
        at = span.find(" = ").map(|i| i + 3)?;
    }
    let rest = &span[at..];
    let name_len = rest.find(|c: char| c.is_whitespace() || matches!(c, '(' | '[' | '<' | '{')).unwrap_or(rest.len());
    let name = &rest[..name_len];
    let looks_like_op = name.contains('.') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    looks_like_op.then_some((start + at, start + at + name_len))
}

/// A copy of a source text whose long lines are cut to windows, with the map from offsets in
/// the original to offsets in the copy.
pub struct Window {
    /// The shortened text.
    pub text: String,
    /// Kept pieces: `(original start, original end, start in the copy)`, in order.
    kept: Vec<(usize, usize, usize)>,
}

impl Window {
    /// `text` with every line longer than the window cut around the first of `anchors` (byte
    /// offsets) on it, or around its first non-blank character.
    pub fn new(text: &str, anchors: &[usize]) -> Window {
        let mut w = Window { text: String::with_capacity(text.len()), kept: Vec::new() };
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let end = line_start + line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            if body.chars().count() <= SOURCE_COLUMNS {
                w.keep(text, line_start, end);
            } else {
                let indent = body.len() - body.trim_start().len();
                let anchor =
                    anchors.iter().copied().find(|&a| a >= line_start && a < line_start + body.len()).unwrap_or(line_start + indent);
                let room = SOURCE_COLUMNS.saturating_sub(indent + 2).max(24);
                // The line's start stays when the anchor is well inside the first window.
                let anchor_col = body.get(indent..anchor - line_start).map_or(0, |s| s.chars().count());
                let from = if anchor_col + TAIL <= room { indent } else { back(body, anchor - line_start, LEAD).max(indent) };
                let to = forward(body, from, room);
                w.keep(text, line_start, line_start + indent);
                if from > indent {
                    w.text.push('…');
                }
                w.keep(text, line_start + from, line_start + to);
                if to < body.len() {
                    w.text.push('…');
                }
                w.keep(text, line_start + body.len(), end);
            }
            line_start = end;
        }
        w
    }

    fn keep(&mut self, text: &str, a: usize, b: usize) {
        if a < b {
            self.kept.push((a, b, self.text.len()));
            self.text.push_str(&text[a..b]);
        }
    }

    /// The original offset of offset `n` of the copy (a `…` maps to the start of the piece after
    /// it).
    pub fn unmap(&self, n: usize) -> usize {
        let i = self.kept.partition_point(|&(_, _, at)| at <= n);
        match i.checked_sub(1).map(|i| self.kept[i]) {
            Some((a, b, at)) if n - at < b - a => a + (n - at),
            _ => self.kept.get(i).map_or(n, |&(a, _, _)| a),
        }
    }

    /// The offset in the copy of original offset `o` (an offset in a cut piece maps to the end
    /// of the kept piece before it).
    pub fn map(&self, o: usize) -> usize {
        let i = self.kept.partition_point(|&(a, _, _)| a <= o);
        match i.checked_sub(1).map(|i| self.kept[i]) {
            Some((a, b, at)) if o < b => at + (o - a),
            Some((a, b, at)) => at + (b - a),
            None => 0,
        }
    }
}

/// The files of a diagnostic as [`codespan_reporting`] renders them: each file's [`Window`],
/// with locations (`file:line:col`) given in the original text's columns.
pub struct WindowFiles {
    files: Vec<(String, Window, Simple, Simple)>,
}

impl WindowFiles {
    /// An empty set.
    pub fn new() -> WindowFiles {
        WindowFiles { files: Vec::new() }
    }

    /// Adds `text` named `name`, cut around `anchors`; its id.
    pub fn add(&mut self, name: String, text: &str, anchors: &[usize]) -> usize {
        let w = Window::new(text, anchors);
        let shown = Simple::new(name.clone(), w.text.clone());
        let original = Simple::new(name.clone(), text.to_string());
        self.files.push((name, w, shown, original));
        self.files.len() - 1
    }

    /// The window of file `id`.
    pub fn window(&self, id: usize) -> Option<&Window> {
        self.files.get(id).map(|f| &f.1)
    }

    fn get(&self, id: usize) -> Result<&(String, Window, Simple, Simple), Error> {
        self.files.get(id).ok_or(Error::FileMissing)
    }
}

impl Default for WindowFiles {
    fn default() -> Self {
        WindowFiles::new()
    }
}

use codespan_reporting::files::{Error, Files};

/// One file as `codespan_reporting` indexes it.
type Simple = codespan_reporting::files::SimpleFile<String, String>;

impl<'a> Files<'a> for WindowFiles {
    type FileId = usize;
    type Name = String;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<String, Error> {
        Ok(self.get(id)?.0.clone())
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(self.get(id)?.1.text.as_str())
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, Error> {
        self.get(id)?.2.line_index((), byte_index)
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<std::ops::Range<usize>, Error> {
        self.get(id)?.2.line_range((), line_index)
    }

    /// The column in the original line: windows keep lines, not columns.
    fn column_number(&'a self, id: usize, line_index: usize, byte_index: usize) -> Result<usize, Error> {
        let (_, w, _, original) = self.get(id)?;
        let line_start = original.line_range((), line_index)?.start;
        let at = w.unmap(byte_index).max(line_start);
        Ok(original.source().get(line_start..at).map_or(1, |s| s.chars().count() + 1))
    }
}

/// The byte index `columns` characters before byte `at` of `s` (not before 0).
fn back(s: &str, at: usize, columns: usize) -> usize {
    // An anchor inside a character (a span from elsewhere) steps back to its start.
    let at = (0..=at.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
    s[..at].char_indices().rev().nth(columns.saturating_sub(1)).map_or(0, |(i, _)| i)
}

/// The byte index `columns` characters after byte `from` of `s` (at most `s.len()`).
fn forward(s: &str, from: usize, columns: usize) -> usize {
    s[from..].char_indices().nth(columns).map_or(s.len(), |(i, _)| from + i)
}

/// `text` wrapped at spaces so that no line is wider than `width`: the first has `indent`
/// columns before it, continuation lines start with `hang` spaces.
pub fn wrap(text: &str, indent: usize, hang: usize, width: usize) -> String {
    let mut out = String::new();
    for (n, para) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut col = indent;
        let mut first = true;
        for word in para.split(' ') {
            let len = word.chars().count();
            if !first && col + 1 + len > width {
                out.push('\n');
                out.push_str(&" ".repeat(hang));
                col = hang;
            } else if !first {
                out.push(' ');
                col += 1;
            }
            out.push_str(word);
            col += len;
            first = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_its_anchor_and_offsets_follow() {
        let line = format!("    pto.tload ins(%a : {}) outs(%b : T)\n", "x".repeat(300));
        let text = format!("short\n{line}tail\n");
        let anchor = text.find("outs").unwrap();
        let w = Window::new(&text, &[anchor]);
        let shown = w.text.lines().nth(1).unwrap();
        assert!(shown.chars().count() <= SOURCE_COLUMNS, "{shown}");
        assert!(shown.starts_with("    …"), "{shown}");
        assert_eq!(&w.text[w.map(anchor)..w.map(anchor) + 4], "outs");
        assert_eq!(&w.text[w.map(text.find("tail").unwrap())..][..4], "tail");
        assert_eq!(w.map(0), 0);
    }

    #[test]
    fn locations_keep_the_original_columns() {
        let text = format!("ab\n  x({}) y\n", "z".repeat(300));
        let y = text.find(") y").unwrap() + 2;
        let mut files = WindowFiles::new();
        let id = files.add("f".into(), &text, &[y]);
        let w = files.window(id).unwrap();
        assert_eq!(w.unmap(w.map(y)), y);
        let loc = files.location(id, w.map(y)).unwrap();
        assert_eq!((loc.line_number, loc.column_number), (2, y - 3 + 1));
    }

    #[test]
    fn a_statement_wide_span_narrows_to_the_op_name() {
        let text = "  %r = pto.tadd ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>)";
        let (a, b) = mnemonic_span(text, 2, text.len()).unwrap();
        assert_eq!(&text[a..b], "pto.tadd");
        assert_eq!(mnemonic_span(text, 2, 10), None, "a short span stays");
    }

    #[test]
    fn wrapping_keeps_every_line_within_the_width() {
        let text = "word ".repeat(60);
        let wrapped = wrap(text.trim_end(), 5, 4, WIDTH);
        let mut lines = wrapped.lines();
        assert!(lines.next().is_some_and(|l| l.chars().count() + 5 <= WIDTH), "{wrapped}");
        assert!(lines.all(|l| l.starts_with("    ") && l.chars().count() <= WIDTH), "{wrapped}");
        assert_eq!(wrapped.split_whitespace().count(), 60);
    }
}
