//! Property tests of the evaluators on random small games with perfect recall.

mod common;

use bluff::eval::{best_response, expected_value, exploitability, player_value};
use bluff::game::{Game, GameBuilder, NodeRef};
use bluff::scalar::{rat, rational_to_f64, Rational};
use bluff::strategy::{ExactProfile, Profile};
use common::rng::Rng;
use proptest::prelude::*;

/// Information-set labels are the acting player's own history plus a coarse signal of chance,
/// so perfect recall holds by construction while sets still span several nodes.
fn grow(
    b: &mut GameBuilder,
    rng: &mut Rng,
    node: NodeRef,
    depth: u32,
    own: [String; 2],
    signal: [u64; 2],
) {
    let roll = rng.below(10);
    if depth == 0 || roll < 2 {
        let payoff = rng.below(9) as i64 - 4;
        b.terminal_zero_sum(node, rat(payoff, 1 + rng.below(3) as i64))
            .unwrap();
    } else if roll < 4 {
        let k = 2 + rng.below(2) as usize;
        let weights: Vec<i64> = (0..k).map(|_| 1 + rng.below(3) as i64).collect();
        let total: i64 = weights.iter().sum();
        let outcomes = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| (format!("c{i}"), rat(w, total)))
            .collect();
        let children = b.chance(node, outcomes).unwrap();
        for (i, child) in children.into_iter().enumerate() {
            // Each player observes the outcome only sometimes.
            let mut s = signal;
            for (p, sp) in s.iter_mut().enumerate() {
                if (rng.next() >> p) & 1 == 1 {
                    *sp = sp.wrapping_mul(31).wrapping_add(i as u64 + 1);
                }
            }
            grow(b, rng, child, depth - 1, own.clone(), s);
        }
    } else {
        let player = rng.below(2) as usize;
        let label = format!("{}#{}", own[player], signal[player] % 3);
        let n_actions = 2 + (label.len() % 2);
        let actions: Vec<String> = (0..n_actions).map(|a| format!("a{a}")).collect();
        let children = b.decision(node, player, &label, &actions).unwrap();
        for (a, child) in children.into_iter().enumerate() {
            let mut o = own.clone();
            o[player] = format!("{label}/{a}");
            grow(b, rng, child, depth - 1, o, signal);
        }
    }
}

fn random_game(seed: u64) -> Game {
    let mut rng = Rng(seed | 1);
    let mut b = GameBuilder::new("random", "P1", "P2");
    let root = b.root();
    grow(
        &mut b,
        &mut rng,
        root,
        5,
        [String::new(), String::new()],
        [0, 0],
    );
    b.build().expect("random games are valid by construction")
}

fn random_profile(game: &Game, seed: u64) -> ExactProfile {
    let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let mut prof = ExactProfile::uniform(game);
    for p in 0..2 {
        for set in &game.infosets[p] {
            let w: Vec<i64> = set.actions.iter().map(|_| rng.below(4) as i64).collect();
            let total: i64 = w.iter().sum::<i64>().max(1);
            for (k, a) in set.action_range().enumerate() {
                prof.probs[p][a] = if w.iter().sum::<i64>() == 0 {
                    rat(1, set.actions.len() as i64)
                } else {
                    rat(w[k], total)
                };
            }
        }
    }
    prof
}

/// Best response by enumerating every pure strategy of the responder (tiny games only).
fn brute_force_best_response(
    game: &Game,
    profile: &ExactProfile,
    player: usize,
) -> Option<Rational> {
    let sizes: Vec<usize> = game.infosets[player]
        .iter()
        .map(|s| s.actions.len())
        .collect();
    let count: usize = sizes
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s).filter(|&c| c <= 4096))?;
    let mut best: Option<Rational> = None;
    for mut code in 0..count {
        let choice: Vec<usize> = sizes
            .iter()
            .map(|&s| {
                let c = code % s;
                code /= s;
                c
            })
            .collect();
        let mut prof = profile.clone();
        prof.set_pure(game, player, &choice);
        let v = player_value(game, &prof, player);
        if best.as_ref().is_none_or(|b| v > *b) {
            best = Some(v);
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn best_response_dominates_and_matches_enumeration(seed in any::<u64>(), pseed in any::<u64>()) {
        let game = random_game(seed);
        let prof = random_profile(&game, pseed);
        let e = exploitability(&game, &prof);
        prop_assert!(e.nash_conv >= Rational::from_integer(0.into()));
        for p in 0..2 {
            prop_assert!(e.best_response_value[p] >= e.value[p]);
            let br = best_response(&game, &prof, p);
            // The response strategy really achieves the reported value.
            prop_assert_eq!(player_value(&game, &br.apply(&game, &prof), p), br.value.clone());
            if let Some(brute) = brute_force_best_response(&game, &prof, p) {
                prop_assert_eq!(brute, br.value);
            }
        }
    }

    #[test]
    fn exact_and_float_agree(seed in any::<u64>(), pseed in any::<u64>()) {
        let game = random_game(seed);
        let exact = random_profile(&game, pseed);
        let float: Profile<f64> = exact.to_f64();
        let ee = exploitability(&game, &exact);
        let ef = exploitability(&game, &float);
        prop_assert!((rational_to_f64(&ee.exploitability) - ef.exploitability).abs() < 1e-9);
        prop_assert!((rational_to_f64(&expected_value(&game, &exact)) - expected_value(&game, &float)).abs() < 1e-9);
        for p in 0..2 {
            prop_assert!((rational_to_f64(&ee.best_response_value[p]) - ef.best_response_value[p]).abs() < 1e-9);
        }
    }
}
