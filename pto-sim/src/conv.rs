//! Convolution configuration: the IMG2COL configuration values (`!pto.fmatrix_config<...>`),
//! the registers `setfmatrix`, `set_img2col_rpt` and `set_img2col_padding` write from one,
//! and `timg2col`, which reads them.
//!
//! pto-isa passes an IMG2COL configuration as a `ConvTile` (feature-map shape, filter, stride,
//! dilation, pad list, pad value, repeat metadata). In `pto` it is a kernel argument whose type
//! spells the configuration:
//!
//! ```text
//! !pto.fmatrix_config<fmap = [N, C1, H, W, C0], filter = [KH, KW], stride = [SH, SW],
//!                     dilation = [DH, DW], pad = [left, right, top, bottom], pad_value = 0.0,
//!                     dtype = f16, repeat = [stride, time, mode, dst_stride, dst_mposition]>
//! ```
//!
//! Only `fmap` is required (defaults: filter 1x1, stride and dilation 1, no padding, pad value
//! 0, repeat all 0; `dtype` — the element type whose bits the padding register holds — is
//! needed with a nonzero `pad_value`).
//!
//! The registers are those of pto-isa's A5 implementation (`npu/a5/SetFmatrix.hpp`, ...), one
//! set per side (`FMATRIX_A_*` / `FMATRIX_B_*` modes, A by default):
//!
//! - FMATRIX: `W` in bits 0..15, `H` in 16..31, the pad list in four bytes from bit 32. The
//!   rest of the geometry (N, C1, C0, filter, stride, dilation) is an operand of the hardware
//!   img2col instruction; `pto`'s `timg2col` has no such operands, so `setfmatrix` also loads
//!   it and `timg2col` takes it from there.
//! - IMG2COL_RPT: repeat stride (bits 0..15), time (16..23), mode (24..31), destination stride
//!   (32..47), destination m-position (48..63). Written and traced; pto-isa's CPU simulator
//!   `timg2col` does not read it, nor does this one.
//! - IMG2COL_PADDING: the pad value's bits (a byte value repeated in both bytes of 16).
//!
//! `timg2col` (pto-isa `cpu/TImg2col.hpp`): `dst[r, c]` for `m = pos_m + r`, `k = pos_k + c`
//! is the feature-map element of batch `m / (OH·OW)`, output position `m mod (OH·OW)`, channel
//! block `k / (KH·KW·C0)`, kernel tap `(k mod (KH·KW·C0)) / C0` and channel `k mod C0`, or the
//! pad value outside the feature map. The source Mat tile holds the feature map as its
//! elements in row-major order, NC1HWC0.

use crate::dispatch;
use crate::elem::Elem;
use crate::exec::{Args, Machine, Semantics};
use crate::family::{at, storage, unsupported, write};
pub use crate::fmatrix::{ConvConfig, Geometry, Side, parse};
use crate::memory::Fault;
use pto_ir::ops::Opcode;

/// Which side a `fmatrix_mode` selects: 0 for A (the default), 1 for B.
fn side(a: &Args<'_>) -> usize {
    match a.enum_attr("fmatrix_mode", "fmatrix_mode") {
        Some(m) if m.contains("_B_") => 1,
        _ => 0,
    }
}

const SIDES: [&str; 2] = ["A", "B"];

fn config<'a>(a: &'a Args<'_>) -> Result<&'a ConvConfig, Fault> {
    a.conv("cfg")
}

fn setfmatrix(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let cfg = config(a)?;
    let mut word = u64::from(cfg.fmap[3]) | u64::from(cfg.fmap[2]) << 16;
    for (i, &p) in cfg.pad.iter().enumerate() {
        word |= u64::from(p) << (32 + 8 * i);
    }
    let [n, c1, _, _, c0] = cfg.fmap;
    let geometry = Geometry { n_c1_c0: [n, c1, c0], filter: cfg.filter, stride: cfg.stride, dilation: cfg.dilation };
    let s = side(a);
    m.regs.img2col[s].fmatrix = Some((word, geometry));
    m.notes.push(format!(
        "FMATRIX_{} = {word:#018x} (fmap {}x{}, pad l{} r{} t{} b{}; N {n}, C1 {c1}, C0 {c0}, filter {}x{}, stride {}x{}, dilation {}x{})",
        SIDES[s],
        cfg.fmap[2],
        cfg.fmap[3],
        cfg.pad[0],
        cfg.pad[1],
        cfg.pad[2],
        cfg.pad[3],
        cfg.filter[0],
        cfg.filter[1],
        cfg.stride[0],
        cfg.stride[1],
        cfg.dilation[0],
        cfg.dilation[1]
    ));
    Ok(())
}

fn set_rpt(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let [stride, time, mode, dst_stride, dst_m] = config(a)?.repeat;
    let field = |v: u32, bits: u32, name: &str| {
        if u64::from(v) >> bits == 0 { Ok(u64::from(v)) } else { Err(Fault(format!("repeat {name} {v} does not fit {bits} bits"))) }
    };
    let word = field(stride, 16, "stride")?
        | field(time, 8, "time")? << 16
        | field(mode, 8, "mode")? << 24
        | field(dst_stride, 16, "dst_stride")? << 32
        | field(dst_m, 16, "dst_mposition")? << 48;
    let s = side(a);
    m.regs.img2col[s].rpt = Some(word);
    m.notes.push(format!(
        "IMG2COL_RPT_{} = {word:#018x} (repeat stride {stride}, time {time}, mode {mode}, dst stride {dst_stride}, dst m-position {dst_m})",
        SIDES[s]
    ));
    Ok(())
}

fn set_padding(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let cfg = config(a)?;
    let bits = match cfg.dtype {
        None => 0,
        Some(e) => dispatch!(e, T => {
            let b = T::from_f64(cfg.pad_value).raw_bits() as u32;
            if T::SIZE == 1 { (b & 0xFF) << 8 | (b & 0xFF) } else { b }
        }, _ => return Err(Fault(format!("a pad value of type {e} is not executable by the simulator yet")))),
    };
    let s = side(a);
    m.regs.img2col[s].padding = Some(bits);
    m.notes.push(format!("IMG2COL_PADDING_{} = {bits:#010x} (pad value {})", SIDES[s], cfg.pad_value));
    Ok(())
}

fn timg2col(m: &mut Machine<'_>, a: &Args<'_>) -> Result<(), Fault> {
    let (src, dst) = (a.tile("src")?, a.tile("dst")?);
    let pos = |slot: &str| -> Result<i64, Fault> {
        match a.opt_num(slot) {
            None => Ok(0),
            Some(_) => {
                let v = a.int(slot)?;
                if (0..=0xFFFF).contains(&v) { Ok(v) } else { Err(Fault(format!("`{slot}` is {v}: a 16-bit position"))) }
            }
        }
    };
    let (pos_m, pos_k) = (pos("pos_m")?, pos("pos_k")?);
    let s = side(a);
    let regs = m.regs.img2col[s];
    let (word, g) = regs.fmatrix.ok_or_else(|| Fault(format!("timg2col reads FMATRIX_{}, which no setfmatrix wrote", SIDES[s])))?;
    let (w, h) = (i64::from(word as u16), i64::from((word >> 16) as u16));
    let pad = |i: u32| i64::from((word >> (32 + 8 * i)) as u8);
    let (pad_left, pad_right, pad_top, pad_bottom) = (pad(0), pad(1), pad(2), pad(3));
    let [n, c1, c0] = g.n_c1_c0.map(i64::from);
    let [kh, kw] = g.filter.map(i64::from);
    let [sh, sw] = g.stride.map(i64::from);
    let [dh, dw] = g.dilation.map(i64::from);
    let out_h = (h + pad_top + pad_bottom - dh * (kh - 1) - 1).div_euclid(sh) + 1;
    let out_w = (w + pad_left + pad_right - dw * (kw - 1) - 1).div_euclid(sw) + 1;
    if out_h <= 0 || out_w <= 0 {
        return Err(Fault(format!("the filter {kh}x{kw} does not fit the padded {h}x{w} feature map")));
    }
    let elements = n * c1 * h * w * c0;
    let capacity = i64::from(src.desc.rows) * i64::from(src.desc.cols);
    if elements > capacity {
        return Err(Fault(format!("the feature map has {elements} elements, the source tile holds {capacity}")));
    }
    if src.desc.dtype != dst.desc.dtype {
        return Err(Fault(format!("timg2col copies {} into {}", src.desc.dtype, dst.desc.dtype)));
    }
    let pad_bits = u64::from(regs.padding.unwrap_or(0));
    let cols = src.desc.cols as usize;
    let sb = storage(m.mem, &src)?;
    dispatch!(dst.desc.dtype, T => {
        let pad_value = T::from_raw_bits(pad_bits);
        let kernel = kh * kw * c0;
        let mut out = Vec::with_capacity(dst.vrows * dst.vcols);
        for r in 0..dst.vrows as i64 {
            let mi = pos_m + r;
            let (ni, rest) = (mi / (out_h * out_w), mi % (out_h * out_w));
            let (oh, ow) = (rest / out_w, rest % out_w);
            for c in 0..dst.vcols as i64 {
                let ki = pos_k + c;
                let (c1i, c0i) = (ki / kernel, ki % c0);
                let tap = (ki % kernel) / c0;
                let (th, tw) = (tap / kw, tap % kw);
                let ih = oh * sh + th * dh - pad_top;
                let iw = ow * sw + tw * dw - pad_left;
                let inside = ni < n && c1i < c1 && (0..h).contains(&ih) && (0..w).contains(&iw);
                out.push(if inside {
                    let k = ((((ni * c1 + c1i) * h + ih) * w + iw) * c0 + c0i) as usize;
                    at::<T>(sb, &src, k / cols, k % cols)?
                } else {
                    pad_value
                });
            }
        }
        write(m.mem, &dst, &out)
    }, _ => Err(unsupported(&dst)))
}

/// The convolution configuration ops and `timg2col`.
pub const SEMANTICS: &[(Opcode, Semantics)] = &[
    (Opcode::SetFmatrix, setfmatrix),
    (Opcode::SetImg2ColRpt, set_rpt),
    (Opcode::SetImg2ColPadding, set_padding),
    (Opcode::TImg2Col, timg2col),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_parse_with_defaults() {
        let c = parse("!pto.fmatrix_config<fmap = [1, 2, 4, 5, 8], stride = [2, 1], pad = [1, 0, 1, 0]>").unwrap();
        assert_eq!(c.fmap, [1, 2, 4, 5, 8]);
        assert_eq!((c.filter, c.stride, c.pad), ([1, 1], [2, 1], [1, 0, 1, 0]));
        assert!(parse("!pto.fmatrix_config").unwrap_err().contains("no configuration"));
        assert!(parse("!pto.fmatrix_config<fmap = [1, 2, 4]>").unwrap_err().contains("takes 5 values"));
        assert!(parse("!pto.fmatrix_config<fmap = [1, 1, 4, 4, 8], pad_value = 1.5>").unwrap_err().contains("dtype"));
        assert!(parse("!pto.fmatrix_config<fmap = [1, 1, 4, 4, 8], bogus = 1>").unwrap_err().contains("unknown"));
    }
}
