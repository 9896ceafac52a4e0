//! Sync reports lead with their root cause and end with a count (issue 28, acceptance 3): in
//! every shared sample with explicit sync, each `wait_flag` / `wait_event` deleted in turn, on
//! both targets, the first error is the hazard between the two pipes of the missing edge (it
//! names both ops and their pipes) and the report's last line counts errors and warnings.

mod common;

use pto::TargetName;
use pto::cmd::run::{RunOptions, SyncCheck, run};

/// The pipes `(src, dst)` of a wait line: `pto.wait_flag[<PIPE_A>, <PIPE_B>, ...]`, or
/// `pto.wait_event[#pto.sync_op_type<K1>, #pto.sync_op_type<K2>, ...]` through PTOAS's mapping.
fn waited_pipes(line: &str) -> Option<(String, String)> {
    let args = line.split_once('[')?.1;
    let mut names = args.split(',').take(2).map(|a| {
        let inner = a.trim().trim_start_matches("#pto.sync_op_type").trim_matches(['<', '>', ' ']);
        if inner.starts_with("PIPE_") { Some(inner.to_string()) } else { pto_sim::sync::effects::op_kind_pipe(inner).map(String::from) }
    });
    Some((names.next()??, names.next()??))
}

#[test]
fn deleting_a_wait_leads_with_the_hazard_of_the_missing_edge_and_ends_with_a_count() {
    let Some(corpus) = common::corpus_dir() else { return };
    let count = |l: &str| {
        let w: Vec<&str> = l.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        matches!(w.as_slice(), [n, "error" | "errors", m, "warning" | "warnings"] if n.parse::<u32>().is_ok() && m.parse::<u32>().is_ok())
    };
    let mut checked = 0;
    for f in common::pto_files(&[corpus]) {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok((m, _)) = pto_asm::parse(&text, pto_ir::FileId(0)) else { continue };
        if !pto_sim::sync::has_explicit_sync(&m) {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            if !(t.starts_with("pto.wait_flag") || t.starts_with("pto.wait_event")) {
                continue;
            }
            let (src, dst) = waited_pipes(t).unwrap_or_else(|| panic!("{}:{}: pipes of `{t}`", f.display(), i + 1));
            let mutant: String = lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| format!("{l}\n")).collect();
            let path = std::env::temp_dir().join(format!("pto-sync-report-{}-{i}.pto", std::process::id()));
            std::fs::write(&path, mutant).unwrap();
            for target in [TargetName::A2A3, TargetName::A5] {
                let opts =
                    RunOptions { default_inputs: true, sync_check: SyncCheck::Auto, ..RunOptions::new(path.display().to_string(), target) };
                let out = run(&opts);
                let at = format!("{}:{} deleted on {target:?}", f.display(), i + 1);
                assert_eq!(out.code, 1, "{at}: {}", out.stderr);
                let first = out.stderr.lines().find(|l| l.starts_with("error[")).unwrap_or_else(|| panic!("{at}: no error"));
                assert!(first.starts_with("error[HAZARD_"), "{at}: the first error is not the hazard: {first}");
                // "`later` on DST reads ... that `earlier` on SRC wrote": both ops, on the edge's pipes.
                let (later, earlier) = first.split_once(" that ").unwrap_or_else(|| panic!("{at}: {first}"));
                assert!(later.contains(&format!("` on {dst} ")), "{at}: {first}");
                assert!(earlier.starts_with("`pto.") && earlier.contains(&format!("` on {src} ")), "{at}: {first}");
                let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
                assert!(count(last), "{at}: the report does not end with a count: {last:?}");
                assert_eq!(
                    out.stderr.lines().filter(|l| l.starts_with("error[")).count().to_string(),
                    last.split(' ').next().unwrap(),
                    "{at}"
                );
                checked += 1;
            }
            let _ = std::fs::remove_file(path);
        }
    }
    assert!(checked >= 6, "{checked} (mutant, target) pairs checked");
}

/// A report without errors or warnings has no count line; JSON lines never get one.
#[test]
fn the_count_line_counts_errors_and_warnings_only_in_human_output() {
    use pto::ErrorFormat;
    use pto::render::count_line;
    use pto_ir::diag::{DiagClass, Diagnostic};
    let e = || Diagnostic::error(DiagClass::HazardRaw, Default::default(), "e");
    let w = Diagnostic::warning(DiagClass::HazardWaw, Default::default(), "w");
    let n = Diagnostic::note(DiagClass::SyncNotChecked, Default::default(), "n");
    assert_eq!(count_line(&[e(), e(), w.clone(), n.clone()], ErrorFormat::Human), "2 errors, 1 warning\n");
    assert_eq!(count_line(&[e()], ErrorFormat::Human), "1 error, 0 warnings\n");
    assert_eq!(count_line(&[n], ErrorFormat::Human), "");
    assert_eq!(count_line(&[e(), w], ErrorFormat::Json), "");
}
