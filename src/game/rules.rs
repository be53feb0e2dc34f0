//! Games stated by their rules: a state, who moves, the legal actions, what an action does,
//! the mover's information set and the payoffs, as OpenSpiel's `State` or postflop-solver's
//! `Game` state them.
//!
//! The arena ([`Game`]) holds every history of a game, about 125 bytes each: 24 GB hold some
//! 1.5e8 nodes, and the games studied next (liar's dice with two dice of five sides: 1.3e9
//! histories) do not fit. The sampling solvers (`mccfr`) and the streaming best
//! response (`crate::streaming`) walk the rules instead and keep memory per information set.
//! Each built-in game states its rules once, as a [`Rules`]; [`compile`] turns any rules into
//! the arena by one iterative walk, so the arena solvers and the sampling solvers play the very
//! same game. An arena game states rules too (`impl Rules for Game`: the state is a node), so
//! every solver that walks rules also runs on a game read from a file.
//!
//! The trait is narrow on purpose: the hot methods ([`Rules::turn`], [`Rules::num_actions`],
//! [`Rules::apply`], [`Rules::chance_prob`], [`Rules::infoset_key`], [`Rules::payoff0`]) work on
//! plain numbers; labels and exact rationals are asked for only where they are needed (compiling,
//! exact evaluation).

use super::{Game, GameBuilder, NodeKind, NodeRef, Player};
use crate::scalar::Rational;
use num_traits::Zero;
use std::borrow::Cow;

/// Who moves at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Chance picks one of [`Rules::num_actions`] outcomes with [`Rules::chance_prob`].
    Chance,
    /// Player 0 or 1 picks one of [`Rules::num_actions`] actions.
    Player(Player),
    /// The game is over; [`Rules::payoff0`] is player 0's payoff.
    Terminal,
}

/// A two-player game with chance and imperfect information, stated by its rules (constant-sum
/// unless [`Rules::general_sum`]).
///
/// Contract (what the solvers rely on; [`check_rules`] verifies it on small games):
/// - every path from [`Rules::root`] ends at a terminal;
/// - chance probabilities are positive and sum to 1 at each chance state;
/// - [`Rules::infoset_key`] is equal at two states of the same mover exactly when their
///   [`Rules::infoset_label`]s are equal, and never `u64::MAX`; states with one key have the
///   same number of actions with the same labels;
/// - both players have perfect recall.
pub trait Rules: Sync {
    /// A history of the game (cheap to clone: the solvers clone it at every branch).
    type State: Clone + Send + Sync;

    /// The game's name (a spec such as `leduc`).
    fn name(&self) -> String;
    /// The players' names.
    fn player_names(&self) -> [String; 2] {
        ["P1".to_string(), "P2".to_string()]
    }
    /// The start of the game.
    fn root(&self) -> Self::State;
    /// Who moves at `s`.
    fn turn(&self, s: &Self::State) -> Turn;
    /// Number of actions (or chance outcomes) at a non-terminal state; at least 1.
    fn num_actions(&self, s: &Self::State) -> usize;
    /// Plays action (or chance outcome) `action` (below [`Rules::num_actions`]) at `s`.
    fn apply(&self, s: &mut Self::State, action: usize);
    /// The probability of chance outcome `outcome` at a chance state, as `f64`.
    fn chance_prob(&self, s: &Self::State, outcome: usize) -> f64;
    /// The same probability, exact.
    fn chance_prob_exact(&self, s: &Self::State, outcome: usize) -> Rational;
    /// Whether every chance outcome at `s` is equally likely (lets [`compile`] skip summing).
    fn chance_is_uniform(&self, _s: &Self::State) -> bool {
        false
    }
    /// A compact key of the mover's information set at a decision state (see the contract).
    fn infoset_key(&self, s: &Self::State) -> u64;
    /// Player 0's payoff at a terminal state, as `f64` (the exact payoff rounded).
    fn payoff0(&self, s: &Self::State) -> f64;
    /// Player 0's payoff at a terminal state, exact.
    fn payoff0_exact(&self, s: &Self::State) -> Rational;
    /// The two payoffs add to this at every terminal (0 for zero-sum games).
    fn constant_sum(&self) -> Rational {
        Rational::zero()
    }
    /// Whether player 1's payoffs are their own ([`Rules::payoff1`]) rather than
    /// `constant_sum - payoff0` (a raked game, say). `false` by default.
    fn general_sum(&self) -> bool {
        false
    }
    /// Player 1's payoff at a terminal state, as `f64`: `constant_sum - payoff0` unless the
    /// rules are [`Rules::general_sum`].
    fn payoff1(&self, s: &Self::State) -> f64 {
        crate::scalar::rational_to_f64(&self.constant_sum()) - self.payoff0(s)
    }
    /// Player 1's payoff at a terminal state, exact.
    fn payoff1_exact(&self, s: &Self::State) -> Rational {
        self.constant_sum() - self.payoff0_exact(s)
    }
    /// Writes the mover's information-set label at a decision state into `out` (cleared
    /// first): the arena's label (OpenSpiel's information-state string where bluff's games say
    /// so).
    fn infoset_label(&self, s: &Self::State, out: &mut String);
    /// The label of action `action` at a decision state.
    fn action_label(&self, s: &Self::State, action: usize) -> Cow<'_, str>;
    /// The label of chance outcome `outcome` at a chance state.
    fn chance_label(&self, s: &Self::State, outcome: usize) -> Cow<'_, str>;
    /// The outcome label of a terminal state (none by default).
    fn terminal_label(&self, _s: &Self::State) -> Cow<'_, str> {
        Cow::Borrowed("")
    }
    /// The number of histories (chance, decision and terminal states), when known without
    /// walking the game: [`compile`] refuses games above its limit before allocating.
    fn num_nodes(&self) -> Option<u64> {
        None
    }
    /// Why this instance's keys break the contract (say, they would need more than 64
    /// bits), or `None`: the sampling solvers refuse the game then, with this message.
    fn key_problem(&self) -> Option<String> {
        None
    }
    /// `Some([n0, n1])` when every key of player `p` is below `n[p]` and the keys are dense
    /// (the arena's information-set ids): the solvers then index tables without hashing.
    fn dense_keys(&self) -> Option<[usize; 2]> {
        None
    }
    /// A state of `player`'s information set `key` (any one of its histories), or `None` when
    /// the rules cannot say or no such set exists: solvers that keep tables by key label them
    /// through it (the set's label and action labels) without walking the game.
    fn key_state(&self, _player: usize, _key: u64) -> Option<Self::State> {
        None
    }
    /// Rules whose keys are numbers given to information sets as they are first met (a game
    /// stated in Python interns its sets' strings): each player's names of the sets met so
    /// far, in key order, which a checkpoint keeps so that a resumed run numbers every set as
    /// the first run did. `None` (the default): keys computed from the state alone.
    fn interned_names(&self) -> Option<[Vec<String>; 2]> {
        None
    }
    /// Gives the sets named in `names` (from [`Rules::interned_names`] of an earlier run)
    /// their keys again, before a resumed run meets any set; `false` when these rules do not
    /// number sets as met, or have already numbered others differently.
    fn restore_interned_names(&self, _names: &[Vec<String>; 2]) -> bool {
        false
    }
}

/// `s` when it is a decision of `player` with key `key`, else `None`: the last step of every
/// [`Rules::key_state`], which builds a state from the key's fields and lets the rules
/// themselves confirm it.
pub fn confirm_key_state<G: Rules + ?Sized>(
    rules: &G,
    player: usize,
    key: u64,
    s: G::State,
) -> Option<G::State> {
    (rules.turn(&s) == Turn::Player(player) && rules.infoset_key(&s) == key).then_some(s)
}

/// A rules state on the compiler's explicit stack with the arena node it becomes.
struct Pending<S> {
    node: NodeRef,
    state: S,
}

/// Compiles rules into the arena by one depth-first walk with an explicit stack (no recursion
/// on the game's depth), children in action order. Refuses, before allocating, games whose
/// [`Rules::num_nodes`] is above `max_nodes`; a game that does not say is stopped once the
/// walk passes `max_nodes`.
pub fn compile<G: Rules + ?Sized>(rules: &G, max_nodes: u64) -> crate::Result<Game> {
    if let Some(n) = rules.num_nodes() {
        if n > max_nodes {
            return Err(too_many_nodes(&rules.name(), Some(n), max_nodes));
        }
    }
    let [p1, p2] = rules.player_names();
    let mut b = GameBuilder::new(rules.name(), p1, p2);
    let constant = rules.constant_sum();
    let general = rules.general_sum();
    let mut label = String::new();
    let mut labels: Vec<Cow<'_, str>> = Vec::new();
    let mut stack = vec![Pending {
        node: b.root(),
        state: rules.root(),
    }];
    while let Some(Pending { node, state }) = stack.pop() {
        if b.num_nodes() as u64 > max_nodes {
            return Err(too_many_nodes(&rules.name(), None, max_nodes));
        }
        let children = match rules.turn(&state) {
            Turn::Terminal => {
                let p0 = rules.payoff0_exact(&state);
                let p1 = if general {
                    rules.payoff1_exact(&state)
                } else {
                    &constant - &p0
                };
                b.terminal_labelled(node, [p0, p1], &rules.terminal_label(&state))?;
                continue;
            }
            Turn::Chance => {
                let n = rules.num_actions(&state);
                let names = (0..n).map(|i| rules.chance_label(&state, i));
                if rules.chance_is_uniform(&state) {
                    b.chance_uniform(node, names.map(Cow::into_owned).collect())?
                } else {
                    let outcomes = names
                        .enumerate()
                        .map(|(i, l)| (l.into_owned(), rules.chance_prob_exact(&state, i)))
                        .collect();
                    b.chance(node, outcomes)?
                }
            }
            Turn::Player(p) => {
                rules.infoset_label(&state, &mut label);
                labels.clear();
                labels
                    .extend((0..rules.num_actions(&state)).map(|a| rules.action_label(&state, a)));
                b.decision(node, p, &label, &labels)?
            }
        };
        // Pushed last child first, so children are compiled in action order.
        for (a, &child) in children.iter().enumerate().rev() {
            let mut next = state.clone();
            rules.apply(&mut next, a);
            stack.push(Pending {
                node: child,
                state: next,
            });
        }
    }
    Ok(b.build()?)
}

/// The refusal of a game above the node limit, pointing to the solvers that play it from its
/// rules.
fn too_many_nodes(name: &str, nodes: Option<u64>, max_nodes: u64) -> crate::Error {
    crate::Error::TooBig {
        what: name.to_string(),
        size: nodes.map_or_else(
            || format!("more than {max_nodes} nodes"),
            |n| format!("{n} nodes"),
        ),
        limit: format!(
            "{max_nodes} for building the tree; the sampling solvers play it from its rules \
             (--algo es-mccfr or os-mccfr)"
        ),
    }
}

/// The arena as rules: a state is a node, a key is the dense information-set id.
impl Rules for Game {
    type State = u32;

    fn name(&self) -> String {
        self.name.clone()
    }
    fn player_names(&self) -> [String; 2] {
        self.player_names.clone()
    }
    fn root(&self) -> u32 {
        0
    }
    #[inline]
    fn turn(&self, s: &u32) -> Turn {
        match self.nodes[*s as usize].kind {
            NodeKind::Chance => Turn::Chance,
            NodeKind::Decision { player, .. } => Turn::Player(player as usize),
            NodeKind::Terminal { .. } => Turn::Terminal,
        }
    }
    #[inline]
    fn num_actions(&self, s: &u32) -> usize {
        self.nodes[*s as usize].num_children as usize
    }
    #[inline]
    fn apply(&self, s: &mut u32, action: usize) {
        *s = self.nodes[*s as usize].first_child + action as u32;
    }
    #[inline]
    fn chance_prob(&self, s: &u32, outcome: usize) -> f64 {
        self.chance_prob_f64[self.nodes[*s as usize].first_child as usize + outcome]
    }
    fn chance_prob_exact(&self, s: &u32, outcome: usize) -> Rational {
        self.chance_prob[self.nodes[*s as usize].first_child as usize + outcome].clone()
    }
    #[inline]
    fn chance_is_uniform(&self, s: &u32) -> bool {
        self.chance_is_uniform_at(*s as usize)
    }
    #[inline]
    fn infoset_key(&self, s: &u32) -> u64 {
        match self.nodes[*s as usize].kind {
            NodeKind::Decision { infoset, .. } => infoset as u64,
            _ => u64::MAX,
        }
    }
    #[inline]
    fn payoff0(&self, s: &u32) -> f64 {
        match self.nodes[*s as usize].kind {
            NodeKind::Terminal { terminal } => self.terminals[terminal as usize].payoff0_f64,
            _ => 0.0,
        }
    }
    fn payoff0_exact(&self, s: &u32) -> Rational {
        match self.nodes[*s as usize].kind {
            NodeKind::Terminal { terminal } => self.terminals[terminal as usize].payoff0.clone(),
            _ => Rational::zero(),
        }
    }
    fn constant_sum(&self) -> Rational {
        self.constant_sum.clone()
    }
    fn general_sum(&self) -> bool {
        self.payoff1.is_some()
    }
    fn payoff1(&self, s: &u32) -> f64 {
        crate::scalar::rational_to_f64(&self.payoff1_exact(s))
    }
    fn payoff1_exact(&self, s: &u32) -> Rational {
        match self.nodes[*s as usize].kind {
            NodeKind::Terminal { terminal } => self.payoff(terminal as usize, 1),
            _ => Rational::zero(),
        }
    }
    fn infoset_label(&self, s: &u32, out: &mut String) {
        out.clear();
        if let Some(set) = self.infoset_of(*s as usize) {
            out.push_str(&set.label);
        }
    }
    fn action_label(&self, s: &u32, action: usize) -> Cow<'_, str> {
        match self.infoset_of(*s as usize) {
            Some(set) => Cow::Borrowed(set.actions[action].as_str()),
            None => Cow::Borrowed(""),
        }
    }
    fn chance_label(&self, s: &u32, outcome: usize) -> Cow<'_, str> {
        let child = self.nodes[*s as usize].first_child as usize + outcome;
        Cow::Borrowed(self.chance_label[child].as_str())
    }
    fn terminal_label(&self, s: &u32) -> Cow<'_, str> {
        match self.nodes[*s as usize].kind {
            NodeKind::Terminal { terminal } => {
                Cow::Borrowed(self.terminals[terminal as usize].label.as_str())
            }
            _ => Cow::Borrowed(""),
        }
    }
    fn num_nodes(&self) -> Option<u64> {
        Some(self.nodes.len() as u64)
    }
    fn dense_keys(&self) -> Option<[usize; 2]> {
        Some([self.infosets[0].len(), self.infosets[1].len()])
    }
    /// The set's first node.
    fn key_state(&self, player: usize, key: u64) -> Option<u32> {
        let set = self.infosets.get(player)?.get(usize::try_from(key).ok()?)?;
        set.nodes.first().copied()
    }
}

/// Histories (chance, decision and terminal states) and information sets per player (distinct
/// keys), by one walk with an explicit stack and a set of keys: OpenSpiel's figures, without
/// building the arena.
pub fn count_histories<G: Rules + ?Sized>(rules: &G) -> (u64, [usize; 2]) {
    let (nodes, keys) = histories_and_keys(rules);
    (nodes, [keys[0].len(), keys[1].len()])
}

/// Histories and each player's information-set keys (sorted), by one walk with an explicit
/// stack.
pub fn histories_and_keys<G: Rules + ?Sized>(rules: &G) -> (u64, [Vec<u64>; 2]) {
    let mut keys: [crate::fxhash::FxSet<u64>; 2] = Default::default();
    let mut nodes = 0u64;
    let mut stack = vec![rules.root()];
    while let Some(s) = stack.pop() {
        nodes += 1;
        match rules.turn(&s) {
            Turn::Terminal => continue,
            Turn::Chance => {}
            Turn::Player(p) => {
                keys[p].insert(rules.infoset_key(&s));
            }
        }
        for a in 0..rules.num_actions(&s) {
            let mut next = s.clone();
            rules.apply(&mut next, a);
            stack.push(next);
        }
    }
    (
        nodes,
        keys.map(|k| {
            let mut k: Vec<u64> = k.into_iter().collect();
            k.sort_unstable();
            k
        }),
    )
}

/// What [`check_rules`] found wrong.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("rules of {game}: {detail}")]
pub struct RulesError {
    /// The game's name.
    pub game: String,
    /// What is wrong, with a path of action labels.
    pub detail: String,
}

/// Checks the key half of the [`Rules`] contract by walking every history (small games only,
/// for tests): per player, one key per label and one label per key, never `u64::MAX`, and
/// f64 chance probabilities and payoffs equal to the exact ones rounded; and
/// [`Rules::key_state`], where the rules state it, gives for every key a state with that key,
/// label and action labels (for all keys or for none). Returns the number of histories and of
/// information sets per player.
pub fn check_rules<G: Rules + ?Sized>(rules: &G) -> Result<(u64, [usize; 2]), RulesError> {
    use std::collections::HashMap;
    let err = |detail: String| RulesError {
        game: rules.name(),
        detail,
    };
    let mut by_key: [HashMap<u64, (String, usize)>; 2] = Default::default();
    let mut by_label: [HashMap<String, u64>; 2] = Default::default();
    let mut first_state: [HashMap<u64, G::State>; 2] = Default::default();
    let mut nodes = 0u64;
    let mut label = String::new();
    let mut stack = vec![rules.root()];
    while let Some(s) = stack.pop() {
        nodes += 1;
        let n = match rules.turn(&s) {
            Turn::Terminal => {
                let exact = crate::scalar::rational_to_f64(&rules.payoff0_exact(&s));
                if exact != rules.payoff0(&s) {
                    return Err(err(format!(
                        "payoff {} is not the exact {exact}",
                        rules.payoff0(&s)
                    )));
                }
                continue;
            }
            Turn::Chance => {
                let n = rules.num_actions(&s);
                for i in 0..n {
                    let exact = crate::scalar::rational_to_f64(&rules.chance_prob_exact(&s, i));
                    if exact != rules.chance_prob(&s, i) || exact <= 0.0 {
                        return Err(err(format!("chance probability {exact} of outcome {i}")));
                    }
                }
                n
            }
            Turn::Player(p) => {
                let n = rules.num_actions(&s);
                let key = rules.infoset_key(&s);
                rules.infoset_label(&s, &mut label);
                if key == u64::MAX {
                    return Err(err(format!("information set {label:?} has key u64::MAX")));
                }
                match by_key[p].get(&key) {
                    Some((l, m)) if *l != label || *m != n => {
                        return Err(err(format!(
                            "key {key} names {l:?} ({m} actions) and {label:?} ({n} actions)"
                        )))
                    }
                    Some(_) => {}
                    None => {
                        if let Some(k) = by_label[p].insert(label.clone(), key) {
                            return Err(err(format!("{label:?} has keys {k} and {key}")));
                        }
                        by_key[p].insert(key, (label.clone(), n));
                        first_state[p].insert(key, s.clone());
                    }
                }
                n
            }
        };
        if n == 0 {
            return Err(err("a non-terminal state has no actions".into()));
        }
        for a in 0..n {
            let mut next = s.clone();
            rules.apply(&mut next, a);
            stack.push(next);
        }
    }
    check_key_states(rules, &by_key, &first_state).map_err(err)?;
    Ok((nodes, [by_key[0].len(), by_key[1].len()]))
}

/// The [`Rules::key_state`] half of [`check_rules`], given every key's label and action count.
fn check_key_states<G: Rules + ?Sized>(
    rules: &G,
    by_key: &[std::collections::HashMap<u64, (String, usize)>; 2],
    first_state: &[std::collections::HashMap<u64, G::State>; 2],
) -> Result<(), String> {
    let mut stated = 0;
    let mut label = String::new();
    for (p, keys) in by_key.iter().enumerate() {
        for (&key, (want, n)) in keys {
            let Some(s) = rules.key_state(p, key) else {
                continue;
            };
            stated += 1;
            rules.infoset_label(&s, &mut label);
            if rules.turn(&s) != Turn::Player(p)
                || rules.infoset_key(&s) != key
                || label != *want
                || rules.num_actions(&s) != *n
            {
                return Err(format!(
                    "key_state({p}, {key}) gives {label:?} with {} actions; the set is \
                     {want:?} with {n}",
                    rules.num_actions(&s)
                ));
            }
            let seen = &first_state[p][&key];
            if let Some(a) =
                (0..*n).find(|&a| rules.action_label(&s, a) != rules.action_label(seen, a))
            {
                return Err(format!(
                    "key_state({p}, {key}) labels action {a} {:?}; the set's is {:?}",
                    rules.action_label(&s, a),
                    rules.action_label(seen, a)
                ));
            }
        }
    }
    let all = by_key[0].len() + by_key[1].len();
    if stated != 0 && stated != all {
        return Err(format!("key_state states {stated} of the {all} sets"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arena game states rules too: compiling them gives the arena back, and its keys keep
    /// the contract.
    #[test]
    fn an_arena_compiles_back_to_itself() {
        for spec in [
            "kuhn",
            "leduc",
            "goofspiel(cards=3,order=random)",
            "one-card-poker",
        ] {
            let game = crate::games::builtin(spec).unwrap();
            let again = compile(&game, u64::MAX).unwrap();
            assert_eq!(format!("{again:?}"), format!("{game:?}"), "{spec}");
            let sets = [game.infosets[0].len(), game.infosets[1].len()];
            assert_eq!(check_rules(&game).unwrap(), (game.nodes.len() as u64, sets));
        }
    }

    /// Games that do not state their size are stopped once the walk passes the limit.
    #[test]
    fn the_node_limit_holds_for_games_of_unknown_size() {
        struct Unsized(Game);
        impl Rules for Unsized {
            type State = u32;
            fn name(&self) -> String {
                "unsized".into()
            }
            fn root(&self) -> u32 {
                0
            }
            fn turn(&self, s: &u32) -> Turn {
                self.0.turn(s)
            }
            fn num_actions(&self, s: &u32) -> usize {
                self.0.num_actions(s)
            }
            fn apply(&self, s: &mut u32, a: usize) {
                self.0.apply(s, a)
            }
            fn chance_prob(&self, s: &u32, o: usize) -> f64 {
                self.0.chance_prob(s, o)
            }
            fn chance_prob_exact(&self, s: &u32, o: usize) -> Rational {
                self.0.chance_prob_exact(s, o)
            }
            fn infoset_key(&self, s: &u32) -> u64 {
                self.0.infoset_key(s)
            }
            fn payoff0(&self, s: &u32) -> f64 {
                self.0.payoff0(s)
            }
            fn payoff0_exact(&self, s: &u32) -> Rational {
                self.0.payoff0_exact(s)
            }
            fn infoset_label(&self, s: &u32, out: &mut String) {
                self.0.infoset_label(s, out)
            }
            fn action_label(&self, s: &u32, a: usize) -> Cow<'_, str> {
                self.0.action_label(s, a)
            }
            fn chance_label(&self, s: &u32, o: usize) -> Cow<'_, str> {
                self.0.chance_label(s, o)
            }
        }
        let rules = Unsized(crate::games::builtin("leduc").unwrap());
        let err = compile(&rules, 1000).unwrap_err();
        assert!(matches!(err, crate::Error::TooBig { .. }), "{err}");
        assert!(compile(&rules, 9457).is_ok());
    }
}
