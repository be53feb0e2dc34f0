//! Raked poker (`rake=`, `rake_cap=` on kuhn, leduc and one-card-poker): general-sum games
//! whose payoffs are checked by hand, solved exactly by the LCP and approximately by the CFR
//! family and the sampling solvers.

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::game::{Game, NodeKind, SumKind};
use bluff::games::builtin;
use bluff::lcp::{solve_lcp, LcpOptions};
use bluff::scalar::{int, rat, Rational};
use bluff::solve::door::{solve, Quiet, Request, Source, Spelling};
use bluff::strategy::ExactProfile;
use num_traits::{Signed, Zero};

/// A pure Kuhn profile: `bet(player, label)` says whether the set bets (or calls).
fn kuhn_pure(game: &Game, bet: impl Fn(usize, &str) -> bool) -> ExactProfile {
    let mut prof = ExactProfile::uniform(game);
    for p in 0..2 {
        for set in &game.infosets[p] {
            let r = set.action_range();
            let b = bet(p, &set.label);
            prof.probs[p][r.start] = int(i64::from(!b));
            prof.probs[p][r.start + 1] = int(i64::from(b));
        }
    }
    prof
}

#[test]
fn raked_kuhn_pays_what_the_rules_say_on_three_pure_profiles() {
    // Rake 1/10 of the pot, at most 1/4.
    let g = builtin("kuhn(rake=0.1,rake_cap=1/4)").unwrap();
    assert_eq!(g.sum_kind(), SumKind::General);
    // Both always pass: a showdown for a pot of 2, rake 1/5 paid by the winner, who is
    // either player half the time: each expects (1 - 1/5 - 1) / 2 = -1/10.
    let e = exploitability(&g, &kuhn_pure(&g, |_, _| false));
    assert_eq!(e.value, [rat(-1, 10), rat(-1, 10)]);
    // Both always bet and call: a pot of 4, rake min(4/10, 1/4) = 1/4: each -1/8.
    let e = exploitability(&g, &kuhn_pure(&g, |_, _| true));
    assert_eq!(e.value, [rat(-1, 8), rat(-1, 8)]);
    // Player 1 bets, player 2 folds: a pot of 3, rake 1/4 from player 1's win of 1.
    let e = exploitability(&g, &kuhn_pure(&g, |p, _| p == 0));
    assert_eq!(e.value, [rat(3, 4), int(-1)]);
}

#[test]
fn rake_zero_is_the_unraked_game() {
    for (raked, plain) in [
        ("kuhn(rake=0)", "kuhn"),
        ("leduc(rake=0.05,rake_cap=0)", "leduc"),
        ("one-card-poker(n=3,rake=0)", "one-card-poker"),
    ] {
        let (r, p) = (builtin(raked).unwrap(), builtin(plain).unwrap());
        assert_eq!(r.sum_kind(), SumKind::Constant, "{raked}");
        assert_eq!(format!("{r:?}"), format!("{p:?}"), "{raked}");
    }
    // Its LCP value is the LP's (a second route): Kuhn's -1/18.
    let g = builtin("kuhn(rake=0)").unwrap();
    let lcp = solve_lcp(&g, &LcpOptions::default()).unwrap();
    assert_eq!(lcp.value[0], solve_exact(&g).unwrap().value);
    assert_eq!(lcp.value[0], rat(-1, 18));
}

#[test]
fn raked_leduc_takes_the_rake_from_the_winner_and_splits_it_on_a_tie() {
    let rate = rat(1, 20);
    let raked = builtin("leduc(rake=1/20)").unwrap();
    let plain = builtin("leduc").unwrap();
    assert_eq!(raked.nodes.len(), plain.nodes.len());
    let (mut ties, mut wins) = (0, 0);
    for (rn, pn) in raked.nodes.iter().zip(&plain.nodes) {
        let (NodeKind::Terminal { terminal: rt }, NodeKind::Terminal { terminal: pt }) =
            (rn.kind, pn.kind)
        else {
            continue;
        };
        let r = [0, 1].map(|p| raked.payoff(rt as usize, p));
        let net0 = plain.payoff(pt as usize, 0);
        if net0.is_zero() {
            // A tie: each pays half the rake on a pot of at least 2.
            ties += 1;
            assert_eq!(r[0], r[1]);
            let pot = -&r[0] * int(2) / &rate;
            assert!(pot.is_integer() && pot >= int(2), "{pot}");
        } else {
            wins += 1;
            let (w, l) = if net0.is_positive() { (0, 1) } else { (1, 0) };
            let won = net0.abs();
            // The loser pays what they put in, no more; the winner pays rake on the pot,
            // which holds at least twice the loser's chips.
            assert_eq!(r[l], -won.clone());
            let pot = (&won - &r[w]) / &rate;
            assert!(pot.is_integer() && pot >= won * int(2), "{pot}");
        }
    }
    assert!(ties > 0 && wins > 0);
}

#[test]
fn lcp_solves_raked_games_exactly_and_the_evaluator_certifies_it() {
    // With the unraked game's constant sum (one-card poker's dealer pot of 2).
    for (spec, constant) in [
        ("kuhn(rake=0.05)", 0),
        ("one-card-poker(n=3,rake=1/10,rake_cap=1/4)", 2),
    ] {
        let g = builtin(spec).unwrap();
        assert_eq!(g.sum_kind(), SumKind::General, "{spec}");
        let s = solve_lcp(&g, &LcpOptions::default()).unwrap();
        // The evaluator (exact best responses, independent of the LCP) finds no gain.
        let e = exploitability(&g, &s.profile);
        assert!(e.nash_conv.is_zero(), "{spec}: {}", e.nash_conv);
        assert_eq!(e.gain, [Rational::zero(), Rational::zero()]);
        assert_eq!(e.value, s.value);
        // The house's cut leaves the players less than the unraked game's sum.
        assert!(&s.value[0] + &s.value[1] < int(constant), "{spec}");
    }
}

#[test]
fn cfr_learns_a_raked_game_from_each_players_own_payoffs() {
    let g = builtin("kuhn(rake=0.05)").unwrap();
    let exact = solve_lcp(&g, &LcpOptions::default()).unwrap();
    for (params, iterations, bound) in [
        (RegretParams::cfr_plus(), 2000, 2e-4),
        (RegretParams::vanilla(), 4000, 1e-2),
        (RegretParams::vanilla_alternating(), 4000, 1e-2),
    ] {
        let mut solver = CfrSolver::new(&g, params);
        solver.iterate(100);
        let early = exploitability(&g, &solver.average_profile()).nash_conv;
        solver.iterate(iterations - 100);
        let e = exploitability(&g, &solver.average_profile());
        assert!(
            e.nash_conv < bound && e.nash_conv < early,
            "{params:?}: {early} then {}",
            e.nash_conv
        );
        // Raked Kuhn's equilibrium value for player 1 as the LCP finds it, to the accuracy
        // the gains allow.
        let v = bluff::scalar::rational_to_f64(&exact.value[0]);
        assert!(
            (e.value[0] - v).abs() < 10.0 * bound,
            "{} vs {v}",
            e.value[0]
        );
    }
}

#[test]
fn the_door_runs_cfr_and_sampling_on_raked_games_with_gains_and_refuses_the_lp() {
    for algo in ["cfr+", "es-mccfr", "os-mccfr"] {
        let request = Request {
            algo: Some(algo.into()),
            iterations: Some(2000),
            ..Request::default()
        };
        let s = solve(
            Source::Spec(Some("kuhn(rake=0.05)")),
            &request,
            Spelling::Cli,
            &mut Quiet,
        )
        .unwrap();
        let gains = s.gains.expect("a general-sum run reports gains");
        let nash_conv = s.nash_conv.expect("measured").to_f64();
        assert!(gains.iter().all(|g| g.to_f64() >= -1e-12), "{algo}");
        assert!(
            (gains[0].to_f64() + gains[1].to_f64() - nash_conv).abs() < 1e-12,
            "{algo}"
        );
    }
    let request = Request {
        algo: Some("lp".into()),
        ..Request::default()
    };
    let err = solve(
        Source::Spec(Some("kuhn(rake=0.05)")),
        &request,
        Spelling::Cli,
        &mut Quiet,
    )
    .err()
    .expect("the LP refuses a general-sum game")
    .to_string();
    assert!(
        err.contains("lp needs a constant-sum game") && err.contains("`lcp`"),
        "{err}"
    );
}

#[test]
fn bad_rake_values_are_refused_by_name() {
    for (spec, says) in [
        ("kuhn(rake=2)", "rake = 2 is outside 0..=1"),
        ("kuhn(rake=-0.1)", "outside 0..=1"),
        ("leduc(rake=abc)", "rake = \"abc\" is not a number"),
        ("kuhn(rake_cap=-1)", "rake_cap = -1 is outside"),
        ("kuhn(rake=1/0)", "is not a number"),
    ] {
        let err = builtin(spec).unwrap_err().to_string();
        assert!(err.contains(says), "{spec}: {err}");
    }
}
