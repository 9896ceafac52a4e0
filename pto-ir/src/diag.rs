//! Diagnostics: located, classified, machine-readable.
//!
//! Every problem found in user input becomes a [`Diagnostic`] with a stable [`DiagClass`]
//! (`PARSE_*`, `STRUCT_*`, `LEGAL_*`, `ORDER_*`, `SIM_*`), a primary [`Span`], and — where they
//! make sense — the op name, the operand position, the expected contract and the actual value.
//! Rendering (source line + caret, or JSON lines) lives in the CLI; this module only holds data.
//!
//! Invariant: a class id never changes meaning once released; new problems get new ids.

use serde::Serialize;
use std::fmt;

/// Identifies one source file in a [`SourceMap`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span covering `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: start as u32, end: end as u32 }
    }
}

macro_rules! diag_classes {
    ($( $(#[$doc:meta])* $variant:ident = $text:literal ),* $(,)?) => {
        /// Stable diagnostic classes. The text form (`PARSE_UNEXPECTED_TOKEN`...) is what users
        /// and tests match on.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum DiagClass { $( $(#[$doc])* $variant ),* }

        impl DiagClass {
            /// Every class, in declaration order (for documentation).
            pub const ALL: &'static [DiagClass] = &[$(DiagClass::$variant),*];
            /// The stable text id.
            pub fn as_str(self) -> &'static str {
                match self { $(DiagClass::$variant => $text),* }
            }
        }
    };
}

diag_classes! {
    /// A token the grammar does not allow at this point.
    ParseUnexpectedToken = "PARSE_UNEXPECTED_TOKEN",
    /// The input ends in the middle of a construct.
    ParseUnexpectedEof = "PARSE_UNEXPECTED_EOF",
    /// An op name that is not in the op table.
    ParseUnknownOp = "PARSE_UNKNOWN_OP",
    /// A malformed or unknown type.
    ParseBadType = "PARSE_BAD_TYPE",
    /// A malformed or unknown attribute.
    ParseBadAttribute = "PARSE_BAD_ATTRIBUTE",
    /// A malformed literal (integer out of range, bad float...).
    ParseBadLiteral = "PARSE_BAD_LITERAL",
    /// A `!pto.tile_buf` key given twice.
    ParseDuplicateKey = "PARSE_DUPLICATE_KEY",
    /// An op written in a shape its format does not accept.
    ParseBadOpSyntax = "PARSE_BAD_OP_SYNTAX",
    /// A value used but never defined (or defined later).
    StructUndefinedValue = "STRUCT_UNDEFINED_VALUE",
    /// A value name defined twice in one scope.
    StructRedefinedValue = "STRUCT_REDEFINED_VALUE",
    /// Wrong number of operands or results for the op's pattern.
    StructArity = "STRUCT_ARITY",
    /// An operand or result of the wrong type class (tile where a scalar is expected...).
    StructTypeClass = "STRUCT_TYPE_CLASS",
    /// A value used with a type that differs from its definition.
    StructTypeMismatch = "STRUCT_TYPE_MISMATCH",
    /// A required attribute is missing.
    StructMissingAttribute = "STRUCT_MISSING_ATTRIBUTE",
    /// An attribute of the wrong kind, or not accepted by the op.
    StructBadAttribute = "STRUCT_BAD_ATTRIBUTE",
    /// A tile type that breaks the static tile rules (capacity, alignment, fractal...).
    StructTileShape = "STRUCT_TILE_SHAPE",
    /// Operands the op table requires to share an element type do not.
    StructDtypeMismatch = "STRUCT_DTYPE_MISMATCH",
    /// Operands the op table requires to share a valid shape do not.
    StructValidShapeMismatch = "STRUCT_VALID_SHAPE_MISMATCH",
    /// Operands the op table requires to share a static shape do not.
    StructShapeMismatch = "STRUCT_SHAPE_MISMATCH",
    /// A GM view the op requires to be static, flat and logically 1-D is not (async DMA).
    StructNotFlat = "STRUCT_NOT_FLAT",
    /// An operand whose presence an attribute decides is missing or extra (`tquant`'s `offset`
    /// exactly when `quant_type` is `INT8_ASYM`).
    StructConditionalOperand = "STRUCT_CONDITIONAL_OPERAND",
    /// Level-1 tile values and Level-2 tile buffers mixed in one function.
    StructMixedLevels = "STRUCT_MIXED_LEVELS",
    /// A region/terminator problem (missing yield, wrong yield arity...).
    StructRegion = "STRUCT_REGION",
    /// An op placed where it may not appear.
    StructPlacement = "STRUCT_PLACEMENT",
    /// A function that calls itself, directly or through others.
    StructRecursion = "STRUCT_RECURSION",
    /// A deprecated construct that is still accepted.
    OrderDeprecatedWait = "ORDER_DEPRECATED_WAIT",
    /// An invalid synchronization form.
    OrderBadSync = "ORDER_BAD_SYNC",
    /// Two accesses to overlapping bytes from unordered ops, the later one reading what the
    /// earlier wrote (`pto run` sync checking).
    HazardRaw = "HAZARD_RAW",
    /// The later of two unordered ops overwrites bytes the earlier read.
    HazardWar = "HAZARD_WAR",
    /// Two unordered ops write overlapping bytes.
    HazardWaw = "HAZARD_WAW",
    /// A `wait_flag` (or `barrier <PIPE_ALL>`, `get_buf`) that can never be satisfied: the kernel
    /// would hang.
    SyncDeadlock = "SYNC_DEADLOCK",
    /// A flag set and never waited by the end of the kernel.
    SyncUnpaired = "SYNC_UNPAIRED",
    /// A flag set while still set, an event id out of the target's range, a flag between a
    /// pipe and itself, a wait on the wrong pipe pair, a release of a buffer id not held.
    SyncFlagMisuse = "SYNC_FLAG_MISUSE",
    /// A note: the program has no explicit sync op, so its sync was not checked.
    SyncNotChecked = "SYNC_NOT_CHECKED",
    /// A note of `pto lower --insert-sync`: a flag pair or barrier it inserted, with the two ops
    /// and the bytes that force it (a warning for a `barrier <PIPE_ALL>` inside a loop).
    SyncInserted = "SYNC_INSERTED",
    /// An internal error: the sync `pto lower --insert-sync` inserted does not pass the static
    /// checker (`pto verify --sync`).
    SyncInsertFailed = "SYNC_INSERT_FAILED",
    /// A (dtype, layout, location, shape) tuple the target does not support.
    LegalUnsupportedTuple = "LEGAL_UNSUPPORTED_TUPLE",
    /// A note: `legalize` gave a tile the layout its target fixes for its location (A2A3
    /// `left` tiles are Zz, A5 `left` tiles Nz, `right` Zn, `acc` Nz), as PTOAS does.
    LegalLayoutRewritten = "LEGAL_LAYOUT_REWRITTEN",
    /// The module's `pto.target_arch` names another target than `--target`, or an unknown one.
    LegalTargetConflict = "LEGAL_TARGET_CONFLICT",
    /// A warning: a rule one reference (`ptoas` or pto-isa) has and the other does not, which
    /// `pto` does not enforce; the message names both with their source lines.
    LegalReferencesDisagree = "LEGAL_REFERENCES_DISAGREE",
    /// A scratch tile is required on this target but missing.
    LegalTmpRequired = "LEGAL_TMP_REQUIRED",
    /// A scratch tile is smaller than the target implementation uses.
    LegalTmpTooSmall = "LEGAL_TMP_TOO_SMALL",
    /// A scratch tile is given where the target's form forbids it.
    LegalTmpForbidden = "LEGAL_TMP_FORBIDDEN",
    /// An op on `f64` tiles: a `pto` extension the simulator runs but no Ascend target implements
    /// (a warning; the target's table is not consulted for that op).
    LegalF64Extension = "LEGAL_F64_EXTENSION",
    /// The tiles live at one point do not fit in their on-chip buffer.
    LegalBufferOverflow = "LEGAL_BUFFER_OVERFLOW",
    /// Two tiles live at the same time occupy overlapping bytes (Level-3 addresses).
    LegalOverlappingTiles = "LEGAL_OVERLAPPING_TILES",
    /// A tile address that is misaligned or outside its buffer.
    LegalBadAddress = "LEGAL_BAD_ADDRESS",
    /// An A2A3 vector instruction of a lowered tile op touches bytes outside one of its
    /// operand tiles (or outside the Vec buffer).
    LegalVectorOutOfTile = "LEGAL_VECTOR_OUT_OF_TILE",
    /// A program fault found while simulating.
    SimTrap = "SIM_TRAP",
    /// A simulation ran out of its step budget (`pto run --max-steps`): a runaway loop, or a
    /// kernel longer than the budget allows.
    SimBudget = "SIM_BUDGET",
    /// MLIR rejected a module: text or bytecode it cannot read, or a failed MLIR verifier
    /// (`pto mlir import`; the message is MLIR's).
    MlirParse = "MLIR_PARSE",
    /// A valid MLIR module that is not a PTO program `pto` can represent (an op structure the
    /// op table does not describe, block successors, a value used outside its scope...).
    MlirImport = "MLIR_IMPORT",
    /// A module that cannot be written as MLIR (a type with no MLIR spelling, an attribute name
    /// `pto` reserves, a module MLIR's verifier rejects).
    MlirExport = "MLIR_EXPORT",
    /// `pto compile`: an op or construct the C++ emitter has no pto-isa spelling for (the op
    /// table's `cpp` column is empty and the op has no ISA page, a tile carried through a loop).
    CompileUnsupported = "COMPILE_UNSUPPORTED",
    /// `pto compile`: a kernel entry that `ptoas` rejects (an entry function that returns a
    /// value, `pto.entry` on a declaration).
    CompileEntry = "COMPILE_ENTRY",
    /// `pto compile`: a cube/vector pipe whose consumer buffer is not a `reserve_buffer` or
    /// `import_reserved_buffer` while its `flag_base` is not explicit, or peer pipe inits that
    /// disagree on splitting.
    CompilePipe = "COMPILE_PIPE",
}

impl fmt::Display for DiagClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DiagClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How serious a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// Accepted, but worth a look (deprecated syntax...).
    Warning,
    /// Information about what the toolchain did (a layout legalize rewrote...).
    Note,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Stable class id.
    pub class: DiagClass,
    /// Error or warning.
    pub severity: Severity,
    /// One-line human message.
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// The op involved, as written (`pto.tadd`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// The operand involved (`ins[1] (src1)`, `outs[0] (dst)`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operand: Option<String>,
    /// What the contract asks for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What the input has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// Secondary locations with their labels.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<(Span, String)>,
    /// Free-form notes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A new error of `class` at `span`.
    pub fn error(class: DiagClass, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            class,
            severity: Severity::Error,
            message: message.into(),
            span,
            op: None,
            operand: None,
            expected: None,
            actual: None,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A new warning of `class` at `span`.
    pub fn warning(class: DiagClass, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(class, span, message) }
    }

    /// A new note of `class` at `span`: what the toolchain did, not a problem.
    pub fn note(class: DiagClass, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(class, span, message) }
    }

    /// Names the op involved.
    pub fn with_op(mut self, op: impl Into<String>) -> Self {
        self.op = Some(op.into());
        self
    }

    /// Names the operand involved.
    pub fn with_operand(mut self, operand: impl Into<String>) -> Self {
        self.operand = Some(operand.into());
        self
    }

    /// Records the expected contract and the actual value.
    pub fn with_expected(mut self, expected: impl Into<String>, actual: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self.actual = Some(actual.into());
        self
    }

    /// Adds a secondary location.
    pub fn with_label(mut self, span: Span, label: impl Into<String>) -> Self {
        self.labels.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// True for errors (as opposed to warnings).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A list of diagnostics, as returned by every stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    /// True when any is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    /// Number of diagnostics.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One source file's name and text, with a line index for `line:col` lookups.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Name shown in diagnostics (a path, or `<stdin>`).
    pub name: String,
    /// The whole text.
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// Indexes `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0u32];
        line_starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i as u32 + 1));
        SourceFile { name: name.into(), text, line_starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self.text.get(start..end).map(|s| s.chars().count()).unwrap_or(end - start);
        (line + 1, col + 1)
    }
}

/// All files of one invocation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }
    /// The file behind an id.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }
    /// `name:line:col` of a span's start.
    pub fn location(&self, span: Span) -> String {
        match self.get(span.file) {
            Some(f) => {
                let (l, c) = f.line_col(span.start);
                format!("{}:{}:{}", f.name, l, c)
            }
            None => "<unknown>".to_string(),
        }
    }
}
