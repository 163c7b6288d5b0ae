//! Helpers shared by the integration tests.

pub mod expectations;

use racewatch::frontend::flags::{FlagOptions, FlagSource};
use racewatch::models::KernelModels;
use racewatch::pipeline::Session;

/// A session with the built-in kernel models, the default flags and `jobs`
/// threads; panics with the set-up hint when the kernel headers are
/// missing.
#[allow(dead_code)]
pub fn session(jobs: usize) -> Session {
    let options = FlagOptions::default();
    let source = FlagSource::resolve(&options)
        .unwrap_or_else(|e| panic!("{e}\nthe tests need the kernel headers: run scripts/setup.sh"));
    Session { models: KernelModels::embedded().expect("built-in models are valid"), options, source, jobs }
}
