//! Carets at the operand at fault: a diagnostic about one operand of an op (its `operand` is
//! `ins[1] (src1)`, `outs[0] (dst)` or `results[0] (dst)`, or a slot name such as `src1`, placed
//! by the op's first operand form) is located by the reader at the whole
//! op; before rendering, its span shrinks to that operand's `%name` in the op's text, so the
//! caret underlines `%b` rather than a 100-column statement. When the operand cannot be found
//! (MLIR's generic form, a name the text does not show) the span stays the op's.

use pto_ir::diag::{Diagnostic, SourceMap, Span};

/// `d` with its span narrowed to the operand it names, when it names one found in its text.
pub fn narrowed(sources: &SourceMap, d: &Diagnostic) -> Diagnostic {
    let mut d = d.clone();
    let position =
        d.operand.as_deref().and_then(|o| if o.contains('[') { Some(o.to_string()) } else { slot_position(d.op.as_deref()?, o) });
    if let Some(span) = position.and_then(|o| operand_span(sources, d.span, &o)) {
        d.span = span;
    }
    d
}

/// `ins[i]` / `outs[i]` of slot `slot` in the first operand form of op `op` (`pto.tadd`).
fn slot_position(op: &str, slot: &str) -> Option<String> {
    let form = pto_ir::ops::lookup(op)?.parsed().forms.first()?;
    match form.ins.iter().position(|s| s.name == slot) {
        Some(i) => Some(format!("ins[{i}]")),
        None => form.outs.iter().position(|s| s.name == slot).map(|i| format!("outs[{i}]")),
    }
}

/// The span of operand `operand` (`ins[1] (src1)`) within the op text at `span`.
fn operand_span(sources: &SourceMap, span: Span, operand: &str) -> Option<Span> {
    let (segment, rest) = operand.split_once('[')?;
    let index: usize = rest.split_once(']')?.0.parse().ok()?;
    let file = sources.get(span.file)?;
    let text = file.text.get(span.start as usize..span.end as usize)?;
    let (from, to) = find(text, segment, index)?;
    Some(Span { file: span.file, start: span.start + from as u32, end: span.start + to as u32 })
}

/// The byte range of the `index`-th name of `segment` in an op's text.
fn find(text: &str, segment: &str, index: usize) -> Option<(usize, usize)> {
    let names = names(text);
    let before = |limit: usize| names.iter().copied().filter(move |&(s, _)| s < limit);
    let picked: Vec<(usize, usize)> = match segment {
        // DPS: `ins(%a, %b : T, T) outs(%c : T)`, the names before the group's `:`.
        "ins" | "outs" if text.contains(&format!("{segment}(")) => {
            let open = text.find(&format!("{segment}("))? + segment.len() + 1;
            let close = open + text[open..].find([':', ')'])?;
            names.iter().copied().filter(|&(s, _)| s >= open && s < close).collect()
        }
        // Short form and SSA: `%c = tadd %a, %b : T`: results before `=`, operands up to `:`.
        "results" | "outs" => before(text.find('=')?).collect(),
        "ins" if !text.trim_start().starts_with('"') => {
            let start = text.find('=').map_or(0, |e| e + 1);
            let end = text.find(':').unwrap_or(text.len());
            names.iter().copied().filter(|&(s, _)| s >= start && s < end).collect()
        }
        _ => return None,
    };
    picked.get(index).copied()
}

/// Every `%name` of an op's text, as byte ranges.
fn names(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let end =
                i + 1 + bytes[i + 1..].iter().take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'#')).count();
            if end > i + 1 {
                out.push((i, end));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::find;

    fn at<'a>(text: &'a str, segment: &str, index: usize) -> Option<&'a str> {
        find(text, segment, index).map(|(s, e)| &text[s..e])
    }

    #[test]
    fn finds_the_operand_in_each_form() {
        let dps = "pto.tadds ins(%ta, %tb : !pto.tile_buf<vec, 32x32xf32>, f32) outs(%tc : !pto.tile_buf<vec, 32x32xf32>)";
        assert_eq!((at(dps, "ins", 1), at(dps, "outs", 0), at(dps, "ins", 2)), (Some("%tb"), Some("%tc"), None));
        let short = "%c = tadd %a, %b : !pto.tile<16x32xi8>";
        assert_eq!((at(short, "ins", 0), at(short, "ins", 1), at(short, "results", 0)), (Some("%a"), Some("%b"), Some("%c")));
        let ssa = "%c = pto.tadd %a, %b : (!pto.tile<16x32xi8>, !pto.tile<16x32xi8>) -> !pto.tile<16x32xi8>";
        assert_eq!(at(ssa, "ins", 1), Some("%b"));
        assert_eq!(at("\"pto.tadd\"(%a, %b, %c) : (T, T, T) -> ()", "ins", 0), None, "generic form: left alone");
    }
}
