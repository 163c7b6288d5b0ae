//! The commands and their options.

use crate::frontend::flags::FlagOptions;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// racewatch proves Linux device drivers free of data races, or shows the race.
#[derive(Debug, Parser)]
#[command(name = "racewatch", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Every command racewatch has.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List each driver's entry points: the functions the kernel may call.
    EntryPoints(EntryPointsArgs),
    /// List the pairs of entry points that may run at the same time.
    Pairs(PairsArgs),
    /// Print the lowered intermediate program of a driver.
    Ivl(IvlArgs),
    /// Prove each pair of concurrent entry points race-free, or report the
    /// potential races.
    Check(super::check::CheckArgs),
    /// Decide one SV-COMP NoDataRace task (a format-2.0 .yml): prints one
    /// line, `true`, `false` or `unknown` (docs/svcomp.md).
    Svcomp(super::svcomp::SvcompArgs),
    /// Analyse one file as kbuild's source checker: `make C=1
    /// CHECK="racewatch kbuild"` (docs/kbuild.md).
    Kbuild(super::kbuild_check::KbuildArgs),
    /// Merge report directories (`check --report-dir`, `kbuild`) into one
    /// report.
    Report(super::report::ReportArgs),
    /// Analyse one file for `check` as a worker process: reads the request
    /// as JSON on stdin, writes the result as JSON on stdout.
    #[command(hide = true)]
    Worker,
}

/// Options of `racewatch ivl`.
#[derive(Debug, Args)]
pub struct IvlArgs {
    /// The file to lower, and how to compile it.
    #[command(flatten)]
    pub input: InputArgs,
    /// Print only this function's procedure (and the declarations).
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
    /// Lower every function of the file, not only those reachable from
    /// its entry points.
    #[arg(long)]
    pub all: bool,
    /// Print counts per construct and per approximation kind instead.
    #[arg(long)]
    pub stats: bool,
    /// Print every approximation warning to stderr.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Print the parse, extraction and lowering times to stderr.
    #[arg(long)]
    pub timings: bool,
}

/// Options of `racewatch entry-points`.
#[derive(Debug, Args)]
pub struct EntryPointsArgs {
    /// The files and directories to analyse, and how to compile them.
    #[command(flatten)]
    pub input: InputArgs,
    /// Write XML (docs/entry-points-xml.md) instead of text.
    #[arg(long)]
    pub xml: bool,
    /// Print the time spent parsing and extracting, per file, to stderr.
    #[arg(long)]
    pub timings: bool,
}

/// Options of `racewatch pairs`.
#[derive(Debug, Args)]
pub struct PairsArgs {
    /// The files and directories to analyse, and how to compile them.
    #[command(flatten)]
    pub input: InputArgs,
    /// Write `<driver name="…"><pair ep1="…" ep2="…"/>…<removed ep1="…" ep2="…"
    /// rule="…"/>…</driver>` XML.
    #[arg(long)]
    pub xml: bool,
    /// Also list the pairs the kernel serialises, each with the rules
    /// (kernel-models/serialisation/) that removed it.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// What to analyse and how to compile it; shared by every command.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// C files, or directories searched recursively for *.c files. With
    /// --compile-commands and no path: every file of the database.
    pub paths: Vec<PathBuf>,
    /// A Debian linux-headers tree or configured kernel tree to compose
    /// kbuild flags from [default: the one scripts/setup.sh fetched].
    #[arg(long, value_name = "DIR")]
    pub kernel: Option<PathBuf>,
    /// Take each file's flags from this compile_commands.json.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kernel", "no_kernel"])]
    pub compile_commands: Option<PathBuf>,
    /// Plain C: no kernel flags, only -I/-D/--include/--clang-arg.
    #[arg(long, conflicts_with = "kernel")]
    pub no_kernel: bool,
    /// Add an include directory.
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "MACRO")]
    pub defines: Vec<String>,
    /// Include a file before each source file.
    #[arg(long = "include", value_name = "FILE")]
    pub forced_includes: Vec<PathBuf>,
    /// Pass an argument to clang as it is.
    #[arg(long = "clang-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub clang_args: Vec<String>,
    /// Read kernel models from this directory instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Worker threads [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

impl InputArgs {
    /// The flag options these arguments describe.
    pub fn flag_options(&self) -> FlagOptions {
        FlagOptions {
            kernel: self.kernel.clone(),
            compile_commands: self.compile_commands.clone(),
            no_kernel: self.no_kernel,
            include_dirs: self.include_dirs.clone(),
            defines: self.defines.clone(),
            forced_includes: self.forced_includes.clone(),
            extra: self.clang_args.clone(),
        }
    }
}
