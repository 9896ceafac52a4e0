//! Printing in MLIR's generic op form (`pto fmt --generic`), the inverse of the reader's
//! `builder/generic.rs`: `"name"(operands) <{properties}> ({regions}) : (types) -> (types)`.
//! What the custom forms keep outside attributes (operand segments, enum arguments, the
//! callee, a function's name and type) becomes the attributes MLIR and PTOAS use for it.

use super::Printer;
use pto_ir::attr::Attr;
use pto_ir::module::{OpId, Payload};
use pto_ir::ops::Syntax;
use std::fmt::Write;

/// Attributes of `pto`'s own that have no meaning in MLIR's generic form.
const CUSTOM_ONLY: &[&str] = &["signature"];

impl Printer<'_> {
    /// Writes op `id` in generic form after its results; false when the op has no generic
    /// spelling of its own (a verbatim custom syntax, which prints as written, or constants
    /// inlined in a partition view's lists) and must print in its custom form.
    pub(super) fn generic_op(&mut self, id: OpId, depth: usize) -> bool {
        let m = self.m;
        let data = m.op(id);
        let spec = data.opcode.spec();
        let mut props: Vec<(String, Attr)> = Vec::new();
        let mut attrs: Vec<(String, Attr)> = data.attrs.iter().filter(|(k, _)| !CUSTOM_ONLY.contains(&k.as_str())).cloned().collect();
        if !data.waits.is_empty() {
            // The deprecated `wait(...)` clause has no generic spelling.
            return false;
        }
        match (&spec.syntax, &data.payload) {
            (Syntax::Generic, _) => return false,
            // PTO-AS index groups (`%t[%i, %j]`) and `ins`/`outs` splits the operand count
            // alone does not imply stay in the custom form.
            // So do the keyword groups after a DPS op's dictionary (`pad_value = %v : f32`).
            (Syntax::Tile, Payload::Segments(_) | Payload::TailGroups(_)) => return false,
            (Syntax::Tile, _) if data.opcode.default_ins(data.operands.len(), data.results.len()) != data.num_ins as usize => {
                return false;
            }
            (Syntax::AllocTile | Syntax::MakeTensorView, Payload::Segments(segs)) => props.push(segments(segs)),
            (Syntax::PartitionView, Payload::IndexLists(lists)) => {
                if lists.iter().flatten().any(Option::is_some) {
                    return false;
                }
                let counts: Vec<u32> = std::iter::once(1).chain(lists.iter().map(|l| l.len() as u32)).collect();
                props.push(segments(&counts));
            }
            (Syntax::BracketArgs, _) => {
                let args = match attrs.iter().position(|(k, _)| k == "args") {
                    Some(i) => attrs.remove(i).1,
                    None => Attr::Array(Vec::new()),
                };
                if let Attr::Array(items) = args {
                    for (name, a) in data.opcode.enum_argument_names().iter().zip(items) {
                        props.push((name.to_string(), a));
                    }
                }
            }
            (Syntax::ArithCmp, _) => {
                if let Some((_, a)) = attrs.iter_mut().find(|(k, _)| k == "predicate")
                    && let Attr::Opaque(name) = a
                    && let Some(i) = data.opcode.predicates().iter().position(|p| p == name)
                {
                    *a = Attr::Opaque(format!("{i} : i64"));
                }
            }
            (Syntax::FuncCall, Payload::Call { callee }) => props.push(("callee".into(), Attr::Symbol(callee.clone()))),
            (Syntax::FuncFunc, Payload::Func { name, visibility, results, params }) => {
                let entry_args: Vec<String> = match data.regions.first().and_then(|r| m.region(*r).blocks.first()) {
                    Some(&b) => m.block(b).args.iter().map(|&a| self.vty(a)).collect(),
                    None => params.iter().map(|&t| self.ty(t)).collect(),
                };
                let results: Vec<String> = results.iter().map(|&t| self.ty(t)).collect();
                props.push(("function_type".into(), Attr::Opaque(format!("({}) -> ({})", entry_args.join(", "), results.join(", ")))));
                props.push(("sym_name".into(), Attr::Str(name.clone())));
                if let Some(v) = visibility {
                    props.push(("sym_visibility".into(), Attr::Str(v.clone())));
                }
            }
            _ => {}
        }
        props.append(&mut attrs);
        let mut s = format!("\"{}\"({})", spec.full_name(), self.list(&data.operands));
        if !props.is_empty() {
            let dict = self.dict(&props);
            let _ = write!(s, " <{dict}>");
        }
        self.out.push_str(&s);
        if !data.regions.is_empty() {
            self.out.push_str(" (");
            for (i, &r) in data.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                // `region` writes ` {` ... `}`; a generic region list has no space after `(`.
                let at = self.out.len();
                self.region(r, depth, 0);
                if i == 0 {
                    self.out.remove(at);
                }
            }
            self.out.push(')');
        }
        let results: Vec<String> = data.results.iter().map(|&r| self.vty(r)).collect();
        let _ = write!(self.out, " : ({}) -> ({})", self.types(&data.operands), results.join(", "));
        true
    }
}

/// `operandSegmentSizes = array<i32: ...>`.
fn segments(counts: &[u32]) -> (String, Attr) {
    let list: Vec<String> = counts.iter().map(u32::to_string).collect();
    ("operandSegmentSizes".into(), Attr::Opaque(format!("array<i32: {}>", list.join(", "))))
}
