//! `pto run --timeline OUT.json` (docs/performance-model.md): the Chrome trace is well formed —
//! every complete event has `ts`, `dur`, `pid`, `tid` and the promised `args`, every flow start
//! has exactly one finish, threads are named as Perf-Sim names its tracks — and agrees with
//! `--cycles` (each thread's durations add up to its pipe's busy cycles). Loading it in
//! Perfetto's trace processor needs `trace_processor_shell` (on PATH or in
//! `PTO_TRACE_PROCESSOR`), loading it in a headless browser needs Chromium; without them those
//! tests skip loudly.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary file for a trace of `file` ending in `.ext`. Tests run in parallel, several on
/// one kernel: each trace gets a file of its own.
fn temp_file(file: &str, ext: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("pto-timeline-{}-{n}-{}.{ext}", std::process::id(), file.replace('/', "_")))
}

/// Runs `file` with `--timeline` (and `--cycles --json`) and returns the trace and `%cycles`.
fn traced(file: &str, ext: &str) -> (String, Value) {
    let out_file = temp_file(file, ext);
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        json_cycles: true,
        quiet: true,
        timeline: Some(out_file.display().to_string()),
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    let text = std::fs::read_to_string(&out_file).expect("the timeline was written");
    let _ = std::fs::remove_file(&out_file);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
    (text, v["%cycles"].clone())
}

const KERNELS: &[&str] = &["examples/vadd.pto", "examples/softmax.as.pto", "tests/sync/cube_path.pto", "tests/sync/ping_pong.pto"];

const PERF_SIM_TRACKS: &[&str] = &["Scalar", "MTE2", "MTE1", "CUBE", "FIXP", "VEC", "MTE3"];

#[test]
fn every_complete_event_is_placed_and_every_flow_is_paired() {
    let mut flows_seen = 0;
    for file in KERNELS {
        let (text, cycles) = traced(file, "json");
        let trace: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: the trace is JSON: {e}"));
        assert_eq!(trace["otherData"]["ts_unit"], "cycle", "{file}: the unit is stated");
        let events = trace["traceEvents"].as_array().expect("traceEvents");
        let mut threads: HashMap<u64, String> = HashMap::new();
        let mut busy: HashMap<u64, f64> = HashMap::new();
        let mut starts: HashMap<u64, usize> = HashMap::new();
        let mut finishes: HashMap<u64, usize> = HashMap::new();
        let mut xs = 0;
        for e in events {
            match e["ph"].as_str().expect("every event has a phase") {
                "M" if e["name"] == "thread_name" => {
                    threads.insert(e["tid"].as_u64().unwrap(), e["args"]["name"].as_str().unwrap().to_string());
                }
                "M" => {}
                "X" => {
                    xs += 1;
                    for key in ["ts", "dur"] {
                        assert!(e[key].as_f64().is_some_and(|x| x >= 0.0), "{file}: {key} of {e}");
                    }
                    assert!(e["pid"].is_u64() && e["tid"].is_u64(), "{file}: pid/tid of {e}");
                    let args = &e["args"];
                    // `dur`: how long it holds its pipe; `cycles`: to its completion (a transfer's
                    // latency is in flight after its pipe is free).
                    assert!(args["cycles"].as_f64().unwrap() >= e["dur"].as_f64().unwrap(), "{file}: {e}");
                    assert!(args["line"].as_str().is_some_and(|l| l.contains(".pto:")), "{file}: source line of {e}");
                    assert!(args["op"].as_str().is_some_and(|t| !t.is_empty()), "{file}: op text of {e}");
                    assert!(args["bytes"].is_u64() && args["repeats"].is_u64(), "{file}: {e}");
                    *busy.entry(e["tid"].as_u64().unwrap()).or_default() += e["dur"].as_f64().unwrap();
                }
                "s" => *starts.entry(e["id"].as_u64().unwrap()).or_default() += 1,
                "f" => *finishes.entry(e["id"].as_u64().unwrap()).or_default() += 1,
                other => panic!("{file}: unexpected phase {other}"),
            }
        }
        assert!(xs > 0, "{file}: ops ran");
        assert_eq!(starts, finishes, "{file}: every flow has one start and one finish");
        assert!(starts.values().all(|&n| n == 1), "{file}: flow ids are unique");
        flows_seen += starts.len();
        // Each thread is a pipe with a Perf-Sim name, and its events add up to the pipe's busy cycles.
        let pipes = cycles["pipes"].as_object().unwrap();
        assert_eq!(busy.len(), pipes.len(), "{file}: one thread per pipe that ran something");
        for (tid, cycles_on) in &busy {
            let name = &threads[tid];
            assert!(PERF_SIM_TRACKS.contains(&name.as_str()), "{file}: thread {name}");
            let pipe = if name == "Scalar" { "PIPE_S".into() } else { pipe_of_track(name) };
            let expected = pipes[&pipe]["busy"].as_u64().unwrap();
            assert_eq!(cycles_on.round() as u64, expected, "{file}: {name}");
        }
    }
    assert!(flows_seen > 0, "the kernels with set/wait pairs have flows");
}

/// The `PIPE_*` name of a Perf-Sim track.
fn pipe_of_track(track: &str) -> String {
    match track {
        "VEC" => "PIPE_V".into(),
        "CUBE" => "PIPE_M".into(),
        "FIXP" => "PIPE_FIX".into(),
        t => format!("PIPE_{t}"),
    }
}

#[test]
fn a_flow_goes_from_a_set_to_its_wait() {
    let (text, _) = traced("tests/sync/ping_pong.pto", "json");
    let trace: Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let at = |ph: &str, id: u64| events.iter().find(|e| e["ph"] == ph && e["id"] == id).unwrap().clone();
    let slice_at = |f: &Value| {
        events
            .iter()
            .find(|e| e["ph"] == "X" && e["tid"] == f["tid"] && e["ts"].as_f64() == f["ts"].as_f64())
            .unwrap_or_else(|| panic!("a slice at {f}"))
            .clone()
    };
    let mut n = 0;
    for id in events.iter().filter(|e| e["ph"] == "s").map(|e| e["id"].as_u64().unwrap()) {
        let (s, f) = (at("s", id), at("f", id));
        let (set, wait) = (slice_at(&s), slice_at(&f));
        assert_eq!(set["name"], "set_flag");
        assert_eq!(wait["name"], "wait_flag");
        assert!(f["ts"].as_f64() >= Some(set["ts"].as_f64().unwrap() + set["dur"].as_f64().unwrap()), "a wait never starts before its set");
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn a_timeline_file_must_be_json_or_svg() {
    let out = run(&RunOptions {
        default_inputs: true,
        timeline: Some("out.txt".into()),
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--timeline out.txt") && out.stderr.contains(".json"), "{}", out.stderr);
    let out = run(&RunOptions {
        default_inputs: true,
        timeline: Some("/nonexistent-dir/x.json".into()),
        ..RunOptions::new(root().join("examples/vadd.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.starts_with("error: --timeline /nonexistent-dir/x.json"), "{}", out.stderr);
}

/// Perfetto's trace processor, if installed.
fn trace_processor() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTO_TRACE_PROCESSOR") {
        return Some(p.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("trace_processor_shell")).find(|p| p.is_file())
}

#[test]
fn perfetto_loads_the_trace() {
    let Some(tp) = trace_processor() else {
        eprintln!("SKIPPED perfetto_loads_the_trace: no trace_processor_shell on PATH or in PTO_TRACE_PROCESSOR");
        return;
    };
    let (text, _) = traced("tests/sync/ping_pong.pto", "json");
    let dir = std::env::temp_dir();
    let trace = dir.join(format!("pto-perfetto-{}.json", std::process::id()));
    std::fs::write(&trace, &text).unwrap();
    let query = dir.join(format!("pto-perfetto-{}.sql", std::process::id()));
    std::fs::write(&query, "select (select count(*) from slice) as slices, (select count(*) from flow) as flows;").unwrap();
    let out = std::process::Command::new(&tp).arg("-q").arg(&query).arg(&trace).output().expect("trace_processor_shell runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let parsed: Value = serde_json::from_str(&text).unwrap();
    let events = parsed["traceEvents"].as_array().unwrap();
    let xs = events.iter().filter(|e| e["ph"] == "X").count();
    let flows = events.iter().filter(|e| e["ph"] == "s").count();
    let row = stdout.lines().last().unwrap_or_default().replace('"', "");
    assert_eq!(row, format!("{xs},{flows}"), "slices and flows Perfetto imported: {stdout}");
}

/// A headless Chromium (`PTO_CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome` on
/// PATH), if installed.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTO_CHROMIUM") {
        return Some(p.into());
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()))
}

/// The trace loads in a headless browser: Chrome DevTools' Performance-panel trace engine
/// (tests/timeline_headless.py) builds a thread per pipe track of every core, named as the
/// trace names it, holding every complete event of that track. CI installs Chromium and sets
/// `PTO_REQUIRE_HEADLESS`, which turns a missing browser from a skip into a failure.
#[test]
fn a_headless_browser_loads_the_trace() {
    let Some(chromium) = chromium() else {
        assert!(std::env::var_os("PTO_REQUIRE_HEADLESS").is_none(), "PTO_REQUIRE_HEADLESS is set and no Chromium was found");
        eprintln!("SKIPPED a_headless_browser_loads_the_trace: no chromium on PATH or in PTO_CHROMIUM (apt-get install chromium)");
        return;
    };
    for (file, target) in [("tests/sync/ping_pong.pto", TargetName::A2A3), ("tests/hb/mix_ffts_handoff.pto", TargetName::A5)] {
        let trace = trace_of(file, target, None);
        let path = std::env::temp_dir().join(format!("pto-headless-{}-{}.json", std::process::id(), file.replace('/', "_")));
        std::fs::write(&path, trace.to_string()).unwrap();
        let out = std::process::Command::new("python3")
            .arg(root().join("tests/timeline_headless.py"))
            .arg(&chromium)
            .arg(&path)
            .output()
            .expect("python3 runs");
        let _ = std::fs::remove_file(&path);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let loaded: Value = serde_json::from_slice(&out.stdout).expect("the driver prints JSON");
        let events = trace["traceEvents"].as_array().unwrap();
        assert_eq!(loaded["events"], events.len(), "{file}: every event reached the trace engine");
        assert_eq!(loaded["warnings"], serde_json::json!([]), "{file}");
        // (pid, tid) -> (track name, complete events), from the trace and from the browser.
        let mut expected: std::collections::BTreeMap<(u64, u64), (String, u64)> = Default::default();
        for e in events {
            let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            match (e["ph"].as_str().unwrap(), e["name"].as_str().unwrap()) {
                ("M", "thread_name") => expected.entry(key).or_default().0 = e["args"]["name"].as_str().unwrap().to_string(),
                ("X", _) => expected.entry(key).or_default().1 += 1,
                _ => {}
            }
        }
        let seen: std::collections::BTreeMap<(u64, u64), (String, u64)> = loaded["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| ((t[0].as_u64().unwrap(), t[1].as_u64().unwrap()), (t[2].as_str().unwrap().to_string(), t[3].as_u64().unwrap())))
            .collect();
        assert_eq!(seen, expected, "{file}: threads and their complete events as the browser built them");
        assert!(expected.len() >= 3, "{file}: several tracks: {expected:?}");
    }
}

#[test]
fn the_picture_is_well_formed_svg_with_a_lane_per_pipe() {
    for file in KERNELS {
        let (text, cycles) = traced(file, "svg");
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{file}: the SVG is XML: {e}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        let lanes: Vec<&str> =
            root.children().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).filter(|t| PERF_SIM_TRACKS.contains(t)).collect();
        assert_eq!(lanes.len(), cycles["pipes"].as_object().unwrap().len(), "{file}: a lane per pipe: {lanes:?}");
        let boxes = root.children().filter(|n| n.has_tag_name("rect") && n.children().any(|c| c.has_tag_name("title"))).count();
        assert!(boxes > 0, "{file}: boxes");
        let fills: std::collections::HashSet<_> =
            root.children().filter(|n| n.has_tag_name("rect")).filter_map(|n| n.attribute("fill")).collect();
        assert!(fills.len() >= 3, "{file}: coloured by kind: {fills:?}");
    }
    // A kernel with set/wait pairs shows its waits: hatched bands and set->wait lines.
    let (text, _) = traced("tests/sync/ping_pong.pto", "svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert!(doc.descendants().any(|n| n.attribute("fill") == Some("url(#waiting)") && n.children().any(|c| c.has_tag_name("title"))));
    assert!(doc.descendants().any(|n| n.has_tag_name("line") && n.attribute("stroke") == Some("#e15759")));
}

#[test]
fn a_renderer_draws_the_picture() {
    let Some(rsvg) = std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("rsvg-convert")).find(|p| p.is_file()))
    else {
        eprintln!("SKIPPED a_renderer_draws_the_picture: no rsvg-convert on PATH (apt-get install librsvg2-bin)");
        return;
    };
    let (text, _) = traced("tests/sync/ping_pong.pto", "svg");
    let svg = std::env::temp_dir().join(format!("pto-render-{}.svg", std::process::id()));
    std::fs::write(&svg, text).unwrap();
    let out = std::process::Command::new(rsvg).arg(&svg).output().expect("rsvg-convert runs");
    let _ = std::fs::remove_file(&svg);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.starts_with(b"\x89PNG"), "a PNG came out");
}

/// The trace of `file` run on `target` with `threads`, as JSON.
fn trace_of(file: &str, target: TargetName, threads: Option<usize>) -> Value {
    trace_with(file, target, |o| o.threads = threads)
}

#[test]
fn a_mix_kernel_has_a_process_per_core_and_the_vector_cores_wait_for_the_cubes_flag() {
    // tests/hb/mix_ffts_handoff.pto: the cube stores a @ b to GM and sets an FFTS flag on
    // PIPE_FIX; each AIV waits for it, then loads. In time: every AIV op after the wait starts
    // once the cube's store has completed.
    for target in [TargetName::A2A3, TargetName::A5] {
        let v = trace_of("tests/hb/mix_ffts_handoff.pto", target, None);
        let events = v["traceEvents"].as_array().unwrap();
        let processes: Vec<&str> =
            events.iter().filter(|e| e["ph"] == "M" && e["name"] == "process_name").map(|e| e["args"]["name"].as_str().unwrap()).collect();
        assert_eq!(processes, ["rank 0 block 0 aic", "rank 0 block 0 aiv0", "rank 0 block 0 aiv1"], "{target:?}");
        let ops = |pid: u64, name: &str| -> Vec<&Value> {
            events.iter().filter(|e| e["ph"] == "X" && e["pid"] == pid && e["name"] == name).collect()
        };
        let end = |e: &Value| e["ts"].as_f64().unwrap() + e["args"]["cycles"].as_f64().unwrap();
        let store = ops(0, "tstore");
        let stored = end(store.last().expect("the cube stores"));
        for aiv in [1, 2] {
            let load = ops(aiv, "tload");
            let start = load.first().expect("the AIV loads")["ts"].as_f64().unwrap();
            assert!(start >= stored, "{target:?}: aiv{} loads at {start}, before the cube's store completes at {stored}", aiv - 1);
        }
        // The run's total is the last core's to finish, and the trace is the same on 1 and 2
        // threads.
        assert_eq!(v, trace_of("tests/hb/mix_ffts_handoff.pto", target, Some(1)), "{target:?}");
        assert_eq!(v, trace_of("tests/hb/mix_ffts_handoff.pto", target, Some(2)), "{target:?}");
        let total = events.iter().filter(|e| e["ph"] == "X").map(end).fold(0.0, f64::max);
        assert_eq!(v["otherData"]["total_cycles"].as_f64().unwrap(), total.round(), "{target:?}");
    }
}

#[test]
fn cycles_of_several_cores_are_reported_per_core_and_the_picture_has_a_group_of_lanes_per_core() {
    let out = run(&RunOptions {
        default_inputs: true,
        cycles: true,
        json_cycles: true,
        quiet: true,
        ..RunOptions::new(root().join("tests/hb/mix_ffts_handoff.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let cores = v["%cycles"]["cores"].as_object().expect("one entry per core");
    assert_eq!(cores.len(), 3);
    let max = cores.values().map(|c| c["total"].as_u64().unwrap()).max().unwrap();
    assert_eq!(v["%cycles"]["total"].as_u64().unwrap(), max);
    assert!(
        cores["rank 0 block 0 aiv0"]["total"].as_u64().unwrap()
            > cores["rank 0 block 0 aiv0"]["pipes"]["PIPE_MTE2"]["busy"].as_u64().unwrap()
    );
    // The picture has a group of lanes per core, headed by its name, and the FFTS edge from
    // the cube to each AIV as a dashed line titled with it.
    let svg = std::env::temp_dir().join(format!("pto-timeline-cores-{}.svg", std::process::id()));
    let out = run(&RunOptions {
        default_inputs: true,
        quiet: true,
        timeline: Some(svg.display().to_string()),
        ..RunOptions::new(root().join("tests/hb/mix_ffts_handoff.pto").display().to_string(), TargetName::A2A3)
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&svg).expect("the picture was written");
    let _ = std::fs::remove_file(&svg);
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let texts: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
    for core in ["rank 0 block 0 aic", "rank 0 block 0 aiv0", "rank 0 block 0 aiv1"] {
        assert!(texts.contains(&core), "a header for {core}: {texts:?}");
    }
    assert!(texts.iter().any(|t| t.starts_with("3 cores: ") && t.ends_with(" cycles (modelled)")), "{texts:?}");
    let edges: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("stroke-dasharray").is_some())
        .map(|n| n.children().find(|c| c.has_tag_name("title")).and_then(|t| t.text()).unwrap_or(""))
        .collect();
    assert_eq!(edges, ["ffts set→wait", "ffts set→wait"], "one edge to each AIV");
}

/// The trace of `file` on `target` run with `configure`'s options.
fn trace_with(file: &str, target: TargetName, configure: impl FnOnce(&mut RunOptions)) -> Value {
    let out_file = temp_file(file, "json");
    let mut opts = RunOptions {
        default_inputs: true,
        quiet: true,
        timeline: Some(out_file.display().to_string()),
        ..RunOptions::new(root().join(file).display().to_string(), target)
    };
    configure(&mut opts);
    let out = run(&opts);
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    let text = std::fs::read_to_string(&out_file).expect("the timeline was written");
    let _ = std::fs::remove_file(&out_file);
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn an_edge_between_cores_is_a_flow_from_the_release_to_the_acquire_that_waited_for_it() {
    // Each kernel of tests/hb with the edges between cores it has: pipe slots (push → pop, and
    // free → the push that refills the slot), FFTS flags, `syncall` between blocks, signals
    // between ranks.
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    type Options = Box<dyn Fn(&mut RunOptions)>;
    let cases: Vec<(&str, TargetName, &[&str], Options)> = vec![
        ("tests/hb/mix_c2v_pop_a2a3.pto", TargetName::A2A3, &["push→pop"], Box::new(|_| {})),
        ("tests/hb/gm_slot_loop.pto", TargetName::A2A3, &["push→pop", "free→push"], Box::new(|_| {})),
        ("tests/hb/mix_ffts_handoff.pto", TargetName::A5, &["ffts set→wait"], Box::new(|_| {})),
        ("tests/hb/blocks_syncall_cols.pto", TargetName::A2A3, &["syncall"], Box::new(|o| o.blocks = 2)),
        (
            "tests/hb/ranks_store_notify.pto",
            TargetName::A2A3,
            &["notify→wait"],
            Box::new(move |o| {
                o.ranks = 2;
                o.peers = strings(&["buf=0", "sig=1"]);
                o.inputs = strings(&["rank@0=0", "rank@1=1"]);
            }),
        ),
    ];
    for (file, target, names, configure) in cases {
        let v = trace_with(file, target, configure);
        let events = v["traceEvents"].as_array().unwrap();
        let key = |e: &Value| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap(), e["ts"].as_f64().unwrap());
        // Each flow end sits at the start of an op's box on its thread.
        let boxes: HashMap<(u64, u64, u64), &Value> =
            events.iter().filter(|e| e["ph"] == "X").map(|e| (key(e), e)).map(|((p, t, ts), e)| ((p, t, ts.to_bits()), e)).collect();
        let at = |e: &Value| {
            let (p, t, ts) = key(e);
            *boxes.get(&(p, t, ts.to_bits())).unwrap_or_else(|| panic!("{file}: flow end {e} is on no op's box"))
        };
        let mut ends: HashMap<u64, Vec<&Value>> = HashMap::new();
        for e in events.iter().filter(|e| e["cat"] == "flow") {
            ends.entry(e["id"].as_u64().unwrap()).or_default().push(e);
        }
        for name in names {
            let flows: Vec<_> = ends.values().filter(|f| f[0]["name"] == *name).collect();
            assert!(!flows.is_empty(), "{file}: a `{name}` flow");
            for f in flows {
                let [s, fin] = f[..] else { panic!("{file}: flow {f:?} has two ends") };
                assert_eq!((s["ph"].as_str(), fin["ph"].as_str()), (Some("s"), Some("f")), "{file}");
                assert_ne!(s["pid"], fin["pid"], "{file}: `{name}` goes between two cores");
                let (released, acquired) = (at(s), at(fin));
                if file.ends_with("mix_c2v_pop_a2a3.pto") {
                    // A push and a pop of a tile are its transfers (A2A3: into and out of the GM
                    // slot buffer), boxes of their own with their bytes (gm_slot_loop.pto's
                    // slot-view form moves its data with tstore and tload instead).
                    let named =
                        |e: &Value, prefix: &str| e["name"].as_str().unwrap().starts_with(prefix) && e["args"]["bytes"].as_u64() > Some(0);
                    assert!(named(released, "tpush") && named(acquired, "tpop"), "{file}: {released} -> {acquired}");
                }
                let done = released["ts"].as_f64().unwrap() + released["args"]["cycles"].as_f64().unwrap();
                assert!(
                    acquired["ts"].as_f64().unwrap() >= done,
                    "{file}: `{name}`: {} starts at {} before {} completes at {done}",
                    acquired["name"],
                    acquired["ts"],
                    released["name"]
                );
            }
        }
    }
}

#[test]
fn a_comm_copy_is_timed_as_its_load_and_store_and_a_notify_after_it_waits_for_the_store() {
    // tests/hb/ranks_put_read_wait.pto: each rank `tput`s 64 f32 (256 bytes) to its peer, then
    // notifies it; pto-isa's TPUT is a TLOAD (MTE2) then a TSTORE (MTE3) through UB.
    let v = trace_with("tests/hb/ranks_put_read_wait.pto", TargetName::A2A3, |o| {
        o.ranks = 2;
        o.peers = vec!["buf=next".into(), "sig=next".into()];
    });
    let events = v["traceEvents"].as_array().unwrap();
    let tracks: HashMap<(u64, u64), &str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| ((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()), e["args"]["name"].as_str().unwrap()))
        .collect();
    for pid in [0, 1] {
        let ops =
            |name: &str| -> Vec<&Value> { events.iter().filter(|e| e["ph"] == "X" && e["pid"] == pid && e["name"] == name).collect() };
        let put = ops("comm.tput");
        let track = |e: &Value| tracks[&(pid, e["tid"].as_u64().unwrap())];
        assert_eq!(put.iter().map(|e| track(e)).collect::<Vec<_>>(), ["MTE2", "MTE3"], "rank {pid}");
        assert!(put.iter().all(|e| e["args"]["bytes"] == 256), "rank {pid}: {put:?}");
        let end = |e: &Value| e["ts"].as_f64().unwrap() + e["args"]["cycles"].as_f64().unwrap();
        assert!(put[1]["ts"].as_f64().unwrap() >= end(put[0]), "rank {pid}: the store after the load");
        let notify = ops("comm.tnotify");
        assert!(notify[0]["ts"].as_f64().unwrap() >= end(put[1]), "rank {pid}: the notify after the copy");
    }
}
