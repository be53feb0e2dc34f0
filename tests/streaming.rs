//! The streaming best response against the arena's (`bluff::eval`): exactly equal in rationals,
//! equal to rounding in f64, and the same bits for every thread count; and against OpenSpiel's
//! figures for the uniform policy, on the games' own rules.

use bluff::eval::{best_response, exploitability};
use bluff::game::{Game, Rules};
use bluff::games::goofspiel::{Goofspiel, PointsOrder, Returns};
use bluff::games::kuhn::Kuhn;
use bluff::games::leduc::Leduc;
use bluff::games::liars_dice::LiarsDice;
use bluff::mccfr::{MccfrParams, MccfrSolver};
use bluff::scalar::Rational;
use bluff::strategy::Profile;
use bluff::streaming::{best_responses, ArenaProfile, Exact, Uniform};

/// Exact best-response values on an arena game equal `eval::best_response`'s, for the uniform
/// profile and a trained one, on 1 and 3 threads.
#[test]
fn exact_values_equal_the_arenas_on_arena_games() {
    for spec in [
        "kuhn",
        "leduc",
        "liars-dice(dice=1,sides=3)",
        "goofspiel(cards=3,order=random)",
        "one-card-poker(n=4,a=2,b=1)",
        "baby-poker(sides=4)",
    ] {
        let game = bluff::games::builtin(spec).unwrap();
        let mut s = MccfrSolver::new(&game, MccfrParams::external(), 1).unwrap();
        s.iterate(300);
        let uniform = Profile::<Rational>::uniform(&game);
        for prof in [uniform.clone(), s.average_profile(&game).to_exact(&game)] {
            let strategy = ArenaProfile {
                game: &game,
                profile: &prof,
            };
            for threads in [1, 3] {
                let br = best_responses(&game, &strategy, threads).unwrap();
                for p in 0..2 {
                    assert_eq!(
                        br.value[p],
                        best_response(&game, &prof, p).value,
                        "{spec} {p}"
                    );
                }
                assert_eq!(
                    br.exploitability,
                    exploitability(&game, &prof).exploitability
                );
                // Subtrees that neither best response can reach are skipped.
                let nodes = game.nodes.len() as u64;
                assert!(br.histories <= nodes, "{spec}");
                if prof == uniform {
                    assert_eq!(br.histories, nodes, "{spec}");
                }
            }
        }
    }
}

/// A sampling run on the native rules and on their arena keeps the same numbers (tested in
/// tests/mccfr.rs), so the streaming best response on the rules must equal the arena's: in
/// rationals exactly, in f64 to rounding, and its f64 bits are the same on 1, 2 and 3 threads.
fn rules_agree_with_the_arena<G: Rules>(rules: &G, spec: &str) {
    let game = bluff::games::builtin(spec).unwrap();
    let mut on_rules = MccfrSolver::new(rules, MccfrParams::outcome(0.6), 2).unwrap();
    let mut on_arena = MccfrSolver::new(&game, MccfrParams::outcome(0.6), 2).unwrap();
    on_rules.iterate(500);
    on_arena.iterate(500);
    let avg = on_arena.average_profile(&game);
    let arena_f64 = exploitability(&game, &avg);
    let one = best_responses::<_, f64, _>(rules, &on_rules, 1).unwrap();
    for p in 0..2 {
        let (x, y) = (one.value[p], arena_f64.best_response_value[p]);
        assert!(
            (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            "{spec}: {x} vs {y}"
        );
    }
    for threads in [2, 3] {
        let more = best_responses::<_, f64, _>(rules, &on_rules, threads).unwrap();
        assert_eq!(
            more.value.map(f64::to_bits),
            one.value.map(f64::to_bits),
            "{spec} on {threads} threads"
        );
    }
    let exact = best_responses::<_, Rational, _>(rules, &Exact(&on_rules), 2).unwrap();
    let arena_exact = exploitability(&game, &avg.to_exact(&game));
    assert_eq!(exact.value, arena_exact.best_response_value, "{spec}");
    assert!(exact.histories <= game.nodes.len() as u64);
    assert!(exact.infosets[0] <= game.infosets[0].len());
}

#[test]
fn on_the_native_rules_equal_to_the_arena() {
    rules_agree_with_the_arena(&Kuhn, "kuhn");
    rules_agree_with_the_arena(&Leduc, "leduc");
    for (d, s) in [(1, 3), (2, 2)] {
        let rules = LiarsDice::new(d, s).unwrap();
        rules_agree_with_the_arena(&rules, &format!("liars-dice(dice={d},sides={s})"));
    }
    for (cards, order, name) in [
        (3, PointsOrder::Random, "random"),
        (4, PointsOrder::Descending, "descending"),
    ] {
        let rules = Goofspiel::new(cards, order, Returns::WinLoss).unwrap();
        rules_agree_with_the_arena(&rules, &format!("goofspiel(cards={cards},order={name})"));
    }
}

/// OpenSpiel 2.0.2's exploitability of the uniform policy (scripts/openspiel_game_counts.py),
/// by the streaming best response on the native rules, without an arena.
#[test]
fn uniform_policy_matches_openspiel_on_the_rules() {
    fn check<G: Rules>(rules: &G, expected: f64) {
        let br = best_responses::<_, f64, _>(rules, &Uniform, 2).unwrap();
        assert!(
            (br.exploitability - expected).abs() < 1e-12,
            "{}: {}",
            rules.name(),
            br.exploitability
        );
    }
    check(&Leduc, 2.373611111111111);
    for (d, s, e) in [
        (1, 2, 0.5625),
        (1, 4, 0.6550595238095238),
        (2, 2, 0.8203125),
    ] {
        check(&LiarsDice::new(d, s).unwrap(), e);
    }
    for (cards, order, e) in [
        (4, PointsOrder::Random, 0.7083333333333333),
        (5, PointsOrder::Descending, 0.775),
    ] {
        check(&Goofspiel::new(cards, order, Returns::WinLoss).unwrap(), e);
    }
}

/// Liar's dice with one die of six sides (294 883 histories): the streaming walk on the rules
/// and the arena's best response agree on the uniform policy.
#[test]
fn liars_dice_six_sides_agrees_with_the_arena() {
    let game: Game = bluff::games::builtin("liars-dice").unwrap();
    let arena = exploitability(&game, &Profile::<f64>::uniform(&game));
    let rules = LiarsDice::new(1, 6).unwrap();
    let br = best_responses::<_, f64, _>(&rules, &Uniform, 2).unwrap();
    assert!((br.exploitability - arena.exploitability).abs() < 1e-12);
    assert_eq!(br.histories, 294_883);
}
