//! Irreducible control flow made reducible, before any other pass.
//!
//! A cycle with several entries (`goto` into a loop, a state machine
//! written with labels, some switch lowerings) has no header that dominates
//! it: it is no natural loop, and loop analysis, partial linearization
//! (PLDI'18 assumes a reducible CFG) and everything after reject it. The
//! WFV thesis (section 6.5) keeps the cycle and gives the secondary headers
//! modified masks; Lanewise instead makes the CFG reducible once, right
//! after lifting, as LLVM's `FixIrreducible` does, so that every later pass
//! (and PLDI'18's guarantees for the branches outside the cycle) applies
//! unchanged:
//!
//! ```text
//!  P1 -> E1, P2 -> E2, E1 <-> E2            P1 -> B1 -> D, P2 -> B2 -> D
//!                                   ==>     D: sel = phi [0, B1], [1, B2], ...
//!                                              br sel == 0, E1, E2
//! ```
//!
//! Every edge into an entry of the cycle (from outside and from inside)
//! goes through an edge block of its own into one dispatch block `D`, whose
//! phi `sel` says which entry the edge led to, and a chain of comparisons of
//! `sel` branches to it. `D` is then the cycle's only header: it dominates
//! the cycle, and the cycle is a natural loop. The edge blocks of edges
//! from inside the cycle jump to one latch block, which jumps to `D` (and
//! merges their values in phis of its own): one back edge, as LLVM's
//! loop-simplify form has it and the divergent-loop transform expects.
//! The entries' phis move into `D` (their incoming value on the edge blocks
//! of their own entry, a frozen `poison` on the others: no execution takes
//! an edge to one entry and arrives at another) and the entries keep
//! one-incoming phis of them.
//!
//! Only edges into entries change, so every definition still dominates its
//! uses: a new path through `D` to a block `U` ends in a path of the old
//! graph from the entry it dispatches to, and the entry is reached on the
//! old graph from outside the cycle, so whatever dominated `U` before lies
//! on the new path too (the entries' own phis are the exception, hence
//! their move). For the vectorizer, `sel` is an ordinary phi: uniform when
//! every lane entered the cycle the same way, varying when lanes took
//! different entries, in which case the dispatch is a divergent branch
//! inside a divergent loop.
//!
//! Cycles are found by the usual nested SCC decomposition: the strongly
//! connected components of the CFG; one with a single entry is a natural
//! loop, searched again for nested cycles without the edges into its
//! header; one with several entries is rewritten, and the search restarts
//! on the new CFG.

use std::collections::{HashMap, HashSet};

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::{Block, Function, InstData, IntPredicate, Type, Value};

use crate::cfg_canon::{block_phis, insert_phi, new_block_after, phi_incoming, poison};

/// One cycle [`make_reducible`] gave a single header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReducedCycle {
    /// The names of the cycle's entries, in layout order.
    pub entries: Vec<String>,
    /// The name of the dispatch block, the cycle's header now.
    pub dispatch: String,
    /// How many blocks the cycle had.
    pub blocks: usize,
}

/// Why a cycle could not be given a single header.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "function `{function}` has irreducible control flow that cannot be restructured: the \
     cycle entered at {entries} {reason}"
)]
pub struct IrreducibleCycleError {
    pub function: String,
    /// The entries, as `` `a`, `b` ``.
    pub entries: String,
    pub reason: String,
}

/// Rewrites every cycle of `func` with more than one entry into a natural
/// loop (see the module docs). Returns what it rewrote, in order; an empty
/// list leaves `func` unchanged.
pub fn make_reducible(func: &mut Function) -> Result<Vec<ReducedCycle>, IrreducibleCycleError> {
    let mut reduced = Vec::new();
    // Each rewrite leaves one cycle fewer with several entries among those
    // the search visits first; the bound only guards against a bug.
    let limit = func.layout.blocks().len() + 1;
    while let Some((cycle, entries)) = find_multi_entry_cycle(func) {
        if reduced.len() >= limit {
            break;
        }
        reduced.push(route_through_dispatch(func, &cycle, &entries)?);
    }
    if !reduced.is_empty() {
        place_blocks_in_reverse_post_order(func);
    }
    Ok(reduced)
}

/// Orders the layout by reverse post-order of the CFG (blocks the entry
/// cannot reach last, in their old order): every dispatch block then
/// precedes the loop it heads, as the other passes expect of a loop header
/// (linearization visits blocks in layout order).
fn place_blocks_in_reverse_post_order(func: &mut Function) {
    let cfg = ControlFlowGraph::compute(func);
    let mut order: Vec<Block> = cfg.reverse_post_order().to_vec();
    let placed: HashSet<Block> = order.iter().copied().collect();
    order.extend(func.layout.blocks().iter().copied().filter(|block| !placed.contains(block)));
    func.layout.set_block_order(order);
}

/// The blocks and the entries (layout order) of the first cycle with more
/// than one entry, if any.
fn find_multi_entry_cycle(func: &Function) -> Option<(Vec<Block>, Vec<Block>)> {
    let cfg = ControlFlowGraph::compute(func);
    let reachable: Vec<Block> =
        func.layout.blocks().iter().copied().filter(|block| cfg.is_reachable(*block)).collect();
    let layout_index: HashMap<Block, usize> =
        func.layout.blocks().iter().enumerate().map(|(index, block)| (*block, index)).collect();
    search_region(&cfg, &reachable, None, &layout_index)
}

/// Searches the blocks `region` (edges into `header` left out) for a cycle
/// with several entries, descending into single-entry cycles.
fn search_region(
    cfg: &ControlFlowGraph,
    region: &[Block],
    header: Option<Block>,
    layout_index: &HashMap<Block, usize>,
) -> Option<(Vec<Block>, Vec<Block>)> {
    let in_region: HashSet<Block> = region.iter().copied().collect();
    let successors = |block: Block| -> Vec<Block> {
        cfg.succs(block)
            .iter()
            .copied()
            .filter(|successor| in_region.contains(successor) && Some(*successor) != header)
            .collect()
    };
    for component in strongly_connected_components(region, &successors) {
        let is_cycle = component.len() > 1 || successors(component[0]).contains(&component[0]);
        if !is_cycle {
            continue;
        }
        let members: HashSet<Block> = component.iter().copied().collect();
        let mut entries: Vec<Block> = component
            .iter()
            .copied()
            .filter(|block| cfg.preds(*block).iter().any(|pred| !members.contains(pred)))
            .collect();
        entries.sort_by_key(|block| layout_index[block]);
        match entries[..] {
            [] => continue, // unreachable from outside: not in `region`
            [single] => {
                if let Some(found) = search_region(cfg, &component, Some(single), layout_index) {
                    return Some(found);
                }
            }
            _ => {
                let mut blocks = component;
                blocks.sort_by_key(|block| layout_index[block]);
                return Some((blocks, entries));
            }
        }
    }
    None
}

/// Tarjan's strongly connected components of the graph on `nodes` given by
/// `successors`, iteratively (no recursion on deep CFGs).
fn strongly_connected_components(
    nodes: &[Block],
    successors: &dyn Fn(Block) -> Vec<Block>,
) -> Vec<Vec<Block>> {
    let mut index_of: HashMap<Block, usize> = HashMap::new();
    let mut lowlink: HashMap<Block, usize> = HashMap::new();
    let mut on_stack: HashSet<Block> = HashSet::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut components = Vec::new();
    let mut next_index = 0;
    for &root in nodes {
        if index_of.contains_key(&root) {
            continue;
        }
        // (node, its successors, the next successor to visit)
        let mut work: Vec<(Block, Vec<Block>, usize)> = Vec::new();
        index_of.insert(root, next_index);
        lowlink.insert(root, next_index);
        next_index += 1;
        stack.push(root);
        on_stack.insert(root);
        work.push((root, successors(root), 0));
        while let Some((node, succs, position)) = work.last_mut() {
            let node = *node;
            if let Some(&successor) = succs.get(*position) {
                *position += 1;
                match index_of.entry(successor) {
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(next_index);
                        lowlink.insert(successor, next_index);
                        next_index += 1;
                        stack.push(successor);
                        on_stack.insert(successor);
                        work.push((successor, successors(successor), 0));
                    }
                    std::collections::hash_map::Entry::Occupied(visited) => {
                        if on_stack.contains(&successor) {
                            let low = lowlink[&node].min(*visited.get());
                            lowlink.insert(node, low);
                        }
                    }
                }
                continue;
            }
            work.pop();
            if let Some((parent, _, _)) = work.last() {
                let low = lowlink[parent].min(lowlink[&node]);
                lowlink.insert(*parent, low);
            }
            if lowlink[&node] == index_of[&node] {
                let mut component = Vec::new();
                loop {
                    let member = stack.pop().expect("the component is on the stack");
                    on_stack.remove(&member);
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// `freeze poison` of type `ty` at the top of the entry block (one per
/// type): the value of a moved phi on the edges to the other entries, where
/// no execution uses it. Not `poison` itself: linearization computes the
/// cycle's values for every lane, and a poison one would reach masks and
/// branches through `and`/`or` (undefined behaviour, which LLVM exploits).
fn arbitrary_value(func: &mut Function, cache: &mut HashMap<Type, Value>, ty: &Type) -> Value {
    if let Some(&value) = cache.get(ty) {
        return value;
    }
    let entry = func.layout.entry_block().expect("a function with a cycle has an entry");
    let poison = poison(func, ty.clone());
    let freeze = func.dfg.make_inst(InstData::Freeze { arg: poison }, ty.clone());
    func.layout.insert_inst_at(freeze, entry, 0);
    let value = func.dfg.result(freeze).expect("freeze has a result");
    cache.insert(ty.clone(), value);
    value
}

/// A block that takes one edge into an entry of the cycle.
struct EdgeBlock {
    block: Block,
    /// Which entry the edge led to.
    entry_index: usize,
    /// Whether the edge came from inside the cycle (then the block jumps to
    /// the latch, else to the dispatch block).
    internal: bool,
}

/// A phi in `dispatch` taking `values[k]` on the edge from edge block `k`:
/// those from outside the cycle directly, those from inside through a phi
/// in `latch`.
fn merge_at_dispatch(
    func: &mut Function,
    dispatch: Block,
    latch: Block,
    edge_blocks: &[EdgeBlock],
    ty: Type,
    values: &[Value],
) -> Value {
    let pairs = |internal: bool| -> Vec<(Block, Value)> {
        edge_blocks
            .iter()
            .zip(values)
            .filter(|(edge, _)| edge.internal == internal)
            .map(|(edge, value)| (edge.block, *value))
            .collect()
    };
    let from_latch = insert_phi(func, latch, ty.clone(), pairs(true));
    let mut incoming = pairs(false);
    incoming.push((latch, from_latch));
    insert_phi(func, dispatch, ty, incoming)
}

/// Sends every edge into `entries` through an edge block into one new
/// dispatch block that branches to the entry the edge led to.
fn route_through_dispatch(
    func: &mut Function,
    cycle: &[Block],
    entries: &[Block],
) -> Result<ReducedCycle, IrreducibleCycleError> {
    let cfg = ControlFlowGraph::compute(func);
    let entry_names: Vec<String> = entries.iter().map(|entry| func.block_name(*entry)).collect();
    let refuse = |reason: &str| IrreducibleCycleError {
        function: func.name.clone(),
        entries: entry_names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", "),
        reason: reason.to_owned(),
    };
    // Edges of invokes and landing pads cannot be split by a block.
    for &entry in entries {
        let first = func
            .layout
            .block_insts(entry)
            .iter()
            .copied()
            .find(|inst| !matches!(func.dfg.inst(*inst), InstData::Phi { .. }));
        if first.is_some_and(|inst| matches!(func.dfg.inst(inst), InstData::LandingPad { .. })) {
            return Err(refuse("is entered by unwinding (a landing pad)"));
        }
        for &pred in cfg.preds(entry) {
            let terminator = func.terminator(pred).expect("a predecessor has a terminator");
            if matches!(func.dfg.inst(terminator), InstData::Invoke { .. }) {
                return Err(refuse("is entered from an `invoke`"));
            }
        }
    }

    let last_block = *cycle.last().expect("a cycle has blocks");
    let dispatch_name = format!("{}.irreducible.dispatch", entry_names[0]);
    let dispatch = new_block_after(func, last_block, dispatch_name.clone());
    let latch = new_block_after(func, dispatch, format!("{dispatch_name}.latch"));
    func.append(latch, InstData::Jump { dest: dispatch }, Type::Void);
    let in_cycle: HashSet<Block> = cycle.iter().copied().collect();

    // One edge block per (predecessor, entry), with the entry it leads to:
    // from outside the cycle into the dispatch block, from inside into the
    // latch (the loop's only back edge, as loop-simplify form wants).
    let mut edge_blocks: Vec<EdgeBlock> = Vec::new();
    for (entry_index, &entry) in entries.iter().enumerate() {
        for &pred in cfg.preds(entry) {
            let internal = in_cycle.contains(&pred);
            let name = format!("{}.to.{}", func.block_name(pred), entry_names[entry_index]);
            let edge = new_block_after(func, pred, name);
            func.append(
                edge,
                InstData::Jump { dest: if internal { latch } else { dispatch } },
                Type::Void,
            );
            let terminator = func.terminator(pred).expect("a predecessor has a terminator");
            func.dfg.inst_mut(terminator).replace_successor(entry, edge);
            for phi in block_phis(func, entry) {
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                    for (block, _) in incoming.iter_mut().filter(|(block, _)| *block == pred) {
                        *block = edge;
                    }
                }
            }
            edge_blocks.push(EdgeBlock { block: edge, entry_index, internal });
        }
    }

    // `sel`: which entry the edge into the dispatch block led to.
    let selector_values: Vec<Value> = edge_blocks
        .iter()
        .map(|edge| func.dfg.int_const(Type::I32, edge.entry_index as u128))
        .collect();
    let selector =
        merge_at_dispatch(func, dispatch, latch, &edge_blocks, Type::I32, &selector_values);

    // The dispatch chain: `dispatch` tests entry 0, then one block per
    // further entry but the last, which takes what remains.
    let mut tests = vec![dispatch];
    for entry_index in 1..entries.len() - 1 {
        let previous = *tests.last().expect("the chain starts at the dispatch block");
        let name = format!("{dispatch_name}.{entry_index}");
        tests.push(new_block_after(func, previous, name));
    }
    let mut arrives_from = vec![dispatch; entries.len()];
    for (entry_index, &test) in tests.iter().enumerate() {
        let index_value = func.dfg.int_const(Type::I32, entry_index as u128);
        let compare = InstData::Icmp { pred: IntPredicate::Eq, lhs: selector, rhs: index_value };
        let compare = func.append(test, compare, Type::BOOL);
        let is_entry = func.dfg.result(compare).expect("a comparison has a result");
        let otherwise = match tests.get(entry_index + 1) {
            Some(next_test) => *next_test,
            None => entries[entry_index + 1],
        };
        func.append(
            test,
            InstData::Branch {
                cond: is_entry,
                then_dest: entries[entry_index],
                else_dest: otherwise,
            },
            Type::Void,
        );
        arrives_from[entry_index] = test;
        if entry_index + 2 == entries.len() {
            arrives_from[entry_index + 1] = test;
        }
    }

    // The entries' phis move into the dispatch block (and its latch).
    let mut arbitrary: HashMap<Type, Value> = HashMap::new();
    for (entry_index, &entry) in entries.iter().enumerate() {
        for phi in block_phis(func, entry) {
            let ty = func.dfg.value_type(func.dfg.result(phi).expect("a phi has a result")).clone();
            let own = phi_incoming(func, phi);
            let mut values = Vec::with_capacity(edge_blocks.len());
            for edge in &edge_blocks {
                let value = if edge.entry_index == entry_index {
                    own.iter().find(|(block, _)| *block == edge.block).map(|&(_, value)| value)
                } else {
                    None
                };
                values.push(match value {
                    Some(value) => value,
                    None => arbitrary_value(func, &mut arbitrary, &ty),
                });
            }
            let moved = merge_at_dispatch(func, dispatch, latch, &edge_blocks, ty, &values);
            if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                *incoming = vec![(arrives_from[entry_index], moved)];
            }
        }
    }
    Ok(ReducedCycle { entries: entry_names, dispatch: dispatch_name, blocks: cycle.len() })
}

#[cfg(test)]
mod tests;
