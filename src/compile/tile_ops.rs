//! Tiles and tile instructions: `alloc_tile` / `memref.alloc` as `Tile<...> v; TASSIGN(v,
//! addr);`, `set_validshape`, and every ISA instruction through its op-table rule
//! ([`super::rule`]). The one instruction whose C++ form depends on several attributes at once,
//! `tmov` (`TMOV` / `TMOV_FP` with the fixpipe modes), is the `rule:tmov` entry of this family
//! module.

use super::rule::{self, RuleCtx};
use super::{Emitter, cpp, prologue};
use pto_ir::module::{OpId, Payload, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::ops::bind::{match_form, segments};
use pto_ir::types::{Dim, TileDesc, Type};

impl<'m> Emitter<'m> {
    /// The tile description of a tile value (a `!pto.tile_buf` or a placed `memref.alloc`).
    pub(super) fn tile_desc(&self, v: ValueId) -> Option<TileDesc> {
        self.m.value_type(v).tile().copied().or_else(|| self.local.get(&v).copied())
    }

    /// Declares tile `r` of type `desc`, at `addr` when given.
    fn declare_tile(&mut self, r: ValueId, desc: &TileDesc, addr: Option<String>, valid: Option<(String, String)>) -> String {
        let t = cpp::tile(desc);
        let n = self.name(r);
        match valid {
            Some((vr, vc)) => self.line(format!("{t} {n} = {t}({vr}, {vc});")),
            None => self.line(format!("{t} {n};")),
        }
        if let Some(a) = addr {
            self.line(format!("TASSIGN({n}, {a});"));
        }
        n
    }

    /// A tile with a dynamic valid shape that a `set_validshape` resizes, as `ptoas` writes it
    /// (`PTOToEmitC.cpp`, the `pointer_cast` of a `declare_tile` followed by `set_validshape`):
    /// a static base tile at the address, and the dynamic tile rebound to the base's storage
    /// through `.data()`.
    fn rebound_tile(&mut self, r: ValueId, desc: &TileDesc, addr: String, (vr, vc): (String, String)) {
        let base_desc = TileDesc { valid_rows: Dim::Static(desc.rows), valid_cols: Dim::Static(desc.cols), ..*desc };
        let base = self.fresh();
        self.line(format!("{} {base};", cpp::tile(&base_desc)));
        self.line(format!("TASSIGN({base}, {addr});"));
        let n = self.declare_tile(r, desc, None, Some((vr, vc)));
        let (data, raw) = (self.fresh(), self.fresh());
        self.line(format!("{} {}* {data} = {base}.data();", cpp::space(desc.loc), cpp::elem(desc.dtype)));
        self.line(format!("uint64_t {raw} = reinterpret_cast<uint64_t>({data});"));
        self.line(format!("TASSIGN({n}, {raw});"));
    }

    pub(super) fn alloc_op(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        match data.opcode {
            Opcode::AllocTile => {
                let Some(&r) = data.results.first() else { return };
                let Some(desc) = self.tile_desc(r) else { return self.unsupported(op, "an alloc_tile of a Level-1 tile") };
                let segs = match &data.payload {
                    Payload::Segments(s) => s.clone(),
                    _ => vec![0, 0, 0],
                };
                let mut ops = data.operands.iter();
                let addr = if segs.first() == Some(&1) { ops.next().map(|&a| self.expr(a)) } else { None };
                let rest: Vec<ValueId> = ops.copied().collect();
                let dynamic = desc.valid_rows == Dim::Dynamic || desc.valid_cols == Dim::Dynamic;
                let valid = match rest.as_slice() {
                    [vr, vc] if dynamic => Some((self.expr(*vr), self.expr(*vc))),
                    _ => None,
                };
                let Some(addr) = addr else {
                    return self.unsupported(op, "a tile without an address (plan-memory did not place it)");
                };
                match valid {
                    Some(valid) if self.resized.contains(&r) => self.rebound_tile(r, &desc, addr, valid),
                    valid => {
                        self.declare_tile(r, &desc, Some(addr), valid);
                    }
                }
            }
            Opcode::SetValidShape => {
                let [t, vr, vc] = data.operands[..] else { return self.unsupported(op, "a malformed set_validshape") };
                let (t, vr, vc) = (self.expr(t), self.expr(vr), self.expr(vc));
                self.line(format!("{t}.SetValidShape({vr}, {vc});"));
            }
            _ => self.unsupported(op, "this allocation op has no C++ spelling yet"),
        }
    }

    /// `memref.alloc` of an on-chip buffer: a tile at the address the memory map gives it.
    pub(super) fn memref_alloc(&mut self, op: OpId) {
        let Some(&r) = self.m.op(op).results.first() else { return };
        match self.topo.allocs.get(&op).cloned() {
            Some(Ok((desc, addr))) => {
                self.local.insert(r, desc);
                let a = self.constant("int64_t", &addr.to_string());
                self.declare_tile(r, &desc, Some(a), None);
            }
            Some(Err(why)) => self.unsupported(op, why),
            None => self.unsupported(op, "a memref.alloc the memory map did not place"),
        }
    }

    /// Attribute `name` of `op`, marked as spelled in the C++ ([`Emitter::tile_op`] refuses an
    /// op with an attribute its rule never read).
    pub(super) fn attr_of(&self, op: OpId, name: &str) -> Option<&'m pto_ir::Attr> {
        self.attrs_read.borrow_mut().push(name.to_string());
        pto_sim::cores::topology::op_attr(self.m, op, name)
    }

    /// An ISA instruction, from its op-table rule; `COMPILE_UNSUPPORTED` when the op carries an
    /// attribute the rule does not spell and that must be applied
    /// ([`pto_ir::ops::Opcode::must_apply_attr`]): `pto compile` never drops what an attribute
    /// asks for.
    pub(super) fn tile_op(&mut self, op: OpId) {
        self.attrs_read.borrow_mut().clear();
        let errors = self.errors.len();
        self.tile_op_rule(op);
        if self.errors.len() > errors {
            return;
        }
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let read = self.attrs_read.borrow();
        // An attribute another form of the op's rule spells counts as spelled: `ptoas` drops it
        // in the forms that do not (`tgather`'s `cmpMode` in the index form).
        let in_rule = |k: &str| spec.cpp.contains(&format!("@{k}")) || spec.cpp.contains(&format!("@#{k}"));
        let unspelled = data
            .attrs
            .iter()
            .map(|(k, _)| k.as_str())
            .find(|k| !read.iter().any(|r| r == k) && !in_rule(k) && data.opcode.must_apply_attr(k));
        if let Some(name) = unspelled.map(str::to_string) {
            drop(read);
            self.unsupported(
                op,
                format!("attribute `{name}` has no C++ spelling in pto compile (docs/compile.md lists each op's attributes)"),
            );
        }
    }

    fn tile_op_rule(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let column = if !spec.cpp.is_empty() {
            spec.cpp.to_string()
        } else if !spec.page.is_empty() {
            spec.page.rsplit('/').next().unwrap_or("").to_ascii_uppercase()
        } else {
            return self.unsupported(op, "the op has no pto-isa instruction (no ISA page, no `cpp` rule in the op table)");
        };
        if let Some(name) = column.strip_prefix("rule:") {
            return match name {
                "tmov" => self.tmov(op),
                "tstore" => self.tstore(op),
                "tmrgsort" => self.tmrgsort(op),
                "element" => self.element(op),
                _ => self.unsupported(op, format!("unknown family rule `{name}`")),
            };
        }
        let Ok(fm) = match_form(self.m, op) else { return self.unsupported(op, "its operands fit none of its forms") };
        let forms = &data.opcode.parsed().forms;
        let (ins, outs, _) = segments(data);
        let bound: Vec<(String, ValueId)> = fm.bound(forms, ins, outs).into_iter().map(|(s, v)| (s.name.clone(), v)).collect();
        let pattern = rule::pattern_for(&column, fm.form).to_string();
        // `tassign`'s result is its tile, rebound (PTOAS `PTOTAssignToEmitC` replaces the op
        // with the tile: `PTOToEmitC.cpp:5258-5261`).
        if data.opcode == Opcode::TAssign
            && let (Some(&r), Some(&tile)) = (data.results.first(), data.ins().first())
        {
            let name = self.name(tile);
            self.names.insert(r, name);
        }
        // A tile result (`treshape`) is a new tile the instruction fills: declared first, without
        // an address (`TRESHAPE(dst, src)` points it at the source's bytes), as `ptoas` writes it.
        for &r in &data.results {
            let Some(desc) = self.tile_desc(r).filter(|_| !self.names.contains_key(&r)) else { continue };
            if desc.valid_rows == Dim::Dynamic || desc.valid_cols == Dim::Dynamic {
                return self.unsupported(op, "a tile result with a dynamic valid shape");
            }
            self.declare_tile(r, &desc, None, None);
        }
        let mut ctx = OpCtx { e: self, op, bound, failed: None };
        let stmt = rule::render(&pattern, &mut ctx);
        let failed = ctx.failed.take();
        match (stmt, failed) {
            (_, Some(why)) | (Err(why), _) => self.unsupported(op, why),
            (Ok(s), None) => {
                let callee = s.split(['<', '(']).next().unwrap_or("");
                if let Some(h) = prologue::helper_for(callee) {
                    self.helpers.insert(h);
                }
                self.line(format!("{s};"));
            }
        }
    }

    /// The C++ expression of an instruction operand: a tile or scalar variable, a view's
    /// `GlobalTensor`, a pipe.
    fn operand_expr(&mut self, v: ValueId) -> Result<String, String> {
        let ty = self.m.value_type(v).clone();
        if ty.is_gm() || (ty.is_opaque("memref<") && self.tile_desc(v).is_none()) {
            return self.tensor(v).ok_or_else(|| format!("no GlobalTensor for a GM operand of type `{ty}`"));
        }
        match ty {
            Type::Tile(_) => Err("a Level-1 tile value".to_string()),
            Type::Opaque(t) if t.starts_with("!pto.group") => Err("a communication group operand".to_string()),
            _ => Ok(self.expr(v)),
        }
    }

    /// `(slot, value)` of each operand of `op` in the first of its forms that fits; `None` when
    /// none does.
    fn slot_values(&self, op: OpId) -> Option<Vec<(String, ValueId)>> {
        let data = self.m.op(op);
        let fm = match_form(self.m, op).ok()?;
        let (ins, outs, _) = segments(data);
        Some(fm.bound(&data.opcode.parsed().forms, ins, outs).into_iter().map(|(s, v)| (s.name.clone(), v)).collect())
    }

    /// `TMOV` / `TMOV_FP`: the template lists the tile types when any fixpipe mode is set, the
    /// `acc_to_vec` mode and the relu mode (written when either is set); `TMOV_FP` for a
    /// quantized move without an `acc_to_vec` mode.
    fn tmov(&mut self, op: OpId) {
        let Some(bound) = self.slot_values(op) else { return self.unsupported(op, "its operands fit none of its forms") };
        let get = |n: &str| bound.iter().find(|(s, _)| s == n).map(|(_, v)| *v);
        let (Some(dst), Some(src)) = (get("dst"), get("src")) else { return self.unsupported(op, "tmov without src or dst") };
        let (fp, pre) = (get("fp"), get("preQuantScalar"));
        let mode = self.attr_of(op, "accToVecMode").and_then(|a| a.enum_value("acc_to_vec_mode"));
        let relu = self.attr_of(op, "reluPreMode").and_then(|a| a.enum_value("relu_pre_mode")).unwrap_or("no_relu");
        let relu_set = relu != "no_relu";
        let (Some(dt), Some(st)) = (self.tile_desc(dst), self.tile_desc(src)) else { return self.unsupported(op, "tmov of non-tiles") };
        let mut targs = vec![cpp::tile(&dt), cpp::tile(&st)];
        let mut args = vec![self.expr(dst), self.expr(src)];
        let mut callee = "TMOV";
        if let Some(f) = fp {
            let Some(ft) = self.tile_desc(f) else { return self.unsupported(op, "a tmov fp operand that is not a tile") };
            targs.push(cpp::tile(&ft));
            args.push(self.expr(f));
            if mode.is_none() {
                callee = "TMOV_FP";
            }
        } else if let Some(p) = pre {
            args.push(self.expr(p));
        }
        if let Some(md) = mode {
            targs.push(cpp::enum_token("acc_to_vec_mode", md).1);
        }
        if mode.is_some() || relu_set {
            targs.push(cpp::enum_token("relu_pre_mode", relu).1);
        }
        let templ = if targs.len() > 2 || fp.is_some() || pre.is_some() { format!("<{}>", targs.join(", ")) } else { String::new() };
        self.line(format!("{callee}{templ}({});", args.join(", ")));
    }
}

impl Emitter<'_> {
    /// `TSTORE`: the overload family PTOAS picks from the attributes (`PTOToEmitC.cpp:4017-4075`,
    /// pto-isa `pto_instr.hpp:384-460`): `STPhase` first when not `unspecified`; the tile and
    /// `GlobalTensor` types and the `AtomicType` when atomic, relu or a pre-quant scalar is
    /// set; the `ReluPreMode` too when relu or a pre-quant scalar is set.
    fn tstore(&mut self, op: OpId) {
        let Some(bound) = self.slot_values(op) else { return self.unsupported(op, "its operands fit none of its forms") };
        let get = |n: &str| bound.iter().find(|(s, _)| s == n).map(|(_, v)| *v);
        let (Some(dst), Some(src)) = (get("dst"), get("src")) else { return self.unsupported(op, "tstore without src or dst") };
        if bound.iter().any(|(s, _)| s == "offsets") {
            return self.unsupported(op, "a tstore at element offsets (PTO-AS `%v[%r, %c]`) has no TSTORE overload");
        }
        let enum_of =
            |name: &str, kind: &str, default: &'static str| self.attr_of(op, name).and_then(|a| a.enum_value(kind)).unwrap_or(default);
        let phase = enum_of("stPhase", "st_phase", "unspecified");
        let atomic = enum_of("atomicType", "atomic_type", "atomic_none");
        let relu = enum_of("reluPreMode", "relu_pre_mode", "no_relu");
        let pre = get("preQuantScalar");
        let Some(st) = self.tile_desc(src) else { return self.unsupported(op, "a tstore source that is not a tile") };
        let gt = match self.operand_expr(dst) {
            Ok(e) => e,
            Err(why) => return self.unsupported(op, why),
        };
        let mut targs = Vec::new();
        if phase != "unspecified" {
            targs.push(cpp::enum_token("st_phase", phase).1);
        }
        let relu_or_pre = relu != "no_relu" || pre.is_some();
        if relu_or_pre || atomic != "atomic_none" {
            let Some(gt_type) = self.tensor_types.get(&gt).cloned() else {
                return self.unsupported(op, "a tstore destination without a GlobalTensor type");
            };
            targs.extend([cpp::tile(&st), gt_type, cpp::enum_token("atomic_type", atomic).1]);
            if relu_or_pre {
                targs.push(cpp::enum_token("relu_pre_mode", relu).1);
            }
        }
        let mut args = vec![gt, self.expr(src)];
        if let Some(p) = pre {
            args.push(self.expr(p));
        }
        let templ = if targs.is_empty() { String::new() } else { format!("<{}>", targs.join(", ")) };
        self.line(format!("TSTORE{templ}({});", args.join(", ")));
    }

    /// `TMRGSORT`: the list form `TMRGSORT(dst, src, blockLen)`, or the merge of 2 to 4 lists
    /// `TMRGSORT<Dst, Tmp, Src0.., exhausted>(dst, executed, tmp, src0, ...)`, where (as in
    /// PTOAS's operand order) the last `ins` operand is the scratch tile.
    /// `tgetval` / `tsetval` as `ptoas` writes them (`PTOToEmitC.cpp:5063-5106`, the
    /// `PTOAS__TILE_GET_VALUE` / `PTOAS__TILE_SET_VALUE` markers its post-processing turns into
    /// the tile's accessors): `T v = tile.GetValue(i);`, `tile.SetValue(i, v);`.
    fn element(&mut self, op: OpId) {
        let data = self.m.op(op);
        let (ins, outs) = (data.ins().to_vec(), data.outs().to_vec());
        match (data.opcode, ins.as_slice(), outs.as_slice(), data.results.first()) {
            (Opcode::TGetVal, [src, index], [], Some(&r)) => {
                let (t, i) = (self.name(*src), self.expr(*index));
                self.define(op, r, &format!("{t}.GetValue({i})"));
            }
            (Opcode::TSetVal, [dst, index, value], [], _) | (Opcode::TSetVal, [index, value], [dst], _) => {
                let (t, i, v) = (self.name(*dst), self.expr(*index), self.expr(*value));
                self.line(format!("{t}.SetValue({i}, {v});"));
            }
            _ => self.unsupported(op, "an element access that is neither tgetval(src, index) nor tsetval(dst, index, value)"),
        }
    }

    fn tmrgsort(&mut self, op: OpId) {
        let data = self.m.op(op);
        let (ins, outs) = (data.ins().to_vec(), data.outs().to_vec());
        let exhausted = matches!(self.attr_of(op, "exhausted"), Some(pto_ir::Attr::Bool(true)) | Some(pto_ir::Attr::Unit));
        let text = match (ins.as_slice(), outs.as_slice()) {
            ([src, block_len], [dst]) if self.m.value_type(*block_len).tile().is_none() => {
                let (d, s, b) = (self.expr(*dst), self.expr(*src), self.expr(*block_len));
                format!("TMRGSORT({d}, {s}, {b})")
            }
            ([srcs @ .., tmp], [dst, executed]) if (2..=4).contains(&srcs.len()) => {
                let mut targs = Vec::new();
                for &t in [*dst, *tmp].iter().chain(srcs) {
                    match self.tile_desc(t) {
                        Some(d) => targs.push(cpp::tile(&d)),
                        None => return self.unsupported(op, "a merge-sort operand that is not a tile"),
                    }
                }
                targs.push(exhausted.to_string());
                let mut args = vec![self.expr(*dst), self.expr(*executed), self.expr(*tmp)];
                args.extend(srcs.iter().map(|&s| self.expr(s)));
                format!("TMRGSORT<{}>({})", targs.join(", "), args.join(", "))
            }
            _ => return self.unsupported(op, "a tmrgsort that is neither the list form nor a merge of 2 to 4 lists with a scratch tile"),
        };
        self.line(format!("{text};"));
    }
}

/// The [`RuleCtx`] of one op: its slot bindings over the emitter.
struct OpCtx<'e, 'm> {
    e: &'e mut Emitter<'m>,
    op: OpId,
    bound: Vec<(String, ValueId)>,
    /// The first operand that has no C++ form.
    failed: Option<String>,
}

impl OpCtx<'_, '_> {
    fn value(&self, slot: &str) -> Option<ValueId> {
        self.bound.iter().find(|(s, _)| s == slot).map(|(_, v)| *v).or_else(|| (slot == "tmp").then(|| self.tmp_stand_in()).flatten())
    }

    /// What to pass for a scratch tile the program left out where pto-isa's C++ signature
    /// still takes one: an op whose implementation on this target ignores `tmp` (the op
    /// table's `TmpRule::Ignored`) while another target requires it, so `pto_instr.hpp`
    /// declares the `tmp` parameter on every target. The op's first source stands in: the
    /// implementation never touches it. (The 16 ops whose PTOAS DPS form requires `tmp`, A5's
    /// `TROWMAX` among them, always have one: the reader or `insert-scratch` sees to it.)
    fn tmp_stand_in(&self) -> Option<ValueId> {
        use pto_ir::ops::TmpRule;
        let data = self.e.m.op(self.op);
        let rule = data.opcode.spec().tmp;
        let here = if self.e.target.id == pto_lower::TargetId::A5 { rule.a5 } else { rule.a2a3 };
        let needed_elsewhere = rule.a2a3 == TmpRule::Required || rule.a5 == TmpRule::Required;
        if here != TmpRule::Ignored || !needed_elsewhere || self.bound.iter().any(|(s, _)| s == "tmp") {
            return None;
        }
        data.ins().iter().copied().find(|&v| self.e.tile_desc(v).is_some())
    }
    fn expr(&mut self, v: ValueId) -> String {
        match self.e.operand_expr(v) {
            Ok(s) => s,
            Err(why) => {
                self.failed.get_or_insert(why);
                String::new()
            }
        }
    }
}

impl RuleCtx for OpCtx<'_, '_> {
    fn operand(&mut self, slot: &str) -> Option<String> {
        let v = self.value(slot)?;
        Some(self.expr(v))
    }
    fn all_operands(&mut self) -> Vec<String> {
        let data = self.e.m.op(self.op);
        let (ins, outs, _) = segments(data);
        let mut order: Vec<ValueId> = outs.iter().chain(ins).copied().collect();
        // The scratch slot is the op's last source: its stand-in goes there.
        order.extend(self.tmp_stand_in());
        order.into_iter().map(|v| self.expr(v)).collect()
    }
    fn tile_type(&self, slot: &str) -> Option<String> {
        self.value(slot).and_then(|v| self.e.tile_desc(v)).map(|d| cpp::tile(&d))
    }
    fn elem_type(&self, slot: &str) -> Option<String> {
        self.value(slot).and_then(|v| self.e.m.value_type(v).elem_type()).map(|e| cpp::elem(e).to_string())
    }
    fn attr(&self, name: &str, numeric: bool) -> Option<(Option<String>, String)> {
        let kind = self.e.m.op(self.op).opcode.parsed().attr_kind(name);
        self.e.attr_of(self.op, name).and_then(|a| cpp::attr_token(a, kind, numeric))
    }
    fn default_attr(&self, name: &str, text: &str) -> (Option<String>, String) {
        cpp::default_token(text, self.e.m.op(self.op).opcode.parsed().attr_kind(name))
    }
    fn constant(&mut self, ty: &str, token: &str) -> String {
        self.e.constant(ty, token)
    }
}
