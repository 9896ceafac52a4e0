//! `pto lower --memory-map`: checked on the SVG's geometry. No two texts overlap (boxes from
//! x, y, font size and DejaVu Sans Mono's advance of 0.602 em per character), the axis ticks
//! are round, every tile is drawn and named (in its bar or in the legend), and tile arguments
//! are drawn at their fixed addresses.

mod common;

use pto::TargetName;
use pto::cmd::lower::{Emit, LowerOptions, run as lower};
use std::path::Path;

/// One `<text>`: x, baseline y, font size, content (unescaped).
#[derive(Debug)]
struct Text {
    x: f64,
    y: f64,
    size: f64,
    content: String,
    class: Option<String>,
    value: Option<u64>,
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// Every text of the SVG (font size inherited from the root element when not given).
fn texts(svg: &str) -> Vec<Text> {
    let root_size: f64 = attr(svg.lines().next().unwrap(), "font-size").unwrap().parse().unwrap();
    svg.split("<text")
        .skip(1)
        .map(|rest| {
            let (tag, after) = rest.split_once('>').unwrap();
            let content = after.split("</text>").next().unwrap().replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
            Text {
                x: attr(tag, "x").unwrap().parse().unwrap(),
                y: attr(tag, "y").unwrap().parse().unwrap(),
                size: attr(tag, "font-size").map_or(root_size, |s| s.parse().unwrap()),
                content,
                class: attr(tag, "class").map(str::to_string),
                value: attr(tag, "data-value").map(|v| v.parse().unwrap()),
            }
        })
        .collect()
}

/// (x0, y0, x1, y1) of a text as a monospace font draws it.
fn bbox(t: &Text) -> (f64, f64, f64, f64) {
    (t.x, t.y - 0.75 * t.size, t.x + t.content.chars().count() as f64 * 0.602 * t.size, t.y + 0.2 * t.size)
}

fn overlapping(texts: &[Text]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            let (p, q) = (bbox(a), bbox(b));
            if p.0 < q.2 && q.0 < p.2 && p.1 < q.3 && q.1 < p.3 {
                out.push(format!("{:?} at ({}, {}) and {:?} at ({}, {})", a.content, a.x, a.y, b.content, b.x, b.y));
            }
        }
    }
    out
}

/// Whether `v` is 1, 2 or 5 × 10^k, or a power of two.
fn round_step(v: u64) -> bool {
    let mut d = v;
    while d >= 10 && d.is_multiple_of(10) {
        d /= 10;
    }
    matches!(d, 1 | 2 | 5) || v.is_power_of_two()
}

/// Tick values of one class, per panel (a panel's ticks restart at 0).
fn tick_runs(texts: &[Text], class: &str) -> Vec<Vec<u64>> {
    let mut runs: Vec<Vec<u64>> = Vec::new();
    for t in texts.iter().filter(|t| t.class.as_deref() == Some(class)) {
        let v = t.value.expect("a tick carries data-value");
        match runs.last_mut() {
            Some(run) if v != 0 => run.push(v),
            _ => runs.push(vec![v]),
        }
    }
    runs
}

fn assert_round_ticks(texts: &[Text]) {
    for class in ["tick-bytes", "tick-position"] {
        let runs = tick_runs(texts, class);
        assert!(!runs.is_empty(), "no {class} ticks");
        for run in runs {
            assert!(run.len() >= 2, "{class}: {run:?}");
            let step = run[1] - run[0];
            assert!(round_step(step), "{class}: step {step} is not round ({run:?})");
            assert!(run.iter().enumerate().all(|(k, &v)| v == k as u64 * step), "{class}: not evenly spaced from 0: {run:?}");
        }
    }
    // Byte ticks are labelled in B / KiB as their value says.
    for t in texts.iter().filter(|t| t.class.as_deref() == Some("tick-bytes")) {
        assert_eq!(t.content, pto::memory_map::bytes_label(t.value.unwrap()));
    }
}

/// Lowers `file` for A2A3, writing the memory map; returns (SVG, number of planned tiles).
fn memory_map(file: &Path) -> Option<(String, usize)> {
    let svg_path = std::env::temp_dir().join(format!("pto-memory-map-{}-{}.svg", std::process::id(), file.file_stem()?.to_string_lossy()));
    let out = lower(&LowerOptions {
        emit: Emit::Json,
        memory_map: Some(svg_path.display().to_string()),
        ..LowerOptions::new(file.display().to_string(), TargetName::A2A3)
    });
    if out.code != 0 {
        return None;
    }
    let json: serde_json::Value = serde_json::from_str(&out.stdout).ok()?;
    let svg = std::fs::read_to_string(&svg_path).ok()?;
    let _ = std::fs::remove_file(&svg_path);
    Some((svg, json["memory"].as_array()?.len()))
}

#[test]
fn the_largest_sample_has_no_overlapping_texts_and_round_ticks() {
    let Some(corpus) = common::corpus_dir() else { return };
    let files = common::pto_files(&[corpus]);
    assert!(files.len() > 50, "the corpus is there");
    let (file, (svg, tiles)) = files
        .iter()
        .filter_map(|f| Some((f, memory_map(f)?)))
        .max_by_key(|(f, (_, n))| (*n, std::cmp::Reverse((*f).clone())))
        .expect("a sample lowers");
    assert!(tiles >= 40, "{}: {tiles} tiles", file.display());
    let texts = texts(&svg);
    let overlaps = overlapping(&texts);
    assert!(overlaps.is_empty(), "{}: overlapping texts:\n{}", file.display(), overlaps.join("\n"));
    assert_round_ticks(&texts);
    // Every tile has a bar, and a label in it or a row in the legend.
    assert_eq!(svg.matches("<title>tile").count(), tiles, "{}", file.display());
    let named = texts.iter().filter(|t| matches!(t.class.as_deref(), Some("label" | "legend"))).count();
    assert_eq!(named, tiles, "{}", file.display());
}

#[test]
fn tile_arguments_are_drawn_at_their_addresses() {
    let (svg, tiles) = memory_map(&common::root().join("examples/softmax.as.pto")).expect("lowers");
    assert!(svg.contains("<title>tile argument %x : 4096 B at 0 (ops "), "{svg}");
    let texts = texts(&svg);
    assert!(texts.iter().any(|t| t.content == "arg %x 4 KiB @0"), "{svg}");
    assert_eq!(svg.matches("<title>tile").count(), tiles);
    assert!(overlapping(&texts).is_empty());
    assert_round_ticks(&texts);
}

#[test]
fn byte_labels_are_round_units() {
    use pto::memory_map::bytes_label;
    let cases = [(0, "0"), (512, "512 B"), (1536, "1.5 KiB"), (16384, "16 KiB"), (49152, "48 KiB"), (1 << 21, "2 MiB")];
    for (v, want) in cases {
        assert_eq!(bytes_label(v), want);
    }
}
