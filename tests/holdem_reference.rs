//! The independent route: spots built as ordinary bluff games (`holdem::reference`), solved by
//! the exact LP and CFR, checked against closed forms and direct enumeration.

use bluff::cfr::RegretParams;
use bluff::holdem::cards::{cards_of, Card};
use bluff::holdem::eval::evaluate;
use bluff::holdem::reference::{self, ReferenceError, DEFAULT_MAX_NODES};
use bluff::holdem::solver::{Game, Precision, Solver};
use bluff::holdem::spot::Spot;
use bluff::scalar::{rat, Rational};

/// A river spot on the full deck: OOP holds one bluff catcher (QcQh), IP the nuts (AcAh, set
/// of aces on an ace-high board) with weight `value` and two air hands (JdTd, JcTc) with
/// weight 1; OOP has no bet, IP bets `bet`% of the pot, no raises. Every pair is compatible.
fn clairvoyance_spot(value: &str, bet: &str) -> String {
    format!(
        r#"
board = "As8d7c4h2s"
oop_range = "QcQh"
ip_range = "AcAh:{value},JdTd,JcTc"
pot = 100
stack = 1000
oop_river_bet = ""
ip_river_bet = "{bet}%"
river_raise = ""
"#
    )
}

/// The polarised river game in closed form: IP value-bets all its nuts (share `v`) and bluffs
/// air in the ratio `b = v B / (P + B)` that makes the call indifferent; OOP then wins the pot
/// exactly when IP checks (air that does not bluff), so `EV_oop = P (1 - v - b)` (when air
/// suffices to bluff: `v + b <= 1`).
fn closed_form_oop_value(pot: i64, bet: i64, v: Rational) -> Rational {
    let (p, b) = (rat(pot, 1), rat(bet, 1));
    let bluffs = &v * &b / (&p + &b);
    assert!(&v + &bluffs <= rat(1, 1));
    p * (rat(1, 1) - v - bluffs)
}

#[test]
fn exact_lp_on_a_river_spot_matches_the_closed_form() {
    for (value, v, bet) in [
        ("1", rat(1, 3), 100),
        ("0.5", rat(1, 5), 50),
        ("0.25", rat(1, 9), 75),
    ] {
        let spot = Spot::parse(&clairvoyance_spot(value, &bet.to_string())).unwrap();
        let r = reference::game(&spot, DEFAULT_MAX_NODES).unwrap();
        // Unraked: the payoffs add to the pot at every terminal.
        assert!(r.game.is_constant_sum());
        assert_eq!(r.game.constant_sum, rat(100, 1));
        let solved = bluff::exact::solve_exact(&r.game).unwrap();
        let expected = closed_form_oop_value(100, bet, v);
        assert_eq!(solved.value, expected, "value {value}, bet {bet}%");
        // The exact strategy's exploitability is zero, and its EVs are the value and the rest.
        let f = solved.profile.to_f64();
        assert!(r.exploitability(&f).abs() < 1e-9);
        let ev = r.ev(&f);
        let e: f64 = bluff::scalar::rational_to_f64(&expected);
        assert!((ev[0] - e).abs() < 1e-9 && (ev[1] - (100.0 - e)).abs() < 1e-9);
    }
    // With 1/3 nuts and a pot-sized bet: 100 (1 - 1/3 - 1/6) = 50; with 1/5 and half pot:
    // 100 (1 - 1/5 - 1/15) = 220/3.
    assert_eq!(closed_form_oop_value(100, 100, rat(1, 3)), rat(50, 1));
    assert_eq!(closed_form_oop_value(100, 50, rat(1, 5)), rat(220, 3));
}

#[test]
fn raked_spots_are_general_sum_and_the_rake_is_paid_by_the_winner() {
    // Rake 10% capped at 25: a called pot-sized bet makes a final pot of 300, raked 25 (the
    // cap); a fold to the bet leaves the uncalled 100 out of the raked pot: 100 x 10% = 10.
    let text = clairvoyance_spot("1", "100") + "rake = 0.1\nrake_cap = 25\n";
    let spot = Spot::parse(&text).unwrap();
    let r = reference::game(&spot, DEFAULT_MAX_NODES).unwrap();
    assert!(!r.game.is_constant_sum());
    let mut payoffs: Vec<(Rational, Rational)> = (0..r.game.terminals.len())
        .map(|t| (r.game.payoff(t, 0), r.game.payoff(t, 1)))
        .collect();
    payoffs.sort();
    payoffs.dedup();
    let r2 = |a: i64, b: i64| (rat(a, 1), rat(b, 1));
    // OOP folds: IP nets 100 - 10; OOP calls and loses: IP nets 300 - 25 - 100; OOP calls
    // and wins: 175 to OOP; checked down: OOP wins 100 - 10 = 90 or loses to the nuts.
    let mut expected = vec![
        r2(0, 90),
        r2(-100, 175),
        r2(175, -100),
        r2(90, 0),
        r2(0, 90),
    ];
    expected.sort();
    expected.dedup();
    assert_eq!(payoffs, expected);
    // CFR on this route refuses the general-sum game.
    assert!(matches!(
        reference::cfr_exploitability(&spot, RegretParams::cfr_plus(), 1, DEFAULT_MAX_NODES),
        Err(ReferenceError::Raked)
    ));
}

/// Each player's checked-down share of the pot by direct enumeration: every compatible pair
/// of combos weighted `w w'`, every runout of the remaining cards equally likely.
fn equity_by_enumeration(spot: &Spot) -> [f64; 2] {
    let board = spot.board.set();
    let missing = 5 - spot.board.len();
    let (mut total, mut oop) = (0.0, 0.0);
    for a in &spot.combos[0] {
        for b in &spot.combos[1] {
            if a.set() & b.set() != 0 {
                continue;
            }
            let w = a.weight * b.weight;
            let left: Vec<Card> = cards_of(spot.deck.cards() & !board & !a.set() & !b.set());
            let runouts: Vec<u64> = match missing {
                0 => vec![0],
                1 => left.iter().map(|c| c.bit()).collect(),
                _ => {
                    // Ordered deals (turn then river), as the game deals them.
                    let mut v = Vec::new();
                    for x in &left {
                        for y in &left {
                            if x != y {
                                v.push(x.bit() | y.bit());
                            }
                        }
                    }
                    v
                }
            };
            let mut share = 0.0;
            for r in &runouts {
                let s0 = evaluate(board | r | a.set());
                let s1 = evaluate(board | r | b.set());
                share += match s0.cmp(&s1) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
            total += w;
            oop += w * share / runouts.len() as f64;
        }
    }
    [oop / total, 1.0 - oop / total]
}

#[test]
fn root_equity_matches_direct_enumeration_on_reduced_decks() {
    for (board, bets) in [
        (
            "KsQhTs",
            "flop_bet = \"50%\"\nflop_raise = \"\"\nturn_bet = \"50%\"\nturn_raise = \"\"\nriver_bet = \"a\"\nriver_raise = \"\"",
        ),
        (
            "KsQhTs9h",
            "turn_bet = \"50%\"\nturn_raise = \"a\"\nriver_bet = \"75%\"\nriver_raise = \"\"",
        ),
    ] {
        let text = format!(
            r#"
deck = "9TJQKA/sh"
board = "{board}"
oop_range = "AA,KK:0.5,QJs,AJ:0.75,JT,J9s"
ip_range = "QQ,TT,99:0.25,AK,KJs,AT"
pot = 20
stack = 40
rake = 0.05
rake_cap = 3
{bets}
"#
        );
        let spot = Spot::parse(&text).unwrap();
        let by_route = reference::root_equity(&spot, DEFAULT_MAX_NODES).unwrap();
        let direct = equity_by_enumeration(&spot);
        for p in 0..2 {
            assert!(
                (by_route[p] - direct[p]).abs() < 1e-12,
                "{board}: {by_route:?} against {direct:?}"
            );
        }
        assert!((by_route[0] + by_route[1] - 1.0).abs() < 1e-12);
        // Not a degenerate board: neither range is ahead everywhere.
        assert!(direct[0] > 0.05 && direct[0] < 0.95, "{direct:?}");
    }
}

/// A turn spot on a reduced deck, small enough for CFR in a test.
const TURN_SPOT: &str = include_str!("data/spots/turn_reduced.toml");

/// A turn spot on a reduced deck with a bet and an all-in raise, and no jack in either range
/// (on this board a jack splits many pots, and split pots make exact ties: see below).
const TURN_SPOT_NO_CHOPS: &str = r#"
deck = "9TJQKA/sh"
board = "KsQhTs9h"
oop_range = "AA,KK,AQ,KT:0.5"
ip_range = "QQ,AK,QT,AT:0.75"
pot = 20
stack = 40
turn_bet = "50%"
turn_raise = "a"
river_bet = "75%"
river_raise = ""
"#;

/// A flop spot on a smaller reduced deck, with a bet and a raise size on the flop.
const FLOP_SPOT: &str = r#"
deck = "TJQKA/sh"
board = "KsQhTs"
oop_range = "AA,KK,QJs,AJ,JT:0.5"
ip_range = "QQ,TT,AK,KJs,AT:0.75"
pot = 20
stack = 60
flop_bet = "50%"
flop_raise = "60%"
turn_bet = "50%"
turn_raise = "a"
river_bet = "75%"
river_raise = ""
"#;

/// The reference exploitability after `iterations` of a CFR variant on `spot`: what the spot
/// engine's `--precision f64` run must match to 1e-9 (issue 40, item 5).
fn reference_exploitability(spot: &str, params: RegretParams, iterations: u64) -> f64 {
    let spot = Spot::parse(spot).unwrap();
    reference::cfr_exploitability(&spot, params, iterations, DEFAULT_MAX_NODES)
        .unwrap()
        .exploitability
}

/// The two routes, each running `iterations` of the same CFR variant with the same update
/// mode (both start with uniform strategies and, alternating, update OOP first): the spot
/// engine over its public tree with hand vectors, and the tree kernel over the spot built as an
/// ordinary game. Their exploitability and root EVs (chips, as each defines them) must agree
/// to 1e-9 of the pot with the engine's state in f64, and to 1e-5 of the pot in f32 (the
/// stored regrets and sums rounded to 4-byte floats, everything else in f64).
fn routes_agree(text: &str, params: RegretParams, iterations: u64) {
    let spot = Spot::parse(text).unwrap();
    let pot = spot.pot as f64;
    let by_reference =
        reference::cfr_exploitability(&spot, params, iterations, DEFAULT_MAX_NODES).unwrap();
    // Not a trivial agreement: the strategies are still exploitable.
    assert!(by_reference.exploitability > 1e-4 * pot, "{by_reference:?}");
    for (precision, tolerance) in [(Precision::F64, 1e-9), (Precision::F32, 1e-5)] {
        let game = Game::build(&spot, 10_000_000).unwrap();
        let mut solver = Solver::with_precision(game, params, 1, precision);
        solver.iterate(iterations);
        let by_engine = solver.values();
        let close = |a: f64, b: f64| (a - b).abs() <= tolerance * pot;
        let what = format!(
            "{params:?} after {iterations} in {precision:?}: engine {by_engine:?}, \
             reference {by_reference:?}"
        );
        assert!(
            close(by_engine.exploitability, by_reference.exploitability),
            "{what}"
        );
        for p in 0..2 {
            assert!(close(by_engine.ev[p], by_reference.root_ev[p]), "{what}");
        }
        // The EVs add to the pot (sums over hands are f64 in both precisions).
        assert!((by_engine.ev[0] + by_engine.ev[1] - pot).abs() <= 1e-9 * pot);
    }
}

/// Simultaneous updates (both players' regrets from the same strategies): `params` with
/// `alternating` off.
fn simultaneous(mut params: RegretParams) -> RegretParams {
    params.alternating = false;
    params
}

#[test]
fn the_spot_engine_and_the_ordinary_game_route_give_the_same_cfr_run() {
    // Simultaneous updates, several variants, a turn and a flop spot: the same run to 1e-9 of
    // the pot after 25 iterations.
    for params in [
        RegretParams::vanilla(),
        simultaneous(RegretParams::cfr_plus()),
        simultaneous(RegretParams::discounted_default()),
        simultaneous(RegretParams::dcfr_plus()),
    ] {
        routes_agree(TURN_SPOT_NO_CHOPS, params, 25);
        routes_agree(FLOP_SPOT, params, 25);
    }
    // Alternating updates: the same run while no regret sits on an exact tie. Where two
    // actions have the same value for a hand (a pot split whatever happens, or against a pure
    // strategy), the regret is zero in exact arithmetic and a rounding error of either sign in
    // f64, and regret matching turns that sign into a pure or a mixed strategy: the runs part.
    // The route's tree and sequence kernels part the same way from each other on the same game.
    for params in [
        RegretParams::vanilla_alternating(),
        RegretParams::cfr_plus(),
        RegretParams::discounted_default(),
        RegretParams::dcfr_plus(),
    ] {
        routes_agree(TURN_SPOT, params, 2);
        routes_agree(FLOP_SPOT, params, 2);
    }
}

#[test]
fn cfr_on_the_route_converges_and_agrees_with_the_exact_lp() {
    let spot = Spot::parse(TURN_SPOT).unwrap();
    let r = reference::game(&spot, DEFAULT_MAX_NODES).unwrap();
    let n = reference::num_nodes(&spot, &r.tree);
    assert_eq!(
        n as usize,
        r.game.nodes.len(),
        "the size check counts every node"
    );
    let exact = bluff::exact::solve_exact(&r.game).unwrap();
    let value = bluff::scalar::rational_to_f64(&exact.value);
    let few = reference_exploitability(TURN_SPOT, RegretParams::cfr_plus(), 10);
    let many =
        reference::cfr_exploitability(&spot, RegretParams::cfr_plus(), 400, DEFAULT_MAX_NODES)
            .unwrap();
    assert!(many.exploitability < few / 10.0, "{few} then {many:?}");
    // In a zero-sum game, an average strategy exploitable by e has EV within e of the value
    // (OOP's) and of pot - value (IP's).
    assert!((many.root_ev[0] - value).abs() <= 2.0 * many.exploitability + 1e-9);
    assert!((many.root_ev[0] + many.root_ev[1] - 20.0).abs() < 1e-9);
    assert!((many.exploitability_pot_pct - 5.0 * many.exploitability).abs() < 1e-12);
}

#[test]
fn sizes_are_checked_before_building() {
    let spot = Spot::parse(TURN_SPOT).unwrap();
    let r = reference::game(&spot, DEFAULT_MAX_NODES).unwrap();
    let n = r.game.nodes.len() as u64;
    match reference::game(&spot, n - 1) {
        Err(ReferenceError::TooBig { nodes, limit }) => {
            assert_eq!((nodes, limit), (n, n - 1));
        }
        other => panic!("{other:?}"),
    }
    // A full-deck flop spot is far too big for this route, and says so without building.
    let flop = Spot::parse(
        r#"
board = "QsJh2h"
oop_range = "88+,A8s+,AJo+"
ip_range = "99-22,AJs-A2s,KQo"
pot = 180
stack = 910
flop_bet = "52%"
flop_raise = "45%"
turn_bet = "55%"
turn_raise = "45%"
river_bet = "70%"
river_raise = "45%"
"#,
    )
    .unwrap();
    let e = reference::game(&flop, DEFAULT_MAX_NODES).unwrap_err();
    assert!(e.to_string().contains("above the limit of 5000000"), "{e}");
}
