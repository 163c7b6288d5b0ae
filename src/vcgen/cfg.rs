//! The control-flow facts VC generation needs: back edges, loop heads with
//! the variables their loops may change, and a topological order of the
//! acyclic graph left when back edges are cut.
//!
//! # Algorithm
//!
//! A depth-first search from the entry classifies edges; the back edges
//! (to a block on the search stack) are exactly the edges whose removal
//! leaves an acyclic graph, also for the irreducible control flow `goto`
//! can make. Each back edge's target is a loop head. The blocks of a loop
//! head are its strongly connected component (Tarjan, through petgraph),
//! so the variables "modified in the loop" include everything on any cycle
//! through the head, which is what havocking at the head must cover for
//! the cut to be sound.

use crate::ir::{BlockId, Command, Procedure, Terminator, VarId};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A procedure's control flow, analysed.
#[derive(Debug)]
pub struct Cfg {
    /// Blocks in a topological order of the acyclic graph (back edges cut),
    /// reachable blocks only, entry first.
    pub order: Vec<BlockId>,
    /// Predecessors along forward (non-back) edges.
    pub preds: BTreeMap<BlockId, Vec<BlockId>>,
    /// Back edges, as (source, head).
    pub back_edges: BTreeSet<(BlockId, BlockId)>,
    /// For each loop head: the variables assigned or havocked anywhere in
    /// its strongly connected component.
    pub loop_modifies: BTreeMap<BlockId, BTreeSet<VarId>>,
    /// For each loop head: the blocks of its strongly connected component
    /// (the bounded checker's unrolling counts a loop's iterations while
    /// execution stays among them).
    pub loop_blocks: BTreeMap<BlockId, BTreeSet<BlockId>>,
}

fn successors(p: &Procedure, b: BlockId) -> Vec<BlockId> {
    match &p.blocks[b].terminator {
        Terminator::Goto(targets) => targets.clone(),
        Terminator::Return | Terminator::Unreachable => Vec::new(),
    }
}

/// Analyses a procedure's blocks. `call_modifies` gives the globals a call
/// command may change, so that loops containing calls havoc them.
pub fn analyse(p: &Procedure, call_modifies: &dyn Fn(&Command) -> Vec<VarId>) -> Cfg {
    // Iterative DFS with an explicit stack, recording post-order.
    let mut state: HashMap<BlockId, u8> = HashMap::new(); // 1 on stack, 2 done
    let mut post = Vec::new();
    let mut back_edges = BTreeSet::new();
    let mut stack: Vec<(BlockId, Vec<BlockId>)> = vec![(p.entry, successors(p, p.entry))];
    state.insert(p.entry, 1);
    while let Some((b, succs)) = stack.last_mut() {
        let b = *b;
        match succs.pop() {
            Some(s) => match state.get(&s) {
                Some(1) => {
                    back_edges.insert((b, s));
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    let next = successors(p, s);
                    stack.push((s, next));
                }
            },
            None => {
                state.insert(b, 2);
                post.push(b);
                stack.pop();
            }
        }
    }
    let order: Vec<BlockId> = post.into_iter().rev().collect();
    let mut preds: BTreeMap<BlockId, Vec<BlockId>> = order.iter().map(|b| (*b, Vec::new())).collect();
    for &b in &order {
        for s in successors(p, b) {
            if !back_edges.contains(&(b, s)) {
                if let Some(list) = preds.get_mut(&s) {
                    if !list.contains(&b) {
                        list.push(b);
                    }
                }
            }
        }
    }
    // Loop bodies: the strongly connected components of the full graph.
    let mut graph: DiGraph<BlockId, ()> = DiGraph::new();
    let nodes: HashMap<BlockId, NodeIndex> = order.iter().map(|b| (*b, graph.add_node(*b))).collect();
    for &b in &order {
        for s in successors(p, b) {
            if let (Some(&from), Some(&to)) = (nodes.get(&b), nodes.get(&s)) {
                graph.add_edge(from, to, ());
            }
        }
    }
    let mut component_of: HashMap<BlockId, usize> = HashMap::new();
    let components = petgraph::algo::tarjan_scc(&graph);
    for (i, component) in components.iter().enumerate() {
        for n in component {
            component_of.insert(graph[*n], i);
        }
    }
    let mut loop_modifies = BTreeMap::new();
    let mut loop_blocks = BTreeMap::new();
    for &(_, head) in &back_edges {
        let component = &components[component_of[&head]];
        loop_blocks.insert(head, component.iter().map(|n| graph[*n]).collect::<BTreeSet<BlockId>>());
        let mut vars = BTreeSet::new();
        for n in component {
            for c in &p.blocks[graph[*n]].commands {
                vars.extend(c.targets());
                vars.extend(call_modifies(c));
            }
        }
        loop_modifies.insert(head, vars);
    }
    Cfg { order, preds, back_edges, loop_modifies, loop_blocks }
}
