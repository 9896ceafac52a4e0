//! Matching an op's pieces against its text format from the op table ([`FormatItem`]).
//!
//! The reader keeps the pieces of these ops verbatim (they print back as written); the format
//! decides whether the pieces are the op at all, which nodes are its regions and which types
//! are its results. A stray word, a missing keyword or an enum value of the wrong kind is a
//! located error instead of being kept.

use crate::attrs::parse_attr_text;
use crate::reader::{AttrKind, AttrNode, DictEntry, LitKind, Node, Syn};
use crate::types::parse_type;
use pto_ir::attr::{Attr, EnumAttr, EnumKind};
use pto_ir::ops::{DictKey, FormatItem, Opcode};
use pto_ir::types::ElemType;

/// How a result's type is given.
pub(crate) enum ResultSpelling<'a, 'i> {
    /// Written at a `$r` position (a type, a builtin type name or a stripped `<f32>`).
    Written(&'a Node<'i>),
    /// Not written (`$r:index`).
    Implicit(ElemType),
}

/// What matching found.
#[derive(Default)]
pub(crate) struct Matched<'a, 'i> {
    /// The results' types, in order.
    pub results: Vec<ResultSpelling<'a, 'i>>,
    /// Start offsets of the nodes in `$region` positions.
    pub regions: Vec<usize>,
}

/// A mismatch: the byte range it is reported at, what was expected and what was found, or a
/// message of its own (a bad enum value, a dictionary with the wrong keys).
pub(crate) struct Mismatch {
    pub start: usize,
    pub end: usize,
    pub expected: String,
    pub found: String,
    pub message: Option<String>,
}

/// Where a node list ends: its byte offset and how to name it (`end of statement`, `` `)` ``).
#[derive(Copy, Clone)]
struct End {
    offset: usize,
    what: &'static str,
}

/// Matches all of `nodes` (an op's pieces, which end at byte `end`) against `format`.
pub(crate) fn match_pieces<'a, 'i>(format: &[FormatItem], nodes: &'a [Node<'i>], end: usize) -> Result<Matched<'a, 'i>, Mismatch> {
    let mut m = Matcher { matched: Matched::default() };
    let mut pos = 0;
    let end = End { offset: end, what: "end of statement" };
    m.sequence(format, nodes, &mut pos, end)?;
    at_end(nodes, pos, end)?;
    Ok(m.matched)
}

/// The argument slots of a sync op with enum arguments: the items of its format's leading
/// `[ ... ]` group (`pto.set_flag[$<pipe>, $<pipe>, $<event>]`), or of the whole format
/// (`pto.barrier $<pipe>`), punctuation and the attribute dictionary left out.
pub(crate) fn argument_slots(op: Opcode) -> Vec<&'static FormatItem> {
    let format = &op.parsed().format;
    let items: &'static [FormatItem] = match format.first() {
        Some(FormatItem::Group('[', inner)) => inner,
        _ => format,
    };
    items.iter().filter(|i| !matches!(i, FormatItem::Literal(_) | FormatItem::AttrDict)).collect()
}

/// The enum a `$<kind>` / `$#k1|k2` item reads from `n`: `<VALUE>` (stripped items only) or a
/// full `#pto...` spelling of an allowed kind.
pub(crate) fn enum_of(n: &Node<'_>, item: &FormatItem) -> Result<Attr, String> {
    let kinds: &[String] = match item {
        FormatItem::StrippedEnum(kind) => std::slice::from_ref(kind),
        FormatItem::FullEnum(kinds) => kinds,
        _ => return Err("not an enum argument".into()),
    };
    match &n.syn {
        Syn::Angle(text) => match item {
            FormatItem::StrippedEnum(kind) => stripped_enum(kind, text.trim()),
            _ => Err(format!("`<{}>` needs its full spelling here (`#pto.{}<{}>`)", text.trim(), kinds[0], text.trim())),
        },
        Syn::Attr(text) => match parse_attr_text(text)? {
            Attr::Enum(e) if kinds.iter().any(|k| k == e.kind_name()) => Ok(Attr::Enum(e)),
            _ => Err(format!("expected {}, found `{text}`", expected_enum(kinds))),
        },
        _ => Err(format!("expected {}, found {}", expected_enum(kinds), n.describe())),
    }
}

/// A dictionary value that must be an enum of `kind`: `<VALUE>` or its full spelling.
fn dict_enum(kind: &str, value: &AttrNode<'_>) -> Result<Attr, String> {
    match &value.kind {
        AttrKind::Angle(text) => stripped_enum(kind, text.trim_start_matches('<').trim_end_matches('>').trim()),
        AttrKind::Attr(text) => match parse_attr_text(text)? {
            Attr::Enum(e) if e.kind_name() == kind => Ok(Attr::Enum(e)),
            _ => Err(format!("expected `#pto.{kind}<...>`, found `{text}`")),
        },
        _ => Err(format!("expected `<VALUE>` or `#pto.{kind}<VALUE>`")),
    }
}

fn stripped_enum(kind: &str, value: &str) -> Result<Attr, String> {
    match EnumAttr::new(kind, value) {
        Some(e) => Ok(Attr::Enum(e)),
        None => {
            let values = EnumKind::find(kind).map(|(_, k)| k.values.join(", ")).unwrap_or_default();
            Err(format!("`<{value}>` is not a value of `#pto.{kind}` (expected one of: {values})"))
        }
    }
}

fn expected_enum(kinds: &[String]) -> String {
    kinds.iter().map(|k| format!("`#pto.{k}<...>`")).collect::<Vec<_>>().join(" or ")
}

struct Matcher<'a, 'i> {
    matched: Matched<'a, 'i>,
}

fn mismatch(nodes: &[Node<'_>], pos: usize, end: End, expected: impl Into<String>) -> Mismatch {
    let (start, stop, found) = match nodes.get(pos) {
        Some(n) => (n.start, n.end, n.describe()),
        None => (end.offset, end.offset, end.what.to_string()),
    };
    Mismatch { start, end: stop, expected: expected.into(), found, message: None }
}

/// A mismatch at node `n` with a message of its own.
fn refuse(n: &Node<'_>, message: String) -> Mismatch {
    Mismatch { start: n.start, end: n.end, expected: String::new(), found: n.describe(), message: Some(message) }
}

/// Every node was matched.
fn at_end(nodes: &[Node<'_>], pos: usize, end: End) -> Result<(), Mismatch> {
    if pos == nodes.len() { Ok(()) } else { Err(mismatch(nodes, pos, end, end.what)) }
}

fn is_punct_or_word(n: &Node<'_>, text: &str) -> bool {
    matches!(n.syn, Syn::Punct(p) | Syn::Word(p) if p == text)
}

fn is_type(n: &Node<'_>) -> bool {
    match &n.syn {
        Syn::Type(_) | Syn::Angle(_) => true,
        Syn::Word(w) => parse_type(w).is_ok(),
        _ => false,
    }
}

impl<'a, 'i> Matcher<'a, 'i> {
    fn sequence(&mut self, items: &[FormatItem], nodes: &'a [Node<'i>], pos: &mut usize, end: End) -> Result<(), Mismatch> {
        items.iter().try_for_each(|item| self.item(item, nodes, pos, end))
    }

    /// Takes the next node when `accept` says it fits; else a mismatch expecting `what`.
    fn take(
        &mut self,
        nodes: &'a [Node<'i>],
        pos: &mut usize,
        end: End,
        what: &str,
        accept: impl Fn(&Node<'i>) -> bool,
    ) -> Result<&'a Node<'i>, Mismatch> {
        match nodes.get(*pos) {
            Some(n) if accept(n) => {
                *pos += 1;
                Ok(n)
            }
            _ => Err(mismatch(nodes, *pos, end, what)),
        }
    }

    /// Zero or more comma-separated nodes that `accept` takes.
    fn list(nodes: &'a [Node<'i>], pos: &mut usize, accept: impl Fn(&Node<'i>) -> bool) {
        while nodes.get(*pos).is_some_and(&accept) {
            *pos += 1;
            let more = nodes.get(*pos).is_some_and(|n| is_punct_or_word(n, ",")) && nodes.get(*pos + 1).is_some_and(&accept);
            if !more {
                break;
            }
            *pos += 1;
        }
    }

    fn item(&mut self, item: &FormatItem, nodes: &'a [Node<'i>], pos: &mut usize, end: End) -> Result<(), Mismatch> {
        let is_value = |n: &Node<'_>| matches!(n.syn, Syn::Value(_));
        let is_int = |n: &Node<'_>| matches!(n.syn, Syn::Lit(_, LitKind::Int));
        match item {
            FormatItem::Literal(text) => self.take(nodes, pos, end, &format!("`{text}`"), |n| is_punct_or_word(n, text)).map(drop),
            FormatItem::Value => self.take(nodes, pos, end, "a value (`%name`)", is_value).map(drop),
            FormatItem::Values => {
                Self::list(nodes, pos, is_value);
                Ok(())
            }
            FormatItem::ValueOrInt => self.take(nodes, pos, end, "a value or an integer", |n| is_value(n) || is_int(n)).map(drop),
            FormatItem::ValuesOrInts => {
                Self::list(nodes, pos, |n| is_value(n) || is_int(n));
                Ok(())
            }
            FormatItem::Int => self.take(nodes, pos, end, "an integer", is_int).map(drop),
            FormatItem::Ints => {
                Self::list(nodes, pos, is_int);
                Ok(())
            }
            FormatItem::Str => self.take(nodes, pos, end, "a string", |n| matches!(n.syn, Syn::Lit(_, LitKind::Str))).map(drop),
            FormatItem::Bool => self.take(nodes, pos, end, "`true` or `false`", |n| matches!(n.syn, Syn::Word("true" | "false"))).map(drop),
            FormatItem::Region => {
                let n = self.take(nodes, pos, end, "a region `{ ... }`", |n| {
                    matches!(&n.syn, Syn::Region(_)) || matches!(&n.syn, Syn::Dict(e) if e.is_empty())
                })?;
                self.matched.regions.push(n.start);
                Ok(())
            }
            FormatItem::Type => self.take(nodes, pos, end, "a type", is_type).map(drop),
            FormatItem::Result => {
                let n = self.take(nodes, pos, end, "the result type", is_type)?;
                self.matched.results.push(ResultSpelling::Written(n));
                Ok(())
            }
            FormatItem::ImplicitResult(e) => {
                self.matched.results.push(ResultSpelling::Implicit(*e));
                Ok(())
            }
            FormatItem::StrippedEnum(_) | FormatItem::FullEnum(_) => match nodes.get(*pos) {
                Some(n) => match enum_of(n, item) {
                    Ok(_) => {
                        *pos += 1;
                        Ok(())
                    }
                    Err(why) => Err(refuse(n, why)),
                },
                None => Err(mismatch(nodes, *pos, end, "an enum argument")),
            },
            FormatItem::AttrDict => {
                if nodes.get(*pos).is_some_and(|n| matches!(n.syn, Syn::Dict(_))) {
                    *pos += 1;
                }
                Ok(())
            }
            FormatItem::Dict(keys) => self.dict(keys, nodes, pos, end),
            FormatItem::Group(open, items) => {
                let n = self.take(nodes, pos, end, &format!("`{open}`"), |n| matches!(n.syn, Syn::Group(c, _) if c == *open))?;
                let Syn::Group(_, inner) = &n.syn else { unreachable!("take checked the group") };
                let mut inner_pos = 0;
                let close = End { offset: n.end - 1, what: if *open == '(' { "`)`" } else { "`]`" } };
                self.sequence(items, inner, &mut inner_pos, close)?;
                at_end(inner, inner_pos, close)
            }
            FormatItem::Optional(items) => {
                let (saved_pos, saved_results, saved_regions) = (*pos, self.matched.results.len(), self.matched.regions.len());
                if self.sequence(items, nodes, pos, end).is_err() {
                    *pos = saved_pos;
                    self.matched.results.truncate(saved_results);
                    self.matched.regions.truncate(saved_regions);
                }
                Ok(())
            }
        }
    }

    /// `{key = value, ...}` with exactly the keys the format lists.
    fn dict(&mut self, keys: &[DictKey], nodes: &'a [Node<'i>], pos: &mut usize, end: End) -> Result<(), Mismatch> {
        let names: Vec<&str> = keys.iter().map(|k| k.name.as_str()).collect();
        let what = format!("`{{{}}}`", names.iter().map(|k| format!("{k} = ..")).collect::<Vec<_>>().join(", "));
        let n = self.take(nodes, pos, end, &what, |n| matches!(n.syn, Syn::Dict(_)))?;
        let Syn::Dict(entries) = &n.syn else { unreachable!("take checked the dictionary") };
        let key_of = |e: &DictEntry<'_>| e.key.text.trim_matches('"').to_string();
        for (i, e) in entries.iter().enumerate() {
            let key = key_of(e);
            if !names.contains(&key.as_str()) {
                return Err(refuse(n, format!("`{key}` is not a key of {what}")));
            }
            if e.value.is_none() || entries[..i].iter().any(|p| key_of(p) == key) {
                return Err(refuse(n, format!("`{key}` must be given once, with a value, in {what}")));
            }
            let kind = keys.iter().find(|k| k.name == key).and_then(|k| k.enum_kind.as_deref());
            if let (Some(kind), Some(value)) = (kind, &e.value) {
                dict_enum(kind, value).map_err(|why| refuse(n, format!("`{key}`: {why}")))?;
            }
        }
        match keys.iter().find(|k| !k.optional && !entries.iter().any(|e| key_of(e) == k.name)) {
            Some(missing) => Err(refuse(n, format!("`{}` is missing from {what}", missing.name))),
            None => Ok(()),
        }
    }
}
