//! One shard's part of the tree, compiled from the game's rules without building the whole
//! game: the top (the levels above the cut), the whole cut level, and below it only the
//! shard's own subtrees.
//!
//! Why: a shard that builds the whole arena splits the compute of a sharded run but not its
//! memory. The part must be numbered as the whole tree's slices the shard would use, so that
//! every node computes the same bits and the exchanged sums line up: node ids are the whole
//! tree's breadth-first ids in the top and at the cut level, and one run per level below it
//! (the shard's subtrees are one range per level of the whole tree, so the part is that range
//! shifted); information sets are numbered as the arena numbers them (in breadth-first order
//! of their first node, actions in that order), which depends on the whole game. So the part
//! takes three walks of the rules, depth first with an explicit stack (no recursion on the
//! game's depth), none storing nodes:
//!
//! 1. the whole game: the number of nodes per level (hence the cut, as [`ShardCut::new`]
//!    chooses it) and the subtree size of each node of the shallow levels (hence the shards'
//!    runs of cut-level nodes, as [`ShardCut::new`] balances them); a depth-first walk visits a
//!    level's nodes in breadth-first order, so a node's place in its level is a counter;
//! 2. the whole game again: every information set's first node (level, place), its number of
//!    actions and the player's previous own action, which give the arena's numbering; the walk
//!    also checks that each set's nodes below the cut lie on one level (so the chain of
//!    [`super::shard`] adds them in the single process's order);
//! 3. the top and the shard's subtrees only, into per-level lists, then the tree.
//!
//! Memory: the part's nodes plus the information-set tables (every shard holds the whole
//! state, one entry per action). The walks cost two traversals of the whole game.

use super::shard::{cut_level, split_roots, ShardCut};
use super::{assemble, check_sets, check_topo, Desc, Sets, Tree};
use crate::error::{fail, Result};
use crate::fxhash::FxMap;
use crate::game::{Rules, Turn};
use crate::scalar::{rat, rational_to_f64};

/// A shard's part of the tree with its sets and cut.
pub struct Partial {
    /// The part of the tree (see the module docs).
    pub tree: Tree,
    /// Both players' sets: every set, with only the part's nodes.
    pub sets: [Sets; 2],
    /// The cut.
    pub cut: ShardCut,
    /// Nodes of the whole game.
    pub game_nodes: u64,
    /// Per player, each set's key in the rules, by set number.
    pub keys: [Vec<u64>; 2],
}

/// A set found by walk 2: its first node (level, place in the level), actions and the
/// player's previous own action (as found set and action), or none.
#[derive(Clone, Copy)]
struct Found {
    first: (u32, u64),
    actions: u32,
    parent: (u32, u32),
    below: u32,
}

const NONE: u32 = u32::MAX;

/// One node of the part, between walk 3 and the tree: what it is and its children.
#[derive(Clone, Copy)]
struct PartNode {
    /// 0 chance (`payload` indexes the distributions), 1 and 2 a decision of player 1 or 2
    /// (`payload` is the set), 3 a terminal (`payload` indexes the payoffs), 4 a cut-level
    /// node of another shard.
    what: u8,
    payload: u32,
    children: u32,
}

/// Shard `index` of `shards`' part of the game `rules` states (see the module docs), for
/// simultaneous updates (a second reach array) or alternating ones.
pub fn compile_partial<R: Rules + ?Sized>(
    rules: &R,
    shards: usize,
    index: usize,
    simultaneous: bool,
) -> Result<Partial> {
    if shards == 0 || index >= shards {
        fail!(
            Invalid,
            "shard {index} of {shards}: expected 0 <= index < shards"
        );
    }
    let (counts, sizes, game_nodes) = walk_levels(rules);
    let mut levels = vec![0u64];
    for c in &counts {
        levels.push(levels.last().expect("start") + c);
    }
    let cut = cut_level(&levels);
    if (levels[cut + 1]) >= u32::MAX as u64 {
        return Err(too_big(
            "the top of the tree down to the cut",
            levels[cut + 1],
            "nodes",
        ));
    }
    let size = &sizes[cut];
    debug_assert_eq!(size.len() as u64, counts[cut]);
    let roots = split_roots(size, shards);
    let (r0, r1) = (roots[index], roots[index + 1]);
    let (keys, found) = walk_sets(rules, counts.len(), cut)?;
    let (rank, mut sets_out) = number_sets(&found)?;
    let num_actions = [0, 1].map(|p| *sets_out[p].action_start.last().expect("start") as usize);
    let mine = Mine { cut, r0, r1 };
    let (part, dists, pays) = walk_part(rules, counts.len(), &keys, &rank, mine)?;
    let mut set_keys: [Vec<u64>; 2] = Default::default();
    for p in 0..2 {
        set_keys[p] = vec![0; rank[p].len()];
        for (&key, &id) in &keys[p] {
            set_keys[p][rank[p][id as usize] as usize] = key;
        }
    }
    drop(keys);
    let (part_levels, nodes) = flatten_part(part, index, shards)?;
    list_set_nodes(&nodes, &mut sets_out);
    let tree = assemble(part_levels, num_actions, simultaneous, |h, probs| {
        let x = nodes[h];
        let desc = match x.what {
            0 => {
                probs.extend_from_slice(&dists[x.payload as usize]);
                Desc::Chance
            }
            1 | 2 => {
                let p = (x.what - 1) as usize;
                Desc::Decision(p, sets_out[p].action_start[x.payload as usize])
            }
            3 => Desc::Terminal(pays[x.payload as usize]),
            // Another shard's node: its value comes from that shard.
            _ => Desc::Terminal(0.0),
        };
        (desc, x.children)
    });
    for s in &sets_out {
        check_sets(s, &tree.child_start);
        check_topo(s);
    }
    let base = levels[cut] as u32;
    let roots = roots.iter().map(|&r| base + r as u32).collect();
    let cut = ShardCut::partial(&tree, &sets_out, cut, roots, index);
    Ok(Partial {
        tree,
        sets: sets_out,
        cut,
        game_nodes,
        keys: set_keys,
    })
}

/// Walk 1: nodes per level, the subtree sizes on the levels down to the first with 64 nodes
/// (the cut is never deeper), and the game's node count.
fn walk_levels<R: Rules + ?Sized>(rules: &R) -> (Vec<u64>, Vec<Vec<u64>>, u64) {
    let mut counts: Vec<u64> = Vec::new();
    let mut sizes: Vec<Vec<u64>> = Vec::new();
    let mut open: Vec<Option<u64>> = Vec::new();
    let mut record = usize::MAX;
    let mut pos = 0u64;
    let mut stack = vec![(rules.root(), 0u32)];
    while let Some((state, d)) = stack.pop() {
        let d = d as usize;
        if counts.len() == d {
            counts.push(0);
        }
        // The subtrees of the open nodes at this level and below end here.
        for l in d..open.len() {
            if let Some(start) = open[l].take() {
                sizes[l].push(pos - start);
            }
        }
        if d <= record {
            if open.len() <= d {
                open.resize(d + 1, None);
                sizes.resize(d + 1, Vec::new());
            }
            open[d] = Some(pos);
        }
        counts[d] += 1;
        if counts[d] >= 64 && d < record {
            record = d;
            open.truncate(d + 1);
            sizes.truncate(d + 1);
        }
        pos += 1;
        if rules.turn(&state) == Turn::Terminal {
            continue;
        }
        let n = rules.num_actions(&state);
        for a in (0..n).rev() {
            let mut next = state.clone();
            rules.apply(&mut next, a);
            stack.push((next, d as u32 + 1));
        }
    }
    for l in 0..open.len() {
        if let Some(start) = open[l].take() {
            sizes[l].push(pos - start);
        }
    }
    (counts, sizes, pos)
}

/// Per player, each set's key and its number in the order walk 2 finds them.
type SetKeys = [FxMap<u64, u32>; 2];

/// Walk 2: the information sets, keyed by (player, key), in order found, each with its first
/// node, actions and parent; refuses a set with nodes on several levels below `cut`.
fn walk_sets<R: Rules + ?Sized>(
    rules: &R,
    depth: usize,
    cut: usize,
) -> Result<(SetKeys, [Vec<Found>; 2])> {
    let mut keys: [FxMap<u64, u32>; 2] = Default::default();
    let mut found: [Vec<Found>; 2] = Default::default();
    let mut place = vec![0u64; depth];
    let mut stack = vec![(rules.root(), 0u32, [(NONE, NONE); 2])];
    while let Some((state, d, last)) = stack.pop() {
        let i = place[d as usize];
        place[d as usize] += 1;
        let turn = rules.turn(&state);
        let n = match turn {
            Turn::Terminal => continue,
            _ => rules.num_actions(&state),
        };
        let mut set = NONE;
        if let Turn::Player(p) = turn {
            let key = rules.infoset_key(&state);
            let next = found[p].len() as u32;
            let id = *keys[p].entry(key).or_insert(next);
            if id == next {
                found[p].push(Found {
                    first: (d, i),
                    actions: n as u32,
                    parent: last[p],
                    below: NONE,
                });
            }
            let f = &mut found[p][id as usize];
            f.first = f.first.min((d, i));
            if d as usize >= cut {
                if f.below == NONE {
                    f.below = d;
                } else if f.below != d {
                    fail!(
                        Unsupported,
                        "an information set of player {} has nodes on several levels below \
                         the cut: sharded CFR could not add its regrets in the single-process \
                         order",
                        p + 1
                    );
                }
            }
            set = id;
        }
        for a in (0..n).rev() {
            let mut next = state.clone();
            rules.apply(&mut next, a);
            let mut l = last;
            if let Turn::Player(p) = turn {
                l[p] = (set, a as u32);
            }
            stack.push((next, d + 1, l));
        }
    }
    Ok((keys, found))
}

/// The arena's numbering: sets in breadth-first order of their first nodes. Gives each found
/// set's rank and both players' set tables (actions, parents, topological order).
fn number_sets(found: &[Vec<Found>; 2]) -> Result<([Vec<u32>; 2], [Sets; 2])> {
    let mut rank: [Vec<u32>; 2] = Default::default();
    let mut sets_out: [Sets; 2] = [0, 1].map(|_| empty_sets());
    let mut num_actions = [0usize; 2];
    for p in 0..2 {
        let f = &found[p];
        let mut order: Vec<u32> = (0..f.len() as u32).collect();
        order.sort_by_key(|&s| f[s as usize].first);
        rank[p] = vec![0; f.len()];
        for (r, &s) in order.iter().enumerate() {
            rank[p][s as usize] = r as u32;
        }
        let s = &mut sets_out[p];
        let mut offset = 0u64;
        for &x in &order {
            s.action_start.push(offset as u32);
            offset += f[x as usize].actions as u64;
        }
        if offset >= u32::MAX as u64 {
            return Err(too_big(
                &format!("player {}'s actions", p + 1),
                offset,
                "actions",
            ));
        }
        s.action_start.push(offset as u32);
        num_actions[p] = offset as usize;
        for &x in &order {
            let (ps, pa) = f[x as usize].parent;
            if ps == NONE {
                s.parent_set.push(NONE);
                s.parent_action.push(NONE);
            } else {
                let r = rank[p][ps as usize];
                s.parent_set.push(r);
                s.parent_action.push(s.action_start[r as usize] + pa);
            }
        }
        // A parent set's first node comes before its children's: this order is topological.
        s.topo = (0..f.len() as u32).collect();
        s.own = vec![0.0; f.len()];
    }
    for s in &mut sets_out[1..] {
        s.base = num_actions[0];
    }

    Ok((rank, sets_out))
}

/// Which nodes walk 3 keeps whole: every node above the cut level, the cut level's run
/// `r0..r1` and everything below it.
#[derive(Clone, Copy)]
struct Mine {
    cut: usize,
    r0: u64,
    r1: u64,
}

/// Walk 3: the top and this shard's subtrees, level by level, with the distinct chance
/// distributions and payoffs they index.
#[allow(clippy::type_complexity)]
fn walk_part<R: Rules + ?Sized>(
    rules: &R,
    depth: usize,
    keys: &SetKeys,
    rank: &[Vec<u32>; 2],
    mine: Mine,
) -> Result<(Vec<Vec<PartNode>>, Vec<Vec<f64>>, Vec<f64>)> {
    let Mine { cut, r0, r1 } = mine;
    let mut part: Vec<Vec<PartNode>> = vec![Vec::new(); depth];
    let mut dists: Vec<Vec<f64>> = Vec::new();
    let mut dist_ids: FxMap<Vec<u64>, u32> = FxMap::default();
    let mut pays: Vec<f64> = Vec::new();
    let mut pay_ids: FxMap<u64, u32> = FxMap::default();
    let mut probs: Vec<f64> = Vec::new();
    let mut stack = vec![(rules.root(), 0u32)];
    while let Some((state, d)) = stack.pop() {
        let level = &mut part[d as usize];
        let mine = (d as usize) < cut || {
            let i = level.len() as u64;
            d as usize > cut || (r0 <= i && i < r1)
        };
        if !mine {
            level.push(PartNode {
                what: 4,
                payload: 0,
                children: 0,
            });
            continue;
        }
        let turn = rules.turn(&state);
        let (what, payload, n) = match turn {
            Turn::Terminal => {
                let x = rational_to_f64(&rules.payoff0_exact(&state));
                let next = pays.len() as u32;
                let id = *pay_ids.entry(x.to_bits()).or_insert(next);
                if id == next {
                    pays.push(x);
                }
                (3, id, 0)
            }
            Turn::Chance => {
                let n = rules.num_actions(&state);
                probs.clear();
                if rules.chance_is_uniform(&state) {
                    probs.resize(n, rational_to_f64(&rat(1, n.max(1) as i64)));
                } else {
                    probs.extend(
                        (0..n).map(|i| rational_to_f64(&rules.chance_prob_exact(&state, i))),
                    );
                }
                let bits: Vec<u64> = probs.iter().map(|x| x.to_bits()).collect();
                let next = dists.len() as u32;
                let id = *dist_ids.entry(bits).or_insert(next);
                if id == next {
                    dists.push(probs.clone());
                }
                (0, id, n)
            }
            Turn::Player(p) => {
                let key = rules.infoset_key(&state);
                let Some(&id) = keys[p].get(&key) else {
                    fail!(
                        Invalid,
                        "the rules gave a new information set on a second walk (they must be \
                         deterministic)"
                    );
                };
                (1 + p as u8, rank[p][id as usize], rules.num_actions(&state))
            }
        };
        level.push(PartNode {
            what,
            payload,
            children: n as u32,
        });
        for a in (0..n).rev() {
            let mut next = state.clone();
            rules.apply(&mut next, a);
            stack.push((next, d + 1));
        }
    }
    Ok((part, dists, pays))
}

/// The part's levels as one node array with the level starts, refused where the ids would
/// not fit 32 bits.
fn flatten_part(
    mut part: Vec<Vec<PartNode>>,
    index: usize,
    shards: usize,
) -> Result<(Vec<u32>, Vec<PartNode>)> {
    while part.last().is_some_and(Vec::is_empty) {
        part.pop();
    }
    let mut part_levels = vec![0u64];
    for l in &part {
        part_levels.push(part_levels.last().expect("start") + l.len() as u64);
    }
    let total = *part_levels.last().expect("levels");
    if total >= u32::MAX as u64 {
        return Err(too_big(
            &format!("shard {index} of {shards}"),
            total,
            "nodes",
        ));
    }
    let part_levels: Vec<u32> = part_levels.iter().map(|&x| x as u32).collect();
    let nodes: Vec<PartNode> = part.into_iter().flatten().collect();
    Ok((part_levels, nodes))
}

/// The sets' nodes present, in node order (a counting sort by set).
fn list_set_nodes(nodes: &[PartNode], sets_out: &mut [Sets; 2]) {
    for p in 0..2 {
        let m = sets_out[p].own.len();
        let mut start = vec![0u32; m + 1];
        for x in nodes {
            if x.what == 1 + p as u8 {
                start[x.payload as usize + 1] += 1;
            }
        }
        for s in 0..m {
            start[s + 1] += start[s];
        }
        let mut at = start.clone();
        let mut list = vec![0u32; start[m] as usize];
        for (h, x) in nodes.iter().enumerate() {
            if x.what == 1 + p as u8 {
                list[at[x.payload as usize] as usize] = h as u32;
                at[x.payload as usize] += 1;
            }
        }
        sets_out[p].node_start = start;
        sets_out[p].nodes = list;
    }
}

/// The refusal of a part whose ids would not fit 32 bits.
fn too_big(what: &str, size: u64, unit: &str) -> crate::Error {
    crate::Error::TooBig {
        what: what.to_string(),
        size: format!("{size} {unit}"),
        limit: format!("{} {unit} (32-bit ids)", u32::MAX - 1),
    }
}

fn empty_sets() -> Sets {
    Sets {
        base: 0,
        action_start: Vec::new(),
        node_start: Vec::new(),
        nodes: Vec::new(),
        parent_set: Vec::new(),
        parent_action: Vec::new(),
        topo: Vec::new(),
        own: Vec::new(),
    }
}
