//! The card-guessing DP checked against the explicit extensive-form game by two independent
//! routes: (a) its strategies, played in the explicit game, are certified by exact best
//! responses; (b) the exact sequence-form LP solves the explicit game from scratch.

use bluff::eval::{expected_value, exploitability};
use bluff::exact::solve_exact;
use bluff::problems::card_guessing::explicit::{build_explicit, dp_profile};
use bluff::problems::card_guessing::CardGuessing;
use bluff::scalar::{rat, Rational};
use num_traits::{Signed, Zero};

fn sizes(max_total: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..=max_total).flat_map(|s| (0..=s).map(move |m| (m, s - m)))
}

#[test]
fn reference_values_from_the_explicit_game() {
    // docs/problems.md: the explicit extensive form solved exactly for tiny sizes.
    for (m, n, want) in [
        (0, 1, rat(1, 2)),
        (1, 0, rat(1, 1)),
        (1, 1, rat(1, 2)),
        (0, 2, rat(1, 3)),
        (2, 0, rat(1, 1)),
        (2, 1, rat(2, 3)),
    ] {
        let t = CardGuessing::<Rational>::solve(m, n);
        assert_eq!(t.win_probabilities().0, want, "DP ({m}, {n})");
        let lp = solve_exact(&build_explicit(m, n).unwrap().game).unwrap();
        assert_eq!(lp.value, want, "LP ({m}, {n})");
    }
}

#[test]
fn exact_lp_on_the_explicit_game_matches_the_dp() {
    for (m, n) in sizes(3) {
        let eg = build_explicit(m, n).unwrap();
        let lp = solve_exact(&eg.game).unwrap();
        let dp = CardGuessing::<Rational>::solve(m, n).win_probabilities().0;
        assert_eq!(lp.value, dp, "({m}, {n})");
    }
}

#[test]
fn dp_strategies_are_exact_equilibria_of_the_explicit_game() {
    for (m, n) in sizes(4) {
        let eg = build_explicit(m, n).unwrap();
        let t = CardGuessing::<Rational>::solve(m, n);
        let profile = dp_profile(&eg, &t);
        let e = exploitability(&eg.game, &profile);
        assert!(
            e.nash_conv.is_zero(),
            "({m}, {n}): NashConv {}",
            e.nash_conv
        );
        assert_eq!(expected_value(&eg.game, &profile), t.win_probabilities().0);
    }
}

#[test]
fn a_wrong_believe_probability_is_caught() {
    // The certificate can fail: make every unrefuted name at (2, 2) believed too rarely.
    let (m, n) = (2, 2);
    let eg = build_explicit(m, n).unwrap();
    let t = CardGuessing::<Rational>::solve(m, n);
    let mut profile = dp_profile(&eg, &t);
    let game = &eg.game;
    let mut changed = 0;
    for (id, view) in eg.views[1].iter().enumerate() {
        // Donkey's first decision after Shrek's unrefuted opening name.
        if view.history.len() == 1 && !view.history[0].shown {
            let set = &game.infosets[1][id];
            let guess = set
                .actions
                .iter()
                .position(|a| *a == format!("guess {}", view.history[0].card))
                .unwrap();
            let r = set.action_range();
            let probs = &mut profile.probs[1][r.clone()];
            let old = probs[guess].clone();
            assert!(old.is_positive() && old < rat(1, 1));
            // Move half of the believe probability onto the other actions, proportionally.
            let rest = rat(1, 1) - &old;
            for (k, p) in probs.iter_mut().enumerate() {
                *p = if k == guess {
                    &old / rat(2, 1)
                } else {
                    &*p * (&rest + &old / rat(2, 1)) / &rest
                };
            }
            changed += 1;
        }
    }
    assert!(changed > 0);
    let e = exploitability(game, &profile);
    assert!(e.nash_conv.is_positive());
    // Shrek exploits it: his best response beats the DP value 5/9.
    assert!(e.best_response_value[0] > rat(5, 9));
}

#[test]
fn explicit_game_sizes_match_the_published_count() {
    // docs/problems.md: the explicit game for (m, n) = (1, 2) has 2353 nodes and 568 information sets.
    let g = build_explicit(1, 2).unwrap().game;
    assert_eq!((g.nodes.len(), g.num_infosets()), (2353, 568));
    assert_eq!(g.constant_sum, rat(1, 1));
    assert!(g
        .terminals
        .iter()
        .all(|t| t.payoff0.is_zero() || t.payoff0 == rat(1, 1)));
}
