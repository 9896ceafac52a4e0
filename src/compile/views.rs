//! GM views: `make_tensor_view`, `partition_view` and GM `memref` arguments become pointer
//! arithmetic plus, where an instruction reads or writes them, a pto-isa `GlobalTensor` with a
//! 5-D `pto::Shape` / `pto::Stride` (right-aligned, as pto-isa counts dimensions; a `-1`
//! extent is given at run time) and a `pto::Layout`: the one the program names (`layout`
//! attribute), else ND when the strides are row-major, DN when column-major, NZ for the
//! fractal pattern (16-row boxes of 512 bytes).

use super::{Emitter, Ext, View, cpp};
use pto_ir::module::{OpId, Payload, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::{ElemType, Type};

impl Ext {
    fn text(&self) -> String {
        match self {
            Ext::Static(n) => n.to_string(),
            Ext::Dyn(e) => e.clone(),
        }
    }
    fn template(&self) -> String {
        match self {
            Ext::Static(n) => n.to_string(),
            Ext::Dyn(_) => "-1".to_string(),
        }
    }
}

/// `pto::Layout::ND` / `DN` / `NZ` of the `layout` attribute value.
fn layout_token(v: &str) -> Option<&'static str> {
    match v {
        "nd" => Some("pto::Layout::ND"),
        "dn" => Some("pto::Layout::DN"),
        "nz" => Some("pto::Layout::NZ"),
        _ => None,
    }
}

/// The layout pto-isa's conventions give static 5-D extents: NZ for the fractal pattern, DN
/// when the two minor dimensions are column-major (and not also row-major), else ND.
fn infer_layout(shape: &[Ext], strides: &[Ext], elem: ElemType) -> &'static str {
    let s: Option<Vec<i64>> = shape.iter().map(|e| if let Ext::Static(n) = e { Some(*n) } else { None }).collect();
    let t: Option<Vec<i64>> = strides.iter().map(|e| if let Ext::Static(n) = e { Some(*n) } else { None }).collect();
    let (Some(s), Some(t)) = (s, t) else { return "pto::Layout::ND" };
    let bytes = elem.size_bytes() as i64;
    if s[2] == 16 && s[2] * s[3] * bytes == 512 && t[4] == 1 && t[3] == s[4] {
        return "pto::Layout::NZ";
    }
    // The two minor dimensions decide (a 1-row or 1-column view is both: ND).
    let row = t[4] == 1 && t[3] == s[4];
    let col = t[3] == 1 && t[4] == s[3];
    if col && !row { "pto::Layout::DN" } else { "pto::Layout::ND" }
}

/// The offset (`None` when `?`) and strides (`None` for each `?`) of a `memref<..., strided<[s,
/// ...], offset: o>, ...>` type, when its text has a `strided` layout.
fn strided(text: &str) -> Option<(Option<i64>, Vec<Option<i64>>)> {
    let rest = &text[text.find("strided<[")? + "strided<[".len()..];
    let (list, rest) = rest.split_once(']')?;
    let num = |t: &str| t.trim().parse::<i64>().ok();
    let strides = list.split(',').filter(|t| !t.trim().is_empty()).map(num).collect();
    let offset = rest.split_once("offset:").and_then(|(_, o)| num(o.split(['>', ',']).next().unwrap_or("")));
    Some((offset, strides))
}

impl Emitter<'_> {
    /// A constant or the variable of an index operand.
    fn ext(&mut self, v: ValueId) -> Ext {
        match self.m.int_constant(v) {
            Some(c) => Ext::Static(c),
            None => Ext::Dyn(self.expr(v)),
        }
    }

    /// Registers a GM `memref` argument as a row-major view of its static shape.
    pub(super) fn memref_arg_view(&mut self, a: ValueId, name: &str) {
        let ty = self.m.value_type(a);
        let (Some(elem), Some(shape)) = (ty.elem_type(), ty.view_shape()) else { return };
        if shape.iter().any(|d| d.is_none()) || shape.is_empty() {
            return;
        }
        let shape: Vec<Ext> = shape.iter().map(|d| Ext::Static(d.unwrap_or(1) as i64)).collect();
        let mut strides = vec![Ext::Static(1); shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            if let (Ext::Static(s), Ext::Static(n)) = (&strides[i + 1], &shape[i + 1]) {
                strides[i] = Ext::Static(s * n);
            }
        }
        self.views.insert(a, View { ptr: name.to_string(), elem, shape, strides, layout: None });
    }

    pub(super) fn view_op(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        match data.opcode {
            Opcode::MakeTensorView => {
                let Payload::Segments(segs) = &data.payload else { return self.unsupported(op, "a malformed make_tensor_view") };
                let n = segs.get(1).copied().unwrap_or(0) as usize;
                let Some(&r) = data.results.first() else { return };
                let Some(elem) = self.m.value_type(r).elem_type() else { return self.unsupported(op, "a view without element type") };
                let ptr = self.expr(data.operands[0]);
                let shape = data.operands[1..1 + n].iter().map(|&v| self.ext(v)).collect();
                let strides = data.operands[1 + n..].iter().map(|&v| self.ext(v)).collect();
                let layout = data.attr("layout").and_then(|a| a.as_enum("layout")).and_then(layout_token);
                self.views.insert(r, View { ptr, elem, shape, strides, layout });
            }
            Opcode::PartitionView | Opcode::Subview => self.partition(op),
            Opcode::MemrefReinterpretCast => self.reinterpret_cast(op),
            Opcode::AddPtr => {
                let (Some(&r), [p, off]) = (data.results.first(), data.operands.as_slice()) else { return };
                let (p, off) = (self.expr(*p), self.expr(*off));
                self.define(op, r, &format!("{p} + {off}"));
            }
            _ => self.unsupported(op, "this view op has no C++ spelling yet"),
        }
    }

    /// `memref.reinterpret_cast` of a GM memref: the source's pointer moved by the offset, with
    /// the sizes and strides the op lists (as SSA operands, in MLIR's order offset, sizes,
    /// strides) or, where the result type gives them statically, the type's.
    fn reinterpret_cast(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        let (Some(&r), Some((&src, dims))) = (data.results.first(), data.operands.split_first()) else {
            return self.unsupported(op, "a malformed reinterpret_cast");
        };
        let ty = self.m.value_type(r).clone();
        let (Some(elem), Some(shape)) = (ty.elem_type(), ty.view_shape()) else {
            return self.unsupported(op, format!("a result type `{ty}` without element type and shape"));
        };
        let rank = shape.len();
        let typed = match &ty {
            Type::Opaque(text) => strided(text),
            _ => None,
        };
        let (offset, sizes, strides): (Ext, Vec<Option<ValueId>>, Vec<Option<ValueId>>) = if dims.len() == 1 + 2 * rank {
            (self.ext(dims[0]), dims[1..=rank].iter().map(|&v| Some(v)).collect(), dims[1 + rank..].iter().map(|&v| Some(v)).collect())
        } else if dims.is_empty() {
            match &typed {
                Some((Some(off), _)) => (Ext::Static(*off), vec![None; rank], vec![None; rank]),
                _ => return self.unsupported(op, "a reinterpret_cast whose constant offset is not in its result type"),
            }
        } else {
            return self.unsupported(op, "a reinterpret_cast mixing constant and SSA entries (pto reads all-SSA or all-constant lists)");
        };
        let type_strides = typed.map(|(_, s)| s).unwrap_or_default();
        let pick = |d: Option<i64>, v: Option<ValueId>, e: &mut Self| match (d, v) {
            (Some(n), _) => Some(Ext::Static(n)),
            (None, Some(v)) => Some(e.ext(v)),
            (None, None) => None,
        };
        let mut shape_ext = Vec::with_capacity(rank);
        let mut stride_ext = Vec::with_capacity(rank);
        for i in 0..rank {
            let size = pick(shape[i].map(|n| n as i64), sizes[i], self);
            let stride = pick(type_strides.get(i).copied().flatten(), strides[i], self);
            match (size, stride) {
                (Some(a), Some(b)) => {
                    shape_ext.push(a);
                    stride_ext.push(b);
                }
                _ => return self.unsupported(op, "a reinterpret_cast with a dynamic size or stride and no operand for it"),
            }
        }
        let base = self.views.get(&src).map(|v| v.ptr.clone()).unwrap_or_else(|| self.expr(src));
        let ptr = match offset {
            Ext::Static(0) => base,
            off => {
                let n = self.fresh();
                self.line(format!("__gm__ {}* {n} = {base} + {};", cpp::elem(elem), off.text()));
                n
            }
        };
        let layout = data.attr("layout").and_then(|a| a.as_enum("layout")).and_then(layout_token);
        self.views.insert(r, View { ptr, elem, shape: shape_ext, strides: stride_ext, layout });
    }

    fn partition(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        let (Payload::IndexLists(lists), Some(&r)) = (&data.payload, data.results.first()) else {
            return self.unsupported(op, "a malformed partition_view");
        };
        let Some(parent) = self.views.get(&data.operands[0]).cloned() else {
            return self.unsupported(op, "a partition of a view `pto compile` does not know");
        };
        let mut dynamic = data.operands[1..].iter();
        let mut resolved: Vec<Vec<Ext>> = Vec::new();
        for list in lists {
            let mut out = Vec::new();
            for e in list {
                out.push(match e {
                    Some(c) => Ext::Static(*c),
                    None => match dynamic.next() {
                        Some(&v) => self.ext(v),
                        None => return self.unsupported(op, "a malformed partition_view"),
                    },
                });
            }
            resolved.push(out);
        }
        let offsets = resolved.first().cloned().unwrap_or_default();
        let mut sizes = resolved.get(1).cloned().unwrap_or_default();
        if let Type::PartitionView(shape, _) = self.m.value_type(r) {
            for (s, d) in sizes.iter_mut().zip(shape) {
                if let Some(n) = d {
                    *s = Ext::Static(*n as i64);
                }
            }
        }
        // Element offset: the constant part folded, the rest as products.
        let (mut constant, mut terms) = (0i64, Vec::new());
        for (o, s) in offsets.iter().zip(&parent.strides) {
            match (o, s) {
                (Ext::Static(a), Ext::Static(b)) => constant += a * b,
                (Ext::Static(0), _) => {}
                (o, Ext::Static(1)) => terms.push(o.text()),
                (o, s) => terms.push(format!("{} * {}", o.text(), s.text())),
            }
        }
        if constant != 0 {
            terms.push(constant.to_string());
        }
        let ptr = if terms.is_empty() {
            parent.ptr.clone()
        } else {
            let n = self.fresh();
            self.line(format!("__gm__ {}* {n} = {} + {};", cpp::elem(parent.elem), parent.ptr, terms.join(" + ")));
            n
        };
        self.views.insert(r, View { ptr, elem: parent.elem, shape: sizes, strides: parent.strides.clone(), layout: parent.layout });
        // The GlobalTensor where the partition is made, as `ptoas` does: it is then in scope
        // for every use.
        self.tensor(r);
    }

    /// The `GlobalTensor` variable of GM view `v`, declared on first use.
    pub(super) fn tensor(&mut self, v: ValueId) -> Option<String> {
        if let Some((t, scope)) = self.tensors.get(&v)
            && self.scopes.contains(scope)
        {
            return Some(t.clone());
        }
        let view = self.views.get(&v)?.clone();
        let rank = view.shape.len().min(5);
        let mut shape = vec![Ext::Static(1); 5];
        let mut strides = vec![Ext::Static(1); 5];
        for i in 0..rank {
            shape[5 - rank + i] = view.shape[view.shape.len() - rank + i].clone();
            strides[5 - rank + i] = view.strides.get(view.strides.len().saturating_sub(rank) + i).cloned().unwrap_or(Ext::Static(1));
        }
        for i in (0..5 - rank).rev() {
            strides[i] = match (&shape[i + 1], &strides[i + 1]) {
                (Ext::Static(a), Ext::Static(b)) => Ext::Static(a * b),
                (a, b) => Ext::Dyn(format!("{} * {}", a.text(), b.text())),
            };
        }
        let layout = view.layout.unwrap_or_else(|| infer_layout(&shape, &strides, view.elem));
        let k = self.next_gt;
        self.next_gt += 1;
        let list = |xs: &[Ext]| xs.iter().map(Ext::template).collect::<Vec<_>>().join(", ");
        let dyns = |xs: &[Ext]| xs.iter().filter(|e| matches!(e, Ext::Dyn(_))).map(Ext::text).collect::<Vec<_>>().join(", ");
        let (vs, vt, vg) = (self.fresh(), self.fresh(), self.fresh());
        self.line(format!("using GTShape_{k} = pto::Shape<{}>;", list(&shape)));
        self.line(format!("using GTStride_{k} = pto::Stride<{}>;", list(&strides)));
        self.line(format!("constexpr pto::Layout GT_{k}_layout = {layout};"));
        self.line(format!("GTShape_{k} {vs} = GTShape_{k}({});", dyns(&shape)));
        self.line(format!("GTStride_{k} {vt} = GTStride_{k}({});", dyns(&strides)));
        self.line(format!("using GT_{k} = GlobalTensor<{}, GTShape_{k}, GTStride_{k}, GT_{k}_layout>;", cpp::elem(view.elem)));
        self.line(format!("GT_{k} {vg} = GT_{k}({}, {vs}, {vt});", view.ptr));
        let scope = self.scopes.last().copied().unwrap_or(0);
        self.tensors.insert(v, (vg.clone(), scope));
        self.tensor_types.insert(vg.clone(), format!("GT_{k}"));
        Some(vg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(xs: &[i64]) -> Vec<Ext> {
        xs.iter().map(|&n| Ext::Static(n)).collect()
    }

    #[test]
    fn strided_layouts() {
        let t = "memref<1x16xi16, strided<[16, 1], offset: ?>, #pto.address_space<gm>>";
        assert_eq!(strided(t), Some((None, vec![Some(16), Some(1)])));
        assert_eq!(strided("memref<4x8xf32, strided<[?, 1], offset: 32>>"), Some((Some(32), vec![None, Some(1)])));
        assert_eq!(strided("memref<16xf32, #pto.address_space<gm>>"), None);
    }

    #[test]
    fn layouts_from_strides() {
        assert_eq!(infer_layout(&st(&[1, 1, 1, 32, 32]), &st(&[1024, 1024, 1024, 32, 1]), ElemType::F32), "pto::Layout::ND");
        assert_eq!(infer_layout(&st(&[1, 1, 1, 16, 32]), &st(&[512, 512, 512, 1, 16]), ElemType::F32), "pto::Layout::DN");
        assert_eq!(infer_layout(&st(&[1, 1, 1, 1, 16]), &st(&[16, 16, 16, 16, 1]), ElemType::F16), "pto::Layout::ND");
        assert_eq!(infer_layout(&st(&[1, 1, 16, 16, 16]), &st(&[4096, 4096, 256, 16, 1]), ElemType::F16), "pto::Layout::NZ");
    }
}
