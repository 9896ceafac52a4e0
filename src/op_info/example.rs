//! The generated examples of one op, one per text form it has.
//!
//! An op with an operand pattern gets its operands from [`super::plan`]: a Level-2 program
//! (tile buffers; GM views made from `!pto.ptr` arguments with `make_tensor_view` and
//! `partition_view`), and when the op reads or writes a tile, the same op at Level 1 (tile
//! values) as a function and as PTO-AS `.arg` declarations. An op without one (views,
//! allocation, sync, control flow, `arith`) gets a program built from its text format or its
//! syntax class ([`super::sketch`]). Each program is written with the op in MLIR's generic form,
//! read back, and printed by the canonical printer in the form shown, so every example is what
//! the reader accepts and the printer writes; its legality is what `pto verify --target` says.

use super::check::{Legality, legality, parse_and_verify};
use super::{plan, sketch};
use pto_asm::print::{PrintOptions, print_module};
use pto_ir::TextForm;
use pto_ir::ops::{Opcode, Syntax};

/// The text form of an example.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExampleForm {
    /// PTO-AS short form (`.arg`, `%d = tadd %a, %b : T`).
    Short,
    /// Level-1 SSA (`%d = pto.tadd %a, %b : (T, T) -> T` in a function).
    Ssa,
    /// Level-2 destination-passing style (`pto.tadd ins(...) outs(...)`).
    Dps,
    /// The op's own PTOAS format (ops that are not DPS tile ops).
    Own,
    /// MLIR's generic op form, as `pto fmt --generic` prints the Level-2 program.
    Generic,
}

impl ExampleForm {
    /// Heading in `pto ops NAME`.
    pub fn title(self) -> &'static str {
        match self {
            ExampleForm::Short => "PTO-AS short form (Level 1)",
            ExampleForm::Ssa => "Level-1 SSA",
            ExampleForm::Dps => "Level-2 DPS (MLIR pretty form)",
            ExampleForm::Own => "PTOAS form (MLIR pretty form)",
            ExampleForm::Generic => "MLIR generic form (pto fmt --generic)",
        }
    }
    /// Key in `pto ops NAME --json`.
    pub fn key(self) -> &'static str {
        match self {
            ExampleForm::Short => "pto-as",
            ExampleForm::Ssa => "level1-ssa",
            ExampleForm::Dps => "level2-dps",
            ExampleForm::Own => "own",
            ExampleForm::Generic => "generic",
        }
    }
}

/// One generated example.
#[derive(Clone, Debug)]
pub struct Example {
    /// Its form.
    pub form: ExampleForm,
    /// The program.
    pub text: String,
    /// What `pto verify --target T` says, per target (empty when `error` is set).
    pub legality: Vec<Legality>,
    /// Why the program is not a valid example (a generator bug: the test of every op fails on it).
    pub error: Option<String>,
}

/// The examples of `op`, with the attributes `modes` (name, text) set.
pub fn generate(op: Opcode, modes: &[(String, String)]) -> Vec<Example> {
    let func = op.spec().name.replace('.', "_");
    let verbatim = op.spec().syntax == Syntax::Generic;
    match plan::choose(op, modes).filter(|_| !verbatim) {
        Some(plan) => {
            let own = if op.spec().syntax == Syntax::Tile { ExampleForm::Dps } else { ExampleForm::Own };
            let mut out = Vec::new();
            if plan.has_level1() {
                out.push(printed(ExampleForm::Short, &plan.level1_short(), Some(TextForm::Short)));
                out.push(printed(ExampleForm::Ssa, &plan.level1(&func), Some(TextForm::Ssa)));
            }
            let level2 = plan.level2(&func);
            out.push(printed(own, &level2, Some(TextForm::Dps)));
            out.push(printed(ExampleForm::Generic, &level2, None));
            out
        }
        None => {
            let text = sketch::program(op, &func, modes);
            let mut out = vec![printed(ExampleForm::Own, &text, Some(TextForm::Dps))];
            // An op kept verbatim prints as written in the generic form too: nothing new to show.
            if !verbatim {
                out.push(printed(ExampleForm::Generic, &text, None));
            }
            out
        }
    }
}

/// The scratch tile `insert-scratch` gives the op of the Level-2 example on A2A3 (where the
/// implementation needs one on that path): its type and the formula behind its size.
pub fn a2a3_scratch(op: Opcode, examples: &[Example]) -> Option<(String, String)> {
    let level2 = examples.iter().find(|e| matches!(e.form, ExampleForm::Dps | ExampleForm::Own) && e.error.is_none())?;
    let m = parse_and_verify(&level2.text).ok()?;
    let at = m.walk().into_iter().find(|&o| m.op(o).opcode == op)?;
    let req = pto_lower::scratch::requirement(&m, at)?;
    Some((pto_ir::Type::TileBuf(req.tile).to_string(), req.why))
}

/// Reads `source`, prints it in `form` (`None`: the generic form) and checks the printed text.
fn printed(form: ExampleForm, source: &str, text_form: Option<TextForm>) -> Example {
    let failed = |text: &str, why: String| Example { form, text: text.to_string(), legality: Vec::new(), error: Some(why) };
    let module = match parse_and_verify(source) {
        Ok(m) => m,
        Err(e) => return failed(source, format!("the generated program is rejected: {e}")),
    };
    let opts = PrintOptions { form: text_form, generic: text_form.is_none() };
    let text = match print_module(&module, &opts) {
        Ok(t) => t,
        Err(e) => return failed(source, format!("cannot print it in this form: {e}")),
    };
    match parse_and_verify(&text) {
        Ok(again) => Example { form, legality: legality(&again), text, error: None },
        Err(e) => failed(&text, format!("the printed program is rejected: {e}")),
    }
}
