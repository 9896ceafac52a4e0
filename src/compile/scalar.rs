//! Scalars: `arith` ops (the operator is the op table's `cpp` column), runtime queries and the
//! intra-core sync ops, each one C++ statement.

use super::{Emitter, cpp};
use pto_ir::attr::Attr;
use pto_ir::module::{OpId, ValueId};
use pto_ir::ops::{Opcode, Syntax};
use pto_ir::types::{ElemType, Type};

/// The unsigned type of the same width (`uint32_t` for `int32_t`).
fn unsigned(e: ElemType) -> &'static str {
    match e {
        ElemType::I8 | ElemType::U8 => "uint8_t",
        ElemType::I16 | ElemType::U16 => "uint16_t",
        ElemType::I64 | ElemType::U64 => "uint64_t",
        ElemType::I1 => "bool",
        _ => "uint32_t",
    }
}

impl Emitter<'_> {
    /// The C++ expression of a scalar value (its variable).
    pub(super) fn expr(&mut self, v: ValueId) -> String {
        self.name(v)
    }

    /// Declares `r` as `T r = value;`.
    pub(super) fn define(&mut self, op: OpId, r: ValueId, value: &str) {
        let ty = self.m.value_type(r).clone();
        match cpp::value_type(&ty) {
            Some(t) => {
                let n = self.name(r);
                self.line(format!("{t} {n} = {value};"));
            }
            None => self.unsupported(op, format!("a result of type `{ty}`")),
        }
    }

    fn elem_of(&self, v: ValueId) -> ElemType {
        match self.m.value_type(v) {
            Type::Scalar(e) => *e,
            _ => ElemType::I32,
        }
    }

    pub(super) fn arith(&mut self, op: OpId) {
        let m = self.m;
        let data = m.op(op);
        let spec = data.opcode.spec();
        let Some(&r) = data.results.first() else { return };
        if data.opcode == Opcode::ArithConstant {
            let e = self.elem_of(r);
            match data.attr("value").and_then(|a| cpp::literal(a, e)) {
                Some(lit) => {
                    let n = self.name(r);
                    self.consts.push(format!("{} {n} = {lit};", cpp::elem(e)));
                }
                None => self.unsupported(op, "a constant that is not a number"),
            }
            return;
        }
        let args: Vec<String> = data.operands.clone().iter().map(|&v| self.expr(v)).collect();
        let a0 = data.operands.first().map(|&v| self.elem_of(v)).unwrap_or(ElemType::I32);
        let value = match spec.syntax {
            Syntax::ArithBinary => binary(spec.cpp, &args, a0),
            Syntax::ArithCmp => compare(data.attr("predicate"), &args, a0),
            Syntax::ArithCast if data.opcode == Opcode::ArithBitcast => None,
            Syntax::ArithCast => Some(format!("({}) {}", cpp::elem(self.elem_of(r)), args.first().cloned().unwrap_or_default())),
            Syntax::ArithSelect if args.len() == 3 => Some(format!("{} ? {} : {}", args[0], args[1], args[2])),
            _ => None,
        };
        match value {
            Some(v) => self.define(op, r, &v),
            None => self.unsupported(op, "no C++ expression for this arith op"),
        }
    }

    pub(super) fn query(&mut self, op: OpId) {
        let data = self.m.op(op);
        let call = match data.opcode {
            Opcode::GetBlockIdx => "get_block_idx()",
            Opcode::GetBlockNum => "get_block_num()",
            Opcode::GetSubblockIdx => "get_subblockid()",
            Opcode::GetSubblockNum => "get_subblockdim()",
            _ => return self.unsupported(op, "an unknown runtime query"),
        };
        if let Some(&r) = data.results.first() {
            self.define(op, r, call);
        }
    }

    /// `sync.set` / `sync.wait` between the cores of a block, as `ptoas` writes them
    /// (PTOAS `PTOToEmitC.cpp` `PTOSyncSetToEmitC`, `buildInterCoreSync*Call`): on A5
    /// `set_intra_block(pipe, id)` (a second one for `id + 16` when the cube's FIX pipe sets, for
    /// the second vector subblock) and `wait_intra_block(pipe, id)`; on A2A3
    /// `ffts_cross_core_sync(pipe, getFFTSMsg(mode, id))` and `wait_flag_dev(id)`.
    fn inter_core_sync(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        // The generic form `<PIPE_X>, id`: the pipe word, then a constant or an SSA event id.
        let args = pto_ir::ops::cross_core::ffts_args(&data);
        let id = match args.id_value {
            Some(v) => Some(format!("(int32_t) {}", self.expr(v))),
            None => args.id.map(|n| n.to_string()),
        };
        let (Some(pipe), Some(id)) = (args.pipe, id) else {
            return self.unsupported(op, "an inter-core sync without its pipe and event id");
        };
        let set = data.opcode == Opcode::SyncSet;
        if self.target.id == pto_lower::TargetId::A5 {
            if !set {
                return self.line(format!("wait_intra_block({pipe}, {id});"));
            }
            self.line(format!("set_intra_block({pipe}, {id});"));
            if pipe == "PIPE_FIX" {
                let mirror = id.parse::<i64>().map(|n| (n + 16).to_string()).unwrap_or_else(|_| format!("{id} + 16"));
                self.line(format!("set_intra_block({pipe}, {mirror});"));
            }
        } else if set {
            let mode = match args.mode {
                Some(m) if m != 2 => m.to_string(),
                _ => "FFTS_MODE_VAL".to_string(),
            };
            self.line(format!("ffts_cross_core_sync({pipe}, getFFTSMsg({mode}, {id}));"));
        } else {
            self.line(format!("wait_flag_dev({id});"));
        }
    }

    pub(super) fn sync_op(&mut self, op: OpId) {
        let data = self.m.op(op);
        let args = self.enum_args(op);
        let text = match data.opcode {
            Opcode::SetFlag | Opcode::WaitFlag if args.len() == 3 => {
                let f = if data.opcode == Opcode::SetFlag { "set_flag" } else { "wait_flag" };
                format!("{f}({}, {}, {})", args[0], args[1], args[2])
            }
            Opcode::SetFlagDyn | Opcode::WaitFlagDyn => {
                let f = if data.opcode == Opcode::SetFlagDyn { "set_flag" } else { "wait_flag" };
                let pipes = pipe_pair(data.attr("args"));
                let Some(&id) = data.operands.first() else { return self.unsupported(op, "no event id operand") };
                let id = self.expr(id);
                format!("{f}({}, {}, (event_t) {id})", pipes.0, pipes.1)
            }
            Opcode::Barrier => match data.attr("pipe").and_then(|a| a.enum_value("pipe")) {
                Some(p) => format!("pipe_barrier({p})"),
                None => return self.unsupported(op, "a barrier without its pipe"),
            },
            Opcode::RecordEvent | Opcode::WaitEvent if args.len() == 3 => {
                let f = if data.opcode == Opcode::RecordEvent { "set_flag" } else { "wait_flag" };
                match (op_kind_pipe(&args[0]), op_kind_pipe(&args[1])) {
                    (Some(a), Some(b)) => format!("{f}({a}, {b}, {})", args[2]),
                    _ => return self.unsupported(op, format!("no pipe for the op kinds `{}` / `{}`", args[0], args[1])),
                }
            }
            Opcode::BarrierSync if args.len() == 1 => match op_kind_pipe(&args[0]) {
                // A5 has no vector barrier (ptoas drops it).
                Some("PIPE_V") if self.target.id == pto_lower::TargetId::A5 => return,
                Some(p) => format!("pipe_barrier({p})"),
                None => return self.unsupported(op, format!("no pipe for the op kind `{}`", args[0])),
            },
            Opcode::GetBuf | Opcode::RlsBuf if args.len() >= 2 => {
                let f = if data.opcode == Opcode::GetBuf { "get_buf" } else { "rls_buf" };
                let mode = data.attr("mode").and_then(|a| cpp::attr_token(a, None, true)).map(|t| t.1).unwrap_or_else(|| "0".to_string());
                match op_kind_pipe(&args[0]) {
                    Some(p) => format!("{f}({p}, {}, {mode})", args[1]),
                    None => return self.unsupported(op, format!("no pipe for the op kind `{}`", args[0])),
                }
            }
            Opcode::SyncSet | Opcode::SyncWait => return self.inter_core_sync(op),
            // PTOAS `PTOSyncToEmitC` (`PTOToEmitC.cpp:4647-4663`): `TSYNC(events...)`.
            Opcode::TSync => return self.tile_op(op),
            _ => {
                return self.unsupported(op, "this sync op has no C++ spelling yet");
            }
        };
        self.line(format!("{text};"));
    }
}

/// The pipe an op kind (`pipe_event_type`) runs on, from the op table's one copy of PTOAS's map
/// ([`pto_ir::ops::Pipe::of_sync_op_kind`]).
fn op_kind_pipe(kind: &str) -> Option<&'static str> {
    pto_ir::ops::Pipe::of_sync_op_kind(kind).and_then(pto_ir::ops::Pipe::cpp_name)
}

/// The two pipes of a `_dyn` sync op's `args`.
fn pipe_pair(args: Option<&Attr>) -> (String, String) {
    let names: Vec<String> = match args {
        Some(Attr::Array(a)) => {
            a.iter().filter_map(|x| if let Attr::Enum(e) = x { Some(e.value_name().to_string()) } else { None }).collect()
        }
        _ => Vec::new(),
    };
    (names.first().cloned().unwrap_or_default(), names.get(1).cloned().unwrap_or_default())
}

/// A binary or unary arith expression from the operator in the `cpp` column (`u` prefix: on
/// unsigned operands; a word: a function of the operands).
fn binary(op: &str, args: &[String], e: ElemType) -> Option<String> {
    let (a, b) = (args.first()?, args.get(1));
    let u = unsigned(e);
    Some(match op {
        "neg" => format!("-{a}"),
        "ceildiv" => format!("({a} + {b} - 1) / {b}", b = b?),
        "uceildiv" => format!("(({u}) {a} + ({u}) {b} - 1) / ({u}) {b}", b = b?),
        "floordiv" => {
            let b = b?;
            format!("{a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0)))")
        }
        "max" | "fmax" => format!("{a} > {b} ? {a} : {b}", b = b?),
        "min" | "fmin" => format!("{a} < {b} ? {a} : {b}", b = b?),
        "umax" => format!("({u}) {a} > ({u}) {b} ? {a} : {b}", b = b?),
        "umin" => format!("({u}) {a} < ({u}) {b} ? {a} : {b}", b = b?),
        "fmod" => format!("fmod({a}, {})", b?),
        _ if op.starts_with('u') => format!("({u}) {a} {} ({u}) {}", &op[1..], b?),
        _ if !op.is_empty() => format!("{a} {op} {}", b?),
        _ => return None,
    })
}

/// An `arith.cmpi` / `cmpf` expression.
fn compare(pred: Option<&Attr>, args: &[String], e: ElemType) -> Option<String> {
    let Some(Attr::Opaque(p)) = pred else { return None };
    let (a, b) = (args.first()?, args.get(1)?);
    let u = unsigned(e);
    let sym = |s: &str| match s {
        "eq" => Some("=="),
        "ne" => Some("!="),
        "lt" => Some("<"),
        "le" => Some("<="),
        "gt" => Some(">"),
        "ge" => Some(">="),
        _ => None,
    };
    Some(match p.as_str() {
        "true" => "true".to_string(),
        "false" => "false".to_string(),
        "ord" => format!("!isnan({a}) && !isnan({b})"),
        "uno" => format!("isnan({a}) || isnan({b})"),
        s if s.len() > 2 && s.starts_with('u') && !e.is_float() => format!("({u}) {a} {} ({u}) {b}", sym(&s[1..])?),
        s if s.len() > 2 => format!("{a} {} {b}", sym(&s[1..])?),
        s => format!("{a} {} {b}", sym(s)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_unsigned_forms() {
        let args = ["a".to_string(), "b".to_string()];
        assert_eq!(binary("+", &args, ElemType::I32).unwrap(), "a + b");
        assert_eq!(binary("u/", &args, ElemType::I32).unwrap(), "(uint32_t) a / (uint32_t) b");
        assert_eq!(binary("neg", &args, ElemType::F32).unwrap(), "-a");
    }

    #[test]
    fn comparisons_by_predicate() {
        let args = ["a".to_string(), "b".to_string()];
        let p = |s: &str| Attr::Opaque(s.to_string());
        assert_eq!(compare(Some(&p("slt")), &args, ElemType::I32).unwrap(), "a < b");
        assert_eq!(compare(Some(&p("ult")), &args, ElemType::I64).unwrap(), "(uint64_t) a < (uint64_t) b");
        assert_eq!(compare(Some(&p("oge")), &args, ElemType::F32).unwrap(), "a >= b");
        assert_eq!(compare(Some(&p("eq")), &args, ElemType::I32).unwrap(), "a == b");
    }
}
