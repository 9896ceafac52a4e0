//! Types and attribute values in both directions.
//!
//! Builtin attribute kinds (unit, bool, integers, floats, strings, arrays, dictionaries, type
//! and symbol references) are built and read structurally, so numbers never go through text.
//! Everything else — PTO enums (`#pto<cmp gt>`, `#pto.layout<nd>`), opaque attributes
//! (`dense<...>`, `#pto.tile_buf_config<...>`) and every type — travels as its spelling: ours
//! printed by `pto-asm` and parsed by MLIR on the way out, MLIR's printed and parsed by
//! `pto-asm` on the way in. Every MLIR handle is checked before use: a failed parse is a
//! message, never a null handle passed on to MLIR.

use super::context::Mlir;
use super::convention::{UNTYPED_MLIR, UNTYPED_PTO, original_spelling, respellings};
use super::raw;
use mlir_sys::*;
use pto_ir::{Attr, Module, Type, TypeId};
use std::collections::HashMap;

/// Our types and attributes as MLIR handles (cached per type).
pub(super) struct ToMlir<'c> {
    mlir: &'c Mlir,
    types: HashMap<TypeId, MlirType>,
}

/// The last message MLIR emitted (after a failed parse), or `fallback`.
fn last_message(mlir: &Mlir, fallback: &str) -> String {
    mlir.take().pop().map(|c| c.message).unwrap_or_else(|| fallback.to_string())
}

impl<'c> ToMlir<'c> {
    /// A converter for `mlir`'s context.
    pub fn new(mlir: &'c Mlir) -> ToMlir<'c> {
        ToMlir { mlir, types: HashMap::new() }
    }

    /// The raw context.
    pub fn ctx(&self) -> MlirContext {
        self.mlir.ctx.to_raw()
    }

    /// The MLIR type of our type `t`.
    pub fn ty(&mut self, m: &Module, t: TypeId) -> Result<MlirType, String> {
        if let Some(&ty) = self.types.get(&t) {
            return Ok(ty);
        }
        let text = match m.ty(t) {
            Type::Opaque(s) if s == UNTYPED_PTO => UNTYPED_MLIR.to_string(),
            other => other.to_string(),
        };
        let ty = match self.parse_type(&text) {
            Ok(ty) => ty,
            // A type MLIR refuses travels respelled (see `convention::respellings`).
            Err(e) => respellings(&text).iter().find_map(|alt| self.parse_type(alt).ok()).ok_or(e)?,
        };
        self.types.insert(t, ty);
        Ok(ty)
    }

    /// Parses a type spelling with MLIR.
    pub fn parse_type(&self, text: &str) -> Result<MlirType, String> {
        let ty = unsafe { mlirTypeParseGet(self.ctx(), raw::string_ref(text.as_bytes())) };
        if ty.ptr.is_null() {
            let why = last_message(self.mlir, "not a type");
            return Err(format!("type `{text}` has no MLIR spelling: {why}"));
        }
        Ok(ty)
    }

    /// `i64` (the type of integers written without one).
    fn i64(&self) -> MlirType {
        unsafe { mlirIntegerTypeGet(self.ctx(), 64) }
    }

    /// A string attribute.
    pub fn str(&self, s: &str) -> MlirAttribute {
        unsafe { mlirStringAttrGet(self.ctx(), raw::string_ref(s.as_bytes())) }
    }

    /// An `i64` integer attribute.
    pub fn int(&self, v: i64) -> MlirAttribute {
        unsafe { mlirIntegerAttrGet(self.i64(), v) }
    }

    /// The unit attribute.
    pub fn unit(&self) -> MlirAttribute {
        unsafe { mlirUnitAttrGet(self.ctx()) }
    }

    /// An array attribute.
    pub fn array(&self, items: &[MlirAttribute]) -> MlirAttribute {
        unsafe { mlirArrayAttrGet(self.ctx(), items.len() as isize, items.as_ptr()) }
    }

    /// `[s0, s1, ...]` of strings.
    pub fn strings<S: AsRef<str>>(&self, items: &[S]) -> MlirAttribute {
        let items: Vec<MlirAttribute> = items.iter().map(|s| self.str(s.as_ref())).collect();
        self.array(&items)
    }

    /// `array<i32: ...>`.
    pub fn dense_i32(&self, items: &[u32]) -> MlirAttribute {
        let items: Vec<i32> = items.iter().map(|&v| v as i32).collect();
        unsafe { mlirDenseI32ArrayGet(self.ctx(), items.len() as isize, items.as_ptr()) }
    }

    /// `array<i64: ...>`.
    pub fn dense_i64(&self, items: &[i64]) -> MlirAttribute {
        unsafe { mlirDenseI64ArrayGet(self.ctx(), items.len() as isize, items.as_ptr()) }
    }

    /// A type attribute.
    pub fn type_attr(&self, t: MlirType) -> MlirAttribute {
        unsafe { mlirTypeAttrGet(t) }
    }

    /// A flat symbol reference `@name`.
    pub fn symbol(&self, s: &str) -> MlirAttribute {
        unsafe { mlirFlatSymbolRefAttrGet(self.ctx(), raw::string_ref(s.as_bytes())) }
    }

    /// An integer attribute of type `t` (an integer or `index` type; a float type gives a float).
    pub fn int_of_type(&self, v: i64, t: MlirType) -> Result<MlirAttribute, String> {
        if unsafe { mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t) } {
            return Ok(unsafe { mlirIntegerAttrGet(t, v) });
        }
        self.float_of_type(v as f64, t)
    }

    /// A float attribute of type `t` (a float type).
    pub fn float_of_type(&self, v: f64, t: MlirType) -> Result<MlirAttribute, String> {
        let loc = unsafe { mlirLocationUnknownGet(self.ctx()) };
        let a = unsafe { mlirFloatAttrDoubleGetChecked(loc, t, v) };
        if a.ptr.is_null() {
            let why = last_message(self.mlir, "not a float type");
            return Err(format!("no float attribute of type `{}`: {why}", raw::type_text(t)));
        }
        Ok(a)
    }

    /// A dictionary attribute; duplicate keys are an error (MLIR does not check them).
    pub fn dict(&self, entries: &[(String, MlirAttribute)]) -> Result<MlirAttribute, String> {
        let mut seen = std::collections::HashSet::new();
        let mut named = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            if !seen.insert(k.as_str()) {
                return Err(format!("attribute `{k}` appears twice"));
            }
            let name = unsafe { mlirIdentifierGet(self.ctx(), raw::string_ref(k.as_bytes())) };
            named.push(MlirNamedAttribute { name, attribute: *v });
        }
        Ok(unsafe { mlirDictionaryAttrGet(self.ctx(), named.len() as isize, named.as_ptr()) })
    }

    /// Parses an attribute spelling with MLIR.
    pub fn parse_attr(&self, text: &str) -> Result<MlirAttribute, String> {
        let a = unsafe { mlirAttributeParseGet(self.ctx(), raw::string_ref(text.as_bytes())) };
        if a.ptr.is_null() {
            let why = last_message(self.mlir, "not an attribute");
            return Err(format!("attribute `{text}` has no MLIR spelling: {why}"));
        }
        Ok(a)
    }

    /// Our attribute value `a` as MLIR's.
    pub fn attr(&mut self, m: &Module, a: &Attr) -> Result<MlirAttribute, String> {
        Ok(match a {
            Attr::Unit => self.unit(),
            Attr::Bool(b) => unsafe { mlirBoolAttrGet(self.ctx(), i32::from(*b)) },
            Attr::Int(v, None) => self.int(*v),
            Attr::Int(v, Some(t)) => {
                let t = self.ty(m, *t)?;
                self.int_of_type(*v, t)?
            }
            Attr::Float(v, t) => {
                let t = match t {
                    Some(t) => self.ty(m, *t)?,
                    None => unsafe { mlirF64TypeGet(self.ctx()) },
                };
                self.float_of_type(*v, t)?
            }
            Attr::Str(s) => self.str(s),
            Attr::Array(items) => {
                let items = items.iter().map(|i| self.attr(m, i)).collect::<Result<Vec<_>, _>>()?;
                self.array(&items)
            }
            Attr::Dict(entries) => {
                let entries = entries.iter().map(|(k, v)| Ok((k.clone(), self.attr(m, v)?))).collect::<Result<Vec<_>, String>>()?;
                self.dict(&entries)?
            }
            Attr::Type(t) => {
                let t = self.ty(m, *t)?;
                self.type_attr(t)
            }
            Attr::Symbol(s) => self.symbol(s),
            Attr::Enum(_) | Attr::Opaque(_) => self.parse_attr(&pto_asm::print_attribute(m, a))?,
        })
    }
}

/// MLIR types and attributes as ours (types cached per MLIR type).
#[derive(Default)]
pub(super) struct FromMlir {
    types: HashMap<usize, TypeId>,
}

/// The text of an MLIR type, and whether it is `none` (our untyped result).
fn type_spelling(t: MlirType) -> String {
    if unsafe { mlirTypeIsANone(t) } { UNTYPED_PTO.to_string() } else { raw::type_text(t) }
}

impl FromMlir {
    /// Our type for MLIR's `t`, interned into `m`.
    pub fn ty(&mut self, m: &mut Module, t: MlirType) -> Result<TypeId, String> {
        let key = t.ptr as usize;
        if let Some(&id) = self.types.get(&key) {
            return Ok(id);
        }
        let printed = type_spelling(t);
        let text = original_spelling(&printed).unwrap_or(printed);
        let ty = if text == UNTYPED_PTO {
            Type::Opaque(text)
        } else {
            pto_asm::parse_type(&text).map_err(|e| format!("malformed type `{text}`: {e}"))?
        };
        let id = m.intern(ty);
        self.types.insert(key, id);
        Ok(id)
    }

    /// Our attribute for MLIR's `a` (integers of type `i64` and floats of type `f64` are the
    /// untyped ones of the text).
    pub fn attr(&mut self, m: &mut Module, a: MlirAttribute) -> Result<Attr, String> {
        unsafe {
            if mlirAttributeIsAUnit(a) {
                return Ok(Attr::Unit);
            }
            if mlirAttributeIsABool(a) {
                return Ok(Attr::Bool(mlirBoolAttrGetValue(a)));
            }
            if mlirAttributeIsAInteger(a) {
                let t = mlirAttributeGetType(a);
                let v = integer_value(a)?;
                let is_i64 = mlirTypeIsAInteger(t) && mlirIntegerTypeIsSignless(t) && mlirIntegerTypeGetWidth(t) == 64;
                return Ok(Attr::Int(v, if is_i64 { None } else { Some(self.ty(m, t)?) }));
            }
            if mlirAttributeIsAFloat(a) {
                let t = mlirAttributeGetType(a);
                let v = float_value(a);
                return Ok(Attr::Float(v, if mlirTypeIsAF64(t) { None } else { Some(self.ty(m, t)?) }));
            }
            if mlirAttributeIsAString(a) {
                return Ok(Attr::Str(raw::to_string(mlirStringAttrGetValue(a))));
            }
            if mlirAttributeIsAArray(a) {
                let n = mlirArrayAttrGetNumElements(a);
                return (0..n).map(|i| self.attr(m, mlirArrayAttrGetElement(a, i))).collect::<Result<_, _>>().map(Attr::Array);
            }
            if mlirAttributeIsADictionary(a) {
                let n = mlirDictionaryAttrGetNumElements(a);
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let e = mlirDictionaryAttrGetElement(a, i);
                    out.push((raw::identifier(e.name), self.attr(m, e.attribute)?));
                }
                return Ok(Attr::Dict(out));
            }
            if mlirAttributeIsAType(a) {
                return Ok(Attr::Type(self.ty(m, mlirTypeAttrGetValue(a))?));
            }
            if mlirAttributeIsAFlatSymbolRef(a) {
                return Ok(Attr::Symbol(raw::to_string(mlirFlatSymbolRefAttrGetValue(a))));
            }
        }
        // Dialect attributes and the rest: through their spelling. A `#pto...` attribute must
        // be one `pto` understands; anything else is kept verbatim.
        let text = raw::attr_text(a);
        match pto_asm::parse_attribute(&text, m) {
            Ok(attr) => Ok(attr),
            Err(e) if text.starts_with("#pto") => Err(format!("malformed attribute `{text}`: {e}")),
            Err(_) => Ok(Attr::Opaque(text)),
        }
    }
}

/// The value of an integer attribute (up to 64 bits), read as its type's signedness says.
///
/// # Safety
/// `a` must be an integer attribute.
pub(super) unsafe fn integer_value(a: MlirAttribute) -> Result<i64, String> {
    unsafe {
        let t = mlirAttributeGetType(a);
        if mlirTypeIsAIndex(t) {
            return Ok(mlirIntegerAttrGetValueInt(a));
        }
        if mlirIntegerTypeGetWidth(t) > 64 {
            return Err(format!("integer attribute `{}` is wider than 64 bits", raw::attr_text(a)));
        }
        Ok(if mlirIntegerTypeIsSigned(t) {
            mlirIntegerAttrGetValueSInt(a)
        } else if mlirIntegerTypeIsUnsigned(t) {
            mlirIntegerAttrGetValueUInt(a) as i64
        } else {
            mlirIntegerAttrGetValueInt(a)
        })
    }
}

/// The value of a float attribute as the decimal the text most likely had: for types narrower
/// than `f64`, the shortest decimal that rounds to the same value in that type (`0.1 : f32` is
/// stored as 0.100000001490116...; the text said `0.1`).
///
/// # Safety
/// `a` must be a float attribute.
pub(super) unsafe fn float_value(a: MlirAttribute) -> f64 {
    unsafe {
        let v = mlirFloatAttrGetValueDouble(a);
        let t = mlirAttributeGetType(a);
        if mlirTypeIsAF64(t) || !v.is_finite() {
            return v;
        }
        if mlirTypeIsAF32(t) {
            return format!("{:?}", v as f32).parse().unwrap_or(v);
        }
        // Narrower types: let MLIR round each candidate.
        let ctx = mlirAttributeGetContext(a);
        for digits in 0..17 {
            let candidate: f64 = format!("{v:.digits$e}").parse().unwrap_or(v);
            let rounded = mlirFloatAttrGetValueDouble(mlirFloatAttrDoubleGet(ctx, t, candidate));
            if rounded == v {
                return candidate;
            }
        }
        v
    }
}
