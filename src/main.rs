//! The `pto` command: maps flags to the library's subcommand options. No logic lives here.

use clap::{Args, Parser, Subcommand, ValueEnum};
use pto::cmd::{compile, fmt, lower, mlir, ops, run, verify};
use pto::{ErrorFormat, Outcome, TargetName};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Toolchain for the PTO tile ISA: parse, verify, lower and simulate PTO kernels.
#[derive(Parser)]
#[command(name = "pto", version, about, long_about = None)]
struct Cli {
    /// How to print diagnostics (default: human; `mlir` for `pto compile`, as `ptoas`).
    #[arg(long, value_enum, global = true)]
    error_format: Option<ErrorFormatArg>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, ValueEnum)]
enum ErrorFormatArg {
    Human,
    Json,
    /// `file:line:col: error: 'pto.op' op message`, as `ptoas` (MLIR) prints it.
    Mlir,
}

#[derive(Copy, Clone, ValueEnum)]
enum FormArg {
    /// PTO-AS short form (`%d = tadd %a, %b : T`).
    As,
    /// Level-1 SSA (`%d = pto.tadd %a, %b : (T, T) -> T`).
    Ssa,
}

impl FormArg {
    fn text_form(self) -> pto_ir::TextForm {
        match self {
            FormArg::As => pto_ir::TextForm::Short,
            FormArg::Ssa => pto_ir::TextForm::Ssa,
        }
    }
}

#[derive(Copy, Clone, ValueEnum)]
enum LevelArg {
    /// Treated as level2, as ptoas does.
    Level1,
    /// Tile buffers without addresses (memory is planned).
    Level2,
    /// Every alloc_tile has an address; pto.tassign is allowed.
    Level3,
}

#[derive(Copy, Clone, ValueEnum)]
enum EmitArg {
    /// Level-2/3 DPS text.
    Dps,
    /// JSON (ops and memory plan).
    Json,
    /// The A2A3 vector program of every tile op.
    Vector,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum SyncCheckArg {
    /// Programs with an explicit sync op (default).
    Auto,
    /// Every program.
    Always,
    /// None.
    Never,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum ScheduleArg {
    /// Run a core until it waits, then the next (default).
    InOrder,
    /// Random choices, seeded by --seed.
    Random,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum ExecArg {
    /// Tile semantics (the pto-isa documentation; default).
    Tile,
    /// A2A3 vector programs for the ops that have a vector lowering (the rest: tile semantics).
    Vector,
}

/// `pto run --matmul-order`.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
enum MatmulOrderArg {
    /// The NPU's accumulation: from the accumulator or bias, each product rounded (default).
    Npu,
    /// pto-isa's CPU simulator: f32 fused multiply-add chain from zero, accumulator and bias added last.
    CpuSim,
}

/// `pto run --cost-model`.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
enum CostModelArg {
    /// pto's model, calibrated on measured counts (default).
    Pto,
    /// pto-isa's lightweight formula model where it has a formula, pto's for the other ops.
    PtoIsa,
}

/// The arguments of the commands that print a module as PTO text (`fmt`, `mlir import`).
#[derive(Args)]
struct PrintArgs {
    /// Input file (`-` for stdin).
    #[arg(default_value = "-")]
    file: String,
    /// Print a Level-1 program in PTO-AS short form or Level-1 SSA instead of its own form.
    #[arg(long, value_enum)]
    to: Option<FormArg>,
    /// Write the output here instead of stdout.
    #[arg(short, long)]
    output: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Print a file back canonically (in its own form, or converted with --to).
    Fmt {
        #[command(flatten)]
        text: PrintArgs,
        /// Print every op in MLIR's generic form (`"pto.tadd"(%a, %b, %c) : (...) -> ()`).
        #[arg(long)]
        generic: bool,
    },
    /// Parse and verify a file.
    Verify {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        file: String,
        /// Target profile: a2a3 (alias a3, a2) or a5.
        #[arg(long, value_parser = TargetName::parse)]
        target: Option<TargetName>,
        /// ptoas-compatible alias of --target (`a3` = a2a3).
        #[arg(long = "pto-arch", value_parser = TargetName::parse, conflicts_with = "target")]
        pto_arch: Option<TargetName>,
        /// List every tile whose layout `legalize` rewrites (otherwise one summary note).
        #[arg(long)]
        explain: bool,
        /// Also check synchronisation over every path of the program (docs/sync.md).
        #[arg(long)]
        sync: bool,
        /// With --sync: check the kernel on N blocks (docs/cores.md).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
        blocks: u32,
        /// With --sync: check the kernel on N devices (docs/comm.md).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        ranks: u32,
        /// With --sync: `ARG=next|prev|local|RANK`, as for `pto run`.
        #[arg(long = "peer")]
        peers: Vec<String>,
        /// With --sync, on the machine: `NAME=PATH` or `NAME=NUMBER` (`NAME@RANK=...` for one
        /// rank), as for `pto run`; other arguments get default inputs.
        #[arg(long = "input", short = 'i')]
        inputs: Vec<String>,
    },
    /// Lower to Level 3 for a target: legalize, insert scratch, bufferize, plan memory.
    Lower {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        file: String,
        /// Target profile: a2a3 (alias a3, a2) or a5 [default: the module's `pto.target_arch`, else a2a3].
        #[arg(long, value_parser = TargetName::parse)]
        target: Option<TargetName>,
        /// ptoas-compatible alias of --target (`a3` = a2a3).
        #[arg(long = "pto-arch", value_parser = TargetName::parse, conflicts_with = "target")]
        pto_arch: Option<TargetName>,
        /// Stop after this pass: legalize, insert-scratch, bufferize, plan-memory, insert-sync.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["legalize", "insert-scratch", "bufferize", "plan-memory", "insert-sync"]))]
        stop_after: Option<String>,
        /// Insert set_flag / wait_flag / barrier between the pipes of each core (functions
        /// without a sync op), and prove the result with the static sync checker.
        #[arg(long)]
        insert_sync: bool,
        /// Print the IR after every pass to stderr.
        #[arg(long)]
        print_after_all: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = EmitArg::Dps)]
        emit: EmitArg,
        /// Draw the memory plan as SVG into this file.
        #[arg(long)]
        memory_map: Option<String>,
        /// Print the A2A3 vector cost (instructions, repeats) of every tile op to stderr.
        #[arg(long)]
        stats: bool,
        /// List every tile whose layout `legalize` rewrites (otherwise one summary note).
        #[arg(long)]
        explain: bool,
    },
    /// Lower for a target and print the pto-isa C++ `ptoas` emits (takes `ptoas`'s flags).
    Compile {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        file: String,
        /// Target profile: a2a3 (alias a3, a2) or a5 [default: the module's `pto.target_arch`, else a2a3].
        #[arg(long, value_parser = TargetName::parse)]
        target: Option<TargetName>,
        /// ptoas-compatible alias of --target (`a3` = a2a3).
        #[arg(long = "pto-arch", value_parser = TargetName::parse, conflicts_with = "target")]
        pto_arch: Option<TargetName>,
        /// What the input may contain, as ptoas checks it: level1, level2 (default) or level3.
        #[arg(long = "pto-level", value_enum, default_value_t = LevelArg::Level2)]
        pto_level: LevelArg,
        /// Insert the pipe synchronisation the kernel needs (set_flag/wait_flag pairs and barriers,
        /// each proven by `pto verify --sync`), as `ptoas --enable-insert-sync` does (docs/sync.md).
        #[arg(long = "enable-insert-sync")]
        enable_insert_sync: bool,
        /// Write the C++ here (`-` for stdout, the default).
        #[arg(short, long)]
        output: Option<String>,
        /// Accepted for ptoas compatibility: pto always uses the layout a view names, else infers it.
        #[arg(long = "disable-infer-layout", hide = true)]
        disable_infer_layout: bool,
        /// Accepted for ptoas compatibility: no effect.
        #[arg(long = "emit-addptr-trace", hide = true)]
        emit_addptr_trace: bool,
        /// Accepted for ptoas compatibility: no effect.
        #[arg(long = "pto-insert-sync-debug", hide = true)]
        pto_insert_sync_debug: Option<u32>,
    },
    /// Lower for a target and run on the simulator.
    Run {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        file: String,
        /// Target profile: a2a3 (alias a3, a2) or a5 [default: the module's `pto.target_arch`, else a2a3].
        #[arg(long, value_parser = TargetName::parse)]
        target: Option<TargetName>,
        /// ptoas-compatible alias of --target (`a3` = a2a3).
        #[arg(long = "pto-arch", value_parser = TargetName::parse, conflicts_with = "target")]
        pto_arch: Option<TargetName>,
        /// `NAME=PATH` (a .npy or JSON tile) or `NAME=NUMBER` (a scalar argument); repeatable.
        #[arg(long = "input", short = 'i')]
        inputs: Vec<String>,
        /// Tile value to output (default: every tile argument); repeatable.
        #[arg(long = "output", short = 'o')]
        outputs: Vec<String>,
        /// Write NAME.npy files here instead of printing JSON.
        #[arg(long)]
        output_dir: Option<String>,
        /// Output whole tiles (capacity, storage order) instead of the valid region.
        #[arg(long)]
        full: bool,
        /// Print JSON on stdout (the default when stdout is not a terminal and no --output-dir is given).
        #[arg(long)]
        json: bool,
        /// Print each output's dtype, shape and a numpy-like preview (the default on a terminal).
        #[arg(long, conflicts_with_all = ["json", "output_dir"])]
        preview: bool,
        /// No progress bar (otherwise shown on a terminal when a run takes over a second) and no
        /// `SYNC_NOT_CHECKED` note.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Print each executed op to stderr.
        #[arg(long)]
        trace: bool,
        /// Give unbound arguments deterministic values (GM pattern, integers 0, floats 1.0).
        #[arg(long)]
        default_inputs: bool,
        /// Execution level: tile semantics, or A2A3 vector programs.
        #[arg(long, value_enum, default_value_t = ExecArg::Tile)]
        exec: ExecArg,
        /// With `--exec vector`: print the vector cost of every executed tile op to stderr.
        #[arg(long)]
        stats: bool,
        /// Time the run with the cycle model (docs/performance-model.md): total cycles, busy
        /// cycles and utilisation per pipe on stderr (with --json: a `%cycles` entry on stdout).
        #[arg(long)]
        cycles: bool,
        /// Write the timeline of the run (the cycle model's schedule of every op on its pipe)
        /// to OUT: Chrome trace JSON for OUT.json (Perfetto, chrome://tracing), a picture for
        /// OUT.svg (docs/performance-model.md).
        #[arg(long, value_name = "OUT")]
        timeline: Option<String>,
        /// With --cycles or --timeline: the cycle model (docs/performance-model.md, pto-isa's
        /// lightweight model).
        #[arg(long, value_enum, default_value_t = CostModelArg::Pto)]
        cost_model: CostModelArg,
        /// Stop with SIM_BUDGET after this many executed ops and loop iterations.
        #[arg(long, default_value_t = pto_sim::interp::DEFAULT_MAX_STEPS)]
        max_steps: u64,
        /// How matrix products accumulate (bit-exact agreement with the pto-isa CPU simulator: cpu-sim).
        #[arg(long, value_enum, default_value_t = MatmulOrderArg::Npu)]
        matmul_order: MatmulOrderArg,
        /// Check synchronisation (hazards, deadlocks, flag misuse): `auto` checks programs with an
        /// explicit sync op, `always` every program, `never` none (docs/sync.md).
        #[arg(long, value_enum, default_value_t = SyncCheckArg::Auto)]
        sync_check: SyncCheckArg,
        /// Do not check synchronisation (same as `--sync-check=never`).
        #[arg(long, conflicts_with = "sync_check")]
        no_sync_check: bool,
        /// Run the kernel as `ptoas --enable-insert-sync` compiles it: each function without a
        /// sync op gets the sync `pto lower --insert-sync` inserts (docs/sync.md).
        #[arg(long)]
        insert_sync: bool,
        /// Run the kernel on N blocks (`get_block_num`), in parallel (docs/cores.md).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
        blocks: u32,
        /// How the cores of a block interleave: `in-order` (run a core until it waits, then the
        /// next) or `random` (seeded by --seed).
        #[arg(long, value_enum, default_value_t = ScheduleArg::InOrder)]
        schedule: ScheduleArg,
        /// Seed of `--schedule random`.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads running blocks (default: one per CPU); results do not depend on it.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Simulate N devices for the `comm.*` instructions; outputs are named NAME@RANK when
        /// N > 1 (docs/comm.md).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        ranks: u32,
        /// `ARG=next|prev|local|RANK`: the rank whose copy of pointer argument ARG a remote
        /// operand (tput dst, tget src, tnotify signal) names; repeatable (default: local).
        #[arg(long = "peer")]
        peers: Vec<String>,
    },
    /// MLIR interop: export to and import from MLIR (needs the `mlir` cargo feature).
    Mlir {
        #[command(subcommand)]
        action: MlirAction,
    },
    /// List the op table, or describe one op (operands, rules per target, generated examples).
    Ops {
        /// The op to describe (`tadd`, `pto.tmatmul.acc`, `mgather.row`...); without it, list every op.
        name: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Only instructions with a pto-isa documentation page.
        #[arg(long, conflicts_with = "name")]
        isa: bool,
        /// Print the Markdown ISA coverage table (docs/isa-coverage.md).
        #[arg(long, conflicts_with_all = ["json", "name"])]
        markdown: bool,
        /// Write the generated conformance set (one-op kernels over the whole table, legal
        /// bases and near misses) into DIR, with DIR/MANIFEST.tsv.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["json", "name", "markdown"])]
        generate: Option<std::path::PathBuf>,
        /// The seed of --generate (the near misses' choices).
        #[arg(long, default_value_t = 1, requires = "generate")]
        seed: u64,
    },
}

#[derive(Subcommand)]
enum MlirAction {
    /// Write a PTO file as an MLIR module in generic form (text, or bytecode with --bytecode).
    Export {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        file: String,
        /// Write the output here instead of stdout (required with --bytecode).
        #[arg(short, long)]
        output: Option<String>,
        /// Write MLIR bytecode instead of text.
        #[arg(long)]
        bytecode: bool,
        /// Do not run the structural verifier first.
        #[arg(long)]
        no_verify: bool,
    },
    /// Read an MLIR module (generic-form text or bytecode) and print it as PTO text.
    Import {
        #[command(flatten)]
        text: PrintArgs,
        /// Do not run the structural verifier on the imported module.
        #[arg(long)]
        no_verify: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Diagnostics laid out for a terminal: its width, or `COLUMNS` when set (docs/cli.md).
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse::<usize>().ok());
    let terminal = std::io::stderr().is_terminal().then(|| columns.unwrap_or(pto::source_window::WIDTH));
    pto::render::set_terminal_width(columns.or(terminal));
    let default_format = if matches!(cli.command, Command::Compile { .. }) { ErrorFormatArg::Mlir } else { ErrorFormatArg::Human };
    let error_format = match cli.error_format.unwrap_or(default_format) {
        ErrorFormatArg::Human => ErrorFormat::Human,
        ErrorFormatArg::Json => ErrorFormat::Json,
        ErrorFormatArg::Mlir => ErrorFormat::Mlir,
    };
    let mut output_path = None;
    let outcome: Outcome = match cli.command {
        Command::Fmt { text: PrintArgs { file, to, output }, generic } => {
            output_path = output;
            fmt::run(&fmt::FmtOptions { input: file, to: to.map(FormArg::text_form), generic, error_format })
        }
        Command::Verify { file, target, pto_arch, explain, sync, blocks, ranks, peers, inputs } => {
            let opts =
                verify::VerifyOptions { input: file, target: target.or(pto_arch), explain, error_format, blocks, ranks, peers, inputs };
            if sync { verify::run_with_sync(&opts) } else { verify::run(&opts) }
        }
        Command::Lower { file, target, pto_arch, stop_after, insert_sync, print_after_all, emit, memory_map, stats, explain } => {
            let target = target.or(pto_arch);
            let emit = match emit {
                EmitArg::Dps => lower::Emit::Dps,
                EmitArg::Json => lower::Emit::Json,
                EmitArg::Vector => lower::Emit::Vector,
            };
            lower::run(&lower::LowerOptions {
                input: file,
                target,
                insert_sync: insert_sync || stop_after.as_deref() == Some("insert-sync"),
                stop_after,
                print_after_all,
                emit,
                memory_map,
                stats,
                explain,
                error_format,
            })
        }
        Command::Compile { file, target, pto_arch, pto_level, enable_insert_sync, output, .. } => compile::run(&compile::CompileOptions {
            input: file,
            target: target.or(pto_arch),
            level: match pto_level {
                LevelArg::Level1 => compile::PtoLevel::Level1,
                LevelArg::Level2 => compile::PtoLevel::Level2,
                LevelArg::Level3 => compile::PtoLevel::Level3,
            },
            insert_sync: enable_insert_sync,
            output,
            error_format,
        }),
        Command::Run {
            file,
            target,
            pto_arch,
            inputs,
            outputs,
            output_dir,
            full,
            json,
            preview,
            quiet,
            trace,
            default_inputs,
            exec,
            stats,
            cycles,
            timeline,
            cost_model,
            max_steps,
            matmul_order,
            sync_check,
            no_sync_check,
            insert_sync,
            blocks,
            schedule,
            seed,
            threads,
            ranks,
            peers,
        } => {
            let target = target.or(pto_arch);
            let output_dir = if json { None } else { output_dir };
            // On a terminal, a preview unless the data itself was asked for.
            let preview = preview || (std::io::stdout().is_terminal() && !json && output_dir.is_none() && !full);
            let exec_vector = exec == ExecArg::Vector;
            run::run(&run::RunOptions {
                input: file,
                target,
                inputs,
                outputs,
                output_dir,
                full,
                trace,
                default_inputs,
                exec_vector,
                stats,
                cycles,
                json_cycles: json,
                timeline,
                cost_model: match cost_model {
                    CostModelArg::Pto => pto_sim::timeline::CostModel::Pto,
                    CostModelArg::PtoIsa => pto_sim::timeline::CostModel::PtoIsa,
                },
                max_steps,
                matmul_order: match matmul_order {
                    MatmulOrderArg::Npu => pto_sim::family::MatmulOrder::Npu,
                    MatmulOrderArg::CpuSim => pto_sim::family::MatmulOrder::CpuSim,
                },
                preview,
                progress: !quiet && std::io::stderr().is_terminal(),
                quiet,
                sync_check: match (no_sync_check, sync_check) {
                    (true, _) | (_, SyncCheckArg::Never) => run::SyncCheck::Never,
                    (_, SyncCheckArg::Always) => run::SyncCheck::Always,
                    (_, SyncCheckArg::Auto) => run::SyncCheck::Auto,
                },
                insert_sync,
                blocks,
                schedule: match schedule {
                    ScheduleArg::InOrder => pto_sim::cores::Schedule::InOrder,
                    ScheduleArg::Random => pto_sim::cores::Schedule::Random(seed),
                },
                threads: threads.map(|t| t as usize),
                ranks,
                peers,
                error_format,
                diagnostics_only: false,
                branches: None,
            })
        }
        Command::Mlir { action: MlirAction::Export { file, output, bytecode, no_verify } } => {
            mlir::export(&mlir::ExportOptions { input: file, output, bytecode, verify: !no_verify, error_format })
        }
        Command::Mlir { action: MlirAction::Import { text: PrintArgs { file, to, output }, no_verify } } => {
            output_path = output;
            mlir::import(&mlir::ImportOptions { input: file, to: to.map(FormArg::text_form), verify: !no_verify, error_format })
        }
        Command::Ops { name, json, isa, markdown, generate, seed } => {
            ops::run(&ops::OpsOptions { json, isa_only: isa, markdown, name, generate, seed })
        }
    };
    let mut code = outcome.code;
    let mut stderr = outcome.stderr;
    match output_path {
        Some(path) if code == 0 => {
            if let Err(e) = std::fs::write(&path, &outcome.stdout) {
                stderr.push_str(&format!("error: cannot write `{path}`: {e}\n"));
                code = 2;
            }
        }
        _ => {
            let _ = std::io::stdout().write_all(outcome.stdout.as_bytes());
        }
    }
    if error_format == ErrorFormat::Json {
        stderr = pto::render::plain_errors_as_json(&stderr, code);
    }
    let _ = std::io::stderr().write_all(stderr.as_bytes());
    ExitCode::from(code as u8)
}
