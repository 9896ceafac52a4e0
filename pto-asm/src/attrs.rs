//! Parsing of attribute tokens (`#pto.cmp<GT>`, `#pto<cmp gt>`, `#pto.layout<nd>`...).
//!
//! PTO enum attributes of a known kind become [`Attr::Enum`] whichever of the two spellings is
//! used; a known kind with an unknown value is an error; an unknown kind (a PTOAS attribute
//! `pto` does not model, like `#pto.tile_buf_config<...>`) is kept verbatim.

use crate::types::normalize_ws;
use pto_ir::attr::{Attr, EnumAttr, EnumKind};

/// Parses the text of one `#...` attribute token.
pub(crate) fn parse_attr_text(text: &str) -> Result<Attr, String> {
    let (head, body) = match text.find('<') {
        Some(i) if text.ends_with('>') => (&text[..i], Some(text[i + 1..text.len() - 1].trim())),
        Some(_) => return Err(format!("unbalanced `<` in attribute `{text}`")),
        None => (text, None),
    };
    let (kind, value) = match (head, body) {
        // `#pto<cmp gt>`
        ("#pto", Some(body)) => match body.split_once(char::is_whitespace) {
            Some((k, v)) => (k.trim(), v.trim()),
            None => return Err(format!("expected `#pto<kind value>`, found `{text}`")),
        },
        // `#pto.cmp<GT>`
        (h, Some(body)) if h.starts_with("#pto.") => (&h[5..], body),
        _ => return Ok(Attr::Opaque(normalize_ws(text))),
    };
    match EnumKind::find(kind) {
        Some((_, spec)) => match EnumAttr::new(kind, value) {
            Some(e) => Ok(Attr::Enum(e)),
            None => Err(format!("`{value}` is not a value of `#pto.{}` (expected one of: {})", spec.name, spec.values.join(", "))),
        },
        None => Ok(Attr::Opaque(normalize_ws(text))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_enum_spellings_are_equal() {
        assert_eq!(parse_attr_text("#pto.cmp<GT>").unwrap(), parse_attr_text("#pto<cmp gt>").unwrap());
        assert_eq!(parse_attr_text("#pto.sync_op_type<TLOAD>").unwrap(), parse_attr_text("#pto.pipe_event_type<TLOAD>").unwrap());
    }

    #[test]
    fn unknown_value_of_known_kind_is_an_error() {
        let e = parse_attr_text("#pto<cmp less_than>").unwrap_err();
        assert!(e.contains("eq, ne, lt, le, gt, ge"), "{e}");
    }

    #[test]
    fn unknown_kind_is_kept() {
        assert_eq!(
            parse_attr_text("#pto.tile_buf_config<blayout=1 : i32>").unwrap(),
            Attr::Opaque("#pto.tile_buf_config<blayout=1 : i32>".into())
        );
    }
}
