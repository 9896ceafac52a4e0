//! The emission rules of the op table's `cpp` column: one call pattern per operand form of the
//! op, separated by `|` (form `k` of the op's operand pattern uses pattern `k`, the last one
//! when there are fewer patterns than forms).
//!
//! ```text
//! pattern := NAME ( "<" items ">" )? ( "(" items ")" )?     no "(...)": "($*)"
//! item    := "$*"                     every operand: outs, then ins, in slot order
//!          | "$" slot "?"?            the operand bound to `slot` (`?`: dropped when absent)
//!          | "&$" slot "?"?           its address (a pointer parameter: `TQUANT`'s offset)
//!          | "T(" slot ")" "?"?       its C++ tile type
//!          | "E(" slot ")" "?"?       its C++ element type
//!          | "@" "#"? attr ("=" default)? "?"?
//!                                     an attribute's C++ token (`#`: a bool as 1/0); absent
//!                                     attributes take the default, or are dropped with `?`
//!          | anything else            copied as written
//! ```
//!
//! An enum attribute in the argument list is passed as a named constant of its C++ type
//! (`RoundMode v7 = RoundMode::CAST_RINT;`, hoisted with the function's other constants, as
//! `ptoas` writes it); in the template list it is written inline.

/// What a rule reads from the op being emitted.
pub trait RuleCtx {
    /// The C++ expression of the operand bound to `slot`.
    fn operand(&mut self, slot: &str) -> Option<String>;
    /// Every operand: outs, then ins.
    fn all_operands(&mut self) -> Vec<String>;
    /// The `Tile<...>` type of the tile bound to `slot`.
    fn tile_type(&self, slot: &str) -> Option<String>;
    /// The C++ element type of the value bound to `slot`.
    fn elem_type(&self, slot: &str) -> Option<String>;
    /// An attribute's C++ type (enums) and token; `numeric` writes a bool as 1/0.
    fn attr(&self, name: &str, numeric: bool) -> Option<(Option<String>, String)>;
    /// A default written in a rule, spelled through attribute `name`'s enum kind.
    fn default_attr(&self, name: &str, text: &str) -> (Option<String>, String);
    /// Declares a constant of C++ type `ty` with value `token`; returns its name.
    fn constant(&mut self, ty: &str, token: &str) -> String;
}

/// Splits `text` at `sep` outside `<>`, `()` and `[]`.
pub fn split_top(text: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, ch) in text.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(text[start..i].trim());
                start = i + ch.len_utf8();
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out
}

/// The pattern of operand form `form` in a `cpp` column.
pub fn pattern_for(column: &str, form: usize) -> &str {
    let forms = split_top(column, '|');
    forms.get(form).or(forms.last()).copied().unwrap_or("")
}

/// Renders one call pattern to a C++ statement (without the `;`).
pub fn render(pattern: &str, ctx: &mut dyn RuleCtx) -> Result<String, String> {
    let open_t = pattern.find('<');
    let open_a = pattern.find('(');
    let name_end = [open_t, open_a].into_iter().flatten().min().unwrap_or(pattern.len());
    let name = pattern[..name_end].trim();
    let mut rest = &pattern[name_end..];
    let mut out = name.to_string();
    if rest.starts_with('<') {
        let close = matching(rest, '<', '>').ok_or_else(|| format!("rule `{pattern}`: unclosed `<`"))?;
        let items = render_items(&rest[1..close], ctx, true)?;
        // A list whose every item was optional and absent is not written (`MGATHER(...)`).
        if !items.is_empty() {
            out.push('<');
            out.push_str(&items.join(", "));
            out.push('>');
        }
        rest = rest[close + 1..].trim_start();
    }
    let args = if rest.starts_with('(') {
        let close = matching(rest, '(', ')').ok_or_else(|| format!("rule `{pattern}`: unclosed `(`"))?;
        render_items(&rest[1..close], ctx, false)?
    } else {
        ctx.all_operands()
    };
    out.push('(');
    out.push_str(&args.join(", "));
    out.push(')');
    Ok(out)
}

/// Index of the bracket closing the one `text` starts with.
fn matching(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in text.char_indices() {
        if ch == open {
            depth += 1;
        } else if ch == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

fn render_items(list: &str, ctx: &mut dyn RuleCtx, template: bool) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    if list.trim().is_empty() {
        return Ok(out);
    }
    for item in split_top(list, ',') {
        let (item, optional) = match item.strip_suffix('?') {
            Some(i) => (i, true),
            None => (item, false),
        };
        let value = if item == "$*" {
            out.extend(ctx.all_operands());
            continue;
        } else if let Some(slot) = item.strip_prefix('$') {
            ctx.operand(slot)
        } else if let Some(slot) = item.strip_prefix("&$") {
            ctx.operand(slot).map(|v| format!("&{v}"))
        } else if let Some(slot) = item.strip_prefix("T($").and_then(|s| s.strip_suffix(')')) {
            ctx.tile_type(slot)
        } else if let Some(slot) = item.strip_prefix("E($").and_then(|s| s.strip_suffix(')')) {
            ctx.elem_type(slot)
        } else if let Some(spec) = item.strip_prefix('@') {
            let (numeric, spec) = match spec.strip_prefix('#') {
                Some(s) => (true, s),
                None => (false, spec),
            };
            let (name, default) = match spec.split_once('=') {
                Some((n, d)) => (n, Some(d)),
                None => (spec, None),
            };
            let found = ctx.attr(name, numeric).or_else(|| default.map(|d| ctx.default_attr(name, d)));
            found.map(|(ty, tok)| match ty {
                Some(ty) if !template => ctx.constant(&ty, &tok),
                _ => tok,
            })
        } else {
            Some(item.to_string())
        };
        match value {
            Some(v) => out.push(v),
            None if optional => {}
            None => return Err(format!("`{item}` is missing")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fake {
        ops: HashMap<&'static str, &'static str>,
        attrs: HashMap<&'static str, (Option<String>, String)>,
        consts: Vec<String>,
    }

    impl RuleCtx for Fake {
        fn operand(&mut self, slot: &str) -> Option<String> {
            self.ops.get(slot).map(|s| s.to_string())
        }
        fn all_operands(&mut self) -> Vec<String> {
            ["dst", "src"].iter().filter_map(|s| self.ops.get(s).map(|v| v.to_string())).collect()
        }
        fn tile_type(&self, slot: &str) -> Option<String> {
            self.ops.get(slot).map(|v| format!("Tile<{v}>"))
        }
        fn elem_type(&self, _: &str) -> Option<String> {
            Some("int16_t".to_string())
        }
        fn attr(&self, name: &str, _: bool) -> Option<(Option<String>, String)> {
            self.attrs.get(name).cloned()
        }
        fn default_attr(&self, _: &str, text: &str) -> (Option<String>, String) {
            (None, text.to_string())
        }
        fn constant(&mut self, ty: &str, token: &str) -> String {
            self.consts.push(format!("{ty} = {token}"));
            format!("c{}", self.consts.len())
        }
    }

    fn fake() -> Fake {
        Fake { ops: HashMap::from([("dst", "v1"), ("src", "v2")]), attrs: HashMap::new(), consts: Vec::new() }
    }

    #[test]
    fn default_pattern_passes_every_operand() {
        assert_eq!(render("TADD", &mut fake()).unwrap(), "TADD(v1, v2)");
    }

    #[test]
    fn optional_items_drop_and_required_ones_fail() {
        let mut f = fake();
        assert_eq!(render("TCVT($dst, $src, $tmp?)", &mut f).unwrap(), "TCVT(v1, v2)");
        assert!(render("TCVT($dst, $tmp)", &mut f).unwrap_err().contains("$tmp"));
    }

    #[test]
    fn template_items_and_defaults() {
        let mut f = fake();
        assert_eq!(render("TCI<T($dst), E($src), @#descending=0>($dst, $src)", &mut f).unwrap(), "TCI<Tile<v1>, int16_t, 0>(v1, v2)");
    }

    #[test]
    fn enum_arguments_become_constants() {
        let mut f = fake();
        f.attrs.insert("rmode", (Some("RoundMode".into()), "RoundMode::CAST_ROUND".into()));
        assert_eq!(render("TCVT($dst, $src, @rmode)", &mut f).unwrap(), "TCVT(v1, v2, c1)");
        assert_eq!(f.consts, ["RoundMode = RoundMode::CAST_ROUND"]);
        assert_eq!(render("X<@rmode>()", &mut f).unwrap(), "X<RoundMode::CAST_ROUND>()");
    }

    #[test]
    fn forms_are_separated_by_bars() {
        assert_eq!(pattern_for("A($dst) | B<T($dst)>($dst)", 1), "B<T($dst)>($dst)");
        assert_eq!(pattern_for("A($dst)", 3), "A($dst)");
    }
}
