//! The operands of PTOAS's inter-core FFTS ops, `pto.sync.set <PIPE_X>, ID {ffts_mode = M}` and
//! `pto.sync.wait <PIPE_X>, ID` (the id a literal, an attribute or an `index` value), read in one
//! place for the legality check, the simulator and the C++ back end.

use crate::module::{OpData, Payload, Piece, ValueId};

/// What a `sync.set` / `sync.wait` names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FftsArgs {
    /// `PIPE_MTE3`.
    pub pipe: Option<String>,
    /// A static flag id.
    pub id: Option<i64>,
    /// A dynamic flag id (an `index` operand).
    pub id_value: Option<ValueId>,
    /// `ffts_mode` (A2A3: 0 all cores of the caller's kind, 1 the two AIVs of a block, 2 the
    /// AIC and its AIVs; PTOAS's default is 2).
    pub mode: Option<i64>,
}

/// Reads `data`'s pipe, flag id and mode.
pub fn ffts_args(data: &OpData) -> FftsArgs {
    fn scan(p: &Piece, out: &mut FftsArgs) {
        match p {
            Piece::Literal(l) | Piece::Word(l) if l.starts_with("PIPE_") => out.pipe = Some(l.clone()),
            Piece::Literal(l) => out.id = l.parse().ok().or(out.id),
            Piece::Attr(a) => match a.enum_value("pipe") {
                Some(pipe) => out.pipe = Some(pipe.to_string()),
                None => out.id = a.as_int().or(out.id),
            },
            Piece::Value(v) => out.id_value = Some(*v),
            Piece::Group(_, inner) => inner.iter().for_each(|p| scan(p, out)),
            Piece::Dict(d) => {
                if let Some((_, a)) = d.iter().find(|(k, _)| k == "ffts_mode") {
                    out.mode = a.as_int();
                }
            }
            _ => {}
        }
    }
    let mut out = FftsArgs::default();
    if let Payload::Generic(pieces) = &data.payload {
        pieces.iter().for_each(|p| scan(p, &mut out));
    }
    if let Some(a) = data.attr("ffts_mode") {
        out.mode = a.as_int();
    }
    if out.id_value.is_none() {
        out.id_value = data.operands.first().copied();
    }
    out
}
