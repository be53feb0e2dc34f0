//! Node locks: closed forms, equilibria locked whole, checkpoints, and every family's answer.

use bluff::cfr::checkpoint;
use bluff::eval::{best_response, exploitability_locked};
use bluff::format::lock_json::{lock_from_json, lock_to_json};
use bluff::games::load;
use bluff::lock::{Lock, LockedSet};
use bluff::scalar::{parse_rational, rat, Rational};
use bluff::solve::door::{
    solve, LockSource, Quiet, Request, Solved, Source, Spelling, Strategy, Value,
};
use bluff::solve::registry;
use bluff::solve::run::{CfrRequest, CfrRun, NoHooks, StopRule};
use bluff::solve::Threads;
use num_traits::Zero;

fn solve_spec(spec: &str, request: &Request) -> Solved {
    solve(Source::Spec(Some(spec)), request, Spelling::Cli, &mut Quiet)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn exact_value(solved: &Solved) -> Rational {
    match &solved.values.as_ref().expect("values")[0] {
        Value::Exact(v) => v.clone(),
        Value::Float(x) => panic!("expected an exact value, got {x}"),
    }
}

/// P1's jack at the root of Kuhn poker bets with probability `alpha`.
fn jack_lock(alpha: &str) -> LockSource {
    let a = parse_rational(alpha).unwrap();
    let pass = bluff::scalar::format_rational(&(Rational::from_integer(1.into()) - &a));
    LockSource::Json(format!(
        r#"{{"game": "kuhn", "strategy": {{"P1": {{"J": {{"Pass": "{pass}", "Bet": "{alpha}"}}}}}}}}"#
    ))
}

/// Kuhn poker with P1's jack betting at the root with probability alpha, every other set
/// solved. For alpha <= 1/3 the locked strategy belongs to Kuhn's equilibrium family (P1 bets
/// the king 3 alpha, calls with the queen alpha + 1/3; P2 calls a bet with the queen 1/3), so
/// that equilibrium stays one of the locked game and the value is the game's, -1/18.
/// Above 1/3, P1 cannot bet the king 3 alpha > 1, so a bet holds more jacks than P2's queen
/// needs to call: with the king betting always, calling with the queen gains
/// 2 alpha - 2 > -(alpha + 1) exactly when 3 alpha > 1, and P2 calls always. Against a call
/// the jack's bet loses 2 where checking (then folding to the king, losing the showdown to the
/// queen) loses 1, in each of the two deals (prob 1/6 each), so every unit of alpha costs
/// P1 2 * (1/6) * ... = 1/3 on top of the value at alpha = 1/3, where (king betting,
/// queen always calling) is still an equilibrium; the rest of the game (P1's queen facing
/// P2's jack bluff) does not involve P1's jack. So V(alpha) = -1/18 - (alpha - 1/3) / 3 =
/// (1 - 6 alpha) / 18: -1/9 at 1/2, -1/6 at 2/3, -5/18 at 1.
#[test]
fn kuhn_jack_bet_locked_matches_the_closed_form() {
    for (alpha, want) in [
        ("0", "-1/18"),
        ("1/6", "-1/18"),
        ("1/3", "-1/18"),
        ("1/2", "-1/9"),
        ("2/3", "-1/6"),
        ("1", "-5/18"),
    ] {
        let want = parse_rational(want).unwrap();
        let a = parse_rational(alpha).unwrap();
        assert_eq!(
            want,
            if a <= rat(1, 3) {
                rat(-1, 18)
            } else {
                (rat(1, 1) - rat(6, 1) * &a) / rat(18, 1)
            }
        );
        let lp = solve_spec(
            "kuhn",
            &Request {
                algo: Some("lp".into()),
                lock: Some(jack_lock(alpha)),
                ..Default::default()
            },
        );
        assert_eq!(exact_value(&lp), want, "lp at alpha {alpha}");
        let Strategy::Exact(profile) = &lp.strategy else {
            panic!("an exact profile")
        };
        let game = lp.game.as_ref().unwrap();
        assert_eq!(profile.prob_at(game, 0, "J", 1), Some(a.clone()));
        assert_eq!(lp.lock.as_ref().unwrap().labels(game)[0], vec!["J"]);
        let cfr = solve_spec(
            "kuhn",
            &Request {
                lock: Some(jack_lock(alpha)),
                target: Some(1e-8),
                iterations: Some(2_000_000),
                threads: Some(1),
                ..Default::default()
            },
        );
        let v = cfr.values.as_ref().unwrap()[0].to_f64();
        let w = bluff::scalar::rational_to_f64(&want);
        assert!((v - w).abs() < 1e-6, "cfr at alpha {alpha}: {v} vs {w}");
        let Strategy::Float { average, .. } = &cfr.strategy else {
            panic!("a float profile")
        };
        assert_eq!(
            average.prob_at(game, 0, "J", 1),
            Some(bluff::scalar::rational_to_f64(&a))
        );
    }
}

/// An exact equilibrium locked whole for one player: the re-solve's other player gains
/// exactly 0 against it, and the value is the game's, exactly.
#[test]
fn an_equilibrium_locked_whole_keeps_the_game_value() {
    for (spec, locked) in [
        ("leduc", 0),
        ("liars-dice(sides=4)", 1),
        ("one-card-poker", 0),
    ] {
        let plain = solve_spec(
            spec,
            &Request {
                algo: Some("lp".into()),
                ..Default::default()
            },
        );
        let game = plain.game.as_ref().unwrap();
        let Strategy::Exact(eq) = &plain.strategy else {
            panic!("exact")
        };
        let mut lock = Lock::default();
        lock.sets[locked] = (0..game.infosets[locked].len())
            .map(|id| LockedSet {
                infoset: id,
                probs: eq.infoset_probs(game, locked, id).to_vec(),
            })
            .collect();
        let text = lock_to_json(game, spec, &lock).to_string();
        assert_eq!(lock_from_json(game, Some(spec), &text).unwrap(), lock);
        let re = solve_spec(
            spec,
            &Request {
                algo: Some("lp".into()),
                lock: Some(LockSource::Json(text)),
                ..Default::default()
            },
        );
        assert_eq!(exact_value(&re), exact_value(&plain), "{spec}");
        let Strategy::Exact(p) = &re.strategy else {
            panic!("exact")
        };
        let other = 1 - locked;
        let values = bluff::eval::values(game, p);
        let br = best_response(game, p, other);
        assert_eq!(br.value, values[other], "{spec}: the other player gains 0");
        let e = exploitability_locked(game, p, Some(&lock));
        assert!(e.gain[0].is_zero() && e.gain[1].is_zero(), "{spec}");
    }
}

/// Both players locked whole: the exact LP has nothing left to solve and reports the lock's
/// value (an equilibrium's: the game's).
#[test]
fn a_profile_locked_whole_reports_its_value() {
    let plain = solve_spec(
        "kuhn",
        &Request {
            algo: Some("lp".into()),
            ..Default::default()
        },
    );
    let game = plain.game.as_ref().unwrap();
    let Strategy::Exact(eq) = &plain.strategy else {
        panic!("exact")
    };
    let text = bluff::format::strategy_json::profile_to_json(game, "kuhn", eq).to_string();
    let re = solve_spec(
        "kuhn",
        &Request {
            algo: Some("lp".into()),
            lock: Some(LockSource::Json(text)),
            ..Default::default()
        },
    );
    assert_eq!(exact_value(&re), rat(-1, 18));
}

fn kuhn_lock(alpha: &str) -> Lock {
    let game = load("kuhn").unwrap().game;
    let LockSource::Json(text) = jack_lock(alpha) else {
        unreachable!()
    };
    lock_from_json(&game, Some("kuhn"), &text).unwrap()
}

/// A locked CFR run resumed with its own lock continues to the same bits; with another lock
/// (or none) it is a warm start.
#[test]
fn locks_survive_checkpoints_bit_for_bit() {
    let game = load("leduc").unwrap().game;
    let text = r#"{"strategy": {"P1": {"Js|": {"Call": "1", "Raise": "0"}},
        "P2": {"Ks|r": {"Fold": "1/4", "Call": "1/4", "Raise": "1/2"}}}}"#;
    let lock = lock_from_json(&game, Some("leduc"), text).unwrap();
    for kernel in [bluff::cfr::Kernel::Tree, bluff::cfr::Kernel::Sequence] {
        for algo in ["cfr", "dcfr", "pcfr+"] {
            let request = CfrRequest {
                algorithm: Some(registry::algorithm(algo).unwrap()),
                threads: Threads::Exactly(1),
                kernel: Some(kernel),
                check_every: 10,
                ..Default::default()
            };
            let stop = |n| StopRule {
                max_iterations: Some(n),
                ..Default::default()
            };
            let mut straight = CfrRun::start_locked(&game, "leduc", &request, Some(&lock)).unwrap();
            straight.run(&game, &stop(40), &mut NoHooks).unwrap();
            let mut first = CfrRun::start_locked(&game, "leduc", &request, Some(&lock)).unwrap();
            first.run(&game, &stop(17), &mut NoHooks).unwrap();
            let saved = checkpoint::decode(&checkpoint::encode(&first.checkpoint())).unwrap();
            assert!(!saved.lock.is_empty());
            let mut resumed =
                CfrRun::resume_locked(&game, "leduc", saved.clone(), &request, Some(&lock))
                    .unwrap();
            assert!(!resumed.warm_start());
            resumed.run(&game, &stop(40), &mut NoHooks).unwrap();
            let bits = |r: &CfrRun| -> Vec<u64> {
                let p = r.average_profile();
                p.probs.iter().flatten().map(|x| x.to_bits()).collect()
            };
            assert_eq!(bits(&straight), bits(&resumed), "{algo} {kernel:?}");
            let [a, b] = &straight.average_profile().probs;
            let j = &game.infosets[0][game.find_infoset(0, "Js|").unwrap()];
            assert_eq!(a[j.action_range()], [1.0, 0.0]);
            let k = &game.infosets[1][game.find_infoset(1, "Ks|r").unwrap()];
            assert_eq!(b[k.action_range()], [0.25, 0.25, 0.5]);
            let warm =
                CfrRun::resume_locked(&game, "leduc", saved.clone(), &request, None).unwrap();
            assert!(warm.warm_start());
            let other = lock_from_json(
                &game,
                None,
                r#"{"strategy": {"P1": {"Js|": {"Call": "1/2", "Raise": "1/2"}}}}"#,
            )
            .unwrap();
            let warm =
                CfrRun::resume_locked(&game, "leduc", saved, &request, Some(&other)).unwrap();
            assert!(warm.warm_start());
        }
    }
}

/// The sampling solvers play the lock exactly and land near the closed form.
#[test]
fn sampling_solvers_honour_a_lock() {
    for algo in ["es-mccfr", "os-mccfr"] {
        let solved = solve_spec(
            "kuhn",
            &Request {
                algo: Some(algo.into()),
                lock: Some(jack_lock("1/2")),
                iterations: Some(200_000),
                seed: Some(7),
                threads: Some(1),
                ..Default::default()
            },
        );
        let game = solved.game.as_ref().unwrap();
        let Strategy::Float { average, .. } = &solved.strategy else {
            panic!("float")
        };
        assert_eq!(average.prob_at(game, 0, "J", 1), Some(0.5), "{algo}");
        let v = solved.values.as_ref().unwrap()[0].to_f64();
        assert!((v + 1.0 / 9.0).abs() < 0.02, "{algo}: {v}");
        let e = exploitability_locked(game, average, Some(&kuhn_lock("1/2")));
        assert!(e.exploitability < 0.02, "{algo}: {}", e.exploitability);
    }
}

/// The LCP refuses a lock, naming itself; a lock for another game is refused by name.
#[test]
fn families_without_locks_refuse_them() {
    let e = solve(
        Source::Spec(Some("kuhn")),
        &Request {
            algo: Some("lcp".into()),
            lock: Some(jack_lock("1/2")),
            ..Default::default()
        },
        Spelling::Python,
        &mut Quiet,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.starts_with("lock= does not apply to lcp; it applies to"),
        "{e}"
    );
    let e = solve(
        Source::Spec(Some("leduc")),
        &Request {
            algo: Some("lp".into()),
            lock: Some(jack_lock("1/2")),
            ..Default::default()
        },
        Spelling::Cli,
        &mut Quiet,
    )
    .err()
    .unwrap()
    .to_string();
    assert_eq!(e, "lock: the file is for game \"kuhn\", not \"leduc\"");
}

/// A lock's canonical text (what checkpoints keep) reads back to the same lock, and the set
/// ids of its locked game skip exactly the locked sets; a line naming no set is refused.
#[test]
fn a_canonical_lock_reads_back() {
    let game = load("leduc").unwrap().game;
    let lock = lock_from_json(
        &game,
        Some("leduc"),
        r#"{"strategy": {"P1": {"Js|": {"Call": "1"}, "Qs|": {"Raise": "1/4", "Call": "3/4"}},
            "P2": {"Qh|r": {"Fold": "1"}}}}"#,
    )
    .unwrap();
    let text = lock.canonical(&game);
    assert_eq!(Lock::from_canonical(&game, &text).unwrap(), lock);
    assert_eq!(Lock::from_canonical(&game, "").unwrap(), Lock::default());
    let ids = lock.kept_ids(&game);
    let locked = lock.to_chance(&game);
    for (p, ids) in ids.iter().enumerate() {
        assert_eq!(
            ids.iter().filter(|i| i.is_none()).count(),
            lock.sets[p].len()
        );
        for (id, kept) in ids.iter().enumerate() {
            if let Some(k) = kept {
                assert_eq!(
                    locked.infosets[p][*k as usize].label,
                    game.infosets[p][id].label
                );
            }
        }
    }
    let e = Lock::from_canonical(&game, "0\tnowhere\t1\n").unwrap_err();
    assert!(e.contains("line 1") && e.contains("no such set"), "{e}");
    let twice = format!("{text}{}", text.lines().next().unwrap());
    assert!(Lock::from_canonical(&game, &twice).is_err());
}
