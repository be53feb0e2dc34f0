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

/// Von Stengel's 6x6 bimatrix game with 75 equilibria ("New maximal numbers of equilibria in
/// bimatrix games", Discrete Comput. Geom. 1999): the 72 published integers, as (row payoff,
/// column payoff) per profile with the row index varying fastest (the `.nfg` order).
const VON_STENGEL_6X6: [i64; 72] = [
    9504, 72336, -111771, -461736, 397584, 1227336, 171204, -1718376, 1303104, 1303104, 737154,
    -453420, -660, 48081, 31680, -300036, -113850, 774576, -45936, -1039236, -453420, 737154,
    -227040, -227040, 19976, 29216, -130944, -178761, 451176, 451176, 208626, -586476, 1227336,
    397584, 774576, -113850, -20526, 14124, 168124, -84436, -586476, 208626, -263076, -263076,
    -1718376, 171204, -1039236, -45936, 1776, 1776, -8514, -8976, 29216, 19976, 14124, -20526,
    72336, 9504, 48081, -660, -8976, -8514, 52764, 52764, -178761, -130944, -84436, 168124,
    -461736, -111771, -300036, 31680,
];

#[test]
fn von_stengel_6x6_has_75_equilibria() {
    use bluff::lcp::bimatrix::{all_extreme_equilibria, Bimatrix};
    let payoff = [0, 1].map(|p| {
        (0..6)
            .map(|i| {
                (0..6)
                    .map(|j| int(VON_STENGEL_6X6[2 * (i + 6 * j) + p]))
                    .collect()
            })
            .collect()
    });
    let g = Bimatrix {
        rows: (1..=6).map(|i| i.to_string()).collect(),
        cols: (1..=6).map(|j| j.to_string()).collect(),
        payoff,
    };
    let all = all_extreme_equilibria(&g, 10_000).unwrap();
    assert_eq!(all.equilibria.len(), 75);
    // A nondegenerate game: every equilibrium is its own clique.
    assert_eq!(all.cliques.len(), 75);
    // Each is an equilibrium by the definition: no pure strategy does better.
    for e in &all.equilibria {
        for k in 0..6 {
            let r: Rational = (0..6).map(|j| &e.p2[j] * &g.payoff[0][k][j]).sum();
            let c: Rational = (0..6).map(|i| &e.p1[i] * &g.payoff[1][i][k]).sum();
            assert!(r <= e.value_p1 && c <= e.value_p2);
        }
    }
}

#[test]
fn battle_of_the_sexes_from_the_tree_has_three_equilibria() {
    use bluff::lcp::bimatrix::{all_extreme_equilibria, Bimatrix};
    let g = battle_of_the_sexes();
    let bm = Bimatrix::reduced(&g, 100).unwrap();
    let all = all_extreme_equilibria(&bm, 100).unwrap();
    assert_eq!(all.equilibria.len(), 3);
    // The LCP's two pure answers are among them.
    let opera = solve_lcp(&g, &LcpOptions::default()).unwrap();
    assert!(all
        .equilibria
        .iter()
        .any(|e| e.p1 == opera.profile.probs[0] && e.p2 == opera.profile.probs[1]));
}

#[test]
fn one_card_poker_through_the_lcp_has_the_lp_value() {
    let g = bluff::problems::one_card_poker::game::one_card_poker(4, 2, 1).unwrap();
    let lp = bluff::exact::solve_exact(&g).unwrap();
    let s = solve_lcp(&g, &LcpOptions::default()).unwrap();
    assert_eq!(s.value[0], lp.value);
    assert_eq!(s.value[1], &g.constant_sum - &lp.value);
}

/// A fully degenerate game: player 1 is indifferent everywhere and player 2's payoffs are all
/// equal, so every ratio test ties; the lexicographic rule still ends the path.
#[test]
fn a_degenerate_game_does_not_loop() {
    let mut b = GameBuilder::new("degenerate", "P1", "P2");
    let root = b.root();
    let acts = ["a", "b", "c"];
    let rows = b.decision(root, 0, "P1", &acts).unwrap();
    for &rn in &rows {
        let cols = b.decision(rn, 1, "P2", &acts).unwrap();
        for (c, &cn) in cols.iter().enumerate() {
            b.terminal(cn, [int(0), int(c as i64 % 2)]).unwrap();
        }
    }
    let g = b.build().unwrap();
    for start in [
        LcpStart::FirstActions,
        LcpStart::Pure([vec![2], vec![1]]),
        LcpStart::Profile(ExactProfile::uniform(&g)),
    ] {
        let s = solve_lcp(
            &g,
            &LcpOptions {
                start,
                max_pivots: Some(10_000),
                ..LcpOptions::default()
            },
        )
        .unwrap();
        assert_eq!(s.certificate.nash_conv, int(0));
        assert_eq!(s.value[1], int(1));
    }
}

#[test]
fn a_start_naming_a_missing_action_is_refused() {
    let g = battle_of_the_sexes();
    let err = solve_lcp(
        &g,
        &LcpOptions {
            start: LcpStart::Pure([vec![0], vec![2]]),
            ..LcpOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("\"P2\"") && err.contains("2 actions"), "{err}");
}

#[test]
fn a_tableau_over_the_memory_budget_is_refused_before_allocating() {
    let g = bluff::games::kuhn::kuhn_poker().unwrap();
    let err = solve_lcp(
        &g,
        &LcpOptions {
            max_memory: 1000,
            ..LcpOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, bluff::lcp::LcpError::TooBig { .. }), "{err}");
}

#[test]
fn a_start_from_reduced_strategies_names_a_missing_one() {
    let g = battle_of_the_sexes();
    let start = LcpStart::from_reduced(&g, [1, 1], 100).unwrap();
    assert_eq!(start, LcpStart::Pure([vec![1], vec![1]]));
    let err = LcpStart::from_reduced(&g, [0, 2], 100)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("player 2 has 2 reduced pure strategies, not a strategy 3"),
        "{err}"
    );
}

#[test]
fn the_zero_sum_normal_form_refuses_a_general_sum_game_and_the_nfg_keeps_both_payoffs() {
    let g = battle_of_the_sexes();
    let err = bluff::matrix::normal_form::reduced_normal_form(&g, 100)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`lcp`"), "{err}");
    let nfg = bluff::matrix::normal_form::to_nfg(&g).unwrap();
    // Profiles with the row varying fastest: (Opera, Opera), (Football, Opera), ...
    assert_eq!(nfg.payoffs[0], vec![int(2), int(1)]);
    assert_eq!(nfg.payoffs[3], vec![int(1), int(2)]);
}
