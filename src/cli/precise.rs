//! `racewatch check --precise`: the options of the bounded precise phase.
//! Its results in the reports are [`crate::report::precise`]'s.

use crate::precise::{self, YieldMode};
use clap::Args;

/// Options of the precise phase.
#[derive(Debug, Args)]
pub struct PreciseArgs {
    /// Search the pairs the lockset phase left unproven for a real race,
    /// with bounds: confirmed races become errors with a witness.
    #[arg(long)]
    pub precise: bool,
    /// Where threads may be switched: after every shared access (`all`),
    /// only at locks for pairs proven race-free (`epp`), or after accesses
    /// to regions not proven for the pair (`mr`).
    #[arg(long, value_enum, default_value = "mr", value_name = "MODE")]
    pub yields: YieldMode,
    /// Context bound: rounds each thread may run in.
    #[arg(long = "k", value_name = "K", default_value = "2", value_parser = clap::value_parser!(u32).range(1..=16))]
    pub k: u32,
    /// Iterations of each loop per entry into it.
    #[arg(long, value_name = "N", default_value = "2")]
    pub unroll: u32,
    /// Iterations of each loop init runs alone before the pair (a module's
    /// init, a probe), in it and in what it calls, when above `--unroll`.
    #[arg(long, value_name = "N", default_value_t = precise::INIT_UNROLL)]
    pub init_unroll: u32,
    /// Nested calls inlined.
    #[arg(long, value_name = "N", default_value = "8")]
    pub inline_depth: u32,
    /// Memory budget of one pair's search, in MiB: a pair whose encoding
    /// grows past it has its regions unknown, with the reason.
    #[arg(long, value_name = "MIB", default_value_t = precise::PAIR_MEMORY, value_parser = clap::value_parser!(u64).range(16..))]
    pub pair_memory: u64,
    /// Also catch races that write the value already there ("benign"), by
    /// checking write stamps instead of values.
    #[arg(long)]
    pub strict: bool,
}

impl PreciseArgs {
    /// The precise options, when `--precise` was given.
    pub fn options(&self, timeout: std::time::Duration) -> Option<precise::Options> {
        self.precise.then(|| precise::Options {
            k: self.k,
            unroll: self.unroll,
            main_unroll: self.init_unroll,
            inline_depth: self.inline_depth,
            pair_memory: self.pair_memory,
            yields: self.yields,
            strict: self.strict,
            timeout,
            ..precise::Options::default()
        })
    }
}
