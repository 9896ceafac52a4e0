//! Thin helpers over the MLIR C API (`mlir-sys`) for what melior 0.22 does not offer, or offers
//! with restrictions that do not suit untrusted input: melior's string callbacks reject output
//! chunks that are not UTF-8 on their own (a multi-byte character split between two chunks, a
//! byte string from bytecode), so every printer here collects bytes and decodes them once,
//! lossily.
//!
//! Every function takes handles that belong to a live context; none of them can fail.

use mlir_sys::{
    MlirAttribute, MlirIdentifier, MlirLocation, MlirOperation, MlirStringRef, MlirType, mlirAttributePrint, mlirIdentifierStr,
    mlirLocationPrint, mlirOperationGetName, mlirTypePrint,
};
use std::ffi::c_void;

/// A string reference to `bytes` (valid while `bytes` is).
pub(super) fn string_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef { data: bytes.as_ptr().cast(), length: bytes.len() }
}

/// The bytes behind a string reference, decoded lossily.
pub(super) fn to_string(s: MlirStringRef) -> String {
    if s.data.is_null() || s.length == 0 {
        return String::new();
    }
    // SAFETY: MLIR hands out string references to `length` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The print callback: appends each chunk to the `Vec<u8>` behind `data`.
pub(super) unsafe extern "C" fn collect_bytes(chunk: MlirStringRef, data: *mut c_void) {
    if chunk.data.is_null() || chunk.length == 0 {
        return;
    }
    // SAFETY: `data` is the `Vec<u8>` passed by `printed`; the chunk holds `length` bytes.
    unsafe {
        let out = &mut *data.cast::<Vec<u8>>();
        out.extend_from_slice(std::slice::from_raw_parts(chunk.data.cast::<u8>(), chunk.length));
    }
}

/// Runs an MLIR printer and returns everything it wrote.
pub(super) fn printed(print: impl FnOnce(mlir_sys::MlirStringCallback, *mut c_void)) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    print(Some(collect_bytes), (&mut out as *mut Vec<u8>).cast());
    out
}

/// The text of a type (`!pto.tile_buf<vec, 16x16xf32>`).
pub(super) fn type_text(t: MlirType) -> String {
    String::from_utf8_lossy(&printed(|cb, data| unsafe { mlirTypePrint(t, cb, data) })).into_owned()
}

/// The text of an attribute (`#pto<cmp gt>`, `[1, 2]`).
pub(super) fn attr_text(a: MlirAttribute) -> String {
    String::from_utf8_lossy(&printed(|cb, data| unsafe { mlirAttributePrint(a, cb, data) })).into_owned()
}

/// The text of a location (`loc("k.mlir":3:5)`).
pub(super) fn location_text(l: MlirLocation) -> String {
    String::from_utf8_lossy(&printed(|cb, data| unsafe { mlirLocationPrint(l, cb, data) })).into_owned()
}

/// An identifier's text.
pub(super) fn identifier(id: MlirIdentifier) -> String {
    to_string(unsafe { mlirIdentifierStr(id) })
}

/// An operation's name (`pto.tadd`).
pub(super) fn op_name(op: MlirOperation) -> String {
    identifier(unsafe { mlirOperationGetName(op) })
}
