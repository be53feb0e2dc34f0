//! Building a [`Game`] in code: create nodes top-down, then compile and validate.

use super::{
    format_path, Game, GameError, Infoset, InternedBuilder, Labels, Node, NodeKind, Player,
    Terminal,
};
use crate::scalar::{Rational, Scalar};
use num_traits::{One, Signed, Zero};
use std::collections::{HashMap, HashSet, VecDeque};

/// A handle to a node under construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeRef(usize);

#[derive(Clone, Debug)]
enum Content {
    Unset,
    Chance {
        labels: Vec<String>,
        probs: Vec<Rational>,
    },
    Decision {
        player: Player,
        infoset: usize,
    },
    Terminal {
        payoffs: [Rational; 2],
        label: String,
    },
}

#[derive(Clone, Debug)]
struct BuildNode {
    content: Content,
    children: Vec<usize>,
    parent: Option<(usize, usize)>,
}

#[derive(Clone, Debug)]
struct BuildInfoset {
    label: String,
    actions: Labels,
}

/// Builds a game node by node. Information sets are named by (player, label); giving the same
/// label twice puts nodes into one set, and the action lists must then agree.
#[derive(Clone, Debug)]
pub struct GameBuilder {
    name: String,
    player_names: [String; 2],
    nodes: Vec<BuildNode>,
    infosets: Vec<BuildInfoset>,
    infoset_ids: HashMap<(Player, String), usize>,
    /// Distinct action lists, shared between sets.
    action_lists: HashMap<Labels, ()>,
}

impl GameBuilder {
    /// Starts a game with an empty root node.
    pub fn new(
        name: impl Into<String>,
        player1: impl Into<String>,
        player2: impl Into<String>,
    ) -> Self {
        GameBuilder {
            name: name.into(),
            player_names: [player1.into(), player2.into()],
            nodes: vec![BuildNode {
                content: Content::Unset,
                children: Vec::new(),
                parent: None,
            }],
            infosets: Vec::new(),
            infoset_ids: HashMap::new(),
            action_lists: HashMap::new(),
        }
    }

    /// The root node.
    pub fn root(&self) -> NodeRef {
        NodeRef(0)
    }

    fn path(&self, node: usize) -> String {
        let mut labels = Vec::new();
        let mut n = node;
        while let Some((parent, index)) = self.nodes[n].parent {
            let label = match &self.nodes[parent].content {
                Content::Chance { labels, .. } => labels[index].clone(),
                Content::Decision { infoset, .. } => self.infosets[*infoset].actions[index].clone(),
                _ => String::from("?"),
            };
            labels.push(label);
            n = parent;
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
        let mut seen = HashSet::new();
        for l in labels {
            if !seen.insert(l.as_str()) {
                return Err(GameError::BadActions {
                    path: self.path(node.0),
                    detail: format!("duplicate action {l:?}"),
                });
            }
        }
        Ok(())
    }

    fn add_children(&mut self, node: NodeRef, count: usize) -> Vec<NodeRef> {
        let mut refs = Vec::with_capacity(count);
        for index in 0..count {
            let id = self.nodes.len();
            self.nodes.push(BuildNode {
                content: Content::Unset,
                children: Vec::new(),
                parent: Some((node.0, index)),
            });
            self.nodes[node.0].children.push(id);
            refs.push(NodeRef(id));
        }
        refs
    }

    /// Makes `node` a chance node with the given (label, probability) outcomes; returns the children.
    /// Probabilities must be non-negative and sum to exactly 1 (checked here).
    pub fn chance<S: Into<String>>(
        &mut self,
        node: NodeRef,
        outcomes: Vec<(S, Rational)>,
    ) -> Result<Vec<NodeRef>, GameError> {
        self.check_unset(node)?;
        let (labels, probs): (Vec<String>, Vec<Rational>) =
            outcomes.into_iter().map(|(l, p)| (l.into(), p)).unzip();
        self.check_labels(node, &labels)?;
        if let Some(p) = probs.iter().find(|p| p.is_negative()) {
            return Err(GameError::BadChance {
                path: self.path(node.0),
                detail: format!("negative probability {p}"),
            });
        }
        let sum: Rational = probs.iter().sum();
        if !sum.is_one() {
            return Err(GameError::BadChance {
                path: self.path(node.0),
                detail: format!("probabilities sum to {sum}, not 1"),
            });
        }
        let n = labels.len();
        self.nodes[node.0].content = Content::Chance { labels, probs };
        Ok(self.add_children(node, n))
    }

    /// Makes `node` a chance node whose outcomes are equally likely.
    pub fn chance_uniform<S: Into<String>>(
        &mut self,
        node: NodeRef,
        labels: Vec<S>,
    ) -> Result<Vec<NodeRef>, GameError> {
        let n = labels.len().max(1) as i64;
        let p = crate::scalar::rat(1, n);
        self.chance(node, labels.into_iter().map(|l| (l, p.clone())).collect())
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
        let actions: Vec<String> = actions.iter().map(|a| a.as_ref().to_string()).collect();
        self.check_labels(node, &actions)?;
        let key = (player, label.to_string());
        let infoset = match self.infoset_ids.get(&key) {
            Some(&id) => {
                if *self.infosets[id].actions != *actions {
                    return Err(GameError::InconsistentActions {
                        player: player + 1,
                        label: label.to_string(),
                        expected: self.infosets[id].actions.to_vec(),
                        got: actions,
                    });
                }
                id
            }
            None => {
                let id = self.infosets.len();
                let shared = shared_labels(&mut self.action_lists, &actions);
                self.infosets.push(BuildInfoset {
                    label: label.to_string(),
                    actions: shared,
                });
                self.infoset_ids.insert(key, id);
                id
            }
        };
        self.nodes[node.0].content = Content::Decision { player, infoset };
        Ok(self.add_children(node, actions.len()))
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
        self.nodes[node.0].content = Content::Terminal {
            payoffs,
            label: label.to_string(),
        };
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

    /// Compiles into a flat [`Game`], checking every node is set, payoffs are constant-sum and
    /// both players have perfect recall.
    pub fn build(self) -> Result<Game, GameError> {
        // Breadth-first renumbering makes each node's children contiguous.
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut queue = VecDeque::from([0usize]);
        while let Some(n) = queue.pop_front() {
            if let Content::Unset = self.nodes[n].content {
                return Err(GameError::UnsetNode { path: self.path(n) });
            }
            order.push(n);
            queue.extend(self.nodes[n].children.iter().copied());
        }
        let mut new_id = vec![u32::MAX; self.nodes.len()];
        for (i, &n) in order.iter().enumerate() {
            new_id[n] = i as u32;
        }

        // Dense per-player infoset ids in order of first appearance.
        let mut infoset_new: Vec<Option<(Player, usize)>> = vec![None; self.infosets.len()];
        let mut infosets: [Vec<Infoset>; 2] = [Vec::new(), Vec::new()];
        let mut num_actions = [0usize; 2];
        for &n in &order {
            if let Content::Decision { player, infoset } = self.nodes[n].content {
                if infoset_new[infoset].is_none() {
                    let b = &self.infosets[infoset];
                    let id = infosets[player].len();
                    infosets[player].push(Infoset {
                        player,
                        label: b.label.clone(),
                        actions: b.actions.clone(),
                        nodes: Vec::new(),
                        action_offset: num_actions[player],
                        parent_action: None,
                    });
                    num_actions[player] += b.actions.len();
                    infoset_new[infoset] = Some((player, id));
                }
            }
        }

        let mut nodes = Vec::with_capacity(order.len());
        let mut chance_prob = InternedBuilder::filled(Rational::one(), order.len());
        let mut chance_label = InternedBuilder::filled(String::new(), order.len());
        let mut terminals = Vec::new();
        let mut terminal_ids: HashMap<(&Rational, &str), u32> = HashMap::new();
        let mut constant_sum: Option<Rational> = None;
        for (i, &n) in order.iter().enumerate() {
            let b = &self.nodes[n];
            let kind = match &b.content {
                Content::Unset => unreachable!("checked above"),
                Content::Chance { labels, probs } => {
                    for (k, &c) in b.children.iter().enumerate() {
                        chance_prob.set(new_id[c] as usize, &probs[k]);
                        chance_label.set(new_id[c] as usize, &labels[k]);
                    }
                    NodeKind::Chance
                }
                Content::Decision { infoset, .. } => {
                    let (player, id) = infoset_new[*infoset].expect("assigned above");
                    infosets[player][id].nodes.push(i as u32);
                    NodeKind::Decision {
                        player: player as u8,
                        infoset: id as u32,
                    }
                }
                Content::Terminal { payoffs, label } => {
                    let sum = &payoffs[0] + &payoffs[1];
                    match &constant_sum {
                        None => constant_sum = Some(sum),
                        Some(c) if *c != sum => {
                            return Err(GameError::NotConstantSum {
                                path: self.path(n),
                                sum: sum.to_string(),
                                expected: c.to_string(),
                            })
                        }
                        _ => {}
                    }
                    let terminal = *terminal_ids
                        .entry((&payoffs[0], label.as_str()))
                        .or_insert_with(|| {
                            terminals.push(Terminal {
                                payoff0: payoffs[0].clone(),
                                payoff0_f64: payoffs[0].to_f64(),
                                label: label.clone(),
                            });
                            (terminals.len() - 1) as u32
                        });
                    NodeKind::Terminal { terminal }
                }
            };
            let first_child = b.children.first().map_or(0, |&c| new_id[c]);
            let (parent, action) = match b.parent {
                Some((p, a)) => (new_id[p], a as u32),
                None => (u32::MAX, 0),
            };
            nodes.push(Node {
                kind,
                first_child,
                num_children: b.children.len() as u32,
                parent,
                action,
            });
        }
        drop(terminal_ids);
        let chance_prob = chance_prob.finish();
        let chance_label = chance_label.finish();
        let chance_prob_f64 = chance_prob.iter().map(|p| p.to_f64()).collect();
        let mut action_infoset: [Vec<u32>; 2] = [vec![0; num_actions[0]], vec![0; num_actions[1]]];
        for (p, sets) in infosets.iter().enumerate() {
            for (id, set) in sets.iter().enumerate() {
                for a in set.action_range() {
                    action_infoset[p][a] = id as u32;
                }
            }
        }
        let mut game = Game {
            name: self.name,
            player_names: self.player_names,
            nodes,
            chance_prob,
            chance_prob_f64,
            chance_label,
            terminals,
            infosets,
            num_actions,
            constant_sum: constant_sum.unwrap_or_else(Rational::zero),
            action_infoset,
        };
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
                                "action {:?} at {:?}",
                                s.actions[a - s.action_offset],
                                s.label
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
