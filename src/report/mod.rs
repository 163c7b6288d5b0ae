//! The report: the model of one file's outcome that the pipeline returns
//! ([`FileVerdicts`], [`model`]) and its renderers: the text report
//! ([`text`]), JSON ([`json`]), SARIF ([`sarif`]), the HTML report
//! ([`html`]), the Whoop pair file ([`pairs_xml`]), the
//! partial-order-reduction hints ([`por_hints`]), the summary table
//! ([`summary`]), the comparison with a baseline report ([`baseline`]),
//! the precise phase's part of each ([`precise`]), and the renderers of
//! `entry-points` and `pairs` ([`entry_points`], [`xml`]).
//!
//! **Invariant:** nothing here prints to the terminal or exits; a renderer
//! writes to the writer it is given (or, for the HTML report, into the
//! directory it is given, atomically: [`output_file`]) and returns the I/O
//! error for the CLI to report.

pub mod baseline;
pub mod entry_points;
pub mod html;
pub mod json;
pub mod model;
pub mod output_file;
pub mod pairs_xml;
pub mod por_hints;
pub mod precise;
pub mod sarif;
pub mod summary;
pub mod text;
pub mod xml;

pub use model::{FileVerdicts, Status};
