//! Two-player general-sum games: the model, exact evaluation and the sequence-form LCP.

use bluff::eval::exploitability;
use bluff::game::{Game, GameBuilder, SumKind};
use bluff::lcp::{solve_lcp, LcpOptions, LcpStart};
use bluff::scalar::{int, rat, Rational};
use bluff::strategy::ExactProfile;

/// Battle of the sexes as a tree: player 1 picks Opera or Football, player 2 the same
/// without seeing it; (2, 1) on Opera together, (1, 2) on Football together, 0 otherwise.
fn battle_of_the_sexes() -> Game {
    let mut b = GameBuilder::new("battle of the sexes", "P1", "P2");
    let root = b.root();
    let acts = ["Opera".to_string(), "Football".to_string()];
    let rows = b.decision(root, 0, "P1", &acts).unwrap();
    for (r, &rn) in rows.iter().enumerate() {
        let cols = b.decision(rn, 1, "P2", &acts).unwrap();
        for (c, &cn) in cols.iter().enumerate() {
            let pay = match (r, c) {
                (0, 0) => [int(2), int(1)],
                (1, 1) => [int(1), int(2)],
                _ => [int(0), int(0)],
            };
            b.terminal(cn, pay).unwrap();
        }
    }
    b.build().unwrap()
}

fn probs(s: &bluff::lcp::LcpSolution, p: usize) -> Vec<Rational> {
    s.profile.probs[p].clone()
}

#[test]
fn battle_of_the_sexes_is_general_sum_and_refused_by_cfr() {
    let g = battle_of_the_sexes();
    assert_eq!(g.sum_kind(), SumKind::General);
    let err = g.require_constant_sum("lp").unwrap_err().to_string();
    assert!(err.contains("lp") && err.contains("`lcp`"), "{err}");
}

#[test]
fn battle_of_the_sexes_evaluates_each_player() {
    let g = battle_of_the_sexes();
    // The mixed equilibrium: P1 plays Opera 2/3, P2 plays Opera 1/3; both get 2/3.
    let profile = ExactProfile {
        probs: [vec![rat(2, 3), rat(1, 3)], vec![rat(1, 3), rat(2, 3)]],
    };
    let e = exploitability(&g, &profile);
    assert_eq!(e.value, [rat(2, 3), rat(2, 3)]);
    assert_eq!(e.gain, [int(0), int(0)]);
    // Both on Opera: P1 gets 2, P2 gets 1; P2 gains nothing by moving, nor P1.
    let pure = ExactProfile {
        probs: [vec![int(1), int(0)], vec![int(0), int(1)]],
    };
    let e = exploitability(&g, &pure);
    // (Opera, Football): both 0; P1 gains 1 by Football, P2 gains 1 by Opera.
    assert_eq!(e.value, [int(0), int(0)]);
    assert_eq!(e.best_response_value, [int(1), int(1)]);
    assert_eq!(e.nash_conv, int(2));
}

#[test]
fn two_starts_reach_the_two_pure_equilibria() {
    let g = battle_of_the_sexes();
    let opera = solve_lcp(
        &g,
        &LcpOptions {
            start: LcpStart::Pure([vec![0], vec![0]]),
            ..LcpOptions::default()
        },
    )
    .unwrap();
    let football = solve_lcp(
        &g,
        &LcpOptions {
            start: LcpStart::Pure([vec![1], vec![1]]),
            ..LcpOptions::default()
        },
    )
    .unwrap();
    assert_eq!(probs(&opera, 0), vec![int(1), int(0)]);
    assert_eq!(probs(&opera, 1), vec![int(1), int(0)]);
    assert_eq!(opera.value, [int(2), int(1)]);
    assert_eq!(probs(&football, 0), vec![int(0), int(1)]);
    assert_eq!(football.value, [int(1), int(2)]);
}

#[test]
fn kuhn_through_the_lcp_has_the_lp_value() {
    let g = bluff::games::kuhn::kuhn_poker().unwrap();
    let s = solve_lcp(&g, &LcpOptions::default()).unwrap();
    assert_eq!(s.value[0], rat(-1, 18));
    assert_eq!(s.certificate.nash_conv, int(0));
}
