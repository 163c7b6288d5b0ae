//! Report directories: per-file results saved by `check --report-dir` and
//! `racewatch kbuild`, merged by `racewatch report`; and `--shard I/N`,
//! the deterministic share of the inputs one run of a split analyses.
//!
//! A report directory holds one JSON file per analysed file (named by the
//! blake3 hash of its path, so two runs writing the same file replace one
//! result instead of duplicating it, and concurrent writers never share a
//! temporary file). Each holds the file's [`FileVerdicts`] exactly as a
//! worker returns it, with the precise phase's options, so `report`
//! renders it with the same writers as `check` and the merged report of
//! several shards equals the report of one run over all their files.

use super::Exit;
use super::check::Format;
use crate::report::FileVerdicts;
use clap::Args;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format tag of a result file; bumped when the layout changes.
const RESULT_FORMAT: u32 = 1;

/// One file's saved result.
#[derive(Serialize, Deserialize)]
pub struct ResultFile {
    /// Always [`RESULT_FORMAT`].
    pub racewatch_result: u32,
    /// The racewatch version that wrote it.
    pub version: String,
    /// The precise phase's options, when it ran.
    pub precise: Option<crate::precise::Options>,
    /// The file's verdicts.
    pub verdicts: FileVerdicts,
}

/// Saves one file's result into `dir`, atomically. Returns false after
/// saying why on stderr.
pub fn save(dir: &Path, verdicts: &FileVerdicts, precise: Option<&crate::precise::Options>) -> bool {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("{}: error: cannot create the report directory: {e}", dir.display());
        return false;
    }
    let name = blake3::hash(verdicts.file.to_string_lossy().as_bytes()).to_hex();
    let path = dir.join(format!("{}.json", &name[..24]));
    // Serialised by reference (a `ResultFile` would own the verdicts, which
    // the caller still renders) and streamed: witnesses hold 128-bit
    // values, which a `serde_json::Value` cannot.
    #[derive(Serialize)]
    struct Borrowed<'a> {
        racewatch_result: u32,
        version: &'a str,
        precise: Option<&'a crate::precise::Options>,
        verdicts: &'a FileVerdicts,
    }
    let doc = Borrowed { racewatch_result: RESULT_FORMAT, version: env!("CARGO_PKG_VERSION"), precise, verdicts };
    super::output_file::emit(&path, "the result file", |out| serde_json::to_writer(out, &doc).map_err(std::io::Error::other))
}

/// Reads every result file of `dirs`, sorted by the analysed file's path.
/// A file that is not a result file is an error naming it.
pub fn load(dirs: &[PathBuf]) -> Result<(Vec<FileVerdicts>, Option<crate::precise::Options>), String> {
    let mut results = Vec::new();
    let mut precise = None;
    for dir in dirs {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: error: cannot read the report directory: {e}", dir.display()))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: error: cannot read: {e}", path.display()))?;
            let file: ResultFile = serde_json::from_str(&text).map_err(|e| {
                format!("{}:{}:{}: error: not a racewatch result file: {e}", path.display(), e.line(), e.column())
            })?;
            if file.racewatch_result != RESULT_FORMAT {
                return Err(format!(
                    "{}: error: result format {} (written by racewatch {}), this racewatch reads format {RESULT_FORMAT}",
                    path.display(),
                    file.racewatch_result,
                    file.version
                ));
            }
            if file.precise.is_some() {
                precise = file.precise;
            }
            results.push(file.verdicts);
        }
    }
    results.sort_by(|a, b| a.file.cmp(&b.file));
    // The same file saved into two directories is reported once.
    results.dedup_by(|a, b| a.file == b.file);
    Ok((results, precise))
}

/// `--shard I/N`: the I-th of N shares (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which share, from 1.
    pub index: usize,
    /// How many shares.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| format!("`{s}` is not I/N (such as 2/4)"))?;
        let index: usize = i.trim().parse().map_err(|_| format!("`{i}` is not a number"))?;
        let count: usize = n.trim().parse().map_err(|_| format!("`{n}` is not a number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {index} of {count}: I must be between 1 and N"));
        }
        Ok(Shard { index, count })
    }
}

/// The files of `shard`, in their input order. Size-balanced and
/// deterministic: files are dealt largest first (ties by path) to the
/// share with the fewest bytes so far (ties to the lowest share), so every
/// run with the same inputs splits them the same way whatever the machine.
pub fn select(files: Vec<PathBuf>, shard: Shard) -> Vec<PathBuf> {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut order: Vec<(u64, usize)> = files.iter().enumerate().map(|(i, p)| (size(p), i)).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| files[a.1].cmp(&files[b.1])));
    let mut load = vec![0u64; shard.count];
    let mut owner = vec![0usize; files.len()];
    for (bytes, i) in order {
        let least = (0..shard.count).min_by_key(|&s| (load[s], s)).unwrap_or(0);
        load[least] += bytes.max(1);
        owner[i] = least;
    }
    files.into_iter().enumerate().filter(|(i, _)| owner[*i] + 1 == shard.index).map(|(_, p)| p).collect()
}

/// Options of `racewatch report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Report directories written by `check --report-dir` or `racewatch
    /// kbuild` (several: merged, as shards of one run).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write the report to this file, atomically, instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the HTML report into this directory: an index with
    /// filters and a page per race (docs/kbuild.md).
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
}

/// Runs `racewatch report`: the merged report, with `check`'s exit codes.
pub fn run(args: &ReportArgs) -> Exit {
    let (results, precise) = match load(&args.dirs) {
        Ok(loaded) => loaded,
        Err(message) => {
            eprintln!("{message}");
            return Exit::Error;
        }
    };
    if results.is_empty() {
        eprintln!("{}: error: no result files in the report directory", args.dirs[0].display());
        return Exit::Error;
    }
    let mut written = super::check::emit(args.format, args.output.as_deref(), &results, &[], precise.as_ref(), None);
    if let Some(dir) = &args.html {
        if let Err(e) = crate::report::html::write(dir, &results) {
            eprintln!("{}: error: cannot write the HTML report: {e}", dir.display());
            written = false;
        }
    }
    let exit = super::check::exit_code(&results, &[], precise.as_ref(), false);
    if written { exit } else { Exit::Error }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_syntax_is_checked() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    /// Every file lands in exactly one share, and the split is the same on
    /// every call.
    #[test]
    fn shards_partition_the_inputs() {
        let files: Vec<PathBuf> = (0..7).map(|i| PathBuf::from(format!("/nonexistent/f{i}.c"))).collect();
        let n = 3;
        let mut seen = Vec::new();
        for index in 1..=n {
            let share = select(files.clone(), Shard { index, count: n });
            assert_eq!(share, select(files.clone(), Shard { index, count: n }));
            seen.extend(share);
        }
        seen.sort();
        let mut all = files.clone();
        all.sort();
        assert_eq!(seen, all);
    }
}
