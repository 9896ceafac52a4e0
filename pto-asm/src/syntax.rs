//! The pest grammar and the light syntax tree (`Node`) the builder works on.
//!
//! pest errors are turned into our own [`Diagnostic`] here, and only here.

use pest::Parser;
use pest::iterators::Pair;
use pest_derive::Parser;
use pto_ir::diag::{DiagClass, Diagnostic, FileId, Span};

/// The generated parser.
#[derive(Parser)]
#[grammar = "pto.pest"]
pub(crate) struct PtoGrammar;

/// Kind of a literal token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LitKind {
    Int,
    Float,
    Hex,
    Str,
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
    Dict(Pair<'i, Rule>),
    Region(Pair<'i, Rule>),
}

/// A piece with its byte range.
#[derive(Debug)]
pub(crate) struct Node<'i> {
    pub syn: Syn<'i>,
    pub start: usize,
    pub end: usize,
}

impl<'i> Node<'i> {
    /// Converts one `piece` pair.
    pub(crate) fn from_pair(p: Pair<'i, Rule>) -> Node<'i> {
        let span = p.as_span();
        let (start, end) = (span.start(), span.end());
        let text = p.as_str();
        let syn = match p.as_rule() {
            Rule::word => Syn::Word(text),
            Rule::value => Syn::Value(text),
            Rule::type_item => Syn::Type(text),
            Rule::attr_item => Syn::Attr(text),
            Rule::symbol => Syn::Symbol(text),
            Rule::arrow => Syn::Punct("->"),
            Rule::punct => Syn::Punct(text),
            Rule::literal => {
                let inner = p.into_inner().next();
                let kind = match inner.as_ref().map(|i| i.as_rule()) {
                    Some(Rule::float_lit) => LitKind::Float,
                    Some(Rule::hex_lit) => LitKind::Hex,
                    Some(Rule::string_lit) => LitKind::Str,
                    _ => LitKind::Int,
                };
                Syn::Lit(text, kind)
            }
            Rule::paren_group => Syn::Group('(', p.into_inner().map(Node::from_pair).collect()),
            Rule::square_group => Syn::Group('[', p.into_inner().map(Node::from_pair).collect()),
            Rule::angle_group => Syn::Angle(p.into_inner().next().map(|t| t.as_str()).unwrap_or("")),
            Rule::dict => Syn::Dict(p),
            Rule::region => Syn::Region(p),
            _ => Syn::Word(text),
        };
        Node { syn, start, end }
    }

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

/// Parses a whole file into its top-level `file` pair, or a located diagnostic.
pub(crate) fn parse_file(src: &str, file: FileId) -> Result<Pair<'_, Rule>, Diagnostic> {
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
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives.iter().map(friendly).collect(),
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
