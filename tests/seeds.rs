//! The seed programs of `examples/seeds/`: each runs through `pto run` on the targets it is
//! written for; the values the issue states are asserted explicitly, and every output is pinned
//! by a snapshot (one per program and target).

use pto::cmd::run::{RunOptions, run};
use pto::{ErrorFormat, TargetName};
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `examples/seeds/<file>` and returns the JSON outputs (panics with the diagnostics on failure).
/// `inputs` bind names to files of `examples/seeds/data/`.
fn run_seed(file: &str, target: TargetName, inputs: &[(&str, &str)], outputs: &[&str]) -> Value {
    let inputs: Vec<String> = inputs.iter().map(|(n, p)| format!("{n}={}", root().join("examples/seeds/data").join(p).display())).collect();
    run_seed_with(file, target, inputs, outputs)
}

/// [`run_seed`] with `--input` arguments as written on the command line (scalars: `k0=32`).
fn run_seed_with(file: &str, target: TargetName, inputs: Vec<String>, outputs: &[&str]) -> Value {
    run_seed_exec(file, target, inputs, outputs, false)
}

/// Runs a seed with tile semantics or (`exec_vector`, A2A3) as A2A3 vector programs.
fn run_seed_exec(file: &str, target: TargetName, inputs: Vec<String>, outputs: &[&str], exec_vector: bool) -> Value {
    let opts = RunOptions {
        inputs,
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
        exec_vector,
        ..RunOptions::new(root().join("examples/seeds").join(file).display().to_string(), target)
    };
    let out = run(&opts);
    assert_eq!(out.code, 0, "{file} on {target:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON outputs")
}

fn ints(v: &Value, name: &str) -> Vec<i64> {
    v[name]["data"].as_array().unwrap_or_else(|| panic!("output {name}")).iter().map(|x| x.as_i64().expect("integer")).collect()
}

fn floats(v: &Value, name: &str) -> Vec<f64> {
    v[name]["data"].as_array().unwrap_or_else(|| panic!("output {name}")).iter().map(|x| x.as_f64().expect("number")).collect()
}

fn snapshot(name: &str, target: TargetName, v: &Value) {
    let t = match target {
        TargetName::A2A3 => "a2a3",
        TargetName::A5 => "a5",
    };
    insta::assert_snapshot!(format!("{name}__{t}"), serde_json::to_string(v).unwrap());
}

const BOTH: [TargetName; 2] = [TargetName::A2A3, TargetName::A5];

#[test]
fn column_argmax_as_the_isa_page_with_ties() {
    let input = std::fs::read_to_string(root().join("examples/seeds/data/colargmax_src.json")).unwrap();
    let src: Value = serde_json::from_str(&input).unwrap();
    let data: Vec<f64> = src["data"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    let (rows, cols) = (16, 255);
    // First (smallest) row of the maximum, computed independently of the simulator.
    let want: Vec<i64> = (0..cols)
        .map(|c| {
            let mut best = 0;
            for r in 1..rows {
                if data[r * cols + c] > data[best * cols + c] {
                    best = r;
                }
            }
            best as i64
        })
        .collect();
    assert_eq!((want[0], want[1]), (0, 15), "the input's deliberate tie and unique maximum");
    for t in BOTH {
        let out = run_seed("colargmax.as.pto", t, &[("src", "colargmax_src.json")], &["dst"]);
        assert_eq!(ints(&out, "dst"), want);
        assert_eq!(out["dst"]["shape"], serde_json::json!([1, 255]));
        snapshot("colargmax", t, &out);
    }
}

#[test]
fn shift_right_logical_arithmetic_and_rounding() {
    let outputs = ["u_shr1", "i_shr1", "i_shr3", "seq_shr2", "v17_shr5", "v17_shr5_round"];
    for t in BOTH {
        let out = run_seed("shift_right.as.pto", t, &[], &outputs);
        assert!(ints(&out, "u_shr1").iter().all(|&x| x == 0b0101_0101_0101_0101));
        assert!(ints(&out, "i_shr1").iter().all(|&x| x as u16 == 0b1101_0101_0101_0101));
        assert!(ints(&out, "i_shr3").iter().all(|&x| x as u16 == 0b1111_0101_0101_0101));
        let seq = ints(&out, "seq_shr2");
        assert_eq!(seq.len(), 512);
        assert_eq!(&seq[..8], &[0, 0, 0, 1, 1, 1, 1, 2]);
        assert_eq!(seq[511], 128);
        assert!(seq.iter().enumerate().all(|(k, &x)| x == (k as i64 + 1) >> 2));
        assert!(ints(&out, "v17_shr5").iter().all(|&x| x == 0));
        assert!(ints(&out, "v17_shr5_round").iter().all(|&x| x == 1), "17 >> 5 with rounding adds the last bit out");
        snapshot("shift_right", t, &out);
    }
}

/// A snippet with no GM array, no tile argument and no `--output` prints the tiles it computed
/// and never read again — here the six shift results, not the inputs they were made from.
#[test]
fn without_outputs_the_computed_tiles_are_printed() {
    let out = run_seed("shift_right.as.pto", TargetName::A2A3, &[], &[]);
    let names: Vec<&str> = out.as_object().expect("a JSON object").keys().map(|k| k.as_str()).collect();
    assert_eq!(names, ["i_shr1", "i_shr3", "seq_shr2", "u_shr1", "v17_shr5", "v17_shr5_round"]);
    assert!(ints(&out, "u_shr1").iter().all(|&x| x == 0b0101_0101_0101_0101));
}

#[test]
fn shift_amount_outside_the_element_width_traps_at_its_line() {
    let opts = RunOptions {
        error_format: ErrorFormat::Json,
        ..RunOptions::new(root().join("examples/seeds/shift_out_of_range.as.pto").display().to_string(), TargetName::A2A3)
    };
    let out = run(&opts);
    assert_eq!(out.code, 1);
    let d: Value = serde_json::from_str(out.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(d["class"], "SIM_TRAP");
    assert_eq!(d["line"], 6);
    assert!(d["message"].as_str().unwrap().contains("shift amount 17 outside [0, 16]"), "{d}");
}

#[test]
fn row_gather_in_f32_and_f64() {
    let cols_json: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/seeds/data/gather_cols.json")).unwrap()).unwrap();
    let cols: Vec<i64> = cols_json["data"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
    for (file, f32_rounding) in [("gather_rows.as.pto", true), ("gather_rows_f64.as.pto", false)] {
        for t in BOTH {
            let out = run_seed(file, t, &[("cols", "gather_cols.json")], &["y"]);
            let y = floats(&out, "y");
            assert_eq!(y.len(), 64);
            for (k, &got) in y.iter().enumerate() {
                let (i, c) = (k / 16, cols[k] as f64);
                // X[i, c] = 10000·i + c + 0.1, computed as the program does (c + 0.1, then + row).
                let want = if f32_rounding { ((c as f32 + 0.1f32) + 10000.0 * i as f32) as f64 } else { (c + 0.1) + 10000.0 * i as f64 };
                let got = if f32_rounding { got as f32 as f64 } else { got };
                assert_eq!(got, want, "{file} on {t:?}: y[{i}, {}]", k % 16);
            }
            assert_eq!(
                if f32_rounding { y[0] as f32 as f64 } else { y[0] },
                if f32_rounding { 0.1f32 as f64 } else { 0.1 },
                "X[0, 0] = 0.1"
            );
            snapshot(file.trim_end_matches(".as.pto"), t, &out);
        }
    }
}

#[test]
fn vector_idioms_elementwise() {
    let v: Vec<i64> = [55, 99, 33, 44, 55, 66, 77, 88, 99, 10].into_iter().chain(11..=32).collect();
    let names = [
        "fill0", "fill1", "fill7", "abs", "not", "clamp_hi", "clamp_lo", "add", "sub", "mul", "adds", "subs", "muls", "sub_sat", "mul_sat",
        "sub_wrap", "shl2", "shr2",
    ];
    for t in BOTH {
        let out = run_seed("idioms_elementwise.as.pto", t, &[("v", "v.json"), ("w", "w.json")], &names);
        assert_eq!(ints(&out, "fill0"), vec![0; 32]);
        assert_eq!(ints(&out, "fill1"), vec![1; 32]);
        assert_eq!(ints(&out, "fill7"), vec![7; 32]);
        assert_eq!(ints(&out, "abs"), v.iter().map(|x| (x - 50).abs()).collect::<Vec<_>>());
        assert_eq!(ints(&out, "not"), v.iter().map(|x| !x).collect::<Vec<_>>());
        assert_eq!(ints(&out, "clamp_hi"), v.iter().map(|&x| x.min(20)).collect::<Vec<_>>(), "every element above 20 becomes 20");
        assert_eq!(ints(&out, "clamp_lo"), v.iter().map(|&x| x.max(20)).collect::<Vec<_>>(), "every element below 20 becomes 20");
        assert_eq!(ints(&out, "adds"), v.iter().map(|x| x + 5).collect::<Vec<_>>());
        assert_eq!(ints(&out, "shl2"), v.iter().map(|x| x << 2).collect::<Vec<_>>());
        assert_eq!(ints(&out, "shr2"), v.iter().map(|x| x >> 2).collect::<Vec<_>>());
        // 300·55 - (-300·55) = 33000: saturates to 32767, wraps to -32536.
        assert_eq!(ints(&out, "sub_sat")[0], 32767);
        assert_eq!(ints(&out, "sub_wrap")[0], 33000 - 65536);
        assert!(ints(&out, "sub_sat").iter().chain(&ints(&out, "mul_sat")).all(|&x| (-32768..=32767).contains(&x)));
        assert_eq!(ints(&out, "mul_sat")[9], 30000, "300·10·10 fits");
        assert_eq!(ints(&out, "mul_sat")[0], 32767);
        snapshot("idioms_elementwise", t, &out);
    }
}

#[test]
fn vector_idioms_reductions_and_counts() {
    let names = ["sum", "dot", "max", "min", "count_eq11", "count_gt20", "count_lt20"];
    for t in BOTH {
        let out = run_seed("idioms_reduce.as.pto", t, &[("v", "v.json"), ("w", "w.json")], &names);
        assert_eq!(ints(&out, "max"), vec![99]);
        assert_eq!(ints(&out, "min"), vec![10]);
        assert_eq!(ints(&out, "count_eq11"), vec![6]);
        assert_eq!(ints(&out, "count_gt20"), vec![21]);
        assert_eq!(ints(&out, "count_lt20"), vec![10]);
        assert_eq!(ints(&out, "sum"), vec![1099]);
        assert_eq!(floats(&out, "dot"), vec![45567.0]);
        snapshot("idioms_reduce", t, &out);
    }
}

#[test]
fn vector_idioms_moves_width_changes_and_accumulation() {
    let v: Vec<i64> = [55, 99, 33, 44, 55, 66, 77, 88, 99, 10].into_iter().chain(11..=32).collect();
    let w: Vec<i64> = v.iter().enumerate().map(|(k, &x)| if [1, 4, 21, 24, 29].contains(&k) { 11 } else { x }).collect();
    let names = ["shift_up3", "shift_down3", "v_i8", "v_u16", "mac"];
    let out = run_seed("idioms_vector.as.pto", TargetName::A5, &[("v", "v.json"), ("w", "w.json")], &names);
    let up: Vec<i64> = w[29..].iter().chain(&v[..29]).copied().collect();
    let down: Vec<i64> = v[3..].iter().chain(&w[..3]).copied().collect();
    assert_eq!(ints(&out, "shift_up3"), up);
    assert_eq!(ints(&out, "shift_down3"), down);
    assert_eq!(ints(&out, "v_i8"), v);
    assert_eq!(out["v_i8"]["dtype"], "i8");
    assert_eq!(ints(&out, "v_u16"), v);
    assert_eq!(out["v_u16"]["dtype"], "ui16");
    assert_eq!(ints(&out, "mac"), v.iter().map(|x| 1000 + 3 * x).collect::<Vec<_>>());
    snapshot("idioms_vector", TargetName::A5, &out);
}

#[test]
fn vector_idioms_element_access() {
    for t in BOTH {
        let out = run_seed("idioms_element_access.pto", t, &[], &["out"]);
        assert_eq!(ints(&out, "out"), vec![0, 0, 430, 0, 0, 0, 0, 12345]);
        snapshot("idioms_element_access", t, &out);
    }
}

#[test]
fn crop_a_window_of_a_gm_image_into_fixed_point() {
    for t in BOTH {
        let out = run_seed("crop_image.pto", t, &[("img", "image.json")], &["crop", "fixed"]);
        let want: Vec<i64> = (0..8).flat_map(|r| (0..20).map(move |c| (7 * (10 + r) + 3 * (5 + c)) % 256)).collect();
        assert_eq!(ints(&out, "crop"), want);
        assert_eq!(ints(&out, "fixed"), want.iter().map(|p| p * 16).collect::<Vec<_>>(), "q = 12: pixel · 2^(12-8)");
        snapshot("crop_image", t, &out);
    }
}

/// The `data` array of `examples/seeds/data/<file>` as integers.
fn data_ints(file: &str) -> Vec<i64> {
    let text = std::fs::read_to_string(root().join("examples/seeds/data").join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    v["data"].as_array().unwrap_or_else(|| panic!("{file}: no data")).iter().map(|x| x.as_i64().expect("integer")).collect()
}

#[test]
fn insert_key_payload_pairs_into_an_ascending_list() {
    let (list, new) = (data_ints("sorted_list.json"), data_ints("new_pairs.json"));
    let key = |w: &i64| w & 0xFFFF;
    // The inputs are what the program's comment says: an ascending list with distinct keys, new
    // pairs in no order, two of them with keys already in the list, the extreme keys 0 and 65535.
    assert!(list.windows(2).all(|p| key(&p[0]) < key(&p[1])));
    assert!(new.windows(2).any(|p| key(&p[0]) > key(&p[1])));
    let shared: Vec<i64> = new.iter().map(key).filter(|k| list.iter().any(|w| key(w) == *k)).collect();
    assert_eq!(shared.len(), 2);
    // Reference: a stable sort by key of the list followed by the new pairs, i.e. a new pair goes
    // after the existing pairs with its key.
    let mut want: Vec<i64> = list.iter().chain(&new).copied().collect();
    want.sort_by_key(key);
    let want_keys: Vec<i64> = want.iter().map(key).collect();
    let want_payloads: Vec<i64> = want.iter().map(|w| w >> 16).collect();
    assert_eq!((want_keys[0], want_keys[159]), (0, 65535));
    for t in BOTH {
        let out =
            run_seed("insert_sorted.pto", t, &[("list", "sorted_list.json"), ("new", "new_pairs.json")], &["merged", "keys", "payloads"]);
        assert_eq!(ints(&out, "merged"), want, "{t:?}: the merged words");
        let keys = ints(&out, "keys");
        assert!(keys.windows(2).all(|p| p[0] <= p[1]), "{t:?}: keys ascending");
        assert_eq!(keys, want_keys);
        assert_eq!(ints(&out, "payloads"), want_payloads);
        assert_eq!(out["merged"]["shape"], serde_json::json!([1, 160]));
        for k in &shared {
            let at = keys.iter().position(|x| x == k).expect("shared key present");
            let old = list.iter().find(|w| key(w) == *k).unwrap();
            let added = new.iter().find(|w| key(w) == *k).unwrap();
            assert_eq!(
                (keys[at + 1], ints(&out, "merged")[at], ints(&out, "merged")[at + 1]),
                (*k, *old, *added),
                "key {k}: the existing pair first"
            );
        }
        snapshot("insert_sorted", t, &out);
    }
    // The same program as A2A3 vector programs (where the ops have a vector lowering).
    let files = [("list", "sorted_list.json"), ("new", "new_pairs.json")];
    let inputs: Vec<String> = files.iter().map(|(n, p)| format!("{n}={}", root().join("examples/seeds/data").join(p).display())).collect();
    let vector = run_seed_exec("insert_sorted.pto", TargetName::A2A3, inputs, &["merged", "keys", "payloads"], true);
    assert_eq!(ints(&vector, "merged"), want, "--exec vector");
}

/// The quantized product of `quant_matmul*.pto` on `data/quant_{a,b}.json`, computed here with
/// plain integer loops.
struct Quant {
    a: Vec<i64>,
    b: Vec<i64>,
    /// M = K = N.
    size: usize,
    a_off: i64,
    b_off: i64,
    c_off: i64,
    num: i64,
    shift: i64,
}

impl Quant {
    fn load() -> Quant {
        Quant {
            a: data_ints("quant_a.json"),
            b: data_ints("quant_b.json"),
            size: 64,
            a_off: 120,
            b_off: 133,
            c_off: 128,
            num: 1591,
            shift: 20,
        }
    }

    /// `sum_{k0 <= k < k1} (A[i,k] - a_off) (B[k,j] - b_off)`.
    fn acc(&self, i: usize, j: usize, ks: std::ops::Range<usize>) -> i64 {
        ks.map(|k| (self.a[i * self.size + k] - self.a_off) * (self.b[k * self.size + j] - self.b_off)).sum()
    }

    /// `clamp(c_off + round_half_up(acc * num / 2^shift), 0, 255)`.
    fn requant(&self, acc: i64) -> i64 {
        (self.c_off + ((acc * self.num + (1 << (self.shift - 1))) >> self.shift)).clamp(0, 255)
    }

    /// `--input` arguments for the program's matrices, sizes and offsets.
    fn inputs(&self) -> Vec<String> {
        let data = root().join("examples/seeds/data");
        let mut v = vec![format!("a={}", data.join("quant_a.json").display()), format!("b={}", data.join("quant_b.json").display())];
        for (name, value) in
            [("m", self.size as i64), ("k", self.size as i64), ("n", self.size as i64), ("a_off", self.a_off), ("b_off", self.b_off)]
        {
            v.push(format!("{name}={value}"));
        }
        v
    }

    /// Runs `quant_matmul.pto` (the whole product), optionally under `--exec vector`.
    fn run_full(&self, exec_vector: bool) -> Value {
        let mut inputs = self.inputs();
        inputs.extend([format!("c_off={}", self.c_off), format!("num={}", self.num), format!("shift={}", self.shift)]);
        run_seed_exec("quant_matmul.pto", TargetName::A2A3, inputs, &[], exec_vector)
    }

    /// Runs `quant_matmul_block.pto` for the 32x4 block at `(m0, n0)` over `ks`.
    fn run_block(&self, (m0, n0): (usize, usize), ks: std::ops::Range<usize>) -> Vec<i64> {
        let mut inputs = self.inputs();
        inputs.extend([format!("m0={m0}"), format!("n0={n0}"), format!("k0={}", ks.start), format!("k1={}", ks.end)]);
        let out = run_seed_with("quant_matmul_block.pto", TargetName::A2A3, inputs, &[]);
        assert_eq!(out["part"]["dtype"], "i32");
        ints(&out, "part")
    }
}

#[test]
fn quantized_matrix_product_matches_an_integer_reference() {
    let q = Quant::load();
    let n = q.size;
    assert_eq!((q.a.len(), q.b.len()), (n * n, n * n));
    let acc: Vec<i64> = (0..n * n).map(|x| q.acc(x / n, x % n, 0..n)).collect();
    let c: Vec<i64> = acc.iter().map(|&x| q.requant(x)).collect();
    // The data reach both clamps, and stay within the program's precondition |acc * num| < 2^31.
    assert!(c.contains(&0) && c.contains(&255) && c.iter().any(|&x| x > 0 && x < 255));
    assert!(acc.iter().all(|&x| (x * q.num).abs() < 1 << 31));
    let out = q.run_full(false);
    assert_eq!(ints(&out, "acc"), acc, "the exact offset-corrected product (i32)");
    assert_eq!(ints(&out, "c"), c, "the requantized product (u8)");
    assert_eq!(out["c"]["dtype"], "ui8");
    // The s8 workspaces hold A - 128 and B - 128.
    assert_eq!(ints(&out, "a_s8"), q.a.iter().map(|x| x - 128).collect::<Vec<_>>());
    assert_eq!(ints(&out, "b_s8"), q.b.iter().map(|x| x - 128).collect::<Vec<_>>());
    snapshot("quant_matmul", TargetName::A2A3, &serde_json::json!({"c": out["c"]}));
    // The same program with its vector ops run as A2A3 vector programs: every GM array equal.
    assert_eq!(q.run_full(true), out, "--exec vector");
}

#[test]
fn quantized_block_kernel_halves_of_k_add_up_to_the_full_product() {
    let q = Quant::load();
    let n = q.size;
    let full = q.run_full(false);
    let (acc, c) = (ints(&full, "acc"), ints(&full, "c"));
    let mut pinned = serde_json::Map::new();
    for (m0, n0) in [(32, 12), (0, 60)] {
        let lo = q.run_block((m0, n0), 0..n / 2);
        let hi = q.run_block((m0, n0), n / 2..n);
        let whole = q.run_block((m0, n0), 0..n);
        for x in 0..32 * 4 {
            let (i, j) = (m0 + x / 4, n0 + x % 4);
            assert_eq!(lo[x], q.acc(i, j, 0..n / 2), "block ({m0}, {n0}), element ({i}, {j}), k in [0, {})", n / 2);
            assert_eq!(hi[x], q.acc(i, j, n / 2..n), "block ({m0}, {n0}), element ({i}, {j}), k in [{}, {n})", n / 2);
            assert_eq!(lo[x] + hi[x], acc[i * n + j], "the halves add up to the full product's acc ({i}, {j})");
            assert_eq!(whole[x], acc[i * n + j], "one run over all of K ({i}, {j})");
            assert_eq!(q.requant(lo[x] + hi[x]), c[i * n + j], "requantized sum = the full product's C ({i}, {j})");
        }
        assert_ne!(lo, hi);
        pinned.insert(format!("m0={m0},n0={n0},k=0..{}", n / 2), serde_json::json!(lo));
        pinned.insert(format!("m0={m0},n0={n0},k={}..{n}", n / 2), serde_json::json!(hi));
    }
    snapshot("quant_matmul_block", TargetName::A2A3, &Value::Object(pinned));
}

/// Per row `i < rows` of a row-major `rows x cols` (capacity) array with `valid` columns: the
/// indices `offset + i*cols + j` of the valid columns whose value `keep`s the row's threshold.
fn compare_gather_reference(
    data: &[f64],
    cols: usize,
    valid: usize,
    thresholds: &[i64],
    offset: i64,
    keep: impl Fn(f64, f64) -> bool,
) -> Vec<Vec<i64>> {
    thresholds
        .iter()
        .enumerate()
        .map(|(i, &k)| (0..valid).filter(|&j| keep(data[i * cols + j], k as f64)).map(|j| offset + (i * cols + j) as i64).collect())
        .collect()
}

#[test]
fn compare_gather_selects_indices_above_and_equal_to_row_thresholds() {
    let floats_of = |file: &str| -> Vec<f64> {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(root().join("examples/seeds/data").join(file)).unwrap()).unwrap();
        v["data"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
    };
    let scores = floats_of("scores.json");
    let labels: Vec<f64> = data_ints("labels.json").iter().map(|&x| x as f64).collect();
    let (limits, wanted) = (data_ints("limits.json"), data_ints("wanted.json"));
    let above = compare_gather_reference(&scores, 64, 50, &limits[..4], 256, |x, k| x > k);
    let hits = compare_gather_reference(&labels, 32, 32, &wanted[..4], 0, |x, k| x == k);
    // What the program's comment promises about the data: ties with the limits are excluded,
    // junk beyond the valid columns would be taken if read, row 3 is empty in both.
    assert_eq!((scores[5], scores[64 + 9], scores[128]), (6.0, 7.0, 8.0));
    assert!(!above[0].contains(&(256 + 5)) && !above[1].contains(&(256 + 64 + 9)) && !above[2].contains(&(256 + 128)));
    assert!(scores[50..64].iter().all(|&x| x > 10.0));
    assert!(above[3].is_empty() && hits[3].is_empty() && above[..3].iter().chain(&hits[..3]).all(|r| !r.is_empty()));
    for t in BOTH {
        let inputs = [("scores", "scores.json"), ("limits", "limits.json"), ("labels", "labels.json"), ("wanted", "wanted.json")];
        let out = run_seed("compare_gather.pto", t, &inputs, &["above", "n_above", "hits", "n_hits"]);
        for (name, count, want, width) in [("above", "n_above", &above, 64), ("hits", "n_hits", &hits, 32)] {
            let (got, n) = (ints(&out, name), ints(&out, count));
            for (i, row) in want.iter().enumerate() {
                assert_eq!(n[i], row.len() as i64, "{t:?}: {count}[{i}]");
                assert_eq!(&got[i * width..i * width + row.len()], &row[..], "{t:?}: {name} row {i}");
                assert!(
                    got[i * width + row.len()..(i + 1) * width].iter().all(|&x| x == -1),
                    "{t:?}: the rest of {name} row {i} is untouched"
                );
            }
        }
        assert_eq!(&ints(&out, "above")[..4], &[256, 259, 265, 266]);
        assert_eq!(ints(&out, "n_above")[..4], [17, 14, 6, 0]);
        assert_eq!(ints(&out, "n_hits")[..4], [6, 7, 4, 0]);
        snapshot("compare_gather", t, &out);
    }
}
