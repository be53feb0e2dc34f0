//! The merged sequence-form LP (one-action information sets' sequences merged into their
//! parents') against the textbook LP on games: the same exact value, both certified by exact
//! best responses of the rational evaluator (`bluff::eval`, an independent implementation),
//! and exactly one row fewer per one-action set.

use bluff::eval::exploitability;
use bluff::scalar::{rat, Rational};
use bluff::solve::lp::{Method, SolveOptions};
use bluff::solve::sequence_form::{build_lp_as, solve_exact_as, LpForm};
use num_traits::Zero;

/// Solves `spec` in both forms and checks them; returns the value and the rows (merged,
/// textbook).
fn both_forms(spec: &str) -> (Rational, usize, usize) {
    let game = bluff::games::load(spec).unwrap();
    let options = SolveOptions::new(Method::FloatThenExact);
    let merged = solve_exact_as(&game, &options, LpForm::Merged).unwrap();
    let textbook = solve_exact_as(&game, &options, LpForm::Textbook).unwrap();
    assert_eq!(merged.value, textbook.value, "{spec}");
    for s in [&merged, &textbook] {
        let e = exploitability(&game, &s.profile);
        assert!(e.nash_conv.is_zero(), "{spec}");
        assert_eq!(e.value[0], s.value, "{spec}");
    }
    let one_action_sets = game
        .infosets
        .iter()
        .flatten()
        .filter(|set| set.actions.len() == 1)
        .count();
    let rows = |form| build_lp_as(&game, form).lp.num_constraints();
    let (m, t) = (rows(LpForm::Merged), rows(LpForm::Textbook));
    // Each one-action set takes away one row: its sequence's row (player 2's sets) or its
    // `E` row (player 1's).
    assert_eq!(t - m, one_action_sets, "{spec}");
    (merged.value, m, t)
}

#[test]
fn liars_dice_merges_and_keeps_its_values() {
    // 1/16 for 4 sides (tests/lp_reconstruction.rs; OpenSpiel's LP agrees).
    assert_eq!(
        both_forms("liars-dice(dice=1,sides=4)"),
        (rat(1, 16), 1022, 1534)
    );
    let (_, m, t) = both_forms("liars-dice(dice=1,sides=3)");
    assert!(m < t);
}

#[test]
fn games_without_one_action_sets_build_the_same_lp() {
    // Kuhn's value is -1/18 (Kuhn 1950).
    assert_eq!(both_forms("kuhn"), (rat(-1, 18), 20, 20));
    for spec in ["one-card-poker(n=5,a=2,b=1)", "baby-poker"] {
        let (_, m, t) = both_forms(spec);
        assert_eq!(m, t, "{spec}");
    }
}
