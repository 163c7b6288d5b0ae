//! Which entry points a registration makes live, for the precise phase.
//!
//! # Algorithm
//!
//! A `live` command with targets T makes T live, and with them everything
//! a live entry point may make live in turn: a timer made live by init may
//! have run, outside the pair, and queued the work item its body queues,
//! so that work item may run during the pair. Per entry point, the union
//! of the targets of the `live` commands in the procedures it reaches
//! (`None`: every callback); a target set is closed under that relation to
//! a fixpoint. This is the closure the lockset phase uses
//! (src/instrument/lockset.rs), except that a command no model describes
//! (`live assumed`) contributes nothing: no witness may rest on it
//! ([`super::exec::Hit::AssumedLive`]).
//!
//! # Soundness
//!
//! Only confirmations depend on it: a callback starts only once a modelled
//! registration, possibly through callbacks it made live, allows it.
//! Executions that need an unmodelled registration are not searched, which
//! can lose races ("not found"), never invent one.

use crate::ir::{Command, Program};
use std::collections::{BTreeSet, HashMap};

/// A set of entry points by name; `None`: every one.
pub type Names = Option<BTreeSet<String>>;

/// What each entry point's body makes live, by modelled registrations.
#[derive(Clone, Debug, Default)]
pub struct LiveClosure {
    per_entry: HashMap<String, Names>,
}

fn join(a: &mut Names, b: &Names) {
    match (a.as_mut(), b) {
        (Some(x), Some(y)) => x.extend(y.iter().cloned()),
        (Some(_), None) => *a = None,
        (None, _) => {}
    }
}

impl LiveClosure {
    /// The relation for a program's entry points.
    pub fn new(program: &Program) -> LiveClosure {
        let mut per_entry = HashMap::new();
        for (_, e) in program.entry_points.iter() {
            let mut set: Names = Some(BTreeSet::new());
            for p in program.reachable(e.procedure) {
                for (_, block) in program.procedures[p].blocks.iter() {
                    for c in &block.commands {
                        if let Command::MakeLive { targets, assumed: false, .. } = c {
                            join(&mut set, &targets.as_ref().map(|t| t.iter().cloned().collect()));
                        }
                    }
                }
            }
            per_entry.insert(e.name.clone(), set);
        }
        LiveClosure { per_entry }
    }

    /// What a `live` command makes live: nothing if `assumed`, else its
    /// targets closed under the relation.
    pub fn made_live(&self, targets: Option<&[String]>, assumed: bool) -> Names {
        if assumed {
            return Some(BTreeSet::new());
        }
        let mut out: Names = targets.map(|t| t.iter().cloned().collect());
        let mut todo: Vec<String> = out.iter().flatten().cloned().collect();
        let mut done = BTreeSet::new();
        while let Some(e) = todo.pop() {
            if !done.insert(e.clone()) {
                continue;
            }
            let Some(reach) = self.per_entry.get(&e) else { continue };
            join(&mut out, reach);
            match &out {
                None => return None,
                Some(_) => todo.extend(reach.iter().flatten().cloned()),
            }
        }
        out
    }

    /// Whether a `live` command of `registrar` starts the entry point
    /// `name` by itself, without the closure: what the command does in the
    /// run, whatever ran before it. A command naming its targets (or
    /// making every callback live) starts those, except that an interrupt
    /// handler, timer, work item, tasklet, NAPI poll or URB completion is
    /// started only by an arming function ([`Program::arming`]): the kernel
    /// runs those only once requested or armed (kernel/irq/manage.c
    /// `__setup_irq`, kernel/time/timer.c `__mod_timer`, kernel/workqueue.c
    /// `__queue_work`, kernel/softirq.c `__tasklet_schedule_common`,
    /// net/core/dev.c `____napi_schedule`, drivers/usb/core/hcd.c
    /// `usb_hcd_submit_urb`), never because a device node or a driver
    /// structure was registered, even when the lowering's object resolution
    /// lists the function among what the structure reaches.
    pub fn names(program: &Program, registrar: &str, targets: Option<&[String]>, assumed: bool, name: &str) -> bool {
        use crate::models::EntryKind;
        if assumed || !targets.is_none_or(|t| t.iter().any(|x| x == name)) {
            return false;
        }
        let armed_only = program.entry_points.iter().any(|(_, e)| {
            e.name == name && matches!(e.kind, EntryKind::Irq | EntryKind::IrqThread | EntryKind::Timer | EntryKind::Work | EntryKind::Tasklet | EntryKind::Napi | EntryKind::Urb)
        });
        !armed_only || program.arming.contains(registrar)
    }

    /// Whether entry point `entry`'s body contains a modelled registration
    /// naming `name` (or every callback): running it may make `name` live.
    pub fn arms(&self, entry: &str, name: &str) -> bool {
        self.per_entry.get(entry).is_some_and(|s| s.as_ref().is_none_or(|s| s.contains(name)))
    }

    /// Whether a `live` command makes the entry point `name` live.
    pub fn makes_live(&self, targets: Option<&[String]>, assumed: bool, name: &str) -> bool {
        self.made_live(targets, assumed).is_none_or(|s| s.contains(name))
    }
}
