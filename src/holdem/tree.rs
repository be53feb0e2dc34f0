//! The public action tree of a spot, with postflop-solver's bet semantics.
//!
//! Amounts are chips. `Bet(n)`, `Raise(n)` and `AllIn(n)` carry the total the player has put
//! in on the street once the action is made ("to" amounts). At a player's turn, with `pot` the
//! pot once the player has called and `prev` the opponent's total on the street:
//! - a bet of `p%` is `round(p x pot)`; a raise of `p%` is to `prev + round(p x pot)`; `Nx` raises
//!   to `round(N x prev)`; `e` bets (or raises by) `round(r x pot)` with `r` the geometric
//!   ratio that puts the stacks in over the remaining streets (on a raise, one street fewer
//!   for each bet already made on the street); `a` is all-in;
//! - a size below the minimum raise (or below one chip) becomes the minimum, one at or above
//!   the stack all-in; with `force_allin`, a size leaving the player at most `force_allin`
//!   times the pot after the call behind becomes all-in; with `add_allin`, all-in is offered
//!   when the stack is at most `add_allin` times the pot (on a raise: counting from `prev`);
//!   with `merge`, sizes closer than the threshold are merged as PioSOLVER does;
//! - there is no raise cap; facing an all-in a player folds or calls;
//! - on the turn and river, OOP leading after calling the street before uses the `*_donk`
//!   sizes when given, its ordinary bet sizes otherwise.
//!
//! A street closed by a call or two checks leads to a chance node (the next card, public)
//! whose one child is the next street; a call of an all-in before the river ends in a
//! showdown terminal with the board still to come. The tree holds no cards: a chance node
//! stands for every deal.
//!
//! A node's path lists its actions by street, the dealt card after the street name:
//! `flop:check,bet94,call;turn:8d:check` (`check`, `bet<N>`, `raise<N>`, `call`, `fold`,
//! `allin`). The tree is built breadth first without recursion, its size checked before each
//! allocation.

use super::cards::{Card, CardSet};
use super::spot::{Size, Spot, Street};
use super::HoldemError;

/// The default limit on nodes of a tree.
pub const DEFAULT_MAX_NODES: usize = 20_000_000;

/// A public action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Give up the pot.
    Fold,
    /// Pass without a bet to face.
    Check,
    /// Match the bet faced.
    Call,
    /// A first bet on the street, to this many chips on the street.
    Bet(i64),
    /// A raise to this many chips on the street.
    Raise(i64),
    /// All the chips behind, to this many chips on the street.
    AllIn(i64),
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Fold => write!(f, "fold"),
            Action::Check => write!(f, "check"),
            Action::Call => write!(f, "call"),
            Action::Bet(n) => write!(f, "bet{n}"),
            Action::Raise(n) => write!(f, "raise{n}"),
            Action::AllIn(_) => write!(f, "allin"),
        }
    }
}

impl Action {
    /// The chips a bet, raise or all-in goes to on the street.
    fn amount(self) -> Option<i64> {
        match self {
            Action::Bet(n) | Action::Raise(n) | Action::AllIn(n) => Some(n),
            _ => None,
        }
    }
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A player (0 = OOP, 1 = IP) chooses among the children.
    Decision(u8),
    /// The next board card is dealt; one child, the next street.
    Chance,
    /// This player folded.
    Fold(u8),
    /// The hands are shown down (with the rest of the board to come after an all-in).
    Showdown,
}

/// A node of the public tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// What the node is.
    pub kind: NodeKind,
    /// The street it belongs to (a chance node: the street it closes).
    pub street: Street,
    /// The parent's index (the root: itself).
    pub parent: u32,
    /// The action that led here (`None` at the root and below a chance node).
    pub action: Option<Action>,
    /// The index of the first child; children are contiguous.
    pub first_child: u32,
    /// How many children.
    pub num_children: u32,
    /// Chips each player has put in since the root.
    pub committed: [i64; 2],
}

impl Node {
    /// The indices of the children.
    pub fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..(self.first_child + self.num_children) as usize
    }
    /// Whether the node ends the hand.
    pub fn is_terminal(&self) -> bool {
        matches!(self.kind, NodeKind::Fold(_) | NodeKind::Showdown)
    }
}

/// Node counts by street (flop, turn, river).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Decision nodes.
    pub decision: [usize; 3],
    /// Terminal nodes (folds and showdowns).
    pub terminal: [usize; 3],
    /// Chance nodes, by the street they close.
    pub chance: [usize; 3],
}

/// The public action tree of a spot.
#[derive(Clone, Debug)]
pub struct Tree {
    /// The nodes, the root first; children are contiguous and follow their parent.
    pub nodes: Vec<Node>,
    /// The street the spot starts on.
    pub first_street: Street,
    /// The starting pot.
    pub pot: i64,
    /// The starting stack of each player.
    pub stack: i64,
    board: CardSet,
    deck: CardSet,
}

/// How the street got to the node (what the state machine needs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prev {
    Start,
    Check,
    Chance,
    Bet,
}

#[derive(Clone, Copy, Debug)]
struct Info {
    prev: Prev,
    num_bets: i32,
    allin: bool,
    oop_called: bool,
    street_in: [i64; 2],
}

/// Rounds to whole chips, saturating.
fn chips(x: f64) -> i64 {
    x.round() as i64
}

impl Tree {
    /// Builds the tree of a spot, refusing one of more than `max_nodes` nodes before building
    /// past the limit.
    pub fn build(spot: &Spot, max_nodes: usize) -> Result<Tree, HoldemError> {
        let first = spot.first_street();
        let root = Node {
            kind: NodeKind::Decision(0),
            street: first,
            parent: 0,
            action: None,
            first_child: 0,
            num_children: 0,
            committed: [0, 0],
        };
        let mut nodes = vec![root];
        let mut infos = vec![Info {
            prev: Prev::Start,
            num_bets: 0,
            allin: false,
            oop_called: false,
            street_in: [0, 0],
        }];
        let mut next = 0usize;
        while next < nodes.len() {
            let id = next;
            next += 1;
            let node = nodes[id];
            let info = infos[id];
            let mut children: Vec<(Node, Info)> = Vec::new();
            match node.kind {
                NodeKind::Fold(_) | NodeKind::Showdown => continue,
                NodeKind::Chance => {
                    let street = node.street.next().unwrap_or(Street::River);
                    children.push((
                        Node {
                            kind: NodeKind::Decision(0),
                            street,
                            action: None,
                            ..node
                        },
                        Info {
                            prev: Prev::Chance,
                            num_bets: 0,
                            allin: false,
                            oop_called: info.oop_called,
                            street_in: [0, 0],
                        },
                    ));
                }
                NodeKind::Decision(p) => {
                    for action in actions(spot, &node, &info) {
                        children.push(child(&node, &info, p, action));
                    }
                }
            }
            if nodes.len() + children.len() > max_nodes {
                return Err(HoldemError::TreeTooBig { limit: max_nodes });
            }
            nodes[id].first_child = nodes.len() as u32;
            nodes[id].num_children = children.len() as u32;
            for (mut c, i) in children {
                c.parent = id as u32;
                nodes.push(c);
                infos.push(i);
            }
        }
        Ok(Tree {
            nodes,
            first_street: first,
            pot: spot.pot,
            stack: spot.stack,
            board: spot.board.set(),
            deck: spot.deck.cards(),
        })
    }

    /// Node counts by street.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for n in &self.nodes {
            let s = n.street as usize;
            match n.kind {
                NodeKind::Decision(_) => c.decision[s] += 1,
                NodeKind::Chance => c.chance[s] += 1,
                _ => c.terminal[s] += 1,
            }
        }
        c
    }

    /// The path of a node, with the dealt cards (`dealt[i]` for the i-th chance node on the
    /// way; a card missing from `dealt` is left out of the path).
    pub fn path(&self, node: usize, dealt: &[Card]) -> String {
        let mut chain = vec![node];
        let mut n = node;
        while n != 0 {
            n = self.nodes[n].parent as usize;
            chain.push(n);
        }
        chain.reverse();
        let mut out = self.first_street.name().to_string();
        let mut sep = ":";
        let mut deals = 0;
        for &i in &chain[1..] {
            let nd = &self.nodes[i];
            match nd.action {
                Some(a) => {
                    out.push_str(sep);
                    out.push_str(&a.to_string());
                    sep = ",";
                }
                None => {
                    out.push(';');
                    out.push_str(nd.street.name());
                    if let Some(c) = dealt.get(deals) {
                        out.push_str(&format!(":{c}"));
                    }
                    deals += 1;
                    sep = ":";
                }
            }
        }
        out
    }

    /// The node a path names, and the cards it deals. Refuses a path that does not follow the
    /// tree, a card that is not in the deck, on the board or dealt twice.
    pub fn find(&self, path: &str) -> Result<(usize, Vec<Card>), HoldemError> {
        let err = |reason: String| HoldemError::Path {
            path: path.chars().take(200).collect(),
            reason,
        };
        let mut node = 0usize;
        let mut dealt = Vec::new();
        let mut used = self.board;
        if path.trim().is_empty() {
            return Ok((0, dealt));
        }
        for (k, section) in path.split(';').enumerate() {
            let mut parts = section.trim().split(':');
            let street = parts.next().unwrap_or("").trim();
            let expected = if k == 0 {
                self.first_street
            } else {
                let here = &self.nodes[node];
                if here.kind != NodeKind::Chance {
                    return Err(err(format!(
                        "`{street}` starts before the {} is over",
                        here.street.name()
                    )));
                }
                node = here.first_child as usize;
                self.nodes[node].street
            };
            if street != expected.name() {
                return Err(err(format!(
                    "expected `{}`, found `{street}`",
                    expected.name()
                )));
            }
            let mut rest: Vec<&str> = parts.collect();
            if k > 0 && !rest.is_empty() {
                if let Ok(c) = Card::parse(rest[0].trim()) {
                    if c.bit() & self.deck == 0 {
                        return Err(err(format!("{c} is not in the deck")));
                    }
                    if c.bit() & used != 0 {
                        return Err(err(format!("{c} is on the board or already dealt")));
                    }
                    used |= c.bit();
                    dealt.push(c);
                    rest.remove(0);
                }
            }
            if rest.len() > 1 {
                return Err(err(format!("too many `:` in `{section}`")));
            }
            let Some(list) = rest.first() else { continue };
            for name in list.split(',') {
                let name = name.trim();
                let here = &self.nodes[node];
                let found = here
                    .children()
                    .find(|&c| self.nodes[c].action.is_some_and(|a| a.to_string() == name));
                match found {
                    Some(c) => node = c,
                    None => {
                        let offered: Vec<String> = here
                            .children()
                            .filter_map(|c| self.nodes[c].action.map(|a| a.to_string()))
                            .collect();
                        return Err(err(format!(
                            "no action `{name}` here (offered: {})",
                            if offered.is_empty() {
                                "none".to_string()
                            } else {
                                offered.join(", ")
                            }
                        )));
                    }
                }
            }
        }
        Ok((node, dealt))
    }
}

/// The number of streets left including `s`.
fn streets_left(s: Street) -> i32 {
    3 - s as i32
}

/// The actions at a decision node, sorted (fold, check, call, bets, raises, all-in).
fn actions(spot: &Spot, node: &Node, info: &Info) -> Vec<Action> {
    let Decision(p) = node.kind else {
        return Vec::new();
    };
    let (p, o) = (p as usize, 1 - p as usize);
    let behind_o = spot.stack - node.committed[o];
    let prev = info.street_in[o];
    let to_call = info.street_in[o] - info.street_in[p];
    let pot = spot.pot + 2 * node.committed[o];
    let max_to = prev + behind_o;
    let min_to = (prev + to_call).clamp(1, max_to.max(1));
    let spr = behind_o as f64 / pot as f64;
    let geometric = |n: i32| -> i64 {
        let ratio = ((2.0 * spr + 1.0).powf(1.0 / n.max(1) as f64) - 1.0) / 2.0;
        chips(pot as f64 * ratio)
    };
    let street = node.street;
    let sizes = &spot.sizes[street as usize][p];
    let mut out = Vec::new();
    let donk = spot.donk[street as usize].as_ref();
    if matches!(info.prev, Prev::Start | Prev::Check | Prev::Chance) {
        out.push(Action::Check);
        let list = match donk {
            Some(d) if info.prev == Prev::Chance && info.oop_called => d,
            _ => &sizes.bet,
        };
        for s in list {
            out.push(match *s {
                Size::Pot(f) => Action::Bet(chips(pot as f64 * f)),
                Size::Geometric => Action::Bet(geometric(streets_left(street))),
                Size::AllIn => Action::AllIn(max_to),
                Size::Times(_) => continue,
            });
        }
        if max_to <= chips(pot as f64 * spot.add_allin) {
            out.push(Action::AllIn(max_to));
        }
    } else {
        out.push(Action::Fold);
        out.push(Action::Call);
        if !info.allin {
            for s in &sizes.raise {
                out.push(match *s {
                    Size::Pot(f) => Action::Raise(prev.saturating_add(chips(pot as f64 * f))),
                    Size::Times(x) => Action::Raise(chips(prev as f64 * x)),
                    Size::Geometric => {
                        let n = (streets_left(street) - info.num_bets + 1).max(1);
                        Action::Raise(prev.saturating_add(geometric(n)))
                    }
                    Size::AllIn => Action::AllIn(max_to),
                });
            }
            if max_to <= prev.saturating_add(chips(pot as f64 * spot.add_allin)) {
                out.push(Action::AllIn(max_to));
            }
        }
    }
    // Clamp to [min, max]; a size that leaves at most force_allin x the new pot behind is all-in.
    for a in out.iter_mut() {
        let (raise, amount) = match *a {
            Action::Bet(n) => (false, n),
            Action::Raise(n) => (true, n),
            _ => continue,
        };
        let clamped = amount.clamp(min_to, max_to);
        let new_pot = pot + 2 * (clamped - prev);
        if max_to <= clamped + chips(new_pot as f64 * spot.force_allin) {
            *a = Action::AllIn(max_to);
        } else {
            *a = if raise {
                Action::Raise(clamped)
            } else {
                Action::Bet(clamped)
            };
        }
    }
    out.sort_unstable();
    out.dedup();
    if spot.merge > 0.0 {
        out = merge(out, pot, prev, spot.merge);
    }
    out
}

use NodeKind::Decision;

/// PioSOLVER's merging: from the largest size down, keep a size (X of the pot) and drop the
/// smaller ones Y with (1 + X) / (1 + Y) < 1 + t, then go on from the next size kept.
fn merge(actions: Vec<Action>, pot: i64, prev: i64, t: f64) -> Vec<Action> {
    let mut kept_ratio = f64::INFINITY;
    let mut out: Vec<Action> = Vec::with_capacity(actions.len());
    for a in actions.into_iter().rev() {
        match a.amount() {
            Some(n) => {
                let y = (n - prev) as f64 / pot as f64;
                // Keep Y when (1 + X) / (1 + Y) >= 1 + t, i.e. Y <= (X - t) / (1 + t), with a
                // relative margin so that a boundary case computed in floating point is dropped.
                if y < (kept_ratio - t) / (1.0 + t) * (1.0 - 1e-12) {
                    out.push(a);
                    kept_ratio = y;
                }
            }
            None => out.push(a),
        }
    }
    out.reverse();
    out
}

/// The child a player's action leads to.
fn child(node: &Node, info: &Info, p: u8, action: Action) -> (Node, Info) {
    let (pi, o) = (p as usize, 1 - p as usize);
    let mut n = Node {
        action: Some(action),
        first_child: 0,
        num_children: 0,
        ..*node
    };
    let mut i = *info;
    let river = node.street == Street::River;
    match action {
        Action::Fold => n.kind = NodeKind::Fold(p),
        Action::Check => {
            i.prev = Prev::Check;
            i.oop_called = false;
            n.kind = if p == 0 {
                NodeKind::Decision(1)
            } else if river {
                NodeKind::Showdown
            } else {
                NodeKind::Chance
            };
        }
        Action::Call => {
            n.committed[pi] = n.committed[o];
            i.street_in[pi] = i.street_in[o];
            i.oop_called = p == 0;
            n.kind = if river || info.allin {
                NodeKind::Showdown
            } else {
                NodeKind::Chance
            };
        }
        Action::Bet(to) | Action::Raise(to) | Action::AllIn(to) => {
            n.committed[pi] += to - i.street_in[pi];
            i.street_in[pi] = to;
            i.num_bets += 1;
            i.allin = matches!(action, Action::AllIn(_));
            i.prev = Prev::Bet;
            n.kind = NodeKind::Decision(1 - p);
        }
    }
    (n, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(extra: &str) -> Spot {
        Spot::parse(&format!(
            "board = \"QsJh2h8d7c\"\noop_range = \"AA\"\nip_range = \"KK\"\npot = 100\nstack = 200\n{extra}"
        ))
        .unwrap()
    }

    /// The action names of node `n`'s children, in order.
    fn child_actions(t: &Tree, n: usize) -> Vec<String> {
        t.nodes[n]
            .children()
            .map(|c| t.nodes[c].action.unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_river_spot_by_hand() {
        // Pot 100, stack 200, river bet 50%, raise 100%: OOP checks or bets 50; facing 50, a
        // raise by the pot after calling (200) goes to 250, above the stack: all-in (200).
        let t = Tree::build(&spot("river_bet = \"50%\"\nriver_raise = \"100%\""), 1000).unwrap();
        let mut paths: Vec<String> = (0..t.nodes.len())
            .filter(|&i| t.nodes[i].is_terminal())
            .map(|i| t.path(i, &[]))
            .collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                "river:bet50,allin,call",
                "river:bet50,allin,fold",
                "river:bet50,call",
                "river:bet50,fold",
                "river:check,bet50,allin,call",
                "river:check,bet50,allin,fold",
                "river:check,bet50,call",
                "river:check,bet50,fold",
                "river:check,check",
            ]
        );
        let c = t.counts();
        assert_eq!(c.decision, [0, 0, 6]);
        assert_eq!(c.terminal, [0, 0, 9]);
        let (n, _) = t.find("river:check,bet50,allin").unwrap();
        assert_eq!(t.nodes[n].kind, NodeKind::Decision(1));
        assert_eq!(t.nodes[n].committed, [200, 50]);
        assert!(t.find("river:check,bet60").is_err());
        assert!(t.find("turn:check").is_err());
        assert!(Tree::build(&spot("river_bet = \"50%\"\nriver_raise = \"100%\""), 10).is_err());
    }

    #[test]
    fn min_raise_times_and_geometric() {
        // Facing a bet of 10 (10% of 100), a 2.5x raise is to 25; a 1% raise (by 1 chip of the
        // pot after calling, 120) is below the minimum raise to 20: it becomes 20.
        let t = Tree::build(
            &spot("river_bet = \"10%, e\"\nriver_raise = \"2.5x, 1%\""),
            10_000,
        )
        .unwrap();
        let (n, _) = t.find("river:bet10").unwrap();
        let names = child_actions(&t, n);
        assert_eq!(names, ["fold", "call", "raise20", "raise25"]);
        // e on the river with stack 200 and pot 100 is all-in.
        let root = child_actions(&t, 0);
        assert_eq!(root, ["check", "bet10", "allin"]);
    }

    #[test]
    fn merging_and_thresholds() {
        // 30%, 33%: (1 + 0.33) / (1 + 0.30) = 1.023 < 1.1, so 30% merges into 33%.
        let t = Tree::build(
            &spot("river_bet = \"30%, 33%, 75%\"\nriver_raise = \"\"\nmerge = 0.1"),
            10_000,
        )
        .unwrap();
        let root = child_actions(&t, 0);
        assert_eq!(root, ["check", "bet33", "bet75"]);
        // add_allin 2: the stack 200 is at most 2 x pot 100, so all-in is added.
        let t = Tree::build(
            &spot("river_bet = \"75%\"\nriver_raise = \"\"\nadd_allin = 2"),
            10_000,
        )
        .unwrap();
        let root = child_actions(&t, 0);
        assert_eq!(root, ["check", "bet75", "allin"]);
        // force_allin 0.2: a bet of 75 leaves 125 behind with a pot of 250 after the call: not
        // forced; a bet of 150 leaves 50 <= 0.2 x 400: forced all-in.
        let t = Tree::build(
            &spot("river_bet = \"75%, 150%\"\nriver_raise = \"\"\nforce_allin = 0.2"),
            10_000,
        )
        .unwrap();
        let root = child_actions(&t, 0);
        assert_eq!(root, ["check", "bet75", "allin"]);
    }
}
