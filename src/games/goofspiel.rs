//! Goofspiel with imperfect information, as OpenSpiel's `goofspiel` with `imp_info=True`,
//! two players, made turn-based by `pyspiel.convert_to_turn_based` (the form DCFR, DDCFR and
//! PDCFR+ report on).
//!
//! Each player holds the cards `1..=cards`; a deck of point cards `1..=cards` is revealed one
//! card per round, in the order `order` gives: `random` (OpenSpiel's default: a chance node
//! deals each point card from those left), `descending` (`cards, cards-1, ..`: what the papers
//! use) or `ascending`. Each round both players bid a card from their hand at the same time
//! (player 1 chooses, then player 2 without seeing it); the higher bid wins the point card's
//! value, equal bids discard it, and the bid cards are gone. Players see only who won each
//! round, not the opponent's bid. The last round has no choice and is played out at once, as
//! in OpenSpiel. Returns (`returns`): `win-loss` (OpenSpiel's default and the papers': +1 to
//! the player with more points, -1 to the other, 0 on a tie) or `point-difference` (half the
//! point difference, OpenSpiel's `point_difference` for two players).
//!
//! Information-set labels: `cards 5 4|bids 2|won 1` = the point cards so far (the current one
//! last), the player's own bids, and who won each finished round (`1`, `2`, or `=` for a tie).

use crate::error::{fail, Error, Result};
use crate::game::rules::confirm_key_state;
use crate::game::{compile, Game, Rules, Turn};
use crate::scalar::{int, rat, Rational};
use std::borrow::Cow;

/// Order in which the point cards are revealed (OpenSpiel's `points_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointsOrder {
    /// A chance node deals each point card uniformly from those left.
    Random,
    /// Highest point card first.
    Descending,
    /// Lowest point card first.
    Ascending,
}

/// What the players receive at the end (OpenSpiel's `returns_type`, zero-sum kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// +1 / -1 to the player with more / fewer points, 0 each on equal points.
    WinLoss,
    /// Each player's points minus the mean of both players' points.
    PointDifference,
}

/// Names of the `order` parameter's values, in the order of its integer codes.
pub const ORDER_NAMES: &[&str] = &["random", "descending", "ascending"];
/// Names of the `returns` parameter's values, in the order of its integer codes.
pub const RETURNS_NAMES: &[&str] = &["win-loss", "point-difference"];

impl PointsOrder {
    /// The order with the given code (index into [`ORDER_NAMES`]).
    pub fn from_code(code: i64) -> Option<Self> {
        [Self::Random, Self::Descending, Self::Ascending]
            .get(usize::try_from(code).ok()?)
            .copied()
    }
}

impl Returns {
    /// The returns type with the given code (index into [`RETURNS_NAMES`]).
    pub fn from_code(code: i64) -> Option<Self> {
        [Self::WinLoss, Self::PointDifference]
            .get(usize::try_from(code).ok()?)
            .copied()
    }
}

/// Number of nodes of the game (chance, decision and terminal), or `None` on `u64` overflow.
pub fn num_nodes(cards: u32, order: PointsOrder) -> Option<u64> {
    let mut states: u64 = 1;
    let mut nodes: u64 = 0;
    // Rounds with a choice; the last round is played out automatically.
    for round in 0..cards.saturating_sub(1) {
        let left = (cards - round) as u64;
        // Player 1's node, then one node of player 2 per bid of player 1.
        let bidding = 1 + left;
        let per_state = match order {
            PointsOrder::Random => 1 + left.checked_mul(bidding)?,
            _ => bidding,
        };
        nodes = nodes.checked_add(states.checked_mul(per_state)?)?;
        let deals = if order == PointsOrder::Random {
            left
        } else {
            1
        };
        states = states.checked_mul(deals)?.checked_mul(left * left)?;
    }
    nodes.checked_add(states)
}

/// Builds goofspiel; refuses trees above `max_nodes` before allocating.
pub fn goofspiel(cards: u32, order: PointsOrder, returns: Returns, max_nodes: u64) -> Result<Game> {
    let rules = Goofspiel::new(cards, order, returns)?;
    if num_nodes(cards, order).is_none() {
        return Err(Error::TooBig {
            what: format!("goofspiel(cards={cards}) with this order"),
            size: "more than 1.8e19 nodes".to_string(),
            limit: max_nodes.to_string(),
        });
    }
    compile(&rules, max_nodes)
}

/// Most cards a game has (a hand is a 32-bit mask; rounds fit fixed arrays).
const MAX_CARDS: usize = 31;

/// The public and private state between rounds, 40 bytes: the samplers and the compiler copy
/// a state at every branch. The history a label needs (each finished round's point card, the
/// player's bid and the winner) is the player's key, read back by [`State::write_label`].
#[derive(Clone, Copy, Debug)]
pub struct State {
    /// Cards still in each player's hand (bit `c` = card `c + 1`).
    hands: [u32; 2],
    /// Point cards not yet revealed (bit `c` = card `c + 1`).
    deck: u32,
    points: [u32; 2],
    /// The point card revealed last (the current round's once revealed; 0 before any).
    current: u8,
    revealed: u8,
    rounds: u8,
    /// Player 1's bid in the current round while player 2 decides (0 before).
    first: u8,
    /// Per player, the finished rounds as key fields (see [`Goofspiel::infoset_key`]).
    key: [u64; 2],
}

/// The rules of goofspiel with imperfect information, turn-based (see the module docs).
#[derive(Clone, Debug)]
pub struct Goofspiel {
    cards: usize,
    order: PointsOrder,
    returns: Returns,
    /// Bits of one card in a key.
    card_bits: u32,
    bid_labels: Vec<String>,
    deal_labels: Vec<String>,
}

impl Goofspiel {
    /// The rules with `cards` cards per hand (2..=31).
    pub fn new(cards: u32, order: PointsOrder, returns: Returns) -> Result<Self> {
        if !(2..=MAX_CARDS as u32).contains(&cards) {
            fail!(
                Invalid,
                "goofspiel needs 2..={MAX_CARDS} cards (got {cards})"
            );
        }
        let cards = cards as usize;
        Ok(Goofspiel {
            cards,
            order,
            returns,
            card_bits: usize::BITS - cards.leading_zeros(),
            bid_labels: (0..=cards).map(|c| format!("Bid {c}")).collect(),
            deal_labels: (0..=cards).map(|c| format!("Deal {c}")).collect(),
        })
    }

    /// Whether information-set keys fit 64 bits (up to 8 cards): each finished round takes
    /// a point card, a bid and a winner, and the current point card closes the key.
    pub fn keys_fit(&self) -> bool {
        let b = self.card_bits as usize;
        self.cards.saturating_sub(2) * (2 * b + 2) + b <= 64
    }
}

/// The index of `card` among the cards of `hand` (the inverse of [`nth_card`]), if held.
fn card_index(hand: u32, card: u8) -> Option<usize> {
    let bit = 1u32.checked_shl(u32::from(card).checked_sub(1)?)?;
    (hand & bit != 0).then(|| (hand & (bit - 1)).count_ones() as usize)
}

/// Bids for the opponent, one per round, consistent with the player's own bids and the
/// winners (`p_won` / tie / the opponent won), all different and in `1..=cards`: earliest
/// deadline first over the cards in rising order (each round allows an interval of cards),
/// which finds an assignment whenever one exists.
fn opponent_bids(cards: usize, own: &[u8], outcome: &[std::cmp::Ordering]) -> Option<Vec<u8>> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    // Round r needs a bid in lo..=hi: below the player's when the player won (Greater).
    let range = |r: usize| -> (u8, u8) {
        let b = own[r];
        match outcome[r] {
            Greater => (1, b - 1),
            Equal => (b, b),
            Less => (b + 1, cards as u8),
        }
    };
    let mut bids = vec![0u8; own.len()];
    for c in 1..=cards as u8 {
        let open = (0..own.len())
            .filter(|&r| bids[r] == 0 && (range(r).0..=range(r).1).contains(&c))
            .min_by_key(|&r| range(r).1);
        if let Some(r) = open {
            bids[r] = c;
        }
    }
    bids.iter().all(|&b| b != 0).then_some(bids)
}

/// Appends the numbers space-separated, or `-` for none.
fn push_list(out: &mut String, items: impl Iterator<Item = &'static str>) {
    let start = out.len();
    for item in items {
        if out.len() > start {
            out.push(' ');
        }
        out.push_str(item);
    }
    if out.len() == start {
        out.push('-');
    }
}

/// Decimal text of `0..=MAX_CARDS`, for labels built without formatting.
const NUMBERS: [&str; MAX_CARDS + 1] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31",
];

impl State {
    /// Writes `player`'s information-set label into `out` (cleared first), from the player's
    /// key (`bits` per card): the fields of the finished rounds, oldest first.
    fn write_label(&self, player: usize, bits: u32, out: &mut String) {
        let rounds = self.rounds as usize;
        let width = 2 * bits + 2;
        // Keys hold every round up to 8 cards ([`Goofspiel::keys_fit`]), which is more than
        // any game that can be built or sampled; beyond, the oldest rounds read as 0.
        let field = |r: usize| {
            let shift = u32::try_from(width as usize * (rounds - 1 - r)).unwrap_or(u32::MAX);
            self.key[player].checked_shr(shift).unwrap_or(0)
        };
        let card = |r: usize| (field(r) >> (bits + 2) & ((1 << bits) - 1)) as usize;
        out.clear();
        out.push_str("cards ");
        let current = (self.revealed as usize > rounds).then_some(self.current as usize);
        push_list(
            out,
            (0..rounds).map(card).chain(current).map(|c| NUMBERS[c]),
        );
        out.push_str("|bids ");
        push_list(
            out,
            (0..rounds).map(|r| NUMBERS[(field(r) >> 2 & ((1 << bits) - 1)) as usize]),
        );
        out.push_str("|won ");
        push_list(
            out,
            (0..rounds).map(|r| match field(r) & 3 {
                0 => "1",
                1 => "2",
                _ => "=",
            }),
        );
    }

    /// Plays a round with the bids `[b0, b1]` (card values) on the current point card; returns
    /// the winner (0, 1, or 2 for a tie).
    fn play(&mut self, bid: [u8; 2]) -> u8 {
        let value = self.current as u32;
        let winner = match bid[0].cmp(&bid[1]) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Less => 1,
            std::cmp::Ordering::Equal => 2,
        };
        if winner < 2 {
            self.points[winner] += value;
        }
        for p in 0..2 {
            self.hands[p] &= !(1 << (bid[p] - 1));
        }
        self.rounds += 1;
        winner as u8
    }

    /// Records the round just played (bids `bid`, winner `winner`) in both players' keys
    /// (`bits` per card).
    fn push_keys(&mut self, bits: u32, bid: [u8; 2], winner: u8) {
        let card = self.current as u64;
        for p in 0..2 {
            let field = (card << bits | bid[p] as u64) << 2 | winner as u64;
            self.key[p] = self.key[p] << (2 * bits + 2) | field;
        }
    }

    fn reveal(&mut self, card: u8) {
        self.deck &= !(1 << (card - 1));
        self.current = card;
        self.revealed += 1;
    }

    /// The point card the fixed order reveals next.
    fn next_in_order(&self, order: PointsOrder) -> u8 {
        let deck = self.deck;
        match order {
            PointsOrder::Descending => (32 - deck.leading_zeros()) as u8,
            _ => deck.trailing_zeros() as u8 + 1,
        }
    }
}

impl Rules for Goofspiel {
    type State = State;

    fn name(&self) -> String {
        format!(
            "goofspiel(cards={},order={},returns={})",
            self.cards, ORDER_NAMES[self.order as usize], RETURNS_NAMES[self.returns as usize]
        )
    }
    fn root(&self) -> State {
        let full = (1u32 << self.cards) - 1;
        let mut s = State {
            hands: [full, full],
            deck: full,
            points: [0, 0],
            current: 0,
            revealed: 0,
            rounds: 0,
            first: 0,
            key: [0; 2],
        };
        if self.order != PointsOrder::Random {
            s.reveal(s.next_in_order(self.order));
        }
        s
    }
    #[inline]
    fn turn(&self, s: &State) -> Turn {
        if s.rounds as usize == self.cards {
            Turn::Terminal
        } else if s.revealed == s.rounds {
            Turn::Chance
        } else if s.first == 0 {
            Turn::Player(0)
        } else {
            Turn::Player(1)
        }
    }
    /// Counted from the rounds, not the hands: every reveal takes one card from the deck and
    /// every finished round one from each hand, and the player to bid has not bid yet. (The
    /// samplers ask this at every node; a portable build has no popcount instruction, and
    /// `count_ones` costs a dozen.)
    #[inline]
    fn num_actions(&self, s: &State) -> usize {
        let n = match self.turn(s) {
            Turn::Chance => self.cards - s.revealed as usize,
            Turn::Player(_) => self.cards - s.rounds as usize,
            Turn::Terminal => 0,
        };
        debug_assert_eq!(
            n,
            match self.turn(s) {
                Turn::Chance => s.deck.count_ones() as usize,
                Turn::Player(p) => s.hands[p].count_ones() as usize,
                Turn::Terminal => 0,
            }
        );
        n
    }
    // Always inlined: the samplers call it at every node, and inlined it shares `turn` with
    // the caller's match (the call cost about a fifth of an external-sampling iteration).
    #[inline(always)]
    fn apply(&self, s: &mut State, action: usize) {
        match self.turn(s) {
            Turn::Chance => {
                let card = nth_card(s.deck, action);
                s.reveal(card);
            }
            Turn::Player(0) => s.first = nth_card(s.hands[0], action),
            _ => {
                let second = nth_card(s.hands[1], action);
                let bid = [s.first, second];
                let winner = s.play(bid);
                s.push_keys(self.card_bits, bid, winner);
                s.first = 0;
                // Point cards left (the deck loses one per reveal).
                if self.cards - s.revealed as usize > 1 {
                    if self.order != PointsOrder::Random {
                        s.reveal(s.next_in_order(self.order));
                    }
                    return;
                }
                // The last round has no choice: reveal the last card and play it out.
                let last = s.deck.trailing_zeros() as u8 + 1;
                s.reveal(last);
                let forced = [0, 1].map(|p| s.hands[p].trailing_zeros() as u8 + 1);
                s.play(forced);
            }
        }
    }
    fn chance_prob(&self, s: &State, _: usize) -> f64 {
        1.0 / (self.cards - s.revealed as usize) as f64
    }
    fn chance_prob_exact(&self, s: &State, _: usize) -> Rational {
        rat(1, (self.cards - s.revealed as usize) as i64)
    }
    fn chance_is_uniform(&self, _: &State) -> bool {
        true
    }
    /// Replays the key: its rounds (point card, the player's bid, the winner) with opponent
    /// bids that fit the winners ([`opponent_bids`]), then the current point card; when the
    /// player bids second, the first bidder's lowest card.
    fn key_state(&self, player: usize, key: u64) -> Option<State> {
        let bits = self.card_bits;
        let width = 2 * bits + 2;
        let current = u8::try_from(key & ((1 << bits) - 1)).ok()?;
        let mut fields = Vec::new();
        let mut rest = key >> bits;
        while rest != 0 {
            fields.push(rest & ((1 << width) - 1));
            rest = rest.checked_shr(width).unwrap_or(0);
            if fields.len() > self.cards {
                return None;
            }
        }
        fields.reverse();
        let card = |f: u64| (f >> (bits + 2)) as u8;
        let own: Vec<u8> = fields
            .iter()
            .map(|&f| (f >> 2 & ((1 << bits) - 1)) as u8)
            .collect();
        let mut outcome = Vec::with_capacity(fields.len());
        for (&f, &b) in fields.iter().zip(&own) {
            if b == 0 || b as usize > self.cards {
                return None;
            }
            outcome.push(match f & 3 {
                2 => std::cmp::Ordering::Equal,
                w if w as usize == player => std::cmp::Ordering::Greater,
                3 => return None,
                _ => std::cmp::Ordering::Less,
            });
        }
        let theirs = opponent_bids(self.cards, &own, &outcome)?;
        let mut s = self.root();
        let reveal = |s: &mut State, c: u8| -> Option<()> {
            if self.order == PointsOrder::Random {
                let i = card_index(s.deck, c)?;
                self.apply(s, i);
            }
            (s.revealed > 0 && s.current == c).then_some(())
        };
        for (r, &f) in fields.iter().enumerate() {
            reveal(&mut s, card(f))?;
            let mut bid = [theirs[r]; 2];
            bid[player] = own[r];
            for (p, &b) in bid.iter().enumerate() {
                if self.turn(&s) != Turn::Player(p) {
                    return None;
                }
                let i = card_index(s.hands[p], b)?;
                self.apply(&mut s, i);
            }
        }
        reveal(&mut s, current)?;
        if player == 1 && self.turn(&s) == Turn::Player(0) {
            self.apply(&mut s, 0);
        }
        confirm_key_state(self, player, key, s)
    }
    /// The finished rounds (point card, own bid, winner) and the current point card, packed.
    #[inline]
    fn infoset_key(&self, s: &State) -> u64 {
        let p = usize::from(s.first != 0);
        let current = s.current as u64;
        s.key[p] << self.card_bits | current
    }
    fn payoff0(&self, s: &State) -> f64 {
        let diff = s.points[0] as i64 - s.points[1] as i64;
        match self.returns {
            Returns::WinLoss => diff.signum() as f64,
            Returns::PointDifference => diff as f64 / 2.0,
        }
    }
    fn payoff0_exact(&self, s: &State) -> Rational {
        let diff = s.points[0] as i64 - s.points[1] as i64;
        match self.returns {
            Returns::WinLoss => int(diff.signum()),
            Returns::PointDifference => rat(diff, 2),
        }
    }
    /// `cards 5 4|bids 2|won 1` (see the module docs).
    fn infoset_label(&self, s: &State, out: &mut String) {
        s.write_label(usize::from(s.first != 0), self.card_bits, out);
    }
    fn action_label(&self, s: &State, action: usize) -> Cow<'_, str> {
        let p = usize::from(s.first != 0);
        Cow::Borrowed(&self.bid_labels[nth_card(s.hands[p], action) as usize])
    }
    fn chance_label(&self, s: &State, outcome: usize) -> Cow<'_, str> {
        Cow::Borrowed(&self.deal_labels[nth_card(s.deck, outcome) as usize])
    }
    fn num_nodes(&self) -> Option<u64> {
        num_nodes(self.cards as u32, self.order)
    }
    fn key_problem(&self) -> Option<String> {
        (!self.keys_fit()).then(|| {
            format!(
                "{}: information-set keys fit 64 bits up to 8 cards",
                self.name()
            )
        })
    }
}

/// The `n`-th card (0-based, lowest first) of a hand mask.
#[inline]
fn nth_card(mut hand: u32, n: usize) -> u8 {
    for _ in 0..n {
        hand &= hand - 1;
    }
    hand.trailing_zeros() as u8 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSpiel 2.0.2 counts for `convert_to_turn_based(goofspiel(num_cards=n, imp_info=True,
    /// points_order=order))`: every history incl. chance and terminal nodes, and information
    /// sets per player, printed by `scripts/openspiel_game_counts.py`.
    #[test]
    fn counts_match_openspiel() {
        use PointsOrder::*;
        for (cards, order, nodes, infosets) in [
            (3, Descending, 67, 8),
            (3, Ascending, 67, 8),
            (3, Random, 418, 45),
            (4, Descending, 1077, 81),
            (4, Ascending, 1077, 81),
            (4, Random, 26_773, 1804),
            (5, Descending, 26_931, 1062),
        ] {
            assert_eq!(num_nodes(cards, order), Some(nodes));
            let g = goofspiel(cards, order, Returns::WinLoss, u64::MAX).unwrap();
            assert_eq!(g.nodes.len() as u64, nodes, "{cards} {order:?}");
            assert_eq!(g.infosets[0].len(), infosets, "{cards} {order:?}");
            assert_eq!(g.infosets[1].len(), infosets, "{cards} {order:?}");
        }
        // 5 cards in random order (3.3 million nodes) is counted on its rules, not built.
        assert_eq!(num_nodes(5, Random), Some(3_346_656));
        let rules = Goofspiel::new(5, Random, Returns::WinLoss).unwrap();
        assert_eq!(
            crate::game::rules::count_histories(&rules),
            (3_346_656, [118_225, 118_225])
        );
    }

    /// Uniform-policy exploitability from `scripts/openspiel_game_counts.py` (OpenSpiel 2.0.2).
    #[test]
    fn uniform_policy_exploitability_matches_openspiel() {
        use crate::eval::exploitability;
        use crate::strategy::Profile;
        use PointsOrder::*;
        for (cards, order, expected) in [
            (3, Descending, 0.6666666666666666),
            (3, Random, 0.6666666666666666),
            (4, Ascending, 0.7083333333333333),
            (4, Random, 0.7083333333333333),
            (5, Descending, 0.775),
        ] {
            let g = goofspiel(cards, order, Returns::WinLoss, u64::MAX).unwrap();
            let e = exploitability(&g, &Profile::<f64>::uniform(&g)).exploitability;
            assert!((e - expected).abs() < 1e-12, "{cards} {order:?}: {e}");
        }
    }

    #[test]
    fn rules_keep_their_contract() {
        use PointsOrder::*;
        for (cards, order, nodes, infosets) in [(3, Random, 418, 45), (4, Descending, 1077, 81)] {
            let rules = Goofspiel::new(cards, order, Returns::WinLoss).unwrap();
            assert_eq!(
                crate::game::rules::check_rules(&rules).unwrap(),
                (nodes, [infosets, infosets])
            );
        }
        assert!(Goofspiel::new(8, Random, Returns::WinLoss)
            .unwrap()
            .keys_fit());
        assert!(!Goofspiel::new(9, Random, Returns::WinLoss)
            .unwrap()
            .keys_fit());
    }

    #[test]
    fn returns_follow_points() {
        // Two cards, descending: the point card 2 is bid on, then 1 is played out.
        let g = goofspiel(
            2,
            PointsOrder::Descending,
            Returns::PointDifference,
            u64::MAX,
        )
        .unwrap();
        let mut payoffs: Vec<f64> = g.terminal_outcomes().map(|t| t.payoff0_f64).collect();
        payoffs.sort_by(f64::total_cmp);
        // P1 bids 2 and P2 bids 1: P1 wins 2, then P2's 2 beats P1's 1 on card 1: (2-1)/2.
        // Equal bids twice: 0 each.
        assert_eq!(payoffs, vec![-0.5, 0.0, 0.0, 0.5]);
        let g = goofspiel(2, PointsOrder::Descending, Returns::WinLoss, u64::MAX).unwrap();
        let mut payoffs: Vec<f64> = g.terminal_outcomes().map(|t| t.payoff0_f64).collect();
        payoffs.sort_by(f64::total_cmp);
        assert_eq!(payoffs, vec![-1.0, 0.0, 0.0, 1.0]);
        assert!(g.find_infoset(0, "cards 2|bids -|won -").is_some());
        assert!(g.find_infoset(1, "cards 2|bids -|won -").is_some());
    }

    #[test]
    fn refuses_huge_trees_before_building() {
        let err = goofspiel(8, PointsOrder::Random, Returns::WinLoss, 20_000_000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("above the limit"), "{err}");
    }
}
