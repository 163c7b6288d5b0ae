//! A confirmed race's witness: the interleaving read off the solver's
//! model, in source terms.
//!
//! # Algorithm
//!
//! Every executed command was recorded as a step with its path condition
//! and its thread's round. The steps whose condition holds in the model
//! are the ones that ran; sorted by round (init first, then in each round
//! thread 1 before thread 2, as the sequentialisation's schedule runs
//! them) and by program order within a thread, they are the interleaving.
//! It is cut where the failing check is: the checking thread stops there,
//! and the other thread's steps that would run after that point are
//! dropped. The racing access is the checked one; the conflicting access
//! is the other thread's last write to the same region and address
//! between it and the check (for a write checked against a read-only
//! conflict there is none, and the report says so). Only values the
//! formula contains are shown: a dead read's value in a model is
//! arbitrary (see [`super::memory`]).

use super::exec::{RaceCheck, Step, StepKind};
use super::memory::Who;
use super::values::Values;
use crate::diagnostics::Span;
use crate::ir::Program;
use crate::solver::TermId;
use std::collections::HashSet;

/// One step of a witness.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WitnessStep {
    /// 0 for init, 1 or 2 for the pair's threads.
    pub thread: u8,
    /// The entry point the thread runs.
    pub entry: String,
    /// The thread's round (0 for init).
    pub round: u32,
    /// The C function.
    pub function: String,
    /// Where in C.
    pub span: Option<Span>,
    /// What happened: `read`, `write`, `lock`, `unlock`, `switch`, `live`,
    /// `line`.
    pub event: String,
    /// The region, for accesses.
    pub region: Option<String>,
    /// The address, for accesses.
    pub address: Option<i128>,
    /// The address in C terms, for accesses: the global, allocation or
    /// local it lies in and the offset into it
    /// ([`super::separation::describe`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// The value in C terms when it is the address of an object the
    /// layout placed (a pointer to a global, an allocation or a local).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points_to: Option<String>,
    /// The C source line the step ran, trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The value read or written, for accesses; the lock's name for lock
    /// events is in `region`.
    pub value: Option<i128>,
    /// A step of the earlier complete call run after init and before the
    /// pair (thread 0, [`super::history`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub earlier: bool,
}

/// A confirmed race.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Witness {
    /// The interleaving, in execution order.
    pub steps: Vec<WitnessStep>,
    /// The checked access whose value changed behind its yield.
    pub access: WitnessStep,
    /// The other thread's write that changed it, if it was a write.
    pub conflict: Option<WitnessStep>,
}

/// What ran before the pair: init's name, and each history callback's
/// first step and name ([`super::history`]).
#[derive(Clone, Default)]
pub struct Before<'a> {
    /// The init entry point.
    pub init: Option<&'a str>,
    /// The index of each history callback's first step, and its name, in
    /// order.
    pub history: Vec<(usize, &'a str)>,
}

/// Builds the witness of the failing `check` from `model`.
#[allow(clippy::too_many_arguments)]
pub fn build(
    program: &Program,
    values: &mut Values<'_>,
    steps: &[Step],
    live: &HashSet<TermId>,
    check: &RaceCheck,
    names: [&String; 2],
    before: Before<'_>,
    objects: &[(i128, String)],
    k: u32,
) -> Witness {
    let mut lines = SourceLines::default();
    let after = check.after.value(values).unwrap_or(k);
    let order = |w: Who| match w {
        Who::Init => 0u8,
        Who::T1 => 1,
        Who::T2 => 2,
    };
    // (round, thread, index) of every step that ran before the check.
    let mut ran_steps: Vec<(u32, u8, usize)> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        if values.bool(s.guard) != Some(true) {
            continue;
        }
        let round = if s.who == Who::Init { 0 } else { s.round.value(values).unwrap_or(0) };
        if round > k {
            continue;
        }
        let keep = match (s.who, check.who) {
            (Who::Init, _) => true,
            (w, c) if w == c => i <= check.access + 1,
            (Who::T1, _) => round <= after,
            (Who::T2, _) => round < after,
        };
        if keep {
            ran_steps.push((round, order(s.who), i));
        }
    }
    ran_steps.sort();
    let mut to_step = |values: &mut Values<'_>, i: usize, round: u32| -> WitnessStep {
        // A value the formula does not contain (a dead read's, or what
        // follows from one) belongs to no execution: it is not shown.
        let mut int = |t: TermId| if live.contains(&t) || values.is_constant(t) { values.int(t) } else { None };
        let s = &steps[i];
        let (thread, entry, earlier) = match s.who {
            Who::Init => match before.history.iter().rev().find(|(from, _)| i >= *from) {
                Some((_, name)) => (0, name.to_string(), true),
                None => (0, before.init.unwrap_or("init").to_string(), false),
            },
            Who::T1 => (1, names[0].clone(), false),
            Who::T2 => (2, names[1].clone(), false),
        };
        let (event, region, address, value) = match &s.kind {
            StepKind::Read { region, address, value, .. } => {
                ("read", Some(program.regions[*region].name.clone()), int(*address), int(*value))
            }
            StepKind::Write { region, address, value, .. } => {
                ("write", Some(program.regions[*region].name.clone()), int(*address), int(*value))
            }
            StepKind::Acquire { lock, ok } => {
                let event = if values.bool(*ok) == Some(false) { "trylock-failed" } else { "lock" };
                (event, Some(program.locks[*lock].name.clone()), None, None)
            }
            StepKind::Release { lock } => ("unlock", Some(program.locks[*lock].name.clone()), None, None),
            StepKind::Switch { .. } => ("switch", None, None, None),
            StepKind::Live => ("live", None, None, None),
            StepKind::Line => ("line", None, None, None),
        };
        let object = address.filter(|_| matches!(event, "read" | "write")).map(|a| super::separation::describe(program, objects, a));
        let source = s.span.as_ref().and_then(|span| lines.line(span));
        let points_to = value.filter(|_| matches!(event, "read" | "write")).and_then(|v| super::separation::known(program, objects, v));
        WitnessStep {
            thread,
            entry,
            round,
            function: s.function.clone(),
            span: s.span.clone(),
            event: event.to_string(),
            region,
            address,
            object,
            points_to,
            source,
            value,
            earlier,
        }
    };
    let mut out: Vec<WitnessStep> = Vec::new();
    let mut access = None;
    let mut position_of_access = 0;
    for &(round, _, i) in &ran_steps {
        // A switch that did not change the round is no switch.
        if let StepKind::Switch { from, to } = &steps[i].kind {
            if from.value(values) == to.value(values) {
                continue;
            }
        }
        let step = to_step(values, i, round);
        if i == check.access {
            access = Some(step.clone());
            position_of_access = out.len();
        }
        out.push(step);
    }
    let access = match access {
        Some(a) => a,
        None => {
            let round = check.before.value(values).unwrap_or(1);
            to_step(values, check.access, round)
        }
    };
    let address = values.int(check.address);
    let conflict = out[position_of_access.min(out.len())..]
        .iter()
        .filter(|s| s.thread != access.thread && s.thread != 0 && s.event == "write" && s.region == access.region && s.address == address)
        .last()
        .cloned();
    Witness { steps: out, access, conflict }
}

/// The C source lines of the files a witness runs through, read once.
#[derive(Default)]
struct SourceLines {
    files: std::collections::HashMap<std::path::PathBuf, Option<Vec<String>>>,
}

impl SourceLines {
    /// The trimmed text of `span`'s line, when the file can be read.
    fn line(&mut self, span: &Span) -> Option<String> {
        let lines = self
            .files
            .entry(span.file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(&span.file).ok().map(|t| t.lines().map(str::to_string).collect()));
        let text = lines.as_ref()?.get((span.line as usize).checked_sub(1)?)?;
        // The statement without its comment, its tabs as spaces.
        let code = match (text.find("/*"), text.find("//")) {
            (Some(a), Some(b)) => &text[..a.min(b)],
            (Some(a), None) | (None, Some(a)) => &text[..a],
            (None, None) => text,
        };
        let code = code.split_whitespace().collect::<Vec<_>>().join(" ");
        (!code.is_empty()).then_some(code)
    }
}
