//! Progress of a batch, on stderr.
//!
//! On a terminal, an indicatif bar: files done of all, the pairs checked so
//! far, the files being analysed, elapsed and estimated time. Elsewhere (CI
//! logs, pipes) one line per finished file, which reads well in a log and
//! never rewrites itself. A single file, or `--progress none`, shows
//! nothing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// A bar on a terminal, lines otherwise.
    Auto,
    /// Always the bar.
    Bar,
    /// One line per finished file.
    Lines,
    /// Nothing.
    None,
}

/// The progress display of one batch.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    total: usize,
    done: usize,
    pairs: usize,
    running: BTreeMap<usize, String>,
}

impl Progress {
    /// A display for `total` files.
    pub fn new(mode: Mode, total: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let (bar, lines) = match mode {
            Mode::None => (false, false),
            _ if total <= 1 => (false, false),
            Mode::Bar => (true, false),
            Mode::Lines => (false, true),
            Mode::Auto => (terminal, !terminal),
        };
        let bar = bar.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} files, {prefix} pairs, eta {eta} {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix("0");
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar, lines, total, done: 0, pairs: 0, running: BTreeMap::new() }
    }

    /// File `index` (named `name`) started.
    pub fn started(&mut self, index: usize, name: &str) {
        self.running.insert(index, name.to_string());
        self.show_running();
    }

    /// File `index` finished, with `pairs` pairs checked; `summary` says how
    /// it ended.
    pub fn finished(&mut self, index: usize, name: &str, pairs: usize, summary: &str, seconds: f64) {
        self.running.remove(&index);
        self.done += 1;
        self.pairs += pairs;
        if let Some(bar) = &self.bar {
            bar.set_prefix(self.pairs.to_string());
            bar.inc(1);
            self.show_running();
        }
        if self.lines {
            let width = self.total.to_string().len();
            let _ = writeln!(std::io::stderr().lock(), "racewatch: [{:>width$}/{}] {name}: {summary} ({seconds:.1} s)", self.done, self.total);
        }
    }

    /// Removes the bar once the batch is over.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }

    fn show_running(&self) {
        if let Some(bar) = &self.bar {
            let names: Vec<&str> = self.running.values().map(String::as_str).collect();
            bar.set_message(names.join(", "));
        }
    }
}
