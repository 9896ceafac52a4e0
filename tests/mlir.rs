//! MLIR interop (`pto mlir export|import`, issue 6). With the `mlir` feature: every conformance
//! and corpus file round-trips through MLIR text and bytecode to the same printed text
//! (and a structurally equal module), `mlir-opt-19` accepts every export, MLIR written by hand
//! imports, and malformed MLIR gives located diagnostics. Without the feature: the subcommand
//! says how to get it.

mod common;

#[cfg(not(feature = "mlir"))]
#[test]
fn without_the_feature_the_subcommand_says_how_to_get_it() {
    use pto::cmd::mlir;
    let error_format = pto::ErrorFormat::Human;
    let out = mlir::export(&mlir::ExportOptions { input: "k.pto".into(), output: None, bytecode: false, verify: true, error_format });
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "error: built without the mlir feature; rebuild with --features mlir (see README)\n");
    let out = mlir::import(&mlir::ImportOptions { input: "k.mlir".into(), to: None, verify: true, error_format });
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "error: built without the mlir feature; rebuild with --features mlir (see README)\n");
}

#[cfg(feature = "mlir")]
mod with_mlir {
    use super::common::{corpus_dir, pto_files, root};
    use pto::ErrorFormat;
    use pto::cmd::mlir as cli;
    use pto::mlir::{Format, export, import};
    use pto_asm::print::print_module;
    use pto_ir::Module;
    use pto_ir::diag::{Diagnostics, SourceMap};
    use std::path::{Path, PathBuf};

    /// The one file MLIR itself must refuse: its `scf.if` regions yield the wrong number of
    /// values, which MLIR's `scf` verifier checks (as ours does).
    const MLIR_INVALID: &str = "structural/regions.pto";

    struct Parsed {
        path: PathBuf,
        sources: SourceMap,
        module: Module,
        printed: String,
    }

    /// Every `.pto` file of the conformance suite and the PTOAS corpus that parses.
    fn parsed_files() -> Vec<Parsed> {
        let dirs: Vec<_> = [root().join("tests/conformance")].into_iter().chain(corpus_dir()).collect();
        let mut out = Vec::new();
        for path in pto_files(&dirs) {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut sources = SourceMap::default();
            let file = sources.add(path.display().to_string(), text.clone());
            let Ok((module, _)) = pto_asm::parse(&text, file) else { continue };
            let printed = print_module(&module, &Default::default()).unwrap();
            out.push(Parsed { path, sources, module, printed });
        }
        out
    }

    fn is_mlir_invalid(p: &Parsed) -> bool {
        p.path.ends_with(MLIR_INVALID)
    }

    /// Imports `bytes` as file `name` (text inputs go into the source map, as the CLI does).
    fn import_bytes(name: &str, bytes: &[u8]) -> Result<(Module, SourceMap), (Diagnostics, SourceMap)> {
        let mut sources = SourceMap::default();
        let text = if bytes.starts_with(pto::mlir::BYTECODE_MAGIC) { String::new() } else { String::from_utf8_lossy(bytes).into_owned() };
        let file = sources.add(name, text);
        match import(bytes, file, &sources) {
            Ok((m, _)) => Ok((m, sources)),
            Err(d) => Err((d, sources)),
        }
    }

    fn import_text(text: &str) -> Result<Module, Diagnostics> {
        import_bytes("k.mlir", text.as_bytes()).map(|x| x.0).map_err(|x| x.0)
    }

    /// (class, line, column) of each diagnostic, resolved in `sources`.
    fn located(d: &Diagnostics, sources: &SourceMap) -> Vec<(String, usize, usize)> {
        d.0.iter()
            .map(|d| {
                let (l, c) = sources.get(d.span.file).map(|f| f.line_col(d.span.start)).unwrap_or((0, 0));
                (d.class.as_str().to_string(), l, c)
            })
            .collect()
    }

    #[test]
    fn every_file_round_trips_through_mlir_text_and_bytecode() {
        let files = parsed_files();
        let mut failures = Vec::new();
        let mut counts = [0usize; 2];
        let candidates: Vec<&Parsed> = files.iter().filter(|p| !is_mlir_invalid(p)).collect();
        for p in &candidates {
            for (i, format) in [Format::Text, Format::Bytecode].into_iter().enumerate() {
                let bytes = match export(&p.module, &p.sources, format) {
                    Ok(b) => b,
                    Err(d) => {
                        failures.push(format!("{} ({format:?}): export: {:?}", p.path.display(), d.0));
                        continue;
                    }
                };
                let back = match import_bytes("exported.mlir", &bytes) {
                    Ok((m, _)) => m,
                    Err((d, _)) => {
                        failures.push(format!("{} ({format:?}): import: {:?}", p.path.display(), d.0));
                        continue;
                    }
                };
                let again = print_module(&back, &Default::default()).unwrap();
                if again != p.printed {
                    failures.push(format!(
                        "{} ({format:?}): printed text differs\n--- pto\n{}\n--- via MLIR\n{again}",
                        p.path.display(),
                        p.printed
                    ));
                } else if let Err(e) = pto_ir::equiv::structurally_equal(&p.module, &back) {
                    failures.push(format!("{} ({format:?}): same text, different module: {e}", p.path.display()));
                } else {
                    counts[i] += 1;
                }
            }
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
        eprintln!("round-tripped {} of {} parsed files as text and {} as bytecode", counts[0], files.len(), counts[1]);
        assert_eq!(counts, [candidates.len(); 2]);
        assert_eq!(candidates.len() + 1, files.len(), "exactly one file is refused by MLIR");
        let in_conformance = candidates.iter().filter(|p| p.path.starts_with(root().join("tests/conformance"))).count();
        assert_eq!(in_conformance, 75, "conformance files round-tripped");
        if let Some(corpus) = corpus_dir() {
            let in_corpus = candidates.iter().filter(|p| p.path.starts_with(&corpus)).count();
            // 103 parse: Complex/mix_kernel.pto does not (its DPS ops lack the tmp PTOAS's .td
            // requires; `ptoas` rejects it too).
            assert_eq!(in_corpus, 102, "corpus files round-tripped");
        }
    }

    /// MLIR verifies `func`, `arith` and `scf` itself: the one conformance file whose regions
    /// yield the wrong number of values is refused at the op our verifier flags too.
    #[test]
    fn mlir_refuses_what_its_own_verifiers_reject_at_the_source_line() {
        let files = parsed_files();
        let p = files.iter().find(|p| is_mlir_invalid(p)).expect("regions.pto parses");
        let d = export(&p.module, &p.sources, Format::Text).expect_err("MLIR rejects regions.pto");
        assert_eq!(located(&d, &p.sources), [("MLIR_EXPORT".to_string(), 3, 3)]);
        assert!(
            d.0[0].message.contains("'scf.if' op  region control flow edge from Region #0 to parent results: source has 2 operands"),
            "{}",
            d.0[0].message
        );
    }

    /// `mlir-opt-19` (the `mlir-19-tools` package) with all upstream dialects registered.
    fn mlir_opt() -> PathBuf {
        let candidates = [PathBuf::from("/usr/lib/llvm-19/bin/mlir-opt"), PathBuf::from("/usr/bin/mlir-opt-19")];
        candidates.into_iter().find(|p| p.exists()).expect("mlir-opt-19 is installed (Debian package mlir-19-tools; see README)")
    }

    #[test]
    fn mlir_opt_accepts_every_exported_file() {
        let opt = mlir_opt();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mlir-opt");
        std::fs::create_dir_all(&dir).unwrap();
        let mut checked = [0usize; 2];
        for (n, p) in parsed_files().iter().filter(|p| !is_mlir_invalid(p)).enumerate() {
            for (i, (format, ext)) in [(Format::Text, "mlir"), (Format::Bytecode, "mlirbc")].into_iter().enumerate() {
                let out = dir.join(format!("{n}.{ext}"));
                std::fs::write(&out, export(&p.module, &p.sources, format).unwrap()).unwrap();
                let run = std::process::Command::new(&opt)
                    .arg("--allow-unregistered-dialect")
                    .arg(&out)
                    .arg("-o")
                    .arg("/dev/null")
                    .output()
                    .unwrap();
                assert!(
                    run.status.success(),
                    "mlir-opt rejects the export of {} ({format:?}):\n{}",
                    p.path.display(),
                    String::from_utf8_lossy(&run.stderr)
                );
                checked[i] += 1;
            }
        }
        eprintln!("mlir-opt accepted {} text and {} bytecode exports", checked[0], checked[1]);
        assert!(checked[0] >= 159 && checked[0] == checked[1], "{checked:?}");
    }

    /// What MLIR does not keep by itself: constants whose typed value reads back differently (`1 :
    /// i1` reads back as `true`, a float with more digits than its type holds), a
    /// DPS split the op table would read otherwise (`tquant`'s MX form, three `ins` and two
    /// `outs`, which the table's first form would read as four and one), attribute order, a
    /// `pto` memory space and a scalar type MLIR has no spelling for.
    const EDGE_CASES: &str = r#"func.func @edge(%src: !pto.tile_buf<vec, 16x256xf32, valid=16x255>, %val: !pto.tile_buf<vec, 1x256xf32, valid=1x255>, %idx: !pto.tile_buf<vec, 1x256xui32, valid=1x255>, %h: hif8, %t: !pto.tile_buf<vec, 1x128xf32>) {
  %one_f = arith.constant 1.0 : f32
  %one_b = arith.constant 1 : i1
  %exact = arith.constant 0.0001220703125 : f32
  %tenth = arith.constant 0.1 : f16
  %bf = arith.constant 2.5 : bf16
  %long = arith.constant 0.08838834764831843 : f32
  pto.tquant ins(%src, %val, %t : !pto.tile_buf<vec, 16x256xf32, valid=16x255>, !pto.tile_buf<vec, 1x256xf32, valid=1x255>, !pto.tile_buf<vec, 1x128xf32>) outs(%src, %idx : !pto.tile_buf<vec, 16x256xf32, valid=16x255>, !pto.tile_buf<vec, 1x256xui32, valid=1x255>) {zeta = 1, alpha = "x", mid = {a = 1, b = 2}}
  %m = memref.alloc() : memref<16x16xf16, #pto.address_space<vec>>
  return
}
"#;

    #[test]
    fn what_mlir_does_not_keep_travels_in_bridge_attributes() {
        let mut sources = SourceMap::default();
        let file = sources.add("edge.pto", EDGE_CASES);
        let (m, _) = pto_asm::parse(EDGE_CASES, file).unwrap();
        let printed = print_module(&m, &Default::default()).unwrap();
        assert_eq!(printed, EDGE_CASES, "the input is canonical");
        let text = String::from_utf8(export(&m, &sources, Format::Text).unwrap()).unwrap();
        for bridge in [
            "<{value = true}> {pto.names = [\"one_b\"], pto.value = 1 : i64}",
            "{pto.names = [\"exact\"], pto.value = 1.220703125E-4 : f64}",
            "pto.attr_order = [\"zeta\", \"alpha\", \"mid\"], pto.ins = 3 : i64",
            "memref<16x16xf16, \"#pto.address_space<vec>\">",
            "!pto.opaque<\"hif8\">",
        ] {
            assert!(text.contains(bridge), "`{bridge}` missing from\n{text}");
        }
        let back = import_text(&text).unwrap_or_else(|d| panic!("{:?}", d.0));
        assert_eq!(print_module(&back, &Default::default()).unwrap(), EDGE_CASES);
        pto_ir::equiv::structurally_equal(&m, &back).unwrap();
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edge.mlir");
        std::fs::write(&path, &text).unwrap();
        let run = std::process::Command::new(mlir_opt())
            .arg("--allow-unregistered-dialect")
            .arg(&path)
            .arg("-o")
            .arg("/dev/null")
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    }

    /// MLIR written by hand (not by our exporter): registered dialects in their custom form,
    /// `pto` ops in generic form, no bridge attributes, a type alias for the legacy `tile_buf`
    /// spelling (to MLIR, without the `pto` dialect, each spelling is a distinct type).
    const HAND_WRITTEN: &str = r#"!tb = !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
module attributes {pto.target_arch = "a2a3"} {
  func.func @vadd(%a: !pto.ptr<f32>, %out: !pto.ptr<f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %va = "pto.make_tensor_view"(%a, %c32, %c32, %c32, %c1) {layout = #pto.layout<nd>} : (!pto.ptr<f32>, index, index, index, index) -> !pto.tensor_view<?x?xf32>
    %pa = "pto.partition_view"(%va, %c0, %c0, %c32, %c32) : (!pto.tensor_view<?x?xf32>, index, index, index, index) -> !pto.partition_tensor_view<32x32xf32>
    %t = "pto.alloc_tile"() : () -> !tb
    %m = "pto.alloc_tile"() : () -> !pto.tile_buf<vec, 32x32xui8>
    "pto.tload"(%pa, %t) : (!pto.partition_tensor_view<32x32xf32>, !tb) -> ()
    scf.for %i = %c0 to %n step %c1 {
      "pto.tadd"(%t, %t, %t) : (!tb, !tb, !tb) -> ()
    }
    %s = arith.constant 2.5 : f32
    "pto.tcmps"(%t, %s, %m) {cmpMode = #pto<cmp gt>} : (!tb, f32, !pto.tile_buf<vec, 32x32xui8>) -> ()
    "pto.set_flag"() {args = [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, #pto.event<EVENT_ID0>]} : () -> ()
    %vo = "pto.make_tensor_view"(%out, %c32, %c32, %c32, %c1) : (!pto.ptr<f32>, index, index, index, index) -> !pto.tensor_view<?x?xf32>
    %po = "pto.partition_view"(%vo, %c0, %c0, %c32, %c32) : (!pto.tensor_view<?x?xf32>, index, index, index, index) -> !pto.partition_tensor_view<32x32xf32>
    "pto.tstore"(%t, %po) : (!tb, !pto.partition_tensor_view<32x32xf32>) -> ()
    return
  }
}
"#;

    #[test]
    fn hand_written_mlir_imports_as_pto_text_that_reads_back() {
        let m = import_text(HAND_WRITTEN).unwrap_or_else(|d| panic!("{:?}", d.0));
        let printed = print_module(&m, &Default::default()).unwrap();
        let tb = "!pto.tile_buf<vec, 32x32xf32>";
        let expected = format!(
            r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @vadd(%v0: !pto.ptr<f32>, %v1: !pto.ptr<f32>, %v2: index) {{
    %v3 = arith.constant 0 : index
    %v4 = arith.constant 1 : index
    %v5 = arith.constant 32 : index
    %v6 = pto.make_tensor_view %v0, shape = [%v5, %v5], strides = [%v5, %v4] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
    %v7 = pto.partition_view %v6, offsets = [%v3, %v3], sizes = [%v5, %v5] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %v8 = pto.alloc_tile : {tb}
    %v9 = pto.alloc_tile : !pto.tile_buf<vec, 32x32xui8>
    pto.tload ins(%v7 : !pto.partition_tensor_view<32x32xf32>) outs(%v8 : {tb})
    scf.for %v10 = %v3 to %v2 step %v4 {{
      pto.tadd ins(%v8, %v8 : {tb}, {tb}) outs(%v8 : {tb})
      scf.yield
    }}
    %v11 = arith.constant 2.5 : f32
    pto.tcmps ins(%v8, %v11 {{cmpMode = #pto<cmp gt>}} : {tb}, f32) outs(%v9 : !pto.tile_buf<vec, 32x32xui8>)
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    %v12 = pto.make_tensor_view %v1, shape = [%v5, %v5], strides = [%v5, %v4] : !pto.tensor_view<?x?xf32>
    %v13 = pto.partition_view %v12, offsets = [%v3, %v3], sizes = [%v5, %v5] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    pto.tstore ins(%v8 : {tb}) outs(%v13 : !pto.partition_tensor_view<32x32xf32>)
    return
  }}
}}
"#
        );
        assert_eq!(printed, expected);
        let (again, _) = pto_asm::parse(&printed, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("{:?}", d.0));
        assert!(!pto_ir::verify::verify(&again).has_errors(), "{:?}", pto_ir::verify::verify(&again).0);
        assert_eq!(again.form, Some(pto_ir::TextForm::Dps));
    }

    /// One malformed input: its diagnostics as (class, line, column) and the first message.
    fn import_error(text: &str) -> (Vec<(String, usize, usize)>, String) {
        let (d, sources) = import_bytes("k.mlir", text.as_bytes()).map(|_| ()).expect_err("the input is refused");
        (located(&d, &sources), d.0[0].message.clone())
    }

    const TB: &str = "!pto.tile_buf<vec, 16x16xf32>";

    fn kernel(body: &str) -> String {
        format!("func.func @k(%a: {TB}, %b: {TB}) {{\n{body}\n  return\n}}\n")
    }

    #[test]
    fn malformed_mlir_gives_located_diagnostics() {
        // MLIR's own parser and verifier: operand and type counts, custom syntax of an unregistered op.
        let (at, msg) = import_error(&kernel(&format!("  \"pto.tadd\"(%a) : ({TB}, {TB}) -> ()")));
        assert_eq!(at, [("MLIR_PARSE".to_string(), 2, 20)]);
        assert_eq!(msg, "expected 1 operand type but had 2");
        let (at, msg) = import_error(&kernel(&format!("  pto.tadd ins(%a, %b : {TB}, {TB}) outs(%a : {TB})")));
        assert_eq!(at, [("MLIR_PARSE".to_string(), 2, 3)]);
        assert_eq!(msg, "Dialect `pto' not found for custom op 'pto.tadd' ");
        let (at, _) = import_error(&kernel("  %x = arith.addi %a, %b : index"));
        assert_eq!(at, [("MLIR_PARSE".to_string(), 2, 19)], "use of a value with another type");
        // Valid MLIR that is not valid PTO: located at the op in the .mlir file.
        let (at, msg) = import_error(&kernel(&format!("  \"pto.tfoo\"(%a) : ({TB}) -> ()")));
        assert_eq!(at, [("MLIR_IMPORT".to_string(), 2, 3)]);
        assert_eq!(msg, "unknown op `pto.tfoo`");
        let (at, msg) = import_error(&kernel("  %t = \"pto.alloc_tile\"() : () -> !pto.tile_buf<vec, 16x16xq32>"));
        assert_eq!(at, [("MLIR_IMPORT".to_string(), 2, 8)]);
        assert!(msg.starts_with("malformed type `!pto.tile_buf<vec, 16x16xq32>`: unknown element type `q32`"), "{msg}");
        let (at, msg) =
            import_error(&kernel(&format!("  \"pto.tcmps\"(%a, %a, %b) {{cmpMode = #pto<cmp foo>}} : ({TB}, {TB}, {TB}) -> ()")));
        assert_eq!(at, [("MLIR_IMPORT".to_string(), 2, 3)]);
        assert!(msg.starts_with("malformed attribute `#pto<cmp foo>`: `foo` is not a value of `#pto.cmp`"), "{msg}");
        let (at, msg) =
            import_error(&kernel("  \"pto.alloc_tile\"(%a) : (!pto.tile_buf<vec, 16x16xf32>) -> !pto.tile_buf<vec, 16x16xf32>"));
        assert_eq!(at, [("MLIR_IMPORT".to_string(), 2, 3)]);
        assert!(msg.contains("needs `operandSegmentSizes`"), "{msg}");
    }

    #[test]
    fn bad_bytecode_is_a_diagnostic() {
        let (d, sources) = import_bytes("k.mlirbc", b"ML\xEFR\x07garbage").map(|_| ()).expect_err("garbage is refused");
        assert_eq!(located(&d, &sources), [("MLIR_PARSE".to_string(), 1, 1)]);
        assert_eq!(d.0[0].message, "malformed null-terminated string, no null character found");
        // Every truncation of a real bytecode file is refused with a diagnostic, never a crash.
        let p = parsed_files().into_iter().find(|p| p.path.ends_with("forms/control_flow.pto")).unwrap();
        let bytes = export(&p.module, &p.sources, Format::Bytecode).unwrap();
        let mut refused = 0;
        for len in (4..bytes.len()).step_by(3) {
            if let Err((d, _)) = import_bytes("k.mlirbc", &bytes[..len]) {
                assert!(d.0.iter().all(|d| d.class.as_str() == "MLIR_PARSE") && d.has_errors(), "{len}: {:?}", d.0);
                refused += 1;
            }
        }
        assert!(refused >= (bytes.len() - 4) / 3 - 1, "{refused} truncations refused");
    }

    #[test]
    fn mutated_text_never_crashes() {
        let p = parsed_files().into_iter().find(|p| p.path.ends_with("forms/control_flow.pto")).unwrap();
        let text = String::from_utf8(export(&p.module, &p.sources, Format::Text).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut refused = 0;
        for i in 0..lines.len() {
            let mut mutated = lines.clone();
            mutated.remove(i);
            if import_text(&mutated.join("\n")).is_err() {
                refused += 1;
            }
        }
        assert!(refused > lines.len() / 2, "{refused} of {} line deletions refused", lines.len());
    }

    /// A scratch file for the CLI tests.
    fn scratch(name: &str, contents: &[u8]) -> String {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mlir-cli");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        path.display().to_string()
    }

    fn cli_import(path: &str, verify: bool) -> pto::Outcome {
        cli::import(&cli::ImportOptions { input: path.into(), to: None, verify, error_format: ErrorFormat::Json })
    }

    #[test]
    fn cli_import_verifies_the_pto_ops_mlir_cannot_check() {
        // Two operands where `tadd` needs three: MLIR accepts it (`pto` is unregistered), our
        // verifier does not, and points into the .mlir file.
        let path = scratch("arity.mlir", kernel(&format!("  \"pto.tadd\"(%a, %b) : ({TB}, {TB}) -> ()")).as_bytes());
        let out = cli_import(&path, true);
        assert_eq!(out.code, 1);
        let d: serde_json::Value = serde_json::from_str(out.stderr.lines().next().unwrap()).unwrap();
        assert_eq!((d["class"].as_str(), d["line"].as_u64(), d["col"].as_u64()), (Some("STRUCT_ARITY"), Some(2), Some(3)));
        assert_eq!(d["file"].as_str(), Some(path.as_str()));
        let out = cli_import(&path, false);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains("  pto.tadd ins(%v0, %v1 : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>)\n"),
            "{}",
            out.stdout
        );
    }

    #[test]
    fn cli_exports_and_imports_text_and_bytecode() {
        // MLIR keeps no comments: the import reads back as `pto fmt` of the file without them.
        let source = std::fs::read_to_string(root().join("tests/conformance/forms/short_form_softmax.pto")).unwrap();
        let mut uncommented = source.clone();
        for c in pto_asm::comments(&source).iter().rev() {
            uncommented.replace_range(c.start..c.start + c.text.len(), "");
        }
        let pto = scratch("short_form_softmax.pto", uncommented.as_bytes());
        let fmt = pto::cmd::fmt::run(&pto::cmd::fmt::FmtOptions {
            input: pto.clone(),
            to: None,
            generic: false,
            error_format: ErrorFormat::Human,
        });
        let export_to = |output: Option<String>, bytecode: bool| {
            cli::export(&cli::ExportOptions { input: pto.clone(), output, bytecode, verify: true, error_format: ErrorFormat::Human })
        };
        let text = export_to(None, false);
        assert_eq!(text.code, 0, "{}", text.stderr);
        assert!(text.stdout.starts_with("\"builtin.module\"() ({\n  \"pto.program\"() ({\n"), "{}", text.stdout);
        let mlir_path = scratch("softmax.mlir", text.stdout.as_bytes());
        let back = cli_import(&mlir_path, true);
        assert_eq!((back.code, back.stdout.as_str()), (0, fmt.stdout.as_str()), "{}", back.stderr);
        let bc_path = scratch("softmax.mlirbc", b"");
        let bc = export_to(Some(bc_path.clone()), true);
        assert_eq!((bc.code, bc.stdout.as_str()), (0, ""), "{}", bc.stderr);
        assert!(std::fs::read(&bc_path).unwrap().starts_with(pto::mlir::BYTECODE_MAGIC));
        let back = cli::import(&cli::ImportOptions {
            input: bc_path,
            to: Some(pto_ir::TextForm::Ssa),
            verify: true,
            error_format: ErrorFormat::Human,
        });
        let ssa = pto::cmd::fmt::run(&pto::cmd::fmt::FmtOptions {
            input: pto.clone(),
            to: Some(pto_ir::TextForm::Ssa),
            generic: false,
            error_format: ErrorFormat::Human,
        });
        assert_eq!((back.code, back.stdout.as_str()), (0, ssa.stdout.as_str()), "{}", back.stderr);
        // Usage errors: bytecode needs a file; input that is neither bytecode nor UTF-8.
        assert_eq!(export_to(None, true).code, 2);
        let junk = scratch("junk.mlir", b"\xFF\xFE");
        let out = cli_import(&junk, true);
        assert_eq!(out.code, 2);
        assert!(out.stderr.contains("neither MLIR bytecode nor UTF-8 text"), "{}", out.stderr);
    }

    #[test]
    fn export_refuses_structural_errors_unless_told_not_to_verify() {
        let path = root().join("tests/conformance/structural/arity.pto").display().to_string();
        let run = |verify| {
            cli::export(&cli::ExportOptions {
                input: path.clone(),
                output: None,
                bytecode: false,
                verify,
                error_format: ErrorFormat::Human,
            })
        };
        let out = run(true);
        assert_eq!(out.code, 1);
        assert!(out.stderr.contains("error[STRUCT_ARITY]"), "{}", out.stderr);
        let out = run(false);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.starts_with("\"builtin.module\"()"));
    }

    #[test]
    fn bridge_attribute_names_are_reserved() {
        let text =
            format!("func.func @k(%a: {TB}) {{\n  pto.tadd ins(%a, %a : {TB}, {TB}) outs(%a : {TB}) {{pto.names = 1}}\n  return\n}}\n");
        let mut sources = SourceMap::default();
        let file = sources.add("k.pto", text.clone());
        let (m, _) = pto_asm::parse(&text, file).unwrap();
        let d = export(&m, &sources, Format::Text).expect_err("reserved name");
        assert_eq!(located(&d, &sources), [("MLIR_EXPORT".to_string(), 2, 3)]);
        assert_eq!(d.0[0].message, "attribute name `pto.names` is reserved for the MLIR bridge");
    }
}
