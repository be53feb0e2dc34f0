//! The card-guessing game of Codeforces 98E as an explicit extensive-form game, for checking the
//! dynamic programme of [`crate::problems::card_guessing`] independently.
//!
//! Cards are labelled `1..=m+n+1`. Chance deals, uniformly, which card lies on the table and which
//! `m` of the others Shrek (player 1, moving first) holds; Donkey holds the rest. Players then
//! alternate; a move is
//! - `guess c` for any card `c` not in the mover's hand and not shown: right wins, wrong loses;
//! - `name c` for any card not named before (each card is named at most once): if the opponent
//!   holds it, it is shown and put aside, otherwise the opponent says so. Naming an own card is a
//!   bluff; the opponent can "believe" it only by guessing that card on its own move.
//!
//! A player's information set is its own dealt hand plus the public history (who named which card
//! and whether it was shown), which gives perfect recall. Shrek's payoff is 1 when he wins and 0
//! otherwise (constant sum 1), so the game value is Shrek's win probability.

use crate::error::Result;
use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::problems::card_guessing::CardGuessing;
use crate::scalar::{int, Scalar};
use crate::strategy::Profile;
use std::collections::HashMap;

/// Largest `m + n` the explicit game is built for (the tree grows roughly like `(m+n+1)!`).
pub const MAX_EXPLICIT_CARDS: usize = 5;

/// One public naming event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Naming {
    /// Who named (0 = Shrek, 1 = Donkey).
    pub player: usize,
    /// The card named.
    pub card: u8,
    /// Whether the opponent held it and showed it.
    pub shown: bool,
}

/// A move of the explicit game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Guess that this card is on the table.
    Guess(u8),
    /// Name this card.
    Name(u8),
}

/// What a player knows at one of its information sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfosetView {
    /// The player (0 = Shrek, 1 = Donkey).
    pub player: usize,
    /// The player's dealt hand as a bit mask (bit `c` for card `c`).
    pub hand: u32,
    /// The public history of namings.
    pub history: Vec<Naming>,
    /// The moves available, in action order.
    pub moves: Vec<Move>,
}

/// The explicit game plus, for each information set, what its player knows.
#[derive(Clone, Debug)]
pub struct ExplicitGame {
    /// Shrek's hand size.
    pub m: usize,
    /// Donkey's hand size.
    pub n: usize,
    /// The compiled game.
    pub game: Game,
    /// `views[player][infoset]`.
    pub views: [Vec<InfosetView>; 2],
}

/// Builds the explicit game (see the module documentation).
pub fn shrek_donkey(m: usize, n: usize) -> Result<Game, GameError> {
    Ok(build_explicit(m, n)?.game)
}

fn cards_of(mask: u32) -> impl Iterator<Item = u8> {
    (1..32u8).filter(move |&c| mask & (1 << c) != 0)
}

fn format_cards(mask: u32) -> String {
    if mask == 0 {
        return "-".into();
    }
    cards_of(mask)
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

const PLAYER_NAMES: [&str; 2] = ["Shrek", "Donkey"];

/// The moves open to a player with dealt `hand` after `history`, among cards `all`.
pub fn moves(all: u32, hand: u32, history: &[Naming]) -> Vec<Move> {
    let named = history.iter().fold(0u32, |acc, h| acc | (1 << h.card));
    let shown = history
        .iter()
        .filter(|h| h.shown)
        .fold(0u32, |acc, h| acc | (1 << h.card));
    let mut out: Vec<Move> = cards_of(all & !hand & !shown).map(Move::Guess).collect();
    out.extend(cards_of(all & !named).map(Move::Name));
    out
}

fn infoset_label(hand: u32, history: &[Naming]) -> String {
    let mut label = format!("hand {}", format_cards(hand));
    for (i, h) in history.iter().enumerate() {
        label.push_str(if i == 0 { " | " } else { "; " });
        let reply = if h.shown { "shown" } else { "no" };
        label.push_str(&format!(
            "{} names {}: {reply}",
            &PLAYER_NAMES[h.player][..1],
            h.card
        ));
    }
    label
}

fn move_label(mv: Move) -> String {
    match mv {
        Move::Guess(c) => format!("guess {c}"),
        Move::Name(c) => format!("name {c}"),
    }
}

struct Builder {
    b: GameBuilder,
    all: u32,
    views: HashMap<(usize, String), InfosetView>,
}

impl Builder {
    /// Expands the play below `node`; recursion depth is at most `m + n + 2` turns.
    fn play(
        &mut self,
        node: NodeRef,
        hands: [u32; 2],
        table: u8,
        history: &mut Vec<Naming>,
        mover: usize,
    ) -> Result<(), GameError> {
        let opponent = 1 - mover;
        let available = moves(self.all, hands[mover], history);
        let label = infoset_label(hands[mover], history);
        let labels: Vec<String> = available.iter().map(|&mv| move_label(mv)).collect();
        let children = self.b.decision(node, mover, &label, &labels)?;
        self.views
            .entry((mover, label))
            .or_insert_with(|| InfosetView {
                player: mover,
                hand: hands[mover],
                history: history.clone(),
                moves: available.clone(),
            });
        for (child, mv) in children.into_iter().zip(available) {
            match mv {
                Move::Guess(c) => {
                    let winner = if c == table { mover } else { opponent };
                    let payoffs = if winner == 0 {
                        [int(1), int(0)]
                    } else {
                        [int(0), int(1)]
                    };
                    self.b.terminal_labelled(
                        child,
                        payoffs,
                        &format!("{} wins", PLAYER_NAMES[winner]),
                    )?;
                }
                Move::Name(c) => {
                    let shown = hands[opponent] & (1 << c) != 0;
                    history.push(Naming {
                        player: mover,
                        card: c,
                        shown,
                    });
                    self.play(child, hands, table, history, opponent)?;
                    history.pop();
                }
            }
        }
        Ok(())
    }
}

/// Builds the explicit game with Shrek holding `m` cards and Donkey `n`, and records what each
/// information set's player knows. Refuses `m + n > MAX_EXPLICIT_CARDS`.
pub fn build_explicit(m: usize, n: usize) -> Result<ExplicitGame, GameError> {
    if m + n > MAX_EXPLICIT_CARDS {
        return Err(GameError::BadActions {
            path: "the root".into(),
            detail: format!(
                "the explicit card-guessing game is built only for m + n <= {MAX_EXPLICIT_CARDS} \
                 (got {m} + {n}); the tree grows like (m+n+1)!"
            ),
        });
    }
    let k = (m + n + 1) as u8;
    let all: u32 = cards_of(u32::MAX)
        .take(k as usize)
        .fold(0, |a, c| a | (1 << c));
    let mut deals = Vec::new();
    for table in 1..=k {
        let rest = all & !(1 << table);
        // Every subset of `rest` with m cards, in increasing order of its bit mask.
        let mut sub = rest;
        let mut subsets = Vec::new();
        loop {
            if sub.count_ones() as usize == m {
                subsets.push(sub);
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & rest;
        }
        subsets.reverse();
        for shrek in subsets {
            deals.push((table, [shrek, rest & !shrek]));
        }
    }
    let mut builder = Builder {
        b: GameBuilder::new(format!("shrek-donkey(m={m},n={n})"), "Shrek", "Donkey"),
        all,
        views: HashMap::new(),
    };
    let root = builder.b.root();
    let labels: Vec<String> = deals
        .iter()
        .map(|(t, h)| {
            format!(
                "table {t}, Shrek {}, Donkey {}",
                format_cards(h[0]),
                format_cards(h[1])
            )
        })
        .collect();
    let children = builder.b.chance_uniform(root, labels)?;
    let mut history = Vec::new();
    for (child, (table, hands)) in children.into_iter().zip(deals) {
        builder.play(child, hands, table, &mut history, 0)?;
    }
    let mut views_by_label = builder.views;
    let game = builder.b.build()?;
    let views = [0, 1].map(|p| {
        game.infosets[p]
            .iter()
            .map(|set| {
                views_by_label
                    .remove(&(p, set.label.clone()))
                    .expect("every information set was recorded while building")
            })
            .collect()
    });
    Ok(ExplicitGame { m, n, game, views })
}

/// The dynamic programme's equilibrium, played in the explicit game.
///
/// At each information set the player derives the DP state from what it knows:
/// - if it named a card not in its hand and the opponent could not show it, that card is on the
///   table: guess it;
/// - if the opponent's last name went unrefuted, believe it (guess that card) with the DP's
///   believe probability for the opponent's state at naming time, else play on;
/// - playing on in state `(own, opp)` (live own cards; unseen unnamed cards minus the table):
///   guess, name an unseen card, or name an own live card with the DP's probabilities, each
///   uniformly over its cards (uniform so that the named card's label tells the opponent nothing).
///
/// `table` must be solved for `(eg.m, eg.n)`.
pub fn dp_profile<T: Scalar>(eg: &ExplicitGame, table: &CardGuessing<T>) -> Profile<T> {
    let game = &eg.game;
    let mut profile = Profile::<T>::uniform(game);
    for p in 0..2 {
        for (id, view) in eg.views[p].iter().enumerate() {
            let mix = view_mix(view, table);
            let range = game.infosets[p][id].action_range();
            for (slot, value) in profile.probs[p][range].iter_mut().zip(mix) {
                *slot = value;
            }
        }
    }
    profile
}

fn count<T: Scalar>(k: usize) -> T {
    T::from_rational(&int(k as i64))
}

/// The DP's mix over `view.moves`.
fn view_mix<T: Scalar>(view: &InfosetView, table: &CardGuessing<T>) -> Vec<T> {
    let me = view.player;
    let mut mix = vec![T::zero(); view.moves.len()];
    let index = |mv: Move| {
        view.moves
            .iter()
            .position(|&x| x == mv)
            .expect("the DP only plays legal moves")
    };
    let hand = view.hand;
    if let Some(h) = view
        .history
        .iter()
        .find(|h| h.player == me && !h.shown && hand & (1 << h.card) == 0)
    {
        mix[index(Move::Guess(h.card))] = T::one();
        return mix;
    }
    let all = view.moves.iter().fold(0u32, |acc, mv| match *mv {
        Move::Guess(c) | Move::Name(c) => acc | (1 << c),
    }) | view.history.iter().fold(0, |acc, h| acc | (1 << h.card))
        | hand;
    let named = view.history.iter().fold(0u32, |acc, h| acc | (1 << h.card));
    let own_live = hand & !named;
    let unseen = all & !hand & !named;
    let a = own_live.count_ones() as usize;
    let u = unseen.count_ones() as usize;
    let mut rest = T::one();
    if let Some(last) = view.history.last() {
        if last.player != me && !last.shown {
            // The opponent had `u` live cards when it named (the named one included if a bluff).
            let believe = if u == 0 {
                T::one()
            } else {
                table
                    .strategy(u, a)
                    .expect("state within the solved table")
                    .believe
            };
            rest = T::one() - believe.clone();
            mix[index(Move::Guess(last.card))] = believe;
        }
    }
    if u == 0 {
        // Off the equilibrium path (the opponent knew the table card and did not guess it).
        let guesses: Vec<usize> = (0..view.moves.len())
            .filter(|&i| matches!(view.moves[i], Move::Guess(_)))
            .collect();
        let share = rest / count(guesses.len());
        for i in guesses {
            mix[i] = mix[i].clone() + share.clone();
        }
        return mix;
    }
    let s = table
        .strategy(a, u - 1)
        .expect("state within the solved table");
    let per_unseen = rest.clone() / count(u);
    for c in cards_of(unseen) {
        let g = index(Move::Guess(c));
        mix[g] = mix[g].clone() + per_unseen.clone() * s.guess.clone();
        let nm = index(Move::Name(c));
        mix[nm] = mix[nm].clone() + per_unseen.clone() * s.honest.clone();
    }
    if a > 0 {
        let per_own = rest / count(a);
        for c in cards_of(own_live) {
            let nm = index(Move::Name(c));
            mix[nm] = mix[nm].clone() + per_own.clone() * s.bluff.clone();
        }
    }
    mix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{expected_value, exploitability};
    use crate::scalar::Rational;
    use num_traits::Zero;

    #[test]
    fn sizes_of_small_games() {
        let g = build_explicit(0, 0).unwrap().game;
        // One deal; Shrek guesses card 1 (and wins) or names it, after which Donkey guesses it.
        assert_eq!(g.nodes.len(), 5);
        let g = build_explicit(1, 0).unwrap().game;
        // Two deals; Shrek guesses the other card, names either card.
        assert_eq!(g.num_infosets(), 2 + 4 + 2);
        assert_eq!(g.nodes.len(), 1 + 2 * 12);
    }

    #[test]
    fn dp_profile_is_an_exact_equilibrium_for_tiny_games() {
        for (m, n) in [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (2, 0)] {
            let eg = build_explicit(m, n).unwrap();
            let t = CardGuessing::<Rational>::solve(m, n);
            let prof = dp_profile(&eg, &t);
            let e = exploitability(&eg.game, &prof);
            assert!(e.nash_conv.is_zero(), "({m},{n}): {}", e.nash_conv);
            assert_eq!(expected_value(&eg.game, &prof), t.win_probabilities().0);
        }
    }
}

/// Largest `m + n` for which [`certify_dp`] also solves the explicit game by the exact
/// sequence-form LP (m + n = 3 takes under 0.2 s; (1, 3) takes tens of seconds).
pub const MAX_LP_CHECK_CARDS: usize = 3;

/// What [`certify_dp`] found.
#[derive(Clone, Debug)]
pub struct DpCertificate {
    /// Nodes of the explicit game.
    pub nodes: usize,
    /// Its information sets.
    pub infosets: usize,
    /// The DP's strategies' value in the explicit game (Shrek's winning probability).
    pub value: crate::scalar::Rational,
    /// The DP's own value.
    pub dp_value: crate::scalar::Rational,
    /// The DP's strategies' NashConv in the explicit game, by exact best responses.
    pub nash_conv: crate::scalar::Rational,
    /// Seconds to build the game and certify the strategies.
    pub seconds: f64,
    /// The exact LP's value of the explicit game and its seconds (`m + n` at most
    /// [`MAX_LP_CHECK_CARDS`]).
    pub lp: Option<(crate::scalar::Rational, f64)>,
}

impl DpCertificate {
    /// Whether the DP's strategies are an exact equilibrium of the explicit game with the DP's
    /// value (and the LP's, when it ran).
    pub fn certified(&self) -> bool {
        num_traits::Zero::is_zero(&self.nash_conv)
            && self.value == self.dp_value
            && self.lp.as_ref().is_none_or(|(v, _)| *v == self.dp_value)
    }
}

/// Builds the explicit game of (m, n), plays the exact DP's strategies in it and evaluates them
/// with exact best responses, and for small games solves it by the exact LP too; `stage` is
/// told what is being done. [`DpCertificate::certified`] says whether they agree.
pub fn certify_dp(m: usize, n: usize, mut stage: impl FnMut(&str)) -> Result<DpCertificate> {
    use crate::scalar::Rational;
    let started = std::time::Instant::now();
    stage("building the explicit game");
    let eg = build_explicit(m, n)?;
    stage(&format!(
        "certifying the DP's strategies ({} nodes)",
        eg.game.nodes.len()
    ));
    let table = CardGuessing::<Rational>::solve(m, n);
    let profile = dp_profile(&eg, &table);
    let e = crate::eval::exploitability(&eg.game, &profile);
    let value = crate::eval::expected_value(&eg.game, &profile);
    let seconds = started.elapsed().as_secs_f64();
    let lp = if m + n <= MAX_LP_CHECK_CARDS {
        stage("solving the explicit game by the exact LP");
        let started = std::time::Instant::now();
        let sol = crate::exact::solve_exact(&eg.game).map_err(|e| {
            crate::error::Error::Invalid(format!("solving the explicit game by the exact LP: {e}"))
        })?;
        Some((sol.value, started.elapsed().as_secs_f64()))
    } else {
        None
    };
    Ok(DpCertificate {
        nodes: eg.game.nodes.len(),
        infosets: eg.game.num_infosets(),
        value,
        dp_value: table.win_probabilities().0,
        nash_conv: e.nash_conv,
        seconds,
        lp,
    })
}
