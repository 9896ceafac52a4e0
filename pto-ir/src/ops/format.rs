//! Text formats of the PTOAS ops that have no tile signature (`OpSpec::format`).
//!
//! A format is the op's PTOAS assembly format (`PTOOps.td`) written as space-separated items;
//! the reader matches an op's pieces against it and rejects anything else, the printer reads it
//! to spell enum arguments. A tile op (`Syntax::Tile`) has a format only for what PTOAS lets
//! follow its DPS attribute dictionary: optional groups ([`TailGroup`]) such as `tload`'s
//! `opt( pad_value = $v : $t )` or the vestigial result `opt( -> $r )`.
//!
//! ```text
//! $v          one operand                    $v*        operands, comma-separated (maybe none)
//! $v|int      an operand or an integer       $int       an integer     $int*  integers
//! $v|int*     operands and integers, comma-separated (maybe none)
//! $str        a string                       $bool      `true` or `false`
//! $region     a region
//! $t          a type                         $r         the next result's type
//! $r:index    a result of this builtin type, not written
//! $<kind>     an enum of `kind`: `<VALUE>` or `#pto.kind<VALUE>` (printed `<VALUE>`)
//! $#k1|k2     an enum of kind k1 or k2, full spelling only
//! $dict?      an optional attribute dictionary
//! ${a,b?}     a dictionary with exactly these keys (`?`: optional; `a=<kind>`: an enum value)
//! ( ... )     a parenthesised group          [ ... ]    a bracketed group
//! opt( ... )  an optional sequence
//! anything else: that word or punctuation (`,` `:` `->` `=` `sizes` `ins`)
//! ```
//!
//! A type in a `$t` / `$r` position may be the stripped `<f32>` of `!pto.ptr<f32>` (PTOAS's
//! unqualified `type($ptr)`).

use crate::types::ElemType;
use serde::Serialize;

/// One key of a `${...}` dictionary item: `name`, `name?` (optional), `name=<kind>` (its value
/// an enum of `kind`, stripped or in full).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DictKey {
    /// The key.
    pub name: String,
    /// Whether it may be left out.
    pub optional: bool,
    /// The enum kind its value must be, if any.
    pub enum_kind: Option<String>,
}

/// One item of an op's text format (see the module docs for the spelling of each).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum FormatItem {
    /// Punctuation or a keyword, written as is.
    Literal(String),
    /// `$v`.
    Value,
    /// `$v*`.
    Values,
    /// `$v|int`.
    ValueOrInt,
    /// `$v|int*`.
    ValuesOrInts,
    /// `$int`.
    Int,
    /// `$int*`.
    Ints,
    /// `$str`.
    Str,
    /// `$bool`.
    Bool,
    /// `$region`.
    Region,
    /// `$t`.
    Type,
    /// `$r`.
    Result,
    /// `$r:T`.
    ImplicitResult(ElemType),
    /// `$<kind>`.
    StrippedEnum(String),
    /// `$#k1|k2`.
    FullEnum(Vec<String>),
    /// `$dict?`.
    AttrDict,
    /// `${a,b?}`.
    Dict(Vec<DictKey>),
    /// `( ... )` / `[ ... ]`.
    Group(char, Vec<FormatItem>),
    /// `opt( ... )`.
    Optional(Vec<FormatItem>),
}

/// Parses a format string (empty for none).
pub fn parse_format(text: &str) -> Result<Vec<FormatItem>, String> {
    let mut tokens = text.split_whitespace();
    let items = parse_items(&mut tokens, None)?;
    Ok(items)
}

/// Items up to the closing token `close` (or the end when `None`).
fn parse_items<'a>(tokens: &mut impl Iterator<Item = &'a str>, close: Option<&str>) -> Result<Vec<FormatItem>, String> {
    let mut items = Vec::new();
    loop {
        let Some(tok) = tokens.next() else {
            return match close {
                None => Ok(items),
                Some(c) => Err(format!("format: missing `{c}`")),
            };
        };
        if Some(tok) == close {
            return Ok(items);
        }
        items.push(match tok {
            "(" => FormatItem::Group('(', parse_items(tokens, Some(")"))?),
            "[" => FormatItem::Group('[', parse_items(tokens, Some("]"))?),
            "opt(" => FormatItem::Optional(parse_items(tokens, Some(")"))?),
            ")" | "]" => return Err(format!("format: unbalanced `{tok}`")),
            _ => match tok.strip_prefix('$') {
                Some(special) => special_item(special)?,
                None => FormatItem::Literal(tok.to_string()),
            },
        });
    }
}

/// The item spelled `$special`.
fn special_item(special: &str) -> Result<FormatItem, String> {
    Ok(match special {
        "v" => FormatItem::Value,
        "v*" => FormatItem::Values,
        "v|int" => FormatItem::ValueOrInt,
        "v|int*" => FormatItem::ValuesOrInts,
        "int" => FormatItem::Int,
        "int*" => FormatItem::Ints,
        "str" => FormatItem::Str,
        "bool" => FormatItem::Bool,
        "region" => FormatItem::Region,
        "t" => FormatItem::Type,
        "r" => FormatItem::Result,
        "dict?" => FormatItem::AttrDict,
        _ => {
            if let Some(ty) = special.strip_prefix("r:") {
                FormatItem::ImplicitResult(ElemType::parse(ty).ok_or_else(|| format!("format: unknown type `{ty}`"))?)
            } else if let Some(kind) = special.strip_prefix('<').and_then(|k| k.strip_suffix('>')) {
                FormatItem::StrippedEnum(kind.to_string())
            } else if let Some(kinds) = special.strip_prefix('#') {
                FormatItem::FullEnum(kinds.split('|').map(str::to_string).collect())
            } else if let Some(keys) = special.strip_prefix('{').and_then(|k| k.strip_suffix('}')) {
                FormatItem::Dict(keys.split(',').map(dict_key).collect())
            } else {
                return Err(format!("format: unknown item `${special}`"));
            }
        }
    })
}

/// One optional group a tile op's format allows after its DPS attribute dictionary.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TailGroup<'f> {
    /// `opt( -> $r )`: the op's optional result.
    Result,
    /// `opt( key = $v : $t )`: an optional operand (an extra input), with its type.
    Operand(&'f str),
    /// `opt( key = $<kind> )`, `opt( key = $bool )`: an attribute, the item saying how it is spelled.
    Attribute(&'f str, &'f FormatItem),
}

impl FormatItem {
    /// This item as a tail group, when it is one.
    pub fn tail_group(&self) -> Option<TailGroup<'_>> {
        let FormatItem::Optional(items) = self else { return None };
        let lit = |i: usize, text: &str| matches!(items.get(i), Some(FormatItem::Literal(l)) if l == text);
        let key = match items.first() {
            Some(FormatItem::Literal(k)) if lit(1, "=") => k.as_str(),
            _ => return (items.len() == 2 && lit(0, "->") && items[1] == FormatItem::Result).then_some(TailGroup::Result),
        };
        match &items[2..] {
            [FormatItem::Value, FormatItem::Literal(colon), FormatItem::Type] if colon == ":" => Some(TailGroup::Operand(key)),
            [value @ (FormatItem::StrippedEnum(_) | FormatItem::FullEnum(_) | FormatItem::Bool)] => Some(TailGroup::Attribute(key, value)),
            _ => None,
        }
    }
}

fn dict_key(key: &str) -> DictKey {
    let (key, enum_kind) = match key.split_once('=') {
        Some((k, kind)) => (k, kind.strip_prefix('<').and_then(|k| k.strip_suffix('>')).map(str::to_string)),
        None => (key, None),
    };
    let (name, optional) = match key.strip_suffix('?') {
        Some(name) => (name, true),
        None => (key, false),
    };
    DictKey { name: name.to_string(), optional, enum_kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_groups_and_options() {
        let f = parse_format("opt( ( $v , $v ) ) ${split} $dict? -> $r").unwrap();
        assert_eq!(
            f,
            vec![
                FormatItem::Optional(vec![FormatItem::Group(
                    '(',
                    vec![FormatItem::Value, FormatItem::Literal(",".into()), FormatItem::Value]
                )]),
                FormatItem::Dict(vec![DictKey { name: "split".into(), optional: false, enum_kind: None }]),
                FormatItem::AttrDict,
                FormatItem::Literal("->".into()),
                FormatItem::Result,
            ]
        );
    }

    #[test]
    fn dictionary_keys() {
        let f = parse_format("${name,location=<address_space>,base?}").unwrap();
        let FormatItem::Dict(keys) = &f[0] else { panic!("{f:?}") };
        assert_eq!(keys[1], DictKey { name: "location".into(), optional: false, enum_kind: Some("address_space".into()) });
        assert!(keys[2].optional && keys[2].enum_kind.is_none());
    }

    #[test]
    fn enums_and_implicit_results() {
        let f = parse_format("[ $#pipe_event_type|sync_op_type , $<event> ] $r:index").unwrap();
        assert_eq!(
            f[0],
            FormatItem::Group(
                '[',
                vec![
                    FormatItem::FullEnum(vec!["pipe_event_type".into(), "sync_op_type".into()]),
                    FormatItem::Literal(",".into()),
                    FormatItem::StrippedEnum("event".into()),
                ]
            )
        );
        assert_eq!(f[1], FormatItem::ImplicitResult(ElemType::Index));
    }

    #[test]
    fn tail_groups() {
        let f =
            parse_format("opt( pad_mode = $<padmode> ) opt( pad_value = $v : $t ) opt( init_out_buffer = $bool ) opt( -> $r ) $v").unwrap();
        let groups: Vec<_> = f.iter().map(FormatItem::tail_group).collect();
        assert_eq!(groups[0], Some(TailGroup::Attribute("pad_mode", &FormatItem::StrippedEnum("padmode".into()))));
        assert_eq!(groups[1], Some(TailGroup::Operand("pad_value")));
        assert_eq!(groups[2], Some(TailGroup::Attribute("init_out_buffer", &FormatItem::Bool)));
        assert_eq!(groups[3], Some(TailGroup::Result));
        assert_eq!(groups[4], None);
    }

    #[test]
    fn malformed_formats_are_errors() {
        for bad in ["( $v", "$v )", "$bogus", "$r:q7"] {
            assert!(parse_format(bad).is_err(), "{bad}");
        }
    }
}
