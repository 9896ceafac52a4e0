//! The statement reader: a hand-written lexer and recursive-descent parser producing the
//! syntax tree the builder interprets.
//!
//! It implements exactly the generic grammar documented in `pto.pest` (statements of pieces,
//! newline-terminated, with continuation lines, free newlines inside brackets, dictionaries vs
//! regions). It exists because the throughput target (a 10,000-repetition kernel parsed and
//! verified in under 100 ms) is below pest's measured floor for simply tokenizing that input;
//! see docs/design.md, "Why the statement reader is hand-written".

use pto_ir::diag::{DiagClass, Diagnostic, FileId, Span};

/// Kind of a literal token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LitKind {
    Int,
    Float,
    Hex,
    Str,
}

/// A token's text and start offset.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Tok<'i> {
    pub text: &'i str,
    pub start: usize,
}

impl Tok<'_> {
    pub(crate) fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// One piece of an op's text.
#[derive(Debug)]
pub(crate) enum Syn<'i> {
    Word(&'i str),
    Value(&'i str),
    Type(&'i str),
    Attr(&'i str),
    Symbol(&'i str),
    Lit(&'i str, LitKind),
    Punct(&'i str),
    Group(char, Vec<Node<'i>>),
    Angle(&'i str),
    Dict(Vec<DictEntry<'i>>),
    Region(RegionSrc),
}

/// Where a region's statements are: they are read lazily, one statement at a time, when the
/// builder builds the region (so a kernel's syntax tree is never held whole in memory).
#[derive(Copy, Clone, Debug)]
pub(crate) struct RegionSrc {
    first: u32,
    close: u32,
    depth: u32,
}

/// A piece with its byte range.
#[derive(Debug)]
pub(crate) struct Node<'i> {
    pub syn: Syn<'i>,
    pub start: usize,
    pub end: usize,
}

impl Node<'_> {
    /// Short description for "found ..." messages.
    pub(crate) fn describe(&self) -> String {
        match &self.syn {
            Syn::Word(w) => format!("`{w}`"),
            Syn::Value(v) => format!("value `{v}`"),
            Syn::Type(t) => format!("type `{t}`"),
            Syn::Attr(a) => format!("attribute `{a}`"),
            Syn::Symbol(s) => format!("symbol `{s}`"),
            Syn::Lit(l, _) => format!("literal `{l}`"),
            Syn::Punct(p) => format!("`{p}`"),
            Syn::Group(c, _) => format!("`{c}...`"),
            Syn::Angle(a) => format!("`<{a}>`"),
            Syn::Dict(_) => "an attribute dictionary".into(),
            Syn::Region(_) => "a region".into(),
        }
    }
}

/// `key` or `key = value` in an attribute dictionary.
#[derive(Debug)]
pub(crate) struct DictEntry<'i> {
    pub key: Tok<'i>,
    pub value: Option<AttrNode<'i>>,
}

/// An attribute value as written, with an optional `: type` suffix.
#[derive(Debug)]
pub(crate) struct AttrNode<'i> {
    pub kind: AttrKind<'i>,
    pub ty: Option<Tok<'i>>,
    pub start: usize,
    pub end: usize,
}

/// The shapes an attribute value can take.
#[derive(Debug)]
pub(crate) enum AttrKind<'i> {
    Attr(&'i str),
    Type(&'i str),
    Lit(&'i str),
    Array(Vec<AttrNode<'i>>),
    Dict(Vec<DictEntry<'i>>),
    Symbol(&'i str),
    Angle(&'i str),
    Word(&'i str),
    /// A function type (`(i32) -> f32`), as written.
    Function(&'i str),
}

/// A bound result name: `%x` or `%x:2`.
#[derive(Debug)]
pub(crate) struct ResultName<'i> {
    pub name: &'i str,
    pub count: Option<Tok<'i>>,
    pub start: usize,
    pub end: usize,
}

/// One statement.
#[derive(Debug)]
pub(crate) enum Stmt<'i> {
    /// `.arg %a : T`
    Arg { value: Tok<'i>, ty: Tok<'i> },
    /// `.const %c = 1.0 : f32`
    Const { value: Tok<'i>, lit: Tok<'i>, ty: Tok<'i> },
    /// `^bb0(%a: T):`
    Label { name: Tok<'i>, args: Option<Node<'i>> },
    /// `%r = op pieces...`
    Op(OpStmt<'i>),
}

/// An op statement.
#[derive(Debug)]
pub(crate) struct OpStmt<'i> {
    pub results: Vec<ResultName<'i>>,
    pub name: Tok<'i>,
    pub pieces: Vec<Node<'i>>,
    pub start: usize,
    pub end: usize,
}

// ------------------------------------------------------------------------------------ lexer

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum T {
    Value,
    Type,
    Attr,
    Symbol,
    Caret,
    Word,
    Dot,
    Lit(LitKind),
    Punct,
    Arrow,
    Open(u8),
    Close(u8),
    Angle,
    Newline,
    Semi,
    Eof,
}

#[derive(Copy, Clone, Debug)]
struct Token {
    kind: T,
    start: u32,
    end: u32,
}

struct Lexer<'i> {
    src: &'i str,
    bytes: &'i [u8],
    pos: usize,
    file: FileId,
    /// Where the comments skipped so far are (`[start, end)`), when asked for ([`comments`]).
    comments: Option<Vec<(usize, usize)>>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
}

impl<'i> Lexer<'i> {
    fn error(&self, at: usize, msg: impl Into<String>) -> Diagnostic {
        let end = (at + 1).min(self.src.len()).max(at);
        let class = if at >= self.src.len() { DiagClass::ParseUnexpectedEof } else { DiagClass::ParseUnexpectedToken };
        Diagnostic::error(class, Span::new(self.file, at, end), msg)
    }

    fn peek(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    /// Skips a balanced `<...>` starting at `self.pos` (which holds `<`).
    fn skip_angle(&mut self) -> Result<(), Diagnostic> {
        let open = self.pos;
        let mut depth = 0usize;
        // Jump between angle brackets (SIMD search): a type spells most of its bytes between them.
        // A string literal (a quoted key or value of MLIR properties `<{"a<b" = ...}>`) is opaque:
        // its brackets do not count.
        while let Some(skip) = memchr::memchr3(b'<', b'>', b'"', &self.bytes[self.pos..]) {
            self.pos += skip;
            match self.bytes[self.pos] {
                b'"' => {
                    let mut p = self.pos + 1;
                    while p < self.bytes.len() && self.bytes[p] != b'"' {
                        p += if self.bytes[p] == b'\\' { 2 } else { 1 };
                    }
                    self.pos = p.min(self.bytes.len() - 1);
                }
                b'<' => depth += 1,
                // A function type's `->` (in MLIR properties `<{...}>` or a type's parameters) is
                // not a closing bracket, at any depth: `!p<->` is unclosed wherever it stands.
                b'>' if self.pos > 0 && self.bytes[self.pos - 1] == b'-' => {}
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        let mut d = self.error(open, "unclosed `<`").with_expected("`>`", "end of input");
        d.class = DiagClass::ParseUnexpectedEof;
        Err(d)
    }

    fn ident_end(&self, mut p: usize) -> usize {
        while p < self.bytes.len() && is_ident_char(self.bytes[p]) {
            p += 1;
        }
        p
    }

    fn number(&mut self) -> Result<T, Diagnostic> {
        let start = self.pos;
        if self.peek(0) == b'-' {
            self.pos += 1;
        }
        if self.peek(0) == b'0' && self.peek(1) == b'x' {
            self.pos += 2;
            let digits = self.pos;
            while self.peek(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == digits {
                return Err(self.error(start, "malformed hexadecimal literal"));
            }
            return Ok(T::Lit(LitKind::Hex));
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut kind = LitKind::Int;
        if self.peek(0) == b'.' && !is_ident_start(self.peek(1)) {
            kind = LitKind::Float;
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit() || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            kind = LitKind::Float;
            self.pos += 2;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        Ok(T::Lit(kind))
    }

    fn next(&mut self) -> Result<Token, Diagnostic> {
        // Spaces and comments.
        loop {
            match self.peek(0) {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                0xEF if self.bytes[self.pos..].starts_with("\u{FEFF}".as_bytes()) => self.pos += 3,
                b'/' if self.peek(1) == b'/' => self.skip_comment(),
                b'#' if matches!(self.peek(1), b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'!' | 0) => self.skip_comment(),
                _ => break,
            }
        }
        let start = self.pos;
        let Some(&b) = self.bytes.get(self.pos) else {
            return Ok(Token { kind: T::Eof, start: start as u32, end: start as u32 });
        };
        let kind = match b {
            b'\n' => {
                self.pos += 1;
                T::Newline
            }
            b';' => {
                self.pos += 1;
                T::Semi
            }
            b'%' => {
                self.pos += 1;
                while self.pos < self.bytes.len()
                    && matches!(self.bytes[self.pos], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | b'.' | b'-')
                {
                    self.pos += 1;
                }
                if self.pos == start + 1 {
                    return Err(self.error(start, "expected a value name after `%`"));
                }
                if self.peek(0) == b'#' && self.peek(1).is_ascii_digit() {
                    self.pos += 1;
                    while self.peek(0).is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                T::Value
            }
            b'!' | b'#' | b'@' | b'^' if is_ident_start(self.peek(1)) || (b == b'@' && self.peek(1) == b'"') => {
                self.pos += 1;
                if b == b'@' && self.peek(0) == b'"' {
                    self.string()?;
                } else {
                    self.pos = self.ident_end(self.pos);
                }
                if matches!(b, b'!' | b'#') && self.peek(0) == b'<' {
                    self.skip_angle()?;
                }
                match b {
                    b'!' => T::Type,
                    b'#' => T::Attr,
                    b'@' => T::Symbol,
                    _ => T::Caret,
                }
            }
            b'.' if is_ident_start(self.peek(1)) => {
                self.pos = self.ident_end(self.pos + 1);
                T::Dot
            }
            b'"' => {
                self.string()?;
                T::Lit(LitKind::Str)
            }
            b'-' if self.peek(1) == b'>' => {
                self.pos += 2;
                T::Arrow
            }
            b'-' | b'0'..=b'9' if b != b'-' || self.peek(1).is_ascii_digit() => self.number()?,
            b',' | b':' | b'=' | b'?' | b'*' | b'+' => {
                self.pos += 1;
                T::Punct
            }
            b'(' | b'[' | b'{' => {
                self.pos += 1;
                T::Open(b)
            }
            b')' | b']' | b'}' => {
                self.pos += 1;
                T::Close(b)
            }
            b'<' => {
                self.skip_angle()?;
                T::Angle
            }
            _ if is_ident_start(b) => {
                self.pos = self.ident_end(self.pos);
                let word = &self.src[start..self.pos];
                if matches!(word, "vector" | "memref" | "tensor") && self.peek(0) == b'<' {
                    self.skip_angle()?;
                    T::Type
                } else {
                    T::Word
                }
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(self.error(start, format!("unexpected character `{ch}`")));
            }
        };
        Ok(Token { kind, start: start as u32, end: self.pos as u32 })
    }

    /// Skips a comment up to the end of its line, noting where it is when comments are kept.
    fn skip_comment(&mut self) {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
        if let Some(sink) = &mut self.comments {
            sink.push((start, self.pos));
        }
    }

    fn string(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => self.pos += 2,
                b'\n' => break,
                _ => self.pos += 1,
            }
        }
        Err(self.error(start, "unterminated string").with_expected("`\"`", "end of line"))
    }
}

fn tokenize(src: &str, file: FileId) -> Result<Vec<Token>, Diagnostic> {
    let mut lx = Lexer { src, bytes: src.as_bytes(), pos: 0, file, comments: None };
    let mut out = Vec::with_capacity(src.len() / 6);
    loop {
        let t = lx.next()?;
        out.push(t);
        if t.kind == T::Eof {
            return Ok(out);
        }
    }
}

/// A comment of the source text (`// ...` or `# ...`), as the lexer finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of the comment marker.
    pub start: usize,
    /// The comment as written, marker included, without the line end.
    pub text: String,
    /// Whether code precedes it on its line (`%a = ... // why`), rather than standing alone.
    pub trailing: bool,
    /// Byte offset of the start of its line.
    pub line_start: usize,
}

/// Every comment of `src` in order, found by the same lexer the reader uses (so a `#` that
/// starts an attribute or a `//` inside a string is never taken for one). Lexing stops at the
/// first token error; the comments before it are returned.
pub fn comments(src: &str) -> Vec<Comment> {
    let mut lx = Lexer { src, bytes: src.as_bytes(), pos: 0, file: FileId(0), comments: Some(Vec::new()) };
    while let Ok(t) = lx.next() {
        if t.kind == T::Eof {
            break;
        }
    }
    let ranges = lx.comments.unwrap_or_default();
    ranges
        .into_iter()
        .map(|(start, end)| {
            let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
            let trailing = !src[line_start..start].trim_start_matches([' ', '\t', '\r', '\u{FEFF}']).is_empty();
            Comment { start, text: src[start..end].trim_end().to_string(), trailing, line_start }
        })
        .collect()
}

// ------------------------------------------------------------------------------------ parser

struct Parser<'i, 't> {
    src: &'i str,
    toks: &'t [Token],
    pos: usize,
    file: FileId,
    depth: usize,
}

/// Deepest bracket/region nesting accepted (the reader and the builder recurse once per level).
pub(crate) const MAX_NESTING: usize = 128;

impl<'i> Parser<'i, '_> {
    fn tok(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }
    fn kind(&self) -> T {
        self.tok().kind
    }
    fn kind_at(&self, i: usize) -> T {
        self.toks.get(i).map(|t| t.kind).unwrap_or(T::Eof)
    }
    fn text(&self, t: Token) -> &'i str {
        &self.src[t.start as usize..t.end as usize]
    }
    fn bump(&mut self) -> Token {
        let t = self.tok();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn is_punct(&self, p: &str) -> bool {
        self.kind() == T::Punct && self.text(self.tok()) == p
    }
    fn describe(&self, t: Token) -> String {
        match t.kind {
            T::Eof => "end of input".into(),
            T::Newline => "end of line".into(),
            _ => format!("`{}`", self.text(t).chars().take(40).collect::<String>()),
        }
    }
    fn expected(&self, what: &str) -> Diagnostic {
        let t = self.tok();
        let class = if t.kind == T::Eof { DiagClass::ParseUnexpectedEof } else { DiagClass::ParseUnexpectedToken };
        let found = self.describe(t);
        let msg = if t.kind == T::Eof { "unexpected end of input".to_string() } else { format!("unexpected {found}") };
        let end = if t.end > t.start { t.end } else { t.start + 1 }.min(self.src.len() as u32).max(t.start);
        Diagnostic::error(class, Span { file: self.file, start: t.start, end }, msg).with_expected(what.to_string(), found)
    }
    fn skip_newlines(&mut self) {
        while matches!(self.kind(), T::Newline) {
            self.bump();
        }
    }
    fn skip_blank(&mut self) {
        while matches!(self.kind(), T::Newline | T::Semi) {
            self.bump();
        }
    }
    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let t = self.tok();
            return Err(Diagnostic::error(
                DiagClass::ParseUnexpectedToken,
                Span { file: self.file, start: t.start, end: t.end.max(t.start + 1) },
                format!("brackets nested more than {MAX_NESTING} levels deep"),
            ));
        }
        Ok(())
    }

    fn statement(&mut self) -> Result<Stmt<'i>, Diagnostic> {
        let t = self.tok();
        match t.kind {
            T::Dot if self.text(t) == ".arg" => {
                self.bump();
                let value = self.expect_tok(T::Value, "a value (`%name`)")?;
                self.expect_punct(":")?;
                let ty = match self.kind() {
                    T::Type | T::Word => self.take(),
                    _ => return Err(self.expected("a type")),
                };
                Ok(Stmt::Arg { value, ty })
            }
            T::Dot if self.text(t) == ".const" => {
                self.bump();
                let value = self.expect_tok(T::Value, "a value (`%name`)")?;
                self.expect_punct("=")?;
                let lit = match self.kind() {
                    T::Lit(_) => self.take(),
                    _ => return Err(self.expected("a number")),
                };
                self.expect_punct(":")?;
                let ty = match self.kind() {
                    T::Type | T::Word => self.take(),
                    _ => return Err(self.expected("a type")),
                };
                Ok(Stmt::Const { value, lit, ty })
            }
            T::Caret => {
                let name = self.take();
                let args = if self.kind() == T::Open(b'(') { Some(self.group(b'(')?) } else { None };
                self.expect_punct(":")?;
                Ok(Stmt::Label { name, args })
            }
            T::Value | T::Word | T::Lit(LitKind::Str) => self.op_stmt(),
            _ => Err(self.expected("a statement")),
        }
    }

    fn take(&mut self) -> Tok<'i> {
        let t = self.bump();
        self.tok_of(t)
    }

    fn tok_of(&self, t: Token) -> Tok<'i> {
        Tok { text: self.text(t), start: t.start as usize }
    }

    fn expect_tok(&mut self, kind: T, what: &str) -> Result<Tok<'i>, Diagnostic> {
        if self.kind() == kind { Ok(self.take()) } else { Err(self.expected(what)) }
    }

    fn expect_punct(&mut self, p: &str) -> Result<(), Diagnostic> {
        if self.is_punct(p) {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }

    fn op_stmt(&mut self) -> Result<Stmt<'i>, Diagnostic> {
        let start = self.tok().start as usize;
        let mut results = Vec::new();
        if self.kind() == T::Value {
            loop {
                let v = self.expect_tok(T::Value, "a result (`%name`)")?;
                let mut end = v.end();
                let count = if self.is_punct(":") && matches!(self.kind_at(self.pos + 1), T::Lit(LitKind::Int)) {
                    self.bump();
                    let c = self.take();
                    end = c.end();
                    Some(c)
                } else {
                    None
                };
                results.push(ResultName { name: v.text, count, start: v.start, end });
                if self.is_punct(",") {
                    self.bump();
                    continue;
                }
                break;
            }
            self.expect_punct("=")?;
        }
        let name = match self.kind() {
            T::Word | T::Lit(LitKind::Str) => self.take(),
            _ => return Err(self.expected("an op name")),
        };
        let mut pieces = Vec::new();
        loop {
            match self.kind() {
                T::Newline => {
                    // Continue only when the next non-empty line starts with a continuation token.
                    let mut i = self.pos;
                    while self.kind_at(i) == T::Newline {
                        i += 1;
                    }
                    if self.is_continuation(i) {
                        self.pos = i;
                    } else {
                        break;
                    }
                }
                T::Semi | T::Eof | T::Close(_) => break,
                _ => {
                    let piece = self.piece()?;
                    let is_punct = matches!(piece.syn, Syn::Punct(_));
                    pieces.push(piece);
                    if is_punct {
                        self.skip_newlines();
                    }
                }
            }
        }
        let end = pieces.last().map(|p| p.end).unwrap_or(name.end());
        Ok(Stmt::Op(OpStmt { results, name, pieces, start, end }))
    }

    fn is_continuation(&self, i: usize) -> bool {
        let Some(t) = self.toks.get(i) else { return false };
        match t.kind {
            T::Punct => matches!(self.text(*t), ":" | ","),
            T::Arrow | T::Open(_) => true,
            T::Word => match self.text(*t) {
                "ins" | "outs" | "iter_args" => self.kind_at(i + 1) == T::Open(b'('),
                "else" | "do" | "attributes" | "to" | "step" => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn leaf(&mut self, syn: fn(&'i str) -> Syn<'i>) -> Node<'i> {
        let t = self.bump();
        Node { syn: syn(self.text(t)), start: t.start as usize, end: t.end as usize }
    }

    fn piece(&mut self) -> Result<Node<'i>, Diagnostic> {
        let t = self.tok();
        Ok(match t.kind {
            T::Value => self.leaf(Syn::Value),
            T::Type => self.leaf(Syn::Type),
            T::Attr => self.leaf(Syn::Attr),
            T::Symbol => self.leaf(Syn::Symbol),
            T::Word => self.leaf(Syn::Word),
            T::Punct | T::Arrow => self.leaf(Syn::Punct),
            T::Lit(k) => {
                self.bump();
                Node { syn: Syn::Lit(self.text(t), k), start: t.start as usize, end: t.end as usize }
            }
            T::Angle => {
                self.bump();
                let text = self.text(t);
                Node { syn: Syn::Angle(&text[1..text.len() - 1]), start: t.start as usize, end: t.end as usize }
            }
            T::Open(b'{') => self.brace()?,
            T::Open(b) => self.group(b)?,
            _ => return Err(self.expected("an operand, type or attribute")),
        })
    }

    /// `(...)` or `[...]`: newlines are free inside.
    fn group(&mut self, open: u8) -> Result<Node<'i>, Diagnostic> {
        self.enter()?;
        let start = self.bump().start as usize;
        let close = if open == b'(' { b')' } else { b']' };
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            match self.kind() {
                T::Close(c) if c == close => break,
                T::Eof => return Err(self.expected(&format!("`{}`", close as char))),
                T::Close(_) | T::Semi => return Err(self.expected(&format!("`{}`", close as char))),
                _ => items.push(self.piece()?),
            }
        }
        let end = self.bump().end as usize;
        self.depth -= 1;
        Ok(Node { syn: Syn::Group(open as char, items), start, end })
    }

    /// `{`: an attribute dictionary or a region (same rule as the grammar: a dictionary that
    /// starts on a new line needs `key = value` entries).
    fn brace(&mut self) -> Result<Node<'i>, Diagnostic> {
        self.enter()?;
        let start = self.bump().start as usize;
        let node = if self.kind() != T::Newline {
            let entries = self.dict_entries(false)?;
            let end = self.bump().end as usize;
            Node { syn: Syn::Dict(entries), start, end }
        } else {
            let mut i = self.pos;
            while self.kind_at(i) == T::Newline {
                i += 1;
            }
            let dict_like = matches!(self.kind_at(i), T::Word | T::Lit(LitKind::Str)) && self.kind_at(i + 1) == T::Punct && {
                let t = self.toks[i + 1];
                self.text(t) == "="
            };
            if self.kind_at(i) == T::Close(b'}') || dict_like {
                self.pos = i;
                let entries = self.dict_entries(true)?;
                let end = self.bump().end as usize;
                Node { syn: Syn::Dict(entries), start, end }
            } else {
                // Find the matching `}`; the statements are read later (see `RegionSrc`).
                let first = self.pos;
                let mut depth = 1usize;
                let mut i = self.pos;
                loop {
                    match self.kind_at(i) {
                        T::Open(b'{') => depth += 1,
                        T::Close(b'}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        T::Eof => {
                            self.pos = i;
                            return Err(self.expected("`}`"));
                        }
                        _ => {}
                    }
                    i += 1;
                }
                self.pos = i;
                let end = self.bump().end as usize;
                let region = RegionSrc { first: first as u32, close: i as u32, depth: self.depth as u32 };
                Node { syn: Syn::Region(region), start, end }
            }
        };
        self.depth -= 1;
        Ok(node)
    }

    /// Entries up to (not including) the closing `}`.
    fn dict_entries(&mut self, need_values: bool) -> Result<Vec<DictEntry<'i>>, Diagnostic> {
        let mut out = Vec::new();
        self.skip_newlines();
        if self.kind() == T::Close(b'}') {
            return Ok(out);
        }
        loop {
            self.skip_newlines();
            let key = match self.kind() {
                T::Word | T::Lit(LitKind::Str) => self.take(),
                _ => return Err(self.expected("an attribute name")),
            };
            let value = if self.is_punct("=") {
                self.bump();
                self.skip_newlines();
                Some(self.attr_value()?)
            } else if need_values {
                return Err(self.expected("`=`"));
            } else {
                None
            };
            out.push(DictEntry { key, value });
            self.skip_newlines();
            if self.is_punct(",") {
                self.bump();
                continue;
            }
            if self.kind() == T::Close(b'}') {
                return Ok(out);
            }
            return Err(self.expected("`,` or `}`"));
        }
    }

    fn attr_value(&mut self) -> Result<AttrNode<'i>, Diagnostic> {
        self.enter()?;
        let t = self.tok();
        let start = t.start as usize;
        let (kind, typed) = match t.kind {
            T::Attr => {
                self.bump();
                (AttrKind::Attr(self.text(t)), true)
            }
            T::Type => {
                self.bump();
                (AttrKind::Type(self.text(t)), false)
            }
            T::Lit(_) => {
                self.bump();
                (AttrKind::Lit(self.text(t)), true)
            }
            T::Symbol => {
                self.bump();
                (AttrKind::Symbol(self.text(t)), false)
            }
            T::Angle => {
                self.bump();
                (AttrKind::Angle(self.text(t)), false)
            }
            T::Word if self.kind_at(self.pos + 1) == T::Angle && self.toks[self.pos + 1].start == t.end => {
                // `array<i32: 1, 0>`, `dense<[1, 2]>`, `sparse<...>`: a builtin attribute, as written.
                self.bump();
                let angle = self.bump();
                (AttrKind::Angle(&self.src[t.start as usize..angle.end as usize]), true)
            }
            T::Word => {
                self.bump();
                (AttrKind::Word(self.text(t)), true)
            }
            T::Open(b'[') => {
                self.bump();
                let mut items = Vec::new();
                self.skip_newlines();
                if self.kind() != T::Close(b']') {
                    loop {
                        self.skip_newlines();
                        items.push(self.attr_value()?);
                        self.skip_newlines();
                        if self.is_punct(",") {
                            self.bump();
                            continue;
                        }
                        break;
                    }
                }
                if self.kind() != T::Close(b']') {
                    return Err(self.expected("`,` or `]`"));
                }
                self.bump();
                (AttrKind::Array(items), false)
            }
            T::Open(b'{') => {
                self.bump();
                let entries = self.dict_entries(false)?;
                self.bump();
                (AttrKind::Dict(entries), false)
            }
            T::Open(b'(') => (AttrKind::Function(self.function_type()?), false),
            _ => return Err(self.expected("an attribute value")),
        };
        let mut ty = None;
        if typed && self.is_punct(":") && matches!(self.kind_at(self.pos + 1), T::Type | T::Word) {
            self.bump();
            ty = Some(self.take());
        }
        let end = self.toks[self.pos.saturating_sub(1)].end as usize;
        self.depth -= 1;
        Ok(AttrNode { kind, ty, start, end })
    }
}

impl<'i> Parser<'i, '_> {
    /// A function type used as an attribute value (`(i32, f32) -> (f32)`, `() -> ()`), as text.
    fn function_type(&mut self) -> Result<&'i str, Diagnostic> {
        let start = self.tok().start as usize;
        self.skip_group()?;
        if self.kind() != T::Arrow {
            return Err(self.expected("`->` of a function type"));
        }
        self.bump();
        match self.kind() {
            T::Open(b'(') => self.skip_group()?,
            T::Type | T::Word => {
                self.bump();
            }
            _ => return Err(self.expected("the result types of a function type")),
        }
        let end = self.toks[self.pos.saturating_sub(1)].end as usize;
        Ok(&self.src[start..end])
    }

    /// Skips a balanced `( ... )` starting at the current `(` token.
    fn skip_group(&mut self) -> Result<(), Diagnostic> {
        let mut depth = 0usize;
        loop {
            match self.kind() {
                T::Open(_) => depth += 1,
                T::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                T::Eof => return Err(self.expected("`)`")),
                _ => {}
            }
            self.bump();
        }
    }
}

/// A tokenized file: the source of every statement iterator.
pub(crate) struct Source<'i> {
    src: &'i str,
    toks: Vec<Token>,
    file: FileId,
}

impl<'i> Source<'i> {
    /// Tokenizes `src`; a lexical error is returned at once.
    pub(crate) fn new(src: &'i str, file: FileId) -> Result<Source<'i>, Diagnostic> {
        Ok(Source { src, toks: tokenize(src, file)?, file })
    }

    fn parser(&self, pos: usize, depth: usize) -> Parser<'i, '_> {
        Parser { src: self.src, toks: &self.toks, pos, file: self.file, depth }
    }

    /// The file's top-level statements.
    pub(crate) fn top(&self) -> Stmts<'i, '_> {
        Stmts { p: self.parser(0, 0), limit: self.toks.len() - 1, done: false }
    }

    /// The statements of a region found by the reader.
    pub(crate) fn region(&self, r: RegionSrc) -> Stmts<'i, '_> {
        Stmts { p: self.parser(r.first as usize, r.depth as usize), limit: r.close as usize, done: false }
    }

    /// Reads the whole input as one attribute value (`1 : i16`, `[#pto<cmp gt>]`, `{a = 1}`).
    pub(crate) fn attribute(&self) -> Result<AttrNode<'i>, Diagnostic> {
        let mut p = self.parser(0, 0);
        p.skip_newlines();
        let value = p.attr_value()?;
        p.skip_newlines();
        if p.kind() != T::Eof {
            return Err(p.expected("end of the attribute"));
        }
        Ok(value)
    }

    /// Reads every statement of the file, regions included (a syntax-only check).
    pub(crate) fn check_all(&self) -> Result<(), Diagnostic> {
        fn walk_nodes(src: &Source<'_>, nodes: &[Node<'_>]) -> Result<(), Diagnostic> {
            for n in nodes {
                match &n.syn {
                    Syn::Region(r) => walk(src, src.region(*r))?,
                    Syn::Group(_, inner) => walk_nodes(src, inner)?,
                    _ => {}
                }
            }
            Ok(())
        }
        fn walk(src: &Source<'_>, stmts: Stmts<'_, '_>) -> Result<(), Diagnostic> {
            for stmt in stmts {
                match stmt? {
                    Stmt::Op(op) => walk_nodes(src, &op.pieces)?,
                    Stmt::Label { args: Some(g), .. } => walk_nodes(src, std::slice::from_ref(&g))?,
                    _ => {}
                }
            }
            Ok(())
        }
        walk(self, self.top())
    }
}

/// Statements read one at a time; stops after the first syntax error.
pub(crate) struct Stmts<'i, 't> {
    p: Parser<'i, 't>,
    limit: usize,
    done: bool,
}

impl<'i> Iterator for Stmts<'i, '_> {
    type Item = Result<Stmt<'i>, Diagnostic>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.p.skip_blank();
        if self.p.pos >= self.limit || self.p.kind() == T::Eof {
            self.done = true;
            return None;
        }
        let result = self.p.statement().and_then(|stmt| match self.p.kind() {
            T::Newline | T::Semi | T::Eof => Ok(stmt),
            _ if self.p.pos >= self.limit => Ok(stmt),
            _ => Err(self.p.expected("end of statement")),
        });
        if result.is_err() {
            self.done = true;
        }
        Some(result)
    }
}
