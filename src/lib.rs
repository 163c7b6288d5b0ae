//! racewatch: proves Linux device drivers free of data races, or shows the
//! race. See ARCHITECTURE.md for the map of the pipeline.

pub mod analyses;
pub mod batch;
pub mod cli;
pub mod diagnostics;
pub mod frontend;
pub mod houdini;
pub mod instrument;
pub mod ir;
pub mod models;
pub mod pipeline;
pub mod precise;
pub mod report;
pub mod solver;
pub mod vcgen;
pub mod verify;
