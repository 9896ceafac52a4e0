//! pto-sim is built in layers, each module importing only its own layer and those below
//! (docs/design.md, "Simulator layers"): this test reads every module's source, collects the
//! modules it names (`crate::a::b`, `use crate::{a, b}`, `super::x`, `use super::{x, y}`;
//! a name a parent module re-exports from a child counts as the child; comments, tests and
//! `$crate` paths inside macros — which belong to the macro's caller — are left out) and fails
//! when a module imports a higher layer, when a module has no layer, or when modules form a
//! circle.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// The layers, bottom first, and their modules.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "values and memories",
        &[
            "advice",
            "byteset",
            "config",
            "data",
            "defaults",
            "elem",
            "fifo",
            "fmatrix",
            "gm",
            "gm_store",
            "json",
            "memory",
            "minifloat",
            "npy",
            "sync::graph",
            "sync::intervals",
            "sync::model",
            "value",
            "view",
        ],
    ),
    (
        "semantics tables",
        &[
            "conv",
            "exec",
            "family",
            "fixpipe",
            "fused_convert",
            "gather_sort",
            "gm_ops",
            "placement",
            "quant",
            "region",
            "scalar_arith",
            "tables",
            "tpipe",
            "vector",
        ],
    ),
    (
        "machine state and the instructions between cores",
        &["comm", "comm::ops", "cores", "cores::clock", "cores::ops", "cores::sched", "cores::split", "cores::topology", "cores::xpipe"],
    ),
    ("core interpreter", &["interp", "sync::arrays", "sync::branches", "sync::paths"]),
    ("machines", &["comm::machine", "cores::machine"]),
    ("observers", &["sync", "sync::check", "sync::effects", "sync::rules", "timeline"]),
    ("entry points", &["kernel_io", "launch", "lib"]),
];

/// `pto-sim/src/a/b.rs` → `a::b`, `a/mod.rs` → `a`.
fn module_name(rel: &Path) -> String {
    let s = rel.with_extension("").to_string_lossy().replace('/', "::");
    s.strip_suffix("::mod").map(str::to_string).unwrap_or(s)
}

/// The source without comments, `#[cfg(test)]` items and macro-internal `$crate` paths.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        out.push_str(&line.replace("$crate::", "$CRATE::"));
        out.push('\n');
    }
    // Drop each `#[cfg(test)]` item: from the attribute to the end of its braces.
    while let Some(at) = out.find("#[cfg(test)]") {
        let Some(open) = out[at..].find('{').map(|o| at + o) else { break };
        let mut depth = 0;
        let mut end = out.len();
        for (i, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// The identifiers of a path list `a, b::c, {d, e}` (first segment of each).
fn heads(list: &str) -> Vec<String> {
    list.split(',')
        .map(|s| s.trim().trim_start_matches('{').split("::").next().unwrap_or("").trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Every identifier-path that follows `prefix` in `code` (`crate::a::B` → `["a", "B"]`).
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            out.extend(heads(&list[..end]).into_iter().map(|h| vec![h]));
            continue;
        }
        let path: Vec<String> = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

#[test]
fn no_module_imports_a_higher_layer_and_none_forms_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let name = module_name(p.strip_prefix(&src).unwrap());
                sources.insert(name, code(&std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let layer_of: HashMap<&str, usize> = LAYERS.iter().enumerate().flat_map(|(i, (_, mods))| mods.iter().map(move |m| (*m, i))).collect();
    let unclassified: Vec<&String> = sources.keys().filter(|m| !layer_of.contains_key(m.as_str())).collect();
    assert!(unclassified.is_empty(), "modules without a layer (add them to LAYERS and docs/design.md): {unclassified:?}");

    // What each parent module re-exports from its children: `pub use child::{A, B}`.
    let mut reexports: HashMap<(String, String), String> = HashMap::new();
    for (name, code) in &sources {
        for line in code.lines().map(str::trim).filter(|l| l.starts_with("pub use ") && !l.starts_with("pub use crate::")) {
            let body = line.trim_start_matches("pub use ").trim_end_matches(';');
            let Some((child, items)) = body.split_once("::") else { continue };
            let child = if name == "lib" { child.to_string() } else { format!("{name}::{child}") };
            let parent = if name == "lib" { String::new() } else { name.clone() };
            if sources.contains_key(&child) {
                for item in items.trim_start_matches('{').trim_end_matches('}').split(',') {
                    reexports.insert((parent.clone(), item.trim().to_string()), child.clone());
                }
            }
        }
    }
    // The module a path from the crate root names: the longest module prefix, or the child a
    // parent re-exports the next name from.
    let resolve = |path: &[String]| -> Option<String> {
        let mut best = None;
        for n in 1..=path.len() {
            let candidate = path[..n].join("::");
            if sources.contains_key(&candidate) {
                best = Some(candidate.clone());
                if let Some(item) = path.get(n)
                    && let Some(child) = reexports.get(&(candidate.clone(), item.clone()))
                {
                    best = Some(child.clone());
                }
            } else if n == 1
                && let Some(child) = reexports.get(&(String::new(), path[0].clone()))
            {
                return Some(child.clone());
            } else {
                break;
            }
        }
        best
    };
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in &sources {
        let parent = name.rsplit_once("::").map(|(p, _)| p.to_string());
        let mut found = BTreeSet::new();
        for path in paths_after(code, "crate::") {
            found.extend(resolve(&path));
        }
        for path in paths_after(code, "super::") {
            let mut full: Vec<String> = parent.iter().flat_map(|p| p.split("::").map(str::to_string)).collect();
            full.extend(path);
            found.extend(resolve(&full));
        }
        // A parent naming its child by a relative path (`paths::Explorer`); its `pub use` and
        // `pub mod` lines are a namespace, not a use.
        let uses: String =
            code.lines().filter(|l| !l.trim_start().starts_with("pub use ") && !l.trim_start().starts_with("pub mod ")).collect();
        let prefix = if name == "lib" { String::new() } else { format!("{name}::") };
        for child in sources.keys().filter_map(|k| k.strip_prefix(prefix.as_str())).filter(|c| !c.contains("::")) {
            if !paths_after(&uses, &format!("{child}::")).is_empty() {
                found.insert(format!("{prefix}{child}"));
            }
        }
        found.remove(name);
        deps.insert(name.clone(), found);
    }
    let mut upward = Vec::new();
    for (name, ds) in &deps {
        for d in ds {
            if layer_of[d.as_str()] > layer_of[name.as_str()] {
                upward.push(format!("{name} ({}) imports {d} ({})", LAYERS[layer_of[name.as_str()]].0, LAYERS[layer_of[d.as_str()]].0));
            }
        }
    }
    assert!(upward.is_empty(), "imports of a higher layer:\n{}", upward.join("\n"));
    // No circle among the modules, within a layer either.
    let mut state: HashMap<&str, u8> = HashMap::new();
    fn visit<'a>(
        m: &'a str,
        deps: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut HashMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|p| *p == m).unwrap_or(0);
                return Some(path[from..].iter().map(|s| s.to_string()).chain([m.to_string()]).collect());
            }
            _ => {}
        }
        state.insert(m, 1);
        path.push(m);
        for d in deps.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, deps, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    for m in deps.keys() {
        let mut path = Vec::new();
        if let Some(circle) = visit(m, &deps, &mut state, &mut path) {
            panic!("a module circle: {}", circle.join(" -> "));
        }
    }
    // The test sees real imports: the interpreter uses the semantics tables, the machines the
    // interpreter.
    assert!(deps["interp"].contains("tables") && deps["cores::machine"].contains("interp"), "{deps:?}");
}
