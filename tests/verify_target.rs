//! `pto verify --target T` checks that the tiles fit the target's buffers, as `lower` and `run`
//! do: three 256 KiB tiles live at once overflow A5's 256 KiB UB (on A2A3, whose UB holds 192 KiB,
//! each tile alone does); without a target there is nothing to check them against.

use std::process::Command;

fn verify(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).arg("verify").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn tiles_that_do_not_fit_fail_verify_with_a_target() {
    for (target, headline) in [
        ("a5", "error[LEGAL_BUFFER_OVERFLOW]: the tiles live here need 786432 bytes of UB, which holds 262144 bytes on a5"),
        ("a2a3", "error[LEGAL_BUFFER_OVERFLOW]: `%a` is a 256x256xf32 tile of 262144 bytes; the UB buffer of a2a3 holds 196608 bytes"),
    ] {
        let (code, stdout, stderr) = verify(&["--target", target, "tests/verify/three_256k_tiles.pto"]);
        assert_eq!(code, 1, "{target}: {stdout}{stderr}");
        assert!(stderr.starts_with(headline), "{target}: {stderr}");
        assert!(stderr.contains("three_256k_tiles.pto:2:6"), "located at the first tile: {stderr}");
    }
    let (code, stdout, _) = verify(&["tests/verify/three_256k_tiles.pto"]);
    assert_eq!((code, stdout.contains(": ok (Level1")), (0, true));
    let (code, stdout, stderr) = verify(&["--target", "a5", "examples/vadd.pto"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ok (Level2"), "{stdout}");
}

/// The rules `ptoas` applies that `pto verify` now applies too, and the ones it relaxed, each on
/// a small file of `tests/verify/ptoas_rules` (tests/basic_verdicts.rs measures them on the
/// PTOAS lit tests): (file, target, exit code, the first diagnostic's headline starts with).
#[test]
fn ptoas_rules_on_small_files() {
    let dir = "tests/verify/ptoas_rules";
    let cases: &[(&str, &str, i32, &str)] = &[
        ("entry_returns_value.pto", "a5", 1, "error[COMPILE_ENTRY]: PTO entry functions must return void: @kernel"),
        ("pipe_without_gm_slots.pto", "a2a3", 1, "error[STRUCT_BAD_ATTRIBUTE]: `pto.aic_initialize_pipe` needs a `gm_slot_buffer` on a2a3"),
        ("pipe_without_gm_slots.pto", "a5", 0, ""),
        // ptoas's words, which its lit tests check; pto's account in a note.
        ("l2l_pipe_unpaired.pto", "a5", 1, "error[STRUCT_BAD_ATTRIBUTE]: requires local_addr to come from pto.reserve_buffer"),
        ("pop_static_valid.pto", "a5", 1, "error[STRUCT_BAD_ATTRIBUTE]: expects tile result to have dynamic validShape (?, ?)"),
        ("dn_column_vector.pto", "a5", 0, "warning[STRUCT_TILE_SHAPE]: tile type breaks a static tile rule: col-major columns"),
        // ptoas's verifier sentence first, pto's wording after it.
        (
            "module_arch_rejects.pto",
            "a2a3",
            1,
            "error[LEGAL_UNSUPPORTED_TUPLE]: expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16 (`pto.tinsert` outs[0] (dst)",
        ),
        ("module_arch_rejects.pto", "a5", 1, "warning[LEGAL_TARGET_CONFLICT]"),
        ("module_arch_left_only.pto", "a5", 0, "warning[LEGAL_TARGET_CONFLICT]"),
        ("tmov_generic_quant.pto", "a5", 0, ""),
        // A scaling tile as tmov's second tile operand is its fp operand (not scratch).
        ("tmov_fp_operand.pto", "a2a3", 0, ""),
        ("tmov_fp_operand.pto", "a5", 0, ""),
        // A2A3 acc -> mat: pto-isa casts a plain move to f16/bf16 (f32 -> i8 needs pre-quantisation);
        // ptoas accepts f32 -> i8, and pto follows it with a warning naming both references.
        (
            "tmov_a2a3_plain_to_i8.pto",
            "a2a3",
            0,
            "warning[LEGAL_REFERENCES_DISAGREE]: `pto.tmov` outs[0] (dst): src f32, dst i8 breaks `src -> dst: f32 -> f16/bf16` on a2a3: accepted, the references disagree: ptoas accepts",
        ),
        ("tmov_a2a3_scalar_to_i8.pto", "a2a3", 0, ""),
        // Split usage across the two ends of a pipe (PTOAS's pto-infer-validate-pipe-init), in
        // PTOAS's words; pto's account of each is a note.
        (
            "pipe_split_conflict.pto",
            "a5",
            1,
            "error[STRUCT_BAD_ATTRIBUTE]: conflicting pipe split usage across peer pipe init ops: some data ops use split = 0",
        ),
        ("pipe_split_mixed.pto", "a5", 1, "error[STRUCT_BAD_ATTRIBUTE]: conflicting pipe split usage across peer pipe init ops"),
        (
            "pipe_nosplit_explicit.pto",
            "a5",
            1,
            "error[STRUCT_BAD_ATTRIBUTE]: explicit 'nosplit = false' conflicts with downstream users that require split = 0",
        ),
        ("pipe_split_agree.pto", "a5", 0, ""),
        // memref.reinterpret_cast: parsed, its element type kept.
        ("reinterpret_cast.pto", "a2a3", 0, ""),
        ("reinterpret_cast.pto", "a5", 0, ""),
        (
            "reinterpret_cast_dtype.pto",
            "a5",
            1,
            "error[STRUCT_DTYPE_MISMATCH]: `memref.reinterpret_cast` operands `src` and `result` must have the same element type",
        ),
    ];
    for &(file, target, code, headline) in cases {
        let path = format!("{dir}/{file}");
        let (got, stdout, stderr) = verify(&["--target", target, &path]);
        assert_eq!(got, code, "{file} [{target}]: {stdout}{stderr}");
        assert!(stderr.starts_with(headline), "{file} [{target}]: {stderr}");
        if code == 0 && headline.is_empty() {
            assert!(stderr.is_empty(), "{file} [{target}]: {stderr}");
        }
    }
    // The module's own target rejects the op: the error names the module's target and the op.
    let (_, _, stderr) = verify(&["--target", "a5", &format!("{dir}/module_arch_rejects.pto")]);
    assert!(stderr.contains("error[LEGAL_TARGET_CONFLICT]: the module is for a2a3"), "{stderr}");
    assert!(stderr.contains("a2a3 rejects this op: expects A2/A3 tinsert element types"), "{stderr}");
    assert!(stderr.contains("(`pto.tinsert` outs[0] (dst)"), "{stderr}");
    assert!(stderr.contains("module_arch_rejects.pto:3:1"), "{stderr}");
    // The split error is located at the vector side's init, line 15.
    let (_, _, stderr) = verify(&["--target", "a5", &format!("{dir}/pipe_split_conflict.pto")]);
    assert!(stderr.contains("pipe_split_conflict.pto:15:5"), "{stderr}");
    // An FB overflow says where the references disagree.
    let (_, _, stderr) = verify(&["--target", "a5", &format!("{dir}/fb_two_scaling_tiles.pto")]);
    assert!(stderr.starts_with("error[LEGAL_BUFFER_OVERFLOW]: the tiles live here need 4352 bytes of FB"), "{stderr}");
    assert!(stderr.contains("the references disagree") && stderr.contains("SA-0353") && stderr.contains("PTOPlanMemory.cpp"), "{stderr}");
    // The DN warning says which reference says what.
    let (_, _, stderr) = verify(&["--target", "a5", &format!("{dir}/dn_column_vector.pto")]);
    assert!(stderr.contains("ptoas accepts this tile type") && stderr.contains("pto_tile.hpp:1522"), "{stderr}");
}
