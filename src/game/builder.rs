//! Building a [`Game`] in code: create nodes top-down, then compile and validate.
//!
//! Nodes under construction are small (28 bytes): a node's children are created together, so
//! they are contiguous and a node keeps only their range; chance distributions, payoffs and
//! labels are interned into tables of distinct values and nodes hold 4-byte ids.

use super::{
    format_path, Game, GameError, Infoset, Interned, Labels, Node, NodeKind, Player, Terminal,
};
use crate::fxhash::{FxMap, FxSet};
use crate::scalar::{over_common_denominator, Rational, Scalar};
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A handle to a node under construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeRef(usize);

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
enum Content {
    Unset,
    /// Outcomes from `chance_sets[set]`.
    Chance {
        set: u32,
    },
    Decision {
        player: u8,
        infoset: u32,
    },
    /// Payoffs `pays[pay]`, outcome label `labels[label]`.
    Terminal {
        pay: u32,
        label: u32,
    },
}

#[derive(Clone, Debug)]
struct BuildNode {
    content: Content,
    first_child: u32,
    num_children: u32,
    /// Parent (NONE for the root) and which child of it this node is.
    parent: u32,
    index: u32,
}

#[derive(Clone, Debug)]
struct BuildInfoset {
    label: String,
    actions: Labels,
}

/// A chance distribution: each outcome's label and probability, as ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ChanceSet {
    labels: Vec<u32>,
    probs: Vec<u32>,
}

/// Distinct values, each with a dense id.
#[derive(Clone, Debug)]
struct Table<T> {
    values: Vec<T>,
    ids: FxMap<T, u32>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            values: Vec::new(),
            ids: FxMap::default(),
        }
    }
}

/// A rational as a table key, hashed cheaply by its value: the reduced numerator and
/// denominator as machine words when they fit (BigRational's own `Hash` expands a continued
/// fraction with big-integer divisions, about 1 500 instructions for 1/2, so that unreduced
/// fractions hash alike; so does this, by reducing first).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Exact(Rational);

impl Hash for Exact {
    fn hash<H: Hasher>(&self, h: &mut H) {
        fn words(n: i64, d: i64, h: &mut impl Hasher) {
            let (n_abs, d_abs) = (n.unsigned_abs(), d.unsigned_abs());
            let (mut a, mut b) = (n_abs, d_abs);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            h.write_u8(u8::from((n < 0) != (d < 0) && n != 0));
            h.write_u64(n_abs / a);
            h.write_u64(d_abs / a);
        }
        use num_traits::ToPrimitive;
        let (n, d) = (self.0.numer(), self.0.denom());
        if let (Some(n), Some(d)) = (n.to_i64(), d.to_i64()) {
            return words(n, d, h);
        }
        // Reduced, a big fraction may become small: hashed as words then, like its equals.
        let r = Rational::new(n.clone(), d.clone());
        match (r.numer().to_i64(), r.denom().to_i64()) {
            (Some(n), Some(d)) => words(n, d, h),
            _ => r.hash(h),
        }
    }
}

impl<T: Clone + Eq + Hash> Table<T> {
    fn id(&mut self, v: T) -> u32 {
        use std::collections::hash_map::Entry;
        match self.ids.entry(v) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let id =
                    u32::try_from(self.values.len()).expect("fewer distinct values than nodes");
                self.values.push(e.key().clone());
                *e.insert(id)
            }
        }
    }
}

/// Builds a game node by node. Information sets are named by (player, label); giving the same
/// label twice puts nodes into one set, and the action lists must then agree.
#[derive(Clone, Debug)]
pub struct GameBuilder {
    name: String,
    player_names: [String; 2],
    nodes: Vec<BuildNode>,
    infosets: Vec<BuildInfoset>,
    /// Each player's information sets by label.
    infoset_ids: [FxMap<String, usize>; 2],
    /// Distinct action lists, shared between sets.
    action_lists: FxMap<Labels, ()>,
    chance_sets: Table<ChanceSet>,
    chance_labels: Table<String>,
    probs: Table<Exact>,
    pays: Table<[Exact; 2]>,
    labels: Table<String>,
}

impl GameBuilder {
    /// Starts a game with an empty root node.
    pub fn new(
        name: impl Into<String>,
        player1: impl Into<String>,
        player2: impl Into<String>,
    ) -> Self {
        let mut b = GameBuilder {
            name: name.into(),
            player_names: [player1.into(), player2.into()],
            nodes: vec![BuildNode {
                content: Content::Unset,
                first_child: 0,
                num_children: 0,
                parent: NONE,
                index: 0,
            }],
            infosets: Vec::new(),
            infoset_ids: Default::default(),
            action_lists: FxMap::default(),
            chance_sets: Table::default(),
            chance_labels: Table::default(),
            probs: Table::default(),
            pays: Table::default(),
            labels: Table::default(),
        };
        // Id 0 of the chance columns: probability 1 and label "" (nodes under no chance node).
        b.probs.id(Exact(Rational::one()));
        b.chance_labels.id(String::new());
        b
    }

    /// The root node.
    pub fn root(&self) -> NodeRef {
        NodeRef(0)
    }

    /// The label of the edge into `node` (which has a parent).
    fn edge_label(&self, node: usize) -> String {
        let n = &self.nodes[node];
        match self.nodes[n.parent as usize].content {
            Content::Chance { set } => {
                let id = self.chance_sets.values[set as usize].labels[n.index as usize];
                self.chance_labels.values[id as usize].clone()
            }
            Content::Decision { infoset, .. } => {
                self.infosets[infoset as usize].actions[n.index as usize].clone()
            }
            _ => String::from("?"),
        }
    }

    fn path(&self, node: usize) -> String {
        let mut labels = Vec::new();
        let mut n = node;
        while self.nodes[n].parent != NONE {
            labels.push(self.edge_label(n));
            n = self.nodes[n].parent as usize;
        }
        labels.reverse();
        format_path(&labels)
    }

    fn check_unset(&self, node: NodeRef) -> Result<(), GameError> {
        match self.nodes[node.0].content {
            Content::Unset => Ok(()),
            _ => Err(GameError::NodeAlreadySet {
                path: self.path(node.0),
            }),
        }
    }

    fn check_labels(&self, node: NodeRef, labels: &[String]) -> Result<(), GameError> {
        if labels.is_empty() {
            return Err(GameError::BadActions {
                path: self.path(node.0),
                detail: "no actions".into(),
            });
        }
        // Most lists are short: compared pairwise, without a set to allocate.
        let duplicate = if labels.len() <= 16 {
            labels
                .iter()
                .enumerate()
                .find(|(i, l)| labels[..*i].contains(l))
                .map(|(_, l)| l)
        } else {
            let mut seen = FxSet::default();
            labels.iter().find(|l| !seen.insert(l.as_str()))
        };
        match duplicate {
            Some(l) => Err(GameError::BadActions {
                path: self.path(node.0),
                detail: format!("duplicate action {}", crate::format::text::quoted(l)),
            }),
            None => Ok(()),
        }
    }

    /// Checks that `count` more nodes fit bluff's 32-bit node ids.
    fn check_room(&self, node: NodeRef, count: usize) -> Result<(), GameError> {
        if self.nodes.len() + count >= NONE as usize {
            return Err(GameError::BadActions {
                path: self.path(node.0),
                detail: format!(
                    "{count} more nodes would pass {} nodes, the most bluff's 32-bit node ids hold",
                    NONE - 1
                ),
            });
        }
        Ok(())
    }

    fn add_children(&mut self, node: NodeRef, count: usize) -> Vec<NodeRef> {
        let first = self.nodes.len();
        let n = &mut self.nodes[node.0];
        n.first_child = first as u32;
        n.num_children = count as u32;
        for index in 0..count {
            self.nodes.push(BuildNode {
                content: Content::Unset,
                first_child: 0,
                num_children: 0,
                parent: node.0 as u32,
                index: index as u32,
            });
        }
        (first..first + count).map(NodeRef).collect()
    }

    /// Makes `node` a chance node with the given (label, probability) outcomes; returns the children.
    /// Probabilities must be non-negative and sum to exactly 1 (checked here).
    pub fn chance<S: Into<String>>(
        &mut self,
        node: NodeRef,
        outcomes: Vec<(S, Rational)>,
    ) -> Result<Vec<NodeRef>, GameError> {
        let (labels, probs): (Vec<String>, Vec<Rational>) =
            outcomes.into_iter().map(|(l, p)| (l.into(), p)).unzip();
        self.chance_with(node, labels, probs, true)
    }

    /// [`GameBuilder::chance`] with labels and probabilities apart; `check` false skips the
    /// probability checks for outcomes that are equally likely by construction.
    fn chance_with(
        &mut self,
        node: NodeRef,
        labels: Vec<String>,
        probs: Vec<Rational>,
        check: bool,
    ) -> Result<Vec<NodeRef>, GameError> {
        self.check_unset(node)?;
        self.check_labels(node, &labels)?;
        if check {
            if let Some(p) = probs.iter().find(|p| p.is_negative()) {
                return Err(GameError::BadChance {
                    path: self.path(node.0),
                    detail: format!("negative probability {p}"),
                });
            }
            // Summed over one denominator: a rational sum reduces after every addition.
            let (d, n) = over_common_denominator(&probs);
            if n.iter().sum::<num_bigint::BigInt>() != d {
                let sum: Rational = probs.iter().sum();
                return Err(GameError::BadChance {
                    path: self.path(node.0),
                    detail: format!("probabilities sum to {sum}, not 1"),
                });
            }
        }
        let n = labels.len();
        self.check_room(node, n)?;
        let set = ChanceSet {
            labels: labels
                .into_iter()
                .map(|l| self.chance_labels.id(l))
                .collect(),
            probs: probs.into_iter().map(|p| self.probs.id(Exact(p))).collect(),
        };
        let set = self.chance_sets.id(set);
        self.nodes[node.0].content = Content::Chance { set };
        Ok(self.add_children(node, n))
    }

    /// Makes `node` a chance node whose outcomes are equally likely.
    pub fn chance_uniform<S: Into<String>>(
        &mut self,
        node: NodeRef,
        labels: Vec<S>,
    ) -> Result<Vec<NodeRef>, GameError> {
        let n = labels.len();
        let p = crate::scalar::rat(1, n.max(1) as i64);
        // n outcomes of 1/n each: non-negative and summing to 1 without adding them up.
        self.chance_with(
            node,
            labels.into_iter().map(Into::into).collect(),
            vec![p; n],
            n == 0,
        )
    }

    /// Makes `node` a decision of `player` (0 or 1) in the information set `label`; returns the children.
    pub fn decision<S: AsRef<str>>(
        &mut self,
        node: NodeRef,
        player: Player,
        label: &str,
        actions: &[S],
    ) -> Result<Vec<NodeRef>, GameError> {
        if player > 1 {
            return Err(GameError::BadPlayer(player));
        }
        self.check_unset(node)?;
        let infoset = match self.infoset_ids[player].get(label) {
            Some(&id) => {
                let known = &self.infosets[id].actions;
                if known.len() != actions.len()
                    || known.iter().zip(actions).any(|(k, a)| k != a.as_ref())
                {
                    return Err(GameError::InconsistentActions {
                        player: player + 1,
                        label: label.to_string(),
                        expected: known.to_vec(),
                        got: actions.iter().map(|a| a.as_ref().to_string()).collect(),
                    });
                }
                id
            }
            None => {
                let actions: Vec<String> = actions.iter().map(|a| a.as_ref().to_string()).collect();
                self.check_labels(node, &actions)?;
                let id = self.infosets.len();
                let shared = shared_labels(&mut self.action_lists, &actions);
                self.infosets.push(BuildInfoset {
                    label: label.to_string(),
                    actions: shared,
                });
                self.infoset_ids[player].insert(label.to_string(), id);
                id
            }
        };
        let n = self.infosets[infoset].actions.len();
        self.check_room(node, n)?;
        self.nodes[node.0].content = Content::Decision {
            player: player as u8,
            infoset: infoset as u32,
        };
        Ok(self.add_children(node, n))
    }

    /// Makes `node` terminal with both players' payoffs.
    pub fn terminal(&mut self, node: NodeRef, payoffs: [Rational; 2]) -> Result<(), GameError> {
        self.terminal_labelled(node, payoffs, "")
    }

    /// Makes `node` terminal with both players' payoffs and an outcome label.
    pub fn terminal_labelled(
        &mut self,
        node: NodeRef,
        payoffs: [Rational; 2],
        label: &str,
    ) -> Result<(), GameError> {
        self.check_unset(node)?;
        let pay = self.pays.id(payoffs.map(Exact));
        let label = match self.labels.ids.get(label) {
            Some(&id) => id,
            None => self.labels.id(label.to_string()),
        };
        self.nodes[node.0].content = Content::Terminal { pay, label };
        Ok(())
    }

    /// Makes `node` terminal in a zero-sum game: player 0 gets `payoff0`, player 1 its negation.
    pub fn terminal_zero_sum(&mut self, node: NodeRef, payoff0: Rational) -> Result<(), GameError> {
        let p1 = -payoff0.clone();
        self.terminal(node, [payoff0, p1])
    }

    /// Number of nodes created so far.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Compiles into a flat [`Game`], checking every node is set, whether payoffs are constant-sum,
    /// both players have perfect recall.
    pub fn build(self) -> Result<Game, GameError> {
        let n = self.nodes.len();
        // Breadth-first renumbering (children stay contiguous): (old index, new parent).
        let mut order: Vec<(u32, u32)> = Vec::with_capacity(n);
        order.push((0, NONE));
        let mut nodes = Vec::with_capacity(n);
        let mut prob_id = Vec::with_capacity(n);
        let mut label_id = Vec::with_capacity(n);
        // Dense per-player infoset ids in order of first appearance.
        let mut infoset_new: Vec<u32> = vec![NONE; self.infosets.len()];
        let mut infosets: [Vec<Infoset>; 2] = [Vec::new(), Vec::new()];
        let mut num_actions = [0usize; 2];
        let mut terminal_new: FxMap<(u32, u32), u32> = FxMap::default();
        let mut terminals = Vec::new();
        // Per distinct payoff pair, whether it sums to the first terminal's sum.
        let mut sum_ok: Vec<Option<bool>> = vec![None; self.pays.values.len()];
        let mut constant_sum: Option<Rational> = None;
        // Player 1's payoff per terminal, kept when the sums differ somewhere.
        let mut payoff1: Vec<Rational> = Vec::new();
        let mut general_sum = false;
        let mut i = 0;
        while i < order.len() {
            let (o, parent) = order[i];
            let b = &self.nodes[o as usize];
            let first_child = if b.num_children > 0 {
                order.len() as u32
            } else {
                0
            };
            for c in b.first_child..b.first_child + b.num_children {
                order.push((c, i as u32));
            }
            let kind = match b.content {
                Content::Unset => {
                    return Err(GameError::UnsetNode {
                        path: self.path(o as usize),
                    })
                }
                Content::Chance { .. } => NodeKind::Chance,
                Content::Decision { player, infoset } => {
                    let p = player as usize;
                    let id = &mut infoset_new[infoset as usize];
                    if *id == NONE {
                        let s = &self.infosets[infoset as usize];
                        *id = infosets[p].len() as u32;
                        infosets[p].push(Infoset {
                            player: p,
                            label: s.label.clone(),
                            actions: s.actions.clone(),
                            nodes: Vec::new(),
                            action_offset: num_actions[p],
                            parent_action: None,
                        });
                        num_actions[p] += s.actions.len();
                    }
                    infosets[p][*id as usize].nodes.push(i as u32);
                    NodeKind::Decision {
                        player,
                        infoset: *id,
                    }
                }
                Content::Terminal { pay, label } => {
                    let [Exact(p0), Exact(p1)] = &self.pays.values[pay as usize];
                    let ok = *sum_ok[pay as usize].get_or_insert_with(|| {
                        let sum = p0 + p1;
                        match &constant_sum {
                            None => {
                                constant_sum = Some(sum);
                                true
                            }
                            Some(c) => *c == sum,
                        }
                    });
                    general_sum |= !ok;
                    // Terminal nodes with equal outcomes (payoff 0 and label) share one entry.
                    let key = (pay, label);
                    let terminal = match terminal_new.get(&key) {
                        Some(&t) => t,
                        None => {
                            let t = terminals.len() as u32;
                            payoff1.push(p1.clone());
                            terminals.push(Terminal {
                                payoff0: p0.clone(),
                                payoff0_f64: p0.to_f64(),
                                label: self.labels.values[label as usize].clone(),
                            });
                            terminal_new.insert(key, t);
                            t
                        }
                    };
                    NodeKind::Terminal { terminal }
                }
            };
            let (prob, label) = match b.parent {
                NONE => (0, 0),
                p => match self.nodes[p as usize].content {
                    Content::Chance { set } => {
                        let set = &self.chance_sets.values[set as usize];
                        (set.probs[b.index as usize], set.labels[b.index as usize])
                    }
                    _ => (0, 0),
                },
            };
            prob_id.push(prob);
            label_id.push(label);
            nodes.push(Node {
                kind,
                first_child,
                num_children: b.num_children,
                parent,
                action: b.index,
            });
            i += 1;
        }
        drop(order);
        for sets in &mut infosets {
            for s in sets.iter_mut() {
                s.nodes.shrink_to_fit();
            }
        }
        let GameBuilder {
            name,
            player_names,
            probs,
            chance_labels,
            ..
        } = self;
        let distinct_f64: Vec<f64> = probs.values.iter().map(|p| p.0.to_f64()).collect();
        let chance_prob_f64 = prob_id.iter().map(|&i| distinct_f64[i as usize]).collect();
        let mut action_infoset: [Vec<u32>; 2] = [vec![0; num_actions[0]], vec![0; num_actions[1]]];
        for (p, sets) in infosets.iter().enumerate() {
            for (id, set) in sets.iter().enumerate() {
                for a in set.action_range() {
                    action_infoset[p][a] = id as u32;
                }
            }
        }
        let mut game = Game {
            name,
            player_names,
            nodes,
            chance_prob: Interned::from_parts(
                probs.values.into_iter().map(|p| p.0).collect(),
                prob_id,
            ),
            chance_prob_f64,
            chance_label: Interned::from_parts(chance_labels.values, label_id),
            terminals,
            infosets,
            num_actions,
            constant_sum: match constant_sum {
                Some(c) if !general_sum => c,
                _ => Rational::zero(),
            },
            payoff1: general_sum.then_some(payoff1),
            action_infoset,
            chance_uniform: Vec::new(),
        };
        game.mark_uniform_chance();
        check_perfect_recall(&mut game)?;
        Ok(game)
    }
}

/// The shared copy of an action list, adding it when new.
pub(crate) fn shared_labels<S: std::hash::BuildHasher>(
    lists: &mut HashMap<Labels, (), S>,
    labels: &[String],
) -> Labels {
    if let Some((k, _)) = lists.get_key_value(labels) {
        return k.clone();
    }
    let k: Labels = labels.into();
    lists.insert(k.clone(), ());
    k
}

/// Verifies that all nodes of each information set share the player's own last action (which,
/// by induction from the root, means they share the player's whole action sequence), and records
/// that action as the set's parent sequence.
pub(crate) fn check_perfect_recall(game: &mut Game) -> Result<(), GameError> {
    let n = game.nodes.len();
    // last_own[p][node] = flat index of player p's last action on the path to node, NONE when
    // p has not acted (4 bytes per node and player).
    const NONE: u32 = u32::MAX;
    let mut last_own: [Vec<u32>; 2] = [vec![NONE; n], vec![NONE; n]];
    let get = |v: u32| (v != NONE).then_some(v as usize);
    for node in 1..n {
        let parent = game.nodes[node].parent as usize;
        for p in 0..2 {
            last_own[p][node] = last_own[p][parent];
        }
        if let NodeKind::Decision { player, infoset } = game.nodes[parent].kind {
            let set = &game.infosets[player as usize][infoset as usize];
            last_own[player as usize][node] =
                u32::try_from(set.action_offset + game.nodes[node].action as usize)
                    .expect("fewer than 2^32 - 1 actions");
        }
    }
    for p in 0..2 {
        for id in 0..game.infosets[p].len() {
            let set = &game.infosets[p][id];
            let first = get(last_own[p][set.nodes[0] as usize]);
            for &node in &set.nodes[1..] {
                let other = get(last_own[p][node as usize]);
                if other != first {
                    let describe = |a: Option<usize>| match a {
                        None => "no earlier action".to_string(),
                        Some(a) => {
                            let s = &game.infosets[p][game.action_infoset[p][a] as usize];
                            format!(
                                "action {} at {}",
                                crate::format::text::quoted(&s.actions[a - s.action_offset]),
                                crate::format::text::quoted(&s.label)
                            )
                        }
                    };
                    return Err(GameError::ImperfectRecall {
                        player: p + 1,
                        label: set.label.clone(),
                        detail: format!(
                            "node at {} follows {} while node at {} follows {}",
                            format_path(&game.path_labels(set.nodes[0] as usize)),
                            describe(first),
                            format_path(&game.path_labels(node as usize)),
                            describe(other)
                        ),
                    });
                }
            }
            if let Some(a) = first {
                if game.action_infoset[p][a] as usize == id {
                    return Err(GameError::ImperfectRecall {
                        player: p + 1,
                        label: set.label.clone(),
                        detail:
                            "the set is reached again after one of its own actions (absent-minded)"
                                .into(),
                    });
                }
            }
            game.infosets[p][id].parent_action = first;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use std::collections::hash_map::DefaultHasher;

    fn hash(r: Rational) -> u64 {
        let mut h = DefaultHasher::new();
        Exact(r).hash(&mut h);
        h.finish()
    }

    /// Equal values hash alike however they are written (the table's contract), and the
    /// cheap hash still tells different values apart.
    #[test]
    fn exact_hash_follows_the_value() {
        let big = BigInt::from(1u64 << 62) * BigInt::from(1u64 << 62);
        let half = crate::scalar::rat(1, 2);
        assert_eq!(
            hash(half.clone()),
            hash(Rational::new_raw(2.into(), 4.into()))
        );
        assert_eq!(
            hash(half.clone()),
            hash(Rational::new_raw((-3).into(), (-6).into()))
        );
        assert_eq!(
            hash(half.clone()),
            hash(Rational::new_raw(big.clone(), big.clone() * 2))
        );
        assert_eq!(
            hash(crate::scalar::rat(-1, 3)),
            hash(Rational::new_raw(1.into(), (-3).into()))
        );
        assert_eq!(
            hash(Rational::zero()),
            hash(Rational::new_raw(0.into(), 5.into()))
        );
        let third = Rational::new(big.clone() + 1, big.clone() * 3 + 3);
        assert_eq!(
            hash(third),
            hash(Rational::new_raw(
                (big.clone() + 1) * 7,
                (big.clone() * 3 + 3) * 7
            ))
        );
        let huge = Rational::new(big.clone() + 1, big.clone());
        assert_eq!(
            hash(huge.clone()),
            hash(Rational::new_raw((big.clone() + 1) * 2, big.clone() * 2))
        );
        assert_ne!(hash(half.clone()), hash(crate::scalar::rat(-1, 2)));
        assert_ne!(hash(half), hash(crate::scalar::rat(1, 3)));
        // Equal values get one id.
        let mut t: Table<Exact> = Table::default();
        let a = t.id(Exact(crate::scalar::rat(2, 6)));
        assert_eq!(t.id(Exact(Rational::new_raw(5.into(), 15.into()))), a);
        assert_ne!(t.id(Exact(huge)), a);
    }
}
