//! Exact river equilibria (`holdem::river_lp`, `bluff solve RIVER.toml --algo lp`): certified
//! by the rational evaluator, the same value through an exported Gambit file and the exact
//! LP on the ordinary game, agreement with the vector-form CFR engine, and the refusals.

use bluff::eval;
use bluff::exact::{solve_exact_with, ExactOptions};
use bluff::holdem::river_lp::{self, RiverLpError};
use bluff::holdem::spot::Spot;
use bluff::scalar::{int, rational_to_f64, Rational};
use bluff::solve::door::{self, Detail, Quiet, Request, SolveError, Solved, Source, Spelling};
use bluff::strategy::Profile;
use num_traits::Zero;

/// A river spot with more than 100 combos in each range (120 and 152 after card removal).
const WIDE: &str = r#"
board = "QsJh2h8d3c"
oop_range = "77+,ATs+,KTs+,QTs+,JTs,T9s,98s,87s,AJo+,KQo"
ip_range = "99-22,A2s+,K9s+,Q9s+,J9s+,T8s+,97s+,87s,76s,AQo+"
pot = 100
stack = 150
river_bet = "75%"
river_raise = "a"
"#;

/// A river spot on a reduced deck (12 cards, 7 left besides the board), weighted ranges, two
/// bet sizes and a raise.
const REDUCED: &str = r#"
deck = "9TJQKA/sh"
board = "AsAhKs9hTs"
oop_range = "QQ,JJ:0.5,KQ,QJ,QT:0.75,T9"
ip_range = "KQ,JT,J9:0.25,Q9,QJ,Kh9s"
pot = 10
stack = 30
river_bet = "50%, a"
river_raise = "100%"
"#;

fn spot(text: &str) -> Spot {
    Spot::parse(text).expect("a valid spot")
}

fn solve_door(text: &str, request: &Request) -> Result<Solved, SolveError> {
    door::solve(
        Source::Spot {
            text,
            name: "river.toml",
        },
        request,
        Spelling::Cli,
        &mut Quiet,
    )
}

fn lp_request() -> Request {
    Request {
        algo: Some("lp".into()),
        ..Request::default()
    }
}

#[test]
fn a_wide_river_spot_is_certified_exactly() {
    let s = spot(WIDE);
    assert!(s.combos[0].len() > 100 && s.combos[1].len() > 100);
    let solved = river_lp::solve(&s, &ExactOptions::default()).unwrap();
    // The rational evaluator of `src/eval.rs` (not the LP's own certificate).
    let e = eval::exploitability(&solved.reference.game, &solved.solution.profile);
    assert!(e.nash_conv.is_zero(), "NashConv {}", e.nash_conv);
    assert_eq!(e.value, solved.root_ev);
    assert_eq!(&solved.root_ev[0] + &solved.root_ev[1], int(100));
    assert_eq!(solved.size.combos, [s.combos[0].len(), s.combos[1].len()]);
    assert_eq!(
        &solved.root_equity[0] + &solved.root_equity[1],
        Rational::from_integer(1.into())
    );
    // The sequences counted from the tree before building are the game's.
    for p in 0..2 {
        assert_eq!(
            solved.size.sequences[p],
            solved.reference.game.num_sequences(p)
        );
    }
}

#[test]
fn the_reduced_deck_value_is_the_exported_games_and_the_cfr_engines() {
    let s = spot(REDUCED);
    let solved = river_lp::solve(&s, &ExactOptions::default()).unwrap();
    let value = solved.root_ev[0].clone();

    // The spot written as a Gambit file (as `bluff export` writes it), read back as an
    // ordinary game and solved by the exact LP.
    let text =
        bluff::format::efg::write_efg(&bluff::format::efg::game_to_efg(&solved.reference.game))
            .unwrap();
    let path = std::env::temp_dir().join(format!("bluff-river-lp-{}.efg", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let (game, _) = bluff::format::efg::load_efg_file(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let other = solve_exact_with(&game, &ExactOptions::default()).unwrap();
    assert_eq!(other.value, value);

    // The vector-form CFR engine run to 0.002% of the pot: |EV - value| <= NashConv =
    // 2 x exploitability <= 0.004% of the pot, within the 0.01% the exact EVs must agree to.
    let request = Request {
        algo: Some("dcfr+".into()),
        target_pot_pct: Some(0.002),
        iterations: Some(200_000),
        threads: Some(1),
        ..Request::default()
    };
    let cfr = solve_door(REDUCED, &request).unwrap();
    let Detail::Spot(run) = &cfr.detail else {
        panic!("a spot run");
    };
    assert!(run.exploitability_pot_pct <= 0.002);
    for p in 0..2 {
        let exact = rational_to_f64(&solved.root_ev[p]);
        let gap = (run.root_ev[p] - exact).abs() / 10.0 * 100.0;
        assert!(
            gap <= 0.01,
            "player {p}: CFR {} exact {exact}",
            run.root_ev[p]
        );
    }
}

#[test]
fn the_door_solves_a_river_spot_exactly_with_the_spots_fields() {
    let solved = solve_door(REDUCED, &lp_request()).unwrap();
    let Detail::SpotLp(run) = &solved.detail else {
        panic!("a river LP run");
    };
    let direct = river_lp::solve(&spot(REDUCED), &ExactOptions::default()).unwrap();
    assert_eq!(run.root_ev, direct.root_ev);
    assert_eq!(run.pot, 10);
    let Some([door::Value::Exact(v0), door::Value::Exact(v1)]) = &solved.values else {
        panic!("exact values");
    };
    assert_eq!([v0.clone(), v1.clone()], direct.root_ev);
    assert_eq!(solved.nash_conv, Some(door::Value::Exact(int(0))));
}

#[test]
fn exact_exploitability_reads_a_float_strategy_exactly() {
    let s = spot(REDUCED);
    let (r, _) = river_lp::build(&s, u64::MAX, bluff::lp::Method::FloatThenExact).unwrap();
    // Uniform rows in floats are uniform rows in rationals once each row is normalised.
    let e = river_lp::exact_exploitability(&r, |_, node, _, _| {
        vec![1.0 / 3.0; r.tree.nodes[node].children().len()]
    })
    .unwrap();
    let uniform: Profile<Rational> = Profile::uniform(&r.game);
    let expected = eval::exploitability(&r.game, &uniform);
    assert_eq!(e.nash_conv, expected.nash_conv);
    assert!(e.nash_conv > Rational::zero());
    // The LP's equilibrium read back: exactly 0.
    let solved = river_lp::solve(&s, &ExactOptions::default()).unwrap();
    let eq = &solved.solution.profile;
    let e = river_lp::exact_exploitability(&solved.reference, |p, node, dealt, hand| {
        let set = solved.reference.places[p]
            .iter()
            .position(|pl| pl.node == node && pl.dealt == dealt && pl.hand == hand)
            .unwrap();
        let probs = eq.infoset_probs(&solved.reference.game, p, set);
        probs.iter().map(rational_to_f64).collect()
    })
    .unwrap();
    // Rounded to floats the equilibrium is within rounding of 0, and never below it.
    assert!(e.nash_conv >= Rational::zero());
    assert!(rational_to_f64(&e.nash_conv) < 1e-9);
    // A row of the wrong length is refused.
    let bad = river_lp::exact_exploitability(&r, |_, _, _, _| vec![1.0]);
    assert!(matches!(bad, Err(RiverLpError::Strategy(_))));
}

#[test]
fn refusals_name_the_reason() {
    // A turn spot.
    let turn =
        REDUCED.replace("AsAhKs9hTs", "AsAhKs9h") + "turn_bet = \"50%\"\nturn_raise = \"\"\n";
    let e = solve_door(&turn, &lp_request()).err().unwrap().to_string();
    assert!(e.contains("only river spots"), "{e}");
    // A raked river spot: general-sum, naming lcp.
    let raked = format!("{REDUCED}rake = 0.05\nrake_cap = 30\n");
    let e = solve_door(&raked, &lp_request()).err().unwrap().to_string();
    assert!(e.contains("general-sum") && e.contains("lcp"), "{e}");
    assert!(matches!(
        river_lp::solve(&spot(&raked), &ExactOptions::default()),
        Err(RiverLpError::Raked)
    ));
    // Too big for the budget: the LP's size named, refused before building.
    let request = Request {
        max_memory: Some(1_000_000),
        ..lp_request()
    };
    let e = solve_door(WIDE, &request).err().unwrap().to_string();
    assert!(
        e.contains("rows") && e.contains("non-zeros") && e.contains("compatible pairs"),
        "{e}"
    );
    // Options of the CFR family are refused as on any game.
    let request = Request {
        iterations: Some(10),
        ..lp_request()
    };
    assert!(solve_door(REDUCED, &request).is_err());
}
