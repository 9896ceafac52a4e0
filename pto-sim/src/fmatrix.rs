//! The IMG2COL configuration values (`!pto.fmatrix_config<...>` kernel arguments, parsed once)
//! and the per-side registers `setfmatrix`, `set_img2col_rpt` and `set_img2col_padding` write:
//! the state [`crate::conv`]'s instructions read and write (the format is described there).

use pto_ir::types::ElemType;

/// One IMG2COL configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvConfig {
    /// `[N, C1, H, W, C0]`.
    pub fmap: [u32; 5],
    /// `[KH, KW]`.
    pub filter: [u32; 2],
    /// `[SH, SW]`.
    pub stride: [u32; 2],
    /// `[DH, DW]`.
    pub dilation: [u32; 2],
    /// `[left, right, top, bottom]`.
    pub pad: [u32; 4],
    /// The pad value.
    pub pad_value: f64,
    /// The element type of the pad value's bits.
    pub dtype: Option<ElemType>,
    /// `[stride, time, mode, dst_stride, dst_mposition]`.
    pub repeat: [u32; 5],
}

/// The geometry `timg2col` needs beyond the FMATRIX register.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Geometry {
    /// N, C1, C0.
    pub n_c1_c0: [u32; 3],
    /// `[KH, KW]`.
    pub filter: [u32; 2],
    /// `[SH, SW]`.
    pub stride: [u32; 2],
    /// `[DH, DW]`.
    pub dilation: [u32; 2],
}

/// One side's (A or B) img2col registers.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Side {
    /// FMATRIX, with the geometry `setfmatrix` loaded alongside.
    pub fmatrix: Option<(u64, Geometry)>,
    /// IMG2COL_RPT.
    pub rpt: Option<u64>,
    /// IMG2COL_PADDING.
    pub padding: Option<u32>,
}

/// Parses the parameters of `!pto.fmatrix_config<...>` ([`ConvConfig`]).
pub fn parse(ty: &str) -> Result<ConvConfig, String> {
    let body =
        ty.strip_prefix("!pto.fmatrix_config").and_then(|r| r.trim().strip_prefix('<')).and_then(|r| r.strip_suffix('>')).ok_or_else(
            || format!("`{ty}` gives no configuration: spell it `!pto.fmatrix_config<fmap = [N, C1, H, W, C0], ...>` (docs/cli.md)"),
        )?;
    let mut cfg = ConvConfig {
        fmap: [0; 5],
        filter: [1, 1],
        stride: [1, 1],
        dilation: [1, 1],
        pad: [0; 4],
        pad_value: 0.0,
        dtype: None,
        repeat: [0; 5],
    };
    let mut have_fmap = false;
    let mut rest = body.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=').ok_or_else(|| format!("expected `key = value` in `{rest}`"))?;
        let key = key.trim();
        let after = after.trim_start();
        let (value, next) = if after.starts_with('[') {
            let end = after.find(']').ok_or_else(|| format!("unclosed `[` after `{key}`"))?;
            (&after[..=end], after[end + 1..].trim_start())
        } else {
            match after.find(',') {
                Some(i) => (&after[..i], &after[i..]),
                None => (after, ""),
            }
        };
        rest = next.strip_prefix(',').unwrap_or(next).trim_start();
        let list = |n: usize| -> Result<Vec<u32>, String> {
            let inner =
                value.trim().strip_prefix('[').and_then(|v| v.strip_suffix(']')).ok_or_else(|| format!("`{key}` takes a list `[...]`"))?;
            let items: Vec<u32> = inner
                .split(',')
                .map(|x| x.trim().parse::<u32>().map_err(|_| format!("`{key}`: `{}` is not a count", x.trim())))
                .collect::<Result<_, _>>()?;
            if items.len() == n { Ok(items) } else { Err(format!("`{key}` takes {n} values, found {}", items.len())) }
        };
        match key {
            "fmap" => {
                cfg.fmap.copy_from_slice(&list(5)?);
                have_fmap = true;
            }
            "filter" => cfg.filter.copy_from_slice(&list(2)?),
            "stride" => cfg.stride.copy_from_slice(&list(2)?),
            "dilation" => cfg.dilation.copy_from_slice(&list(2)?),
            "pad" => cfg.pad.copy_from_slice(&list(4)?),
            "repeat" => cfg.repeat.copy_from_slice(&list(5)?),
            "pad_value" => cfg.pad_value = value.trim().parse().map_err(|_| format!("`pad_value`: `{}` is not a number", value.trim()))?,
            "dtype" => {
                let name = value.trim();
                cfg.dtype = Some(
                    ElemType::ALL
                        .iter()
                        .find(|(_, n)| *n == name)
                        .map(|(e, _)| *e)
                        .ok_or_else(|| format!("`dtype`: unknown element type `{name}`"))?,
                )
            }
            other => {
                return Err(format!(
                    "unknown IMG2COL configuration key `{other}` (fmap, filter, stride, dilation, pad, pad_value, dtype, repeat)"
                ));
            }
        }
    }
    if !have_fmap {
        return Err("the configuration needs `fmap = [N, C1, H, W, C0]`".into());
    }
    if cfg.fmap[2] == 0 || cfg.fmap[3] == 0 || cfg.fmap[3] > 0xFFFF || cfg.fmap[2] > 0xFFFF {
        return Err(format!("the feature map's H and W must be 1 to 65535, found {}x{}", cfg.fmap[2], cfg.fmap[3]));
    }
    if cfg.fmap[4] == 0 || cfg.filter.contains(&0) || cfg.stride.contains(&0) || cfg.dilation.contains(&0) {
        return Err("C0, filter, stride and dilation must be positive".into());
    }
    if cfg.pad.iter().any(|&p| p > 0xFF) {
        return Err(format!("pads are 8-bit fields, found {:?}", cfg.pad));
    }
    if cfg.pad_value != 0.0 && cfg.dtype.is_none() {
        return Err("a nonzero `pad_value` needs `dtype = ...` (the padding register holds its bits)".into());
    }
    Ok(cfg)
}
