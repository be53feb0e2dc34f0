//! The spot engine against a brute-force reference: each player's expected chips and best
//! response computed hand against hand (every pair of hands, every runout dealt card by
//! card, every showdown evaluated), from the solver's average strategy; and the engine's
//! results for any thread count.

use bluff::cfr::RegretParams;
use bluff::holdem::cards::{cards_of, CardSet};
use bluff::holdem::eval::evaluate;
use bluff::holdem::solver::{Deals, Game, GameKind, Precision, Solver};
use bluff::holdem::spot::Spot;
use bluff::holdem::tree::NodeKind;
use std::collections::HashMap;

fn spot(text: &str) -> Spot {
    Spot::parse(text).unwrap()
}

struct Reference<'a> {
    game: &'a Game,
    solver: &'a Solver,
    index: HashMap<(u32, CardSet), usize>,
    rake: f64,
    cap: f64,
}

impl Reference<'_> {
    fn new<'a>(solver: &'a Solver, rake: f64, cap: f64) -> Reference<'a> {
        let game = &solver.game;
        let index = game
            .nodes
            .iter()
            .enumerate()
            .map(|(i, g)| ((g.tree_node, g.board), i))
            .collect();
        Reference {
            game,
            solver,
            index,
            rake,
            cap,
        }
    }

    fn cards(&self, p: usize, i: usize) -> CardSet {
        let h = self.game.hands[p][i];
        h.0.bit() | h.1.bit()
    }

    /// Player `p`'s payoff with hand `i` against `j` at tree node `t` on a full board.
    fn showdown(&self, p: usize, i: usize, j: usize, board: CardSet, c: f64) -> f64 {
        let pot = self.game.pot;
        let r = (self.rake * (pot + 2.0 * c)).min(self.cap);
        let a = evaluate(board | self.cards(p, i));
        let b = evaluate(board | self.cards(1 - p, j));
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => pot + c - r,
            std::cmp::Ordering::Less => -c,
            std::cmp::Ordering::Equal => (pot - r) / 2.0,
        }
    }

    /// Every runout of `board` to five cards, each with its probability given hands
    /// `dead` (dealt card by card).
    fn runouts(&self, board: CardSet, dead: CardSet, out: &mut Vec<(CardSet, f64)>, prob: f64) {
        if board.count_ones() == 5 {
            out.push((board, prob));
            return;
        }
        let left = cards_of(self.game.deck & !board & !dead);
        for c in &left {
            self.runouts(board | c.bit(), dead, out, prob / left.len() as f64);
        }
    }

    /// Hand `i` of player `p`: its counterfactual value at tree node `t` on `board`
    /// against the opponent's reach `opp`; `br`: best response, else the average strategy.
    fn value(&self, p: usize, i: usize, t: usize, board: CardSet, opp: &[f64], br: bool) -> f64 {
        let o = 1 - p;
        let mine = self.cards(p, i);
        let tn = &self.game.tree.nodes[t];
        match tn.kind {
            NodeKind::Fold(f) => {
                let c = [tn.committed[0] as f64, tn.committed[1] as f64];
                let pot = self.game.pot;
                let r = (self.rake * (pot + 2.0 * c[0].min(c[1]))).min(self.cap);
                let pay = if f as usize == p {
                    -c[p]
                } else {
                    pot + c[o] - r
                };
                (0..opp.len())
                    .filter(|&j| self.cards(o, j) & (mine | board) == 0)
                    .map(|j| opp[j] * pay)
                    .sum()
            }
            NodeKind::Showdown => {
                let c = tn.committed[0] as f64;
                let mut total = 0.0;
                for (j, &reach) in opp.iter().enumerate() {
                    let theirs = self.cards(o, j);
                    if theirs & (mine | board) != 0 || reach == 0.0 {
                        continue;
                    }
                    let mut runs = Vec::new();
                    self.runouts(board, mine | theirs, &mut runs, 1.0);
                    for (b, q) in runs {
                        total += reach * q * self.showdown(p, i, j, b, c);
                    }
                }
                total
            }
            NodeKind::Chance => {
                let child = tn.first_child as usize;
                // The deal is uniform over the cards not on the board nor in any hand: four
                // fewer than the deck's cards off the board.
                let n = (self.game.deck & !board).count_ones() as f64 - 4.0;
                let mut total = 0.0;
                for c in cards_of(self.game.deck & !board & !mine) {
                    let opp_c: Vec<f64> = (0..opp.len())
                        .map(|j| {
                            if self.cards(o, j) & c.bit() != 0 {
                                0.0
                            } else {
                                opp[j]
                            }
                        })
                        .collect();
                    total += self.value(p, i, child, board | c.bit(), &opp_c, br) / n;
                }
                total
            }
            NodeKind::Decision(a) => {
                let g = self.index[&(t as u32, board)];
                assert_eq!(self.game.nodes[g].kind, GameKind::Decision(a));
                let k = tn.num_children as usize;
                let avg = self.solver.average_at(g);
                let kids: Vec<usize> = tn.children().collect();
                if a as usize == p {
                    let vals: Vec<f64> = kids
                        .iter()
                        .map(|&c| self.value(p, i, c, board, opp, br))
                        .collect();
                    if br {
                        vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                    } else {
                        (0..k).map(|x| avg[i * k + x] * vals[x]).sum()
                    }
                } else {
                    kids.iter()
                        .enumerate()
                        .map(|(x, &c)| {
                            let opp_a: Vec<f64> =
                                (0..opp.len()).map(|j| opp[j] * avg[j * k + x]).collect();
                            self.value(p, i, c, board, &opp_a, br)
                        })
                        .sum()
                }
            }
        }
    }

    /// Player `p`'s expected chips (or best response), hand pairs weighted.
    fn total(&self, p: usize, br: bool) -> f64 {
        let g = self.game;
        let o = 1 - p;
        let mut num = 0.0;
        let mut den = 0.0;
        for i in 0..g.hands[p].len() {
            for j in 0..g.hands[o].len() {
                if self.cards(p, i) & self.cards(o, j) == 0 {
                    den += g.weights[p][i] * g.weights[o][j];
                }
            }
            num += g.weights[p][i] * self.value(p, i, 0, g.board, &g.weights[o], br);
        }
        num / den
    }
}

fn check_against_reference(text: &str, params: RegretParams, iterations: u64, rake: (f64, f64)) {
    let s = spot(text);
    let game = Game::build(&s, 1_000_000).unwrap();
    let mut solver = Solver::new(game, params, 1);
    solver.iterate(iterations);
    let v = solver.values();
    let r = Reference::new(&solver, rake.0, rake.1);
    for p in 0..2 {
        let ev = r.total(p, false);
        let br = r.total(p, true);
        assert!(
            (ev - v.ev[p]).abs() < 1e-9,
            "player {p}: EV {} against the reference's {ev}",
            v.ev[p]
        );
        assert!(
            (br - v.best_response[p]).abs() < 1e-9,
            "player {p}: best response {} against the reference's {br}",
            v.best_response[p]
        );
    }
    assert!(v.exploitability >= -1e-9);
}

const RIVER: &str = r#"
board = "QsJh2h8d7c"
oop_range = "AA,KK,QQ,AKs,JTs,T9s,65s,22"
ip_range = "KK,QJs,AQo,98s,33,T9s"
pot = 100
stack = 200
river_bet = "50%, a"
river_raise = "100%"
"#;

#[test]
fn river_values_equal_the_hand_against_hand_reference() {
    check_against_reference(RIVER, RegretParams::discounted_default(), 50, (0.0, 0.0));
    check_against_reference(RIVER, RegretParams::vanilla(), 7, (0.0, 0.0));
    let raked = format!("{RIVER}rake = 0.05\nrake_cap = 8\n");
    check_against_reference(&raked, RegretParams::cfr_plus(), 30, (0.05, 8.0));
}

#[test]
fn river_exploitability_falls_to_near_zero() {
    let game = Game::build(&spot(RIVER), 1_000_000).unwrap();
    let mut solver = Solver::new(game, RegretParams::discounted_default(), 1);
    solver.iterate(2000);
    let v = solver.values();
    assert!(v.exploitability < 1e-3 * 100.0, "{v:?}");
    // Unraked, the two expected values share the pot.
    assert!((v.ev[0] + v.ev[1] - 100.0).abs() < 1e-9);
}

#[test]
fn turn_and_flop_all_ins_equal_the_reference() {
    check_against_reference(
        TURN_ALL_IN,
        RegretParams::discounted_default(),
        20,
        (0.0, 0.0),
    );
    check_against_reference(FLOP_ALL_IN, RegretParams::cfr_plus(), 10, (0.05, 3.0));
}

/// A turn spot with an all-in on the turn (its river runouts evaluated at a terminal).
const TURN_ALL_IN: &str = r#"
board = "QsJh2h8d"
oop_range = "AA,QQ,AhKh,JTs,Tc9c,22"
ip_range = "KK,QJs,AQo,9h8h,33"
pot = 100
stack = 150
turn_bet = "75%, a"
turn_raise = ""
river_bet = "50%"
river_raise = ""
"#;

/// A raked flop spot whose only bet is all-in (every turn and river runout at a terminal).
const FLOP_ALL_IN: &str = r#"
board = "QsJh2h"
oop_range = "AA,AhKh,Tc9c"
ip_range = "KK,QcJc,9h8h"
pot = 100
stack = 100
flop_bet = "a"
flop_raise = ""
turn_bet = ""
turn_raise = ""
river_bet = ""
river_raise = ""
rake = 0.05
rake_cap = 3
"#;

/// A small turn spot: a bet and a raise on the turn, a bet on the river.
const TURN: &str = r#"
board = "QsJh2h8d"
oop_range = "AA,QQ,AKs,JTs,T9s,22"
ip_range = "KK,QJs,AQo,98s,33"
pot = 100
stack = 300
turn_bet = "75%"
turn_raise = "50%"
river_bet = "50%"
river_raise = ""
"#;

#[test]
fn threads_give_the_same_bits() {
    // The all-in spots' runouts are evaluated on the pool (`Game::showdown_values`) with
    // more than one thread and in turn with one.
    for text in [TURN, TURN_ALL_IN, FLOP_ALL_IN] {
        let run = |threads| {
            let game = Game::build(&spot(text), 1_000_000).unwrap();
            let mut solver = Solver::new(game, RegretParams::dcfr_plus(), threads);
            solver.iterate(15);
            let v = solver.values();
            (
                v.exploitability.to_bits(),
                v.ev[0].to_bits(),
                solver.average_at(0),
            )
        };
        let one = run(1);
        assert_eq!(one, run(2), "{text}");
        assert_eq!(one, run(3), "{text}");
    }
}

#[test]
fn checks_give_the_exploitability_of_the_full_values() {
    // Unraked, the check's two best-response walks and the pot against the four walks of
    // `values`; raked, the same four walks (the same bits).
    for raked in [false, true] {
        let text = if raked {
            format!("{TURN}rake = 0.05\nrake_cap = 3\n")
        } else {
            TURN.to_string()
        };
        let game = Game::build(&spot(&text), 1_000_000).unwrap();
        let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
        for _ in 0..3 {
            solver.iterate(5);
            let c = solver.check();
            let v = solver.values();
            assert_eq!(c.best_response, v.best_response);
            assert_eq!(solver.values_after(&c), v);
            if raked {
                assert_eq!(c.ev, Some(v.ev));
                assert_eq!(c.exploitability.to_bits(), v.exploitability.to_bits());
            } else {
                assert_eq!(c.ev, None);
                assert!(v.exploitability > 0.01, "{v:?}");
                assert!(
                    (c.exploitability - v.exploitability).abs() < 1e-9,
                    "{c:?} against {v:?}"
                );
            }
        }
    }
}

/// The bits of a vector (so that +0 and -0 differ).
fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn zero_opponent_reach_skips_give_the_same_bits() {
    // The walks that skip the opponent's strategies and the terminals' sums under an
    // all-zero opponent reach against the walks that compute them: per hand, the sign of
    // zero included, at every node from a zero reach (of mixed signs), and after training.
    let turn = r#"
board = "QsJh2h8d"
oop_range = "AA,QQ,AKs,JTs,T9s,22"
ip_range = "KK,QJs,AQo,98s,33"
pot = 100
stack = 300
turn_bet = "75%, a"
turn_raise = "50%"
river_bet = "50%"
river_raise = ""
rake = 0.05
rake_cap = 3
"#;
    let train = |on: bool, params: RegretParams| {
        let game = Game::build(&spot(turn), 1_000_000).unwrap();
        let mut solver = Solver::new(game, params, 2);
        solver.set_zero_reach_skip(on);
        solver.iterate(30);
        solver
    };
    for params in [RegretParams::cfr_plus(), RegretParams::dcfr_plus()] {
        let (mut on, mut off) = (train(true, params), train(false, params));
        let weights = on.game.weights.clone();
        // The player's own weights, the opponent's reach zeros of mixed signs.
        assert_same_bits(&mut on, &mut off, |p| {
            let mut r = [weights[0].clone(), weights[1].clone()];
            for (h, x) in r[1 - p].iter_mut().enumerate() {
                *x = if h % 3 == 0 { -0.0 } else { 0.0 };
            }
            r
        });
    }
}

/// Two solvers trained alike give the same bits: their values, every node's average strategy,
/// and at every node each player's values (average and best response) from the reaches
/// `reach(p)` gives for player `p`'s walk.
fn assert_same_bits(on: &mut Solver, off: &mut Solver, reach: impl Fn(usize) -> [Vec<f64>; 2]) {
    assert_eq!(on.values(), off.values());
    for g in 0..on.game.nodes.len() {
        assert_eq!(
            bits(&on.average_at(g)),
            bits(&off.average_at(g)),
            "node {g}"
        );
        for p in 0..2 {
            let r = reach(p);
            let r = [&r[0][..], &r[1][..]];
            let (a, b) = (on.node_values(g, p, r), off.node_values(g, p, r));
            assert_eq!(bits(&a.average), bits(&b.average), "node {g} player {p}");
            assert_eq!(bits(&a.best_response), bits(&b.best_response));
        }
    }
}

#[test]
fn batched_terminals_give_the_same_bits() {
    // The walks that evaluate terminals together, four at a time (a river subtree's showdowns
    // and folds, a street's all-ins on each runout), against the walks that evaluate each
    // terminal alone: the same bits after training (every node's average strategy, the
    // values), and at every node from the weights, on a raked flop spot (the turn's all-ins
    // of every flop line together), a raked turn spot (more than four showdowns below some
    // turn lines, all-ins on the turn) and on a river spot (the root's walk batched).
    let river = r#"
board = "QsJh2h8d3c"
oop_range = "AA,QQ,AKs,JTs,T9s,22,K9s,A5s:0.5"
ip_range = "KK,QJs,AQo,98s,33,J9s,T8s:0.25"
pot = 100
stack = 400
river_bet = "33%, 75%"
river_raise = "50%, a"
"#;
    let turn = r#"
board = "QsJh2h8d"
oop_range = "AA,QQ,AKs,JTs,T9s,22"
ip_range = "KK,QJs,AQo,98s,33"
pot = 100
stack = 300
turn_bet = "75%, a"
turn_raise = "50%"
river_bet = "50%, 100%"
river_raise = "60%"
rake = 0.05
rake_cap = 3
"#;
    // A raked flop on a reduced deck: all-ins on the flop, and on the turn below three flop
    // lines (check-check, bet-call, check-bet-call), which the flop's walk evaluates
    // together, card by card, before it walks the turn.
    let flop = r#"
board = "QsJhTh"
deck = "89TJQKA/sh"
oop_range = "AA,KK,QQ,AK,KQ,98,T9,88"
ip_range = "AA,KK,JJ,AQ,KJ,99,A8,K9"
pot = 20
stack = 100
flop_bet = "50%, a"
flop_raise = "a"
turn_bet = "75%, a"
turn_raise = "a"
river_bet = "50%"
river_raise = ""
rake = 0.05
rake_cap = 3
"#;
    // Two threads evaluate an all-in's runouts in chunks on the pool, one thread in turn.
    for (text, precision, threads) in [
        (flop, Precision::F64, 2),
        (flop, Precision::F32, 1),
        (turn, Precision::F64, 2),
        (turn, Precision::F32, 1),
        (river, Precision::F64, 2),
        (river, Precision::Compressed16, 1),
    ] {
        let train = |on: bool, params: RegretParams| {
            let game = Game::build(&spot(text), 1_000_000).unwrap();
            let mut solver = Solver::with_precision(game, params, threads, precision);
            solver.set_batch(on);
            solver.iterate(25);
            solver
        };
        for params in [RegretParams::cfr_plus(), RegretParams::dcfr_plus()] {
            let (mut on, mut off) = (train(true, params), train(false, params));
            let weights = on.game.weights.clone();
            assert_same_bits(&mut on, &mut off, |_| weights.clone());
        }
    }
}

#[test]
fn root_equity_of_aces_against_kings_on_a_dry_river() {
    // AA against KK on 2c3d7h9sJc: aces always win; the kings' equity is 0.
    let text = r#"
board = "2c3d7h9sJc"
oop_range = "AA"
ip_range = "KK"
pot = 10
stack = 10
river_bet = "a"
river_raise = ""
"#;
    let game = Game::build(&spot(text), 1000).unwrap();
    assert_eq!(game.root_equity(), [1.0, 0.0]);
}

#[test]
fn the_3betpot_flop_root_equity_is_pios() {
    // PioSOLVER's figure for its "3betpotFAST" preset, as postflop-solver's test
    // solve_pio_preset_normal quotes it: OOP's equity 0.55347 (to 1e-5).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/spots/3betpot_flop.toml"
    ))
    .unwrap();
    let game = Game::without_deals(&spot(&text)).unwrap();
    let eq = game.root_equity();
    assert!((eq[0] - 0.55347).abs() < 1e-5, "{eq:?}");
    assert!((eq[0] + eq[1] - 1.0).abs() < 1e-12);
}

/// A turn spot whose board and ranges are symmetric under swapping clubs and diamonds.
const SYMMETRIC_TURN: &str = r#"
board = "QsJh2h8s"
oop_range = "AA,KK,A9s,T9s,KQo"
ip_range = "QQ,99,AKs,KJs,JTo"
pot = 100
stack = 300
turn_bet = "50%"
turn_raise = "a"
river_bet = "75%"
river_raise = "a"
"#;

/// A reduced-deck flop spot with the same symmetry (and nested: after a heart turn, clubs and
/// diamonds are still equivalent for the river).
const SYMMETRIC_FLOP: &str = r#"
board = "QhJh9h"
deck = "9TJQKA/cdh"
oop_range = "AA,KK,TT,AK,KT"
ip_range = "QQ,AQ,KQ,AT,JT"
pot = 60
stack = 200
flop_bet = "50%"
flop_raise = "a"
turn_bet = "60%"
turn_raise = "a"
river_bet = "75%"
river_raise = "a"
"#;

#[test]
fn isomorphic_deals_give_the_runs_of_every_deal() {
    for text in [SYMMETRIC_TURN, SYMMETRIC_FLOP] {
        let s = spot(text);
        let pot = s.pot as f64;
        let every = Game::build(&s, 10_000_000).unwrap();
        let iso = Game::build_with(&s, 10_000_000, Deals::Isomorphic).unwrap();
        // Clubs and diamonds swap; the isomorphic game walks fewer deals.
        assert_eq!(iso.symmetries.perms, vec![[1, 0, 2, 3]]);
        assert!(
            iso.nodes.len() < every.nodes.len() * 4 / 5,
            "{} {}",
            iso.nodes.len(),
            every.nodes.len()
        );
        // Asymmetric weights break the symmetry.
        let lopsided = spot(&text.replace("\"AA,", "\"AcAh:0.5,AdAh,"));
        let g = Game::build_with(&lopsided, 10_000_000, Deals::Isomorphic);
        assert!(g.unwrap().symmetries.perms.is_empty());
        // Ten iterations: the two runs differ by rounding only (the values of a permuted deal
        // are summed in another order), and further on a regret that is zero in exact
        // arithmetic can take either sign in either run, which parts them (as the spot engine
        // and the reference route part, see docs/holdem.md).
        let mut simultaneous = RegretParams::discounted_default();
        simultaneous.alternating = false;
        for params in [RegretParams::dcfr_plus(), simultaneous] {
            let mut runs = Vec::new();
            for deals in [Deals::Every, Deals::Isomorphic] {
                let game = Game::build_with(&s, 10_000_000, deals).unwrap();
                let mut solver = Solver::new(game, params, 1);
                solver.iterate(10);
                runs.push(solver.values());
            }
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * pot;
            assert!(runs[0].exploitability > 1e-3 * pot, "{runs:?}");
            assert!(
                close(runs[0].exploitability, runs[1].exploitability),
                "{runs:?}"
            );
            for p in 0..2 {
                assert!(close(runs[0].ev[p], runs[1].ev[p]), "{runs:?}");
                assert!(
                    close(runs[0].best_response[p], runs[1].best_response[p]),
                    "{runs:?}"
                );
            }
        }
        // The same bits on 1 and 2 threads.
        let bits = |threads| {
            let game = Game::build_with(&s, 10_000_000, Deals::Isomorphic).unwrap();
            let mut solver = Solver::new(game, RegretParams::dcfr_plus(), threads);
            solver.iterate(5);
            let v = solver.values();
            (
                v.exploitability.to_bits(),
                v.ev[0].to_bits(),
                solver.average_at(0),
            )
        };
        assert_eq!(bits(1), bits(2));
    }
}
