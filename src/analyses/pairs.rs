//! Pairs of entry points that may run concurrently.
//!
//! # Algorithm
//!
//! Every unordered pair of entry points, self-pairs included (two CPUs may
//! run the same `read` for two tasks), is a candidate; the kernel's
//! serialisation rules (`kernel-models/serialisation/`, parsed into
//! [`SerialisationRule`]s) then remove the pairs the kernel never runs at the
//! same time. A pair is removed when any rule matches it, and every matching
//! rule is recorded, so the output can say why.
//!
//! A rule selects entry points by their registrations (origins): a
//! [`Selector`] constrains one origin (the structure field it was stored in,
//! the registration call it was passed to, its kind, its role), a set of
//! selectors is their union, and **an entry point matches a set only if every
//! one of its origins matches some selector of the set**. A function
//! registered both as `ndo_open` (called under RTNL) and as a work function
//! (called without) runs outside RTNL too, so "under RTNL" holds of it only
//! if every way the kernel can call it is covered. Relations: `both` (both
//! entry points match the selected set), `between` (one matches the selected
//! set, the other the partner set), `self` (the self-pair of a matching entry
//! point with at most `max-registrations` origins: one IRQ handler registered
//! on two lines runs on both at once; a registration inside a loop, or in a
//! function called from one, counts as many). A rule's `unless-reaches`
//! exempts an entry point whose lowered code reaches one of the functions
//! or macros it names ([`reach_exemptions`]): it matches neither set of
//! that rule, so its pairs stay; a rule's `unless-called` voids it for a
//! driver that calls or registers one of the kernel functions it names
//! ([`exemptions`]); without the lowered code every entry point is taken
//! to be exempt from such rules ([`classify_pairs`]).
//!
//! Cost: one pass over the origins per rule and entry point, then a constant
//! check per rule and pair; pairs are quadratic in the entry points anyway.
//!
//! # Soundness
//!
//! Removing a pair is an under-approximation unless the kernel really
//! serialises it: each rule's reason names the mechanism and the 6.12 code
//! that guarantees it, and docs/soundness.md ("Pairs") lists what the rules
//! assume: the exit rule (exit entry points run after everything else), the
//! scope of `device` and `object` rules (the exclusion holds for calls on one
//! device or one kernel object; a registration executed for several objects
//! is counted once), and the transmit-lock rule's LLTX and multi-queue
//! caveats. Without rules (a `--models` directory with none) every pair is
//! kept: the over-approximation, never a missed race.

use crate::frontend::entry_points::{DriverEntryPoints, EntryPoint, Origin, Via};
use crate::models::{KernelModels, Relation, Selector, SerialisationRule};
use std::collections::HashSet;

/// Two entry points that may run at the same time, as indexes into
/// [`DriverEntryPoints::entry_points`]; `first <= second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The first entry point.
    pub first: usize,
    /// The second, equal to `first` for a self-pair.
    pub second: usize,
}

/// A pair the kernel serialises, with the rules that say so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed<'r> {
    /// The pair.
    pub pair: Pair,
    /// Every rule that matches it, in rule order; at least one.
    pub rules: Vec<&'r SerialisationRule>,
}

/// Every candidate pair of one driver, kept or removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairs<'r> {
    /// The pairs that may run concurrently, in order.
    pub kept: Vec<Pair>,
    /// The pairs the kernel serialises, in order.
    pub removed: Vec<Removed<'r>>,
}

/// Whether an entry point (by index) is exempt from a rule by its
/// `unless-reaches`.
pub type Exempt<'a> = dyn Fn(usize, &SerialisationRule) -> bool + 'a;

/// The pairs that may run concurrently under the models' serialisation
/// rules, in order; `exempt` says which entry points a rule's
/// `unless-reaches` exempts ([`reach_exemptions`]).
pub fn candidate_pairs(driver: &DriverEntryPoints, models: &KernelModels, exempt: &Exempt<'_>) -> Vec<Pair> {
    classify_pairs_exempt(driver, &models.serialisation, exempt).kept
}

/// Every unordered pair of `driver`'s entry points, self-pairs included,
/// split into those `rules` remove and those they keep, without the
/// lowered code: every entry point is taken to reach what a rule's
/// `unless-reaches` names, and the driver to call what its `unless-called`
/// names (such a rule removes nothing here).
pub fn classify_pairs<'r>(driver: &DriverEntryPoints, rules: &'r [SerialisationRule]) -> Pairs<'r> {
    classify_pairs_exempt(driver, rules, &|_, r| r.needs_lowered_code())
}

/// The exemptions of `unless-reaches` from the lowered program: an entry
/// point is exempt from a rule when the procedures it reaches use one of
/// the rule's markers, or when the program does not have it.
pub fn reach_exemptions(driver: &DriverEntryPoints, program: &crate::ir::Program) -> impl Fn(usize, &SerialisationRule) -> bool + use<> {
    let reached: Vec<Option<std::collections::BTreeSet<String>>> = driver
        .entry_points
        .iter()
        .map(|e| program.entry_points.values().find(|p| p.name == e.function).map(|p| program.markers_reached(p.procedure)))
        .collect();
    move |i: usize, rule: &SerialisationRule| {
        !rule.unless_reaches.is_empty()
            && reached.get(i).is_none_or(|m| m.as_ref().is_none_or(|m| rule.unless_reaches.iter().any(|x| m.contains(x))))
    }
}

/// The exemptions of a rule's `unless-reaches` ([`reach_exemptions`]) and,
/// for the rules that remove pairs, of its `unless-called`: a driver that
/// calls or registers one of those kernel functions (`used`) gets no pair
/// removed by the rule, every entry point being exempt from it.
pub fn exemptions(
    driver: &DriverEntryPoints,
    rules: &[SerialisationRule],
    program: &crate::ir::Program,
    used: &dyn Fn(&String) -> bool,
) -> impl Fn(usize, &SerialisationRule) -> bool + use<> {
    let reach = reach_exemptions(driver, program);
    // A function the file calls by name counts too: a static inline
    // function of a header (`dev_pm_set_driver_flags`) is lowered, not
    // recorded as an external call.
    let used = |f: &String| used(f) || driver.called_directly.contains(f);
    let void: HashSet<String> =
        rules.iter().filter(|r| r.relation != Relation::None && r.unless_called.iter().any(used)).map(|r| r.name.clone()).collect();
    move |i: usize, rule: &SerialisationRule| void.contains(&rule.name) || reach(i, rule)
}

/// [`classify_pairs`] with the exemptions `exempt`.
pub fn classify_pairs_exempt<'r>(driver: &DriverEntryPoints, rules: &'r [SerialisationRule], exempt: &Exempt<'_>) -> Pairs<'r> {
    let eps = &driver.entry_points;
    // Per rule and entry point: matches the selected set, the partner set
    // (an exempt entry point matches neither).
    let matching =
        |r: &SerialisationRule, i: usize, set: &[Selector]| {
            matches_set(&eps[i], set) && !exempt(i, r) && pm_ops_on_bus(r, &eps[i], driver) && has_required_field(r, &eps[i], driver)
        };
    let selected: Vec<Vec<bool>> = rules.iter().map(|r| (0..eps.len()).map(|i| matching(r, i, &r.selected)).collect()).collect();
    let partners: Vec<Vec<bool>> = rules.iter().map(|r| (0..eps.len()).map(|i| matching(r, i, &r.partners)).collect()).collect();
    let mut out = Pairs::default();
    for first in 0..eps.len() {
        for second in first..eps.len() {
            let matching: Vec<&SerialisationRule> = rules
                .iter()
                .enumerate()
                .filter(|&(k, rule)| {
                    let (a, b) = (&selected[k], &partners[k]);
                    match rule.relation {
                        Relation::Both if rule.same_ordered_workqueue => {
                            a[first] && a[second] && same_ordered_queue(driver, &eps[first], &eps[second])
                        }
                        Relation::Both => a[first] && a[second],
                        Relation::Between => (a[first] && b[second]) || (b[first] && a[second]),
                        Relation::None => false,
                        Relation::SelfPair => {
                            first == second
                                && a[first]
                                && rule.max_registrations.is_none_or(|max| registrations(&eps[first]) <= max)
                        }
                    }
                })
                .map(|(_, rule)| rule)
                .collect();
            let pair = Pair { first, second };
            if matching.is_empty() {
                out.kept.push(pair);
            } else {
                out.removed.push(Removed { pair, rules: matching });
            }
        }
    }
    out
}

/// Whether a rule's `pm-ops-bus` admits `entry`: every origin of it stored
/// in a `dev_pm_ops` is in a structure only a `struct pci_driver` of the
/// file refers to (the only bus the attribute names).
fn pm_ops_on_bus(rule: &SerialisationRule, entry: &EntryPoint, driver: &DriverEntryPoints) -> bool {
    rule.pm_ops_bus.is_none()
        || entry.origins.iter().all(|o| match &o.via {
            Via::Field { record, .. } if record == "dev_pm_ops" => o.holder.as_ref().is_some_and(|h| driver.pci_pm_ops.contains(h)),
            _ => true,
        })
}

/// Whether a rule's `requires-field` admits `entry`: every origin of it
/// stored in a field of a structure variable has a sibling, an origin of
/// some entry point of the driver stored in the required field of the same
/// variable and structure. An origin without a variable (a field assigned
/// at run time) has no sibling the file shows.
fn has_required_field(rule: &SerialisationRule, entry: &EntryPoint, driver: &DriverEntryPoints) -> bool {
    let Some(required) = &rule.requires_field else { return true };
    // `watchdog_ops.ping` asks only of the registrations in that structure.
    let (only, required) = match required.split_once('.') {
        Some((record, field)) => (Some(record), field),
        None => (None, required.as_str()),
    };
    entry.origins.iter().all(|o| {
        let Via::Field { record, .. } = &o.via else { return true };
        if only.is_some_and(|r| r != record) {
            return true;
        }
        let Some(holder) = &o.holder else { return false };
        driver.entry_points.iter().flat_map(|e| &e.origins).any(|s| {
            s.holder.as_ref() == Some(holder) && matches!(&s.via, Via::Field { record: r, field } if r == record && field == required)
        })
    })
}

/// Whether the work items of `a` and `b` are all queued on one ordered
/// workqueue and nowhere else: every origin names its work item (a field
/// or a variable) and [`DriverEntryPoints::ordered_work`] maps each to the
/// same queue.
fn same_ordered_queue(driver: &DriverEntryPoints, a: &EntryPoint, b: &EntryPoint) -> bool {
    let queue = |o: &Origin| {
        o.object.as_ref().or(o.holder.as_ref()).and_then(|work| driver.ordered_work.get(work))
    };
    let mut queues = a.origins.iter().chain(&b.origins).map(queue);
    match queues.next() {
        Some(Some(first)) => queues.all(|q| q == Some(first)),
        _ => false,
    }
}

/// How many registrations of `entry` may run: one per origin, and without
/// bound when one is repeated (in a loop, or in a function called from
/// one), since it may register the function for several kernel objects.
fn registrations(entry: &EntryPoint) -> usize {
    if entry.origins.iter().any(|o| o.repeated) { usize::MAX } else { entry.origins.len() }
}

/// Whether every origin of `entry` matches some selector of `set` (an empty
/// set matches nothing).
/// The kernel pseudo locks (`holds-lock` rules) an entry point runs
/// holding; `used` says whether the driver calls a function (for the
/// rules' `unless-called`).
pub fn held_pseudo_locks(entry: &EntryPoint, models: &KernelModels, used: &dyn Fn(&String) -> bool) -> Vec<String> {
    models
        .serialisation
        .iter()
        .filter(|r| r.holds_lock.is_some() && matches_set(entry, &r.selected))
        .filter(|r| !r.unless_called.iter().any(used))
        .filter_map(|r| r.holds_lock.clone())
        .collect()
}

/// The pairs of entry points (by function name, both orders) that may run
/// at the same time: kept by the serialisation rules and not both holding
/// one pseudo lock.
pub fn concurrent_names(
    driver: &DriverEntryPoints,
    models: &KernelModels,
    used: &dyn Fn(&String) -> bool,
    exempt: &Exempt<'_>,
) -> HashSet<(String, String)> {
    let held: Vec<Vec<String>> = driver.entry_points.iter().map(|e| held_pseudo_locks(e, models, used)).collect();
    let mut out = HashSet::new();
    for p in candidate_pairs(driver, models, exempt) {
        if held[p.first].iter().any(|l| held[p.second].contains(l)) {
            continue;
        }
        let (a, b) = (driver.entry_points[p.first].function.clone(), driver.entry_points[p.second].function.clone());
        out.insert((b.clone(), a.clone()));
        out.insert((a, b));
    }
    out
}

pub fn matches_set(entry: &EntryPoint, set: &[Selector]) -> bool {
    !set.is_empty() && entry.origins.iter().all(|o| set.iter().any(|s| matches_origin(s, o)))
}

/// Whether one registration meets every constraint of the selector.
pub fn matches_origin(selector: &Selector, origin: &Origin) -> bool {
    if selector.kind.is_some_and(|k| k != origin.kind) {
        return false;
    }
    if selector.role.is_some_and(|r| !r.admits(origin.kind.role())) {
        return false;
    }
    if let Some(record) = &selector.record {
        let Via::Field { record: r, field: f } = &origin.via else { return false };
        if r != record || selector.field.as_ref().is_some_and(|field| field != f) {
            return false;
        }
    }
    if let Some(call) = &selector.call {
        let Via::Call { function, .. } = &origin.via else { return false };
        if function != call {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Span;
    use crate::models::{EntryKind, RoleSelector, Scope};
    use std::path::Path;
    use std::sync::Arc;

    fn origin(kind: EntryKind, via: Via) -> Origin {
        Origin { kind, via, holder: None, object: None, span: Span { file: Arc::from(Path::new("t.c")), line: 1, column: 1 }, repeated: false }
    }

    fn field(kind: EntryKind, record: &str, field: &str) -> Origin {
        origin(kind, Via::Field { record: record.into(), field: field.into() })
    }

    fn call(kind: EntryKind, function: &str) -> Origin {
        origin(kind, Via::Call { function: function.into(), written: function.into() })
    }

    fn ep(name: &str, origins: Vec<Origin>) -> EntryPoint {
        EntryPoint { function: name.into(), span: origins[0].span.clone(), origins }
    }

    fn rule(name: &str, relation: Relation, selected: Vec<Selector>, partners: Vec<Selector>, max: Option<usize>) -> SerialisationRule {
        SerialisationRule {
            name: name.into(),
            relation,
            scope: Scope::Global,
            selected,
            partners,
            max_registrations: max,
            holds_lock: None,
            unless_called: Vec::new(),
            unless_reaches: Vec::new(),
            same_ordered_workqueue: false,
            pm_ops_bus: None,
            requires_field: None,
            kernel: "6.12".into(),
            reason: "test".into(),
        }
    }

    fn origin_sel(record: &str, f: &str) -> Selector {
        Selector { record: Some(record.into()), field: Some(f.into()), ..Selector::default() }
    }

    fn verdicts(d: &DriverEntryPoints, rules: &[SerialisationRule]) -> Vec<(String, String, Vec<String>)> {
        let p = classify_pairs(d, rules);
        let name = |i: usize| d.entry_points[i].function.clone();
        let mut out: Vec<_> = p.kept.iter().map(|p| (name(p.first), name(p.second), vec![])).collect();
        out.extend(p.removed.iter().map(|r| (name(r.pair.first), name(r.pair.second), r.rules.iter().map(|r| r.name.clone()).collect())));
        out.sort();
        out
    }

    #[test]
    fn an_entry_point_matches_only_if_every_origin_does() {
        let open = ep("open", vec![field(EntryKind::Callback, "net_device_ops", "ndo_open")]);
        let stop = ep("stop", vec![field(EntryKind::Callback, "net_device_ops", "ndo_stop")]);
        let both = ep("both", vec![field(EntryKind::Callback, "net_device_ops", "ndo_open"), field(EntryKind::Work, "work_struct", "func")]);
        let d = DriverEntryPoints { entry_points: vec![open, stop, both], ..Default::default() };
        let rtnl = rule("rtnl", Relation::Both, vec![origin_sel("net_device_ops", "ndo_open"), origin_sel("net_device_ops", "ndo_stop")], vec![], None);
        let v = verdicts(&d, &[rtnl]);
        let get = |a: &str, b: &str| v.iter().find(|(x, y, _)| x == a && y == b).map(|t| t.2.clone()).unwrap();
        assert_eq!(get("open", "stop"), vec!["rtnl"]);
        assert_eq!(get("open", "open"), vec!["rtnl"]);
        assert!(get("open", "both").is_empty(), "`both` also runs as a work function, outside RTNL");
        assert!(get("both", "both").is_empty());
    }

    #[test]
    fn self_rules_count_registrations_and_between_is_symmetric() {
        let once = ep("once", vec![call(EntryKind::Irq, "request_irq")]);
        let twice = ep("twice", vec![call(EntryKind::Irq, "request_irq"), call(EntryKind::Irq, "request_irq")]);
        let exit = ep("exit", vec![origin(EntryKind::ModuleExit, Via::ModuleHook { shown_as: "module_exit".into() })]);
        let d = DriverEntryPoints { entry_points: vec![once, twice, exit], ..Default::default() };
        let irq = Selector { call: Some("request_irq".into()), kind: Some(EntryKind::Irq), ..Selector::default() };
        let rules = [
            rule("irq-once", Relation::SelfPair, vec![irq], vec![], Some(1)),
            rule(
                "exit-role",
                Relation::Between,
                vec![Selector { role: Some(RoleSelector::Is(crate::models::Role::Exit)), ..Selector::default() }],
                vec![Selector { role: Some(RoleSelector::Any), ..Selector::default() }],
                None,
            ),
        ];
        let v = verdicts(&d, &rules);
        let get = |a: &str, b: &str| v.iter().find(|(x, y, _)| x == a && y == b).map(|t| t.2.clone()).unwrap();
        assert_eq!(get("once", "once"), vec!["irq-once"]);
        assert!(get("twice", "twice").is_empty(), "two registrations: two lines, may run at once");
        assert!(get("once", "twice").is_empty());
        assert_eq!(get("once", "exit"), vec!["exit-role"]);
        assert_eq!(get("exit", "exit"), vec!["exit-role"]);
        assert_eq!(v.len(), 6);
    }

    #[test]
    fn no_rules_keep_every_pair() {
        let d = DriverEntryPoints {
            entry_points: vec![ep("a", vec![call(EntryKind::Irq, "request_irq")]), ep("b", vec![call(EntryKind::Timer, "init_timer_key")])],
            ..Default::default()
        };
        let p = classify_pairs(&d, &[]);
        assert_eq!(p.kept.len(), 3);
        assert!(p.removed.is_empty());
    }
}
