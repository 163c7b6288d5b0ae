//! `racewatch kbuild`: the source checker kbuild runs for each C file it
//! compiles, as it runs sparse or smatch.
//!
//! `make C=1 CHECK="racewatch kbuild"` (files being recompiled) or `C=2`
//! (every file), in a kernel tree or with `M=DIR` for an out-of-tree
//! module, runs `$(CHECK) $(CHECKFLAGS) $(c_flags) $<` in the build
//! directory. racewatch takes those arguments as given: the C file is the
//! last argument naming an existing `.c` file, the rest are kbuild's flags,
//! cleaned like a compilation database entry (compiler-only and GCC-only
//! options dropped, relative include paths made absolute against the
//! working directory). It analyses that one file with the lockset phase
//! (and the precise phase with `--precise`), prints the diagnostics on
//! stderr in the gcc form kbuild's users read, and saves the file's
//! result into the report directory (`--report-dir`, else
//! `$RACEWATCH_REPORT_DIR`), which `racewatch report` merges afterwards.
//!
//! Exit status: 0 whatever the verdicts, so a race does not stop the build
//! (sparse's convention), unless `--fail-on-race` asks for `check`'s codes; 2 for
//! a command line without a C file or a report that cannot be saved.

use super::Exit;
use crate::pipeline::check::check_unit_precise;
use crate::report::FileVerdicts;
use crate::report::text::write_text;
use crate::frontend::flags::{FlagSource, checker_arguments};
use crate::models::KernelModels;
use crate::pipeline::Session;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `racewatch kbuild`.
#[derive(Debug, Args)]
pub struct KbuildArgs {
    /// Save the file's result into this directory for `racewatch report`
    /// [default: $RACEWATCH_REPORT_DIR; none when unset].
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Read kernel models from this directory instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Seconds per solver query; a query that runs out is unknown.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub timeout: u64,
    /// Exit with `check`'s codes (1 races, 3 unknown) instead of 0, which
    /// makes kbuild stop at the first file with a race.
    #[arg(long)]
    pub fail_on_race: bool,
    /// The bounded precise phase.
    #[command(flatten)]
    pub precise: super::precise::PreciseArgs,
    /// kbuild's CHECKFLAGS and c_flags, then the C file.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true, value_name = "KBUILD ARGS")]
    pub compiler_args: Vec<String>,
}

/// Runs `racewatch kbuild`.
pub fn run(args: &KbuildArgs) -> Exit {
    let directory = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("racewatch kbuild: error: cannot read the working directory: {e}");
            return Exit::Error;
        }
    };
    let Some(source) = source_file(&args.compiler_args, &directory) else {
        eprintln!(
            "racewatch kbuild: error: no C file among the arguments (kbuild runs `$(CHECK) $(CHECKFLAGS) $(c_flags) FILE.c`; got: {})",
            args.compiler_args.join(" ")
        );
        return Exit::Error;
    };
    let models = KernelModels::load(args.models.as_deref());
    let models = match models {
        Ok(m) => m,
        Err(e) => {
            eprintln!("racewatch kbuild: error: cannot read the kernel models: {e}");
            return Exit::Error;
        }
    };
    let flags = checker_arguments(&args.compiler_args, &directory, &source);
    let session = Session { models, options: Default::default(), source: FlagSource::Given(flags), jobs: 1 };
    let options = crate::verify::run::Options { timeout: Duration::from_secs(args.timeout.max(1)), ..Default::default() };
    let precise = args.precise.options(options.timeout);
    let verdicts: FileVerdicts = check_unit_precise(&session, &source, None, &options, precise.as_ref(), None, false);
    // Diagnostics go to stderr, where kbuild's users read a checker's
    // warnings; an analysis failure is said there too.
    let mut err = std::io::stderr().lock();
    if let Err(e) = &verdicts.outcome {
        eprintln!("{}", crate::diagnostics::render_file_error(e));
    } else if write_text(&mut err, std::slice::from_ref(&verdicts), precise.as_ref()).is_err() {
        return Exit::Error;
    }
    let dir = args.report_dir.clone().or_else(|| std::env::var_os("RACEWATCH_REPORT_DIR").filter(|v| !v.is_empty()).map(PathBuf::from));
    if let Some(dir) = dir {
        if !super::report::save(&dir, &verdicts, precise.as_ref()) {
            return Exit::Error;
        }
    }
    if args.fail_on_race { super::check::exit_code(std::slice::from_ref(&verdicts), &[], precise.as_ref(), false) } else { Exit::Success }
}

/// The C file of a checker command line: the last argument that is not an
/// option, ends in `.c` and exists (relative to `directory`).
fn source_file(args: &[String], directory: &Path) -> Option<PathBuf> {
    args.iter()
        .rev()
        .filter(|a| !a.starts_with('-') && a.ends_with(".c"))
        .map(|a| if Path::new(a).is_absolute() { PathBuf::from(a) } else { directory.join(a) })
        .find(|p| p.is_file())
}
