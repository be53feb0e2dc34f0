//! The exact LP's reconstruction route (float refinement + rational reconstruction of the float
//! basis) against the exact-LU route on games, and the integer best-response certificate against
//! the rational evaluator of `bluff::eval` (an independent implementation).

use bluff::eval::exploitability;
use bluff::exact::{solve_exact_with, ExactOptions, ExactSolution};
use bluff::lp::{ExactRoute, Method, SolveOptions};
use bluff::scalar::rat;
use num_traits::Zero;

fn solve(spec: &str, reconstruct: bool) -> ExactSolution {
    let game = bluff::games::load(spec).unwrap().game;
    let options = ExactOptions {
        lp: SolveOptions {
            reconstruct,
            ..SolveOptions::new(Method::FloatThenExact)
        },
        ..Default::default()
    };
    solve_exact_with(&game, &options).unwrap()
}

/// Both routes give the same exact value and the same strategies (the same basis has one
/// solution), and the rational best responses confirm it.
fn both_routes_agree(spec: &str) -> ExactSolution {
    let fast = solve(spec, true);
    let old = solve(spec, false);
    assert_eq!(fast.stats.lp.route, ExactRoute::Reconstruction, "{spec}");
    assert_eq!(old.stats.lp.route, ExactRoute::ExactLu, "{spec}");
    assert_eq!(fast.value, old.value, "{spec}");
    assert_eq!(fast.profile.probs, old.profile.probs, "{spec}");
    let game = bluff::games::load(spec).unwrap().game;
    let e = exploitability(&game, &fast.profile);
    assert!(e.nash_conv.is_zero(), "{spec}");
    assert_eq!(e.value[0], fast.value, "{spec}");
    fast
}

#[test]
fn kuhn() {
    assert_eq!(both_routes_agree("kuhn").value, rat(-1, 18));
}

#[test]
fn leduc() {
    let s = both_routes_agree("leduc");
    // OpenSpiel's Leduc value, -0.085606424078 (tests/lp_leduc.rs pins the fraction).
    assert!((bluff::scalar::rational_to_f64(&s.value) + 0.085606424078).abs() < 1e-11);
}

#[test]
fn one_card_poker_and_liars_dice() {
    // One-card poker: the first player's value is A/2 = 1 (closed form, `OcpParams::value`).
    assert_eq!(
        both_routes_agree("one-card-poker(n=50,a=2,b=1)").value,
        rat(1, 1)
    );
    // Liar's dice, one 4-sided die each: 1/16 (README's table; OpenSpiel's LP agrees).
    assert_eq!(
        both_routes_agree("liars-dice(dice=1,sides=4)").value,
        rat(1, 16)
    );
}
