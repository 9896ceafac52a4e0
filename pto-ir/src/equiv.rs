//! Structural equality of modules, independent of table order and of the printer.
//!
//! [`structural_dump`] writes a module as a plain listing in which every id is replaced by what
//! it stands for: values by their definition order in a walk (plus their names), types and
//! attributes by their content. Two modules are structurally equal when their dumps are equal;
//! the round-trip tests (`parse(print(m)) == m`) compare these dumps, so a printer that drops
//! information cannot hide behind a re-print.

use crate::attr::Attr;
use crate::module::{BlockId, Module, OpId, Payload, Piece, RegionId, ValueId};
use std::collections::HashMap;
use std::fmt::Write;

/// A listing of `m` with every id resolved (see the module docs).
pub fn structural_dump(m: &Module) -> String {
    let mut d = Dumper { m, out: String::new(), numbers: HashMap::new() };
    let _ = writeln!(d.out, "form {:?}", m.form);
    if let Some(body) = m.body {
        d.region(body, 0);
    }
    d.out
}

/// Compares two modules; on difference returns the first differing line of their dumps.
pub fn structurally_equal(a: &Module, b: &Module) -> Result<(), String> {
    let (da, db) = (structural_dump(a), structural_dump(b));
    if da == db {
        return Ok(());
    }
    for (i, (la, lb)) in da.lines().zip(db.lines()).enumerate() {
        if la != lb {
            return Err(format!("line {}: `{la}` vs `{lb}`", i + 1));
        }
    }
    Err(format!("dumps differ in length: {} vs {} lines", da.lines().count(), db.lines().count()))
}

struct Dumper<'m> {
    m: &'m Module,
    out: String,
    numbers: HashMap<ValueId, usize>,
}

impl Dumper<'_> {
    fn def(&mut self, v: ValueId) -> String {
        let n = self.numbers.len();
        self.numbers.insert(v, n);
        let data = &self.m.values[v.index()];
        format!("v{n}:{}:{}", data.name, self.m.ty(data.ty))
    }

    fn use_(&self, v: ValueId) -> String {
        match self.numbers.get(&v) {
            Some(n) => format!("v{n}"),
            None => format!("?{}", self.m.values.get(v.index()).map(|d| d.name.as_str()).unwrap_or("")),
        }
    }

    fn attr(&self, a: &Attr) -> String {
        match a {
            Attr::Int(v, t) => format!("int({v}{})", t.map(|t| format!(":{}", self.m.ty(t))).unwrap_or_default()),
            Attr::Float(v, t) => format!("float({:#x}{})", v.to_bits(), t.map(|t| format!(":{}", self.m.ty(t))).unwrap_or_default()),
            Attr::Type(t) => format!("type({})", self.m.ty(*t)),
            Attr::Array(items) => format!("[{}]", items.iter().map(|i| self.attr(i)).collect::<Vec<_>>().join(",")),
            Attr::Dict(d) => format!("{{{}}}", d.iter().map(|(k, v)| format!("{k}={}", self.attr(v))).collect::<Vec<_>>().join(",")),
            other => format!("{other:?}"),
        }
    }

    fn piece(&self, p: &Piece) -> String {
        match p {
            Piece::Value(v) => self.use_(*v),
            Piece::Type(t) => format!("type({})", self.m.ty(*t)),
            Piece::Attr(a) => self.attr(a),
            Piece::Group(c, inner) => format!("{c}{}", inner.iter().map(|i| self.piece(i)).collect::<Vec<_>>().join(" ")),
            Piece::Dict(d) => format!("{{{}}}", d.iter().map(|(k, v)| format!("{k}={}", self.attr(v))).collect::<Vec<_>>().join(",")),
            other => format!("{other:?}"),
        }
    }

    fn region(&mut self, r: RegionId, depth: usize) {
        let blocks: Vec<BlockId> = self.m.region(r).blocks.clone();
        for b in blocks {
            let block = self.m.block(b);
            let args: Vec<String> = block.args.clone().into_iter().map(|a| self.def(a)).collect();
            let _ = writeln!(self.out, "{}block {:?} ({})", "  ".repeat(depth), self.m.block(b).label, args.join(", "));
            for op in self.m.block(b).ops.clone() {
                self.op(op, depth + 1);
            }
        }
    }

    fn op(&mut self, id: OpId, depth: usize) {
        let data = self.m.op(id);
        let operands: Vec<String> = data.operands.iter().map(|&v| self.use_(v)).collect();
        let waits: Vec<String> = data.waits.iter().map(|&v| self.use_(v)).collect();
        let attrs: Vec<String> = data.attrs.iter().map(|(k, a)| format!("{k}={}", self.attr(a))).collect();
        let payload = match &data.payload {
            Payload::Generic(pieces) => pieces.iter().map(|p| self.piece(p)).collect::<Vec<_>>().join(" "),
            Payload::Func { name, visibility, results, params } => {
                let tys = |ts: &[crate::types::TypeId]| ts.iter().map(|t| self.m.ty(*t).to_string()).collect::<Vec<_>>().join(",");
                format!("func {name} {visibility:?} ({}) -> {}", tys(params), tys(results))
            }
            other => format!("{other:?}"),
        };
        let line = format!(
            "{}{:?} ins[{}] outs[{}] waits[{}] attrs[{}] payload[{payload}]",
            "  ".repeat(depth),
            data.opcode,
            operands[..data.num_ins as usize].join(","),
            operands[data.num_ins as usize..].join(","),
            waits.join(","),
            attrs.join(","),
        );
        self.out.push_str(&line);
        let regions = data.regions.clone();
        let results = data.results.clone();
        self.out.push('\n');
        for r in regions {
            self.region(r, depth + 1);
        }
        let defs: Vec<String> = results.into_iter().map(|v| self.def(v)).collect();
        if !defs.is_empty() {
            let _ = writeln!(self.out, "{}=> {}", "  ".repeat(depth), defs.join(", "));
        }
    }
}
