//! The normative pest grammar (`pto.pest`) of PTO text.
//!
//! The production reader ([`crate::reader`]) implements the same language by hand for
//! throughput; this grammar is the readable specification, and the test suite checks that both
//! accept and reject the same inputs (corpus, conformance files, mutated inputs). pest errors
//! are turned into our own [`Diagnostic`] here, and only here.

use pest::Parser;
use pest::iterators::Pair;
use pest_derive::Parser;
use pto_ir::diag::{DiagClass, Diagnostic, FileId, Span};

/// The generated parser.
#[derive(Parser)]
#[grammar = "pto.pest"]
pub(crate) struct PtoGrammar;

fn friendly(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of input",
        Rule::file | Rule::op_stmt | Rule::directive | Rule::block_label => "a statement",
        Rule::op_name => "an op name",
        Rule::result_list | Rule::result => "a result (`%name`)",
        Rule::value | Rule::value_name => "a value (`%name`)",
        Rule::type_item => "a type",
        Rule::attr_item => "an attribute",
        Rule::attr_value => "an attribute value",
        Rule::array_attr => "`[`",
        Rule::dict | Rule::dict_entry | Rule::dict_kv | Rule::dict_key => "an attribute dictionary entry",
        Rule::region => "a region",
        Rule::paren_group => "`(`",
        Rule::square_group => "`[`",
        Rule::angle_group | Rule::angle_text => "`<`",
        Rule::literal | Rule::int_lit | Rule::float_lit | Rule::hex_lit => "a number",
        Rule::string_lit => "a string",
        Rule::symbol => "a symbol (`@name`)",
        Rule::arrow => "`->`",
        Rule::punct => "punctuation",
        Rule::word | Rule::ident => "a name",
        Rule::caret_id => "a block label",
        _ => "a token",
    }
}

/// Deepest bracket nesting accepted. pest recurses once per level and runs without its
/// per-call stack probe (for speed), so depth is bounded here, before parsing.
pub(crate) const MAX_NESTING: usize = 128;

/// Finds the first bracket that opens level `MAX_NESTING + 1` (outside strings and comments).
fn too_deep(src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses a whole file into its top-level `file` pair, or a located diagnostic.
pub(crate) fn parse_file(src: &str, file: FileId) -> Result<Pair<'_, Rule>, Diagnostic> {
    if let Some(at) = too_deep(src) {
        return Err(Diagnostic::error(
            DiagClass::ParseUnexpectedToken,
            Span::new(file, at, at + 1),
            format!("brackets nested more than {MAX_NESTING} levels deep"),
        ));
    }
    match PtoGrammar::parse(Rule::file, src) {
        Ok(mut pairs) => pairs.next().ok_or_else(|| Diagnostic::error(DiagClass::ParseUnexpectedEof, Span::new(file, 0, 0), "empty parse")),
        Err(e) => Err(convert_error(e, src, file)),
    }
}

fn convert_error(e: pest::error::Error<Rule>, src: &str, file: FileId) -> Diagnostic {
    let pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut expected: Vec<&str> = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().filter(|r| **r != Rule::comment).map(friendly).collect()
        }
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    expected.sort();
    expected.dedup();
    let rest = &src[pos.min(src.len())..];
    let at_eof = rest.trim().is_empty();
    let found: String = rest.chars().take_while(|c| !c.is_whitespace()).take(24).collect();
    let (class, message) = if at_eof {
        (DiagClass::ParseUnexpectedEof, "unexpected end of input".to_string())
    } else if found.is_empty() {
        (DiagClass::ParseUnexpectedToken, "unexpected end of line".to_string())
    } else {
        (DiagClass::ParseUnexpectedToken, format!("unexpected `{found}`"))
    };
    let end = (pos + found.len().max(1)).min(src.len()).max(pos);
    let mut d = Diagnostic::error(class, Span::new(file, pos, end), message);
    if !expected.is_empty() {
        d.expected = Some(expected.join(", "));
        d.actual = Some(if found.is_empty() { if at_eof { "end of input".into() } else { "end of line".into() } } else { found });
    }
    d
}
