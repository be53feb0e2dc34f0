//! Monte Carlo CFR checked against independent routes: exact counterfactual values computed
//! on the arena (the sampled ones must average to them), the arena's exact best response
//! (Kuhn converges for every seed), and the solver against itself (threads, resuming, rules
//! against the arena compiled from them).

use bluff::game::rules::{Rules, Turn};
use bluff::game::{Game, NodeKind};
use bluff::games::kuhn::Kuhn;
use bluff::games::leduc::Leduc;
use bluff::mccfr::{MccfrParams, MccfrSolver, MccfrState, Sampling};
use bluff::strategy::Profile;

/// Counterfactual values of `p`'s actions under `prof`, by flat action index: for a set `I`
/// and action `a`, the sum over `h` in `I` of the others' reach of `h` (chance and opponent)
/// times `p`'s expected payoff after `h a`. One forward and one backward sweep of the arena.
fn exact_counterfactual_values(game: &Game, prof: &Profile<f64>, p: usize) -> Vec<f64> {
    let n = game.nodes.len();
    let prob = |node: usize, k: usize| -> f64 {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Chance => game.chance_prob_f64[nd.first_child as usize + k],
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                prof.probs[player as usize][set.action_offset + k]
            }
            NodeKind::Terminal { .. } => unreachable!(),
        }
    };
    let mut reach = vec![0.0; n];
    reach[0] = 1.0;
    for node in 0..n {
        let nd = &game.nodes[node];
        let own = matches!(nd.kind, NodeKind::Decision { player, .. } if player as usize == p);
        for (k, c) in nd.children().enumerate() {
            reach[c] = reach[node] * if own { 1.0 } else { prob(node, k) };
        }
    }
    let mut value = vec![0.0; n];
    for node in (0..n).rev() {
        let nd = &game.nodes[node];
        value[node] = match nd.kind {
            NodeKind::Terminal { terminal } => {
                let u0 = game.terminals[terminal as usize].payoff0_f64;
                if p == 0 {
                    u0
                } else {
                    -u0
                }
            }
            _ => nd
                .children()
                .enumerate()
                .map(|(k, c)| prob(node, k) * value[c])
                .sum(),
        };
    }
    let mut cf = vec![0.0; game.num_actions[p]];
    for set in &game.infosets[p] {
        for &h in &set.nodes {
            let nd = &game.nodes[h as usize];
            for (k, c) in nd.children().enumerate() {
                cf[set.action_offset + k] += reach[h as usize] * value[c];
            }
        }
    }
    cf
}

/// The strategy the solver plays next, as an arena profile.
fn current_profile(game: &Game, s: &MccfrSolver<Game>) -> Profile<f64> {
    let mut prof = Profile::<f64>::uniform(game);
    for p in 0..2 {
        for (id, set) in game.infosets[p].iter().enumerate() {
            let r = set.action_range();
            s.current_strategy(p, id as u64, r.len(), &mut prof.probs[p][r]);
        }
    }
    prof
}

/// Averages one traversal's sampled counterfactual values over `samples` independent draws
/// (iterations `first..first + samples` of the seed) and compares each action's mean with the
/// exact value: |mean - exact| <= 5 standard errors (+1e-9), for every action with a nonzero
/// estimate in at least 50 draws (fewer are too few for the normal approximation of the
/// mean). Returns (actions checked, actions).
fn check_unbiased(game: &Game, s: &MccfrSolver<Game>, first: u64, samples: u64) -> (usize, usize) {
    let prof = current_profile(game, s);
    let (mut checked, mut total) = (0, 0);
    for p in 0..2 {
        let exact = exact_counterfactual_values(game, &prof, p);
        let m = exact.len();
        let (mut sum, mut sq, mut hits) = (vec![0.0; m], vec![0.0; m], vec![0u64; m]);
        for t in first..first + samples {
            for (key, values) in s.sampled_counterfactual_values(t, p) {
                let set = &game.infosets[p][key as usize];
                for (k, v) in values.iter().enumerate() {
                    let a = set.action_offset + k;
                    sum[a] += v;
                    sq[a] += v * v;
                    hits[a] += u64::from(*v != 0.0);
                }
            }
        }
        let n = samples as f64;
        for a in 0..m {
            total += 1;
            if hits[a] < 50 {
                continue;
            }
            checked += 1;
            let mean = sum[a] / n;
            let var = (sq[a] / n - mean * mean).max(0.0);
            let bound = 5.0 * (var / n).sqrt() + 1e-9;
            assert!(
                (mean - exact[a]).abs() <= bound,
                "player {p} action {a}: mean {mean} of {samples} draws, exact {}, bound {bound}",
                exact[a]
            );
        }
    }
    (checked, total)
}

/// One iteration's sampled counterfactual values average to the exact ones, on Kuhn and
/// Leduc, for external sampling and outcome sampling, each with and without baselines, from
/// the uniform strategy and from the strategy after some training (baselines then nonzero).
#[test]
fn sampled_counterfactual_values_are_unbiased() {
    let kuhn = bluff::games::builtin("kuhn").unwrap();
    let leduc = bluff::games::builtin("leduc").unwrap();
    let with_baselines = MccfrParams {
        baseline: Some(0.5),
        ..MccfrParams::outcome(0.6)
    };
    let external_with_baselines = MccfrParams {
        baseline: Some(0.5),
        ..MccfrParams::external()
    };
    for (game, samples, min_share) in [(&kuhn, 20_000, 1.0), (&leduc, 100_000, 0.4)] {
        for params in [
            MccfrParams::external(),
            external_with_baselines,
            MccfrParams::outcome(0.6),
            with_baselines,
        ] {
            for warmup in [0, 3000] {
                let mut s = MccfrSolver::new(game, params, 11).unwrap();
                s.iterate(warmup);
                let (checked, total) = check_unbiased(game, &s, 1_000_000, samples);
                let share = checked as f64 / total as f64;
                eprintln!(
                    "{} {:?} warm-up {warmup}: {checked} of {total}",
                    game.name, params.sampling
                );
                // After training some actions are rarely played and their sets rarely reached.
                let min_share = if warmup == 0 {
                    min_share
                } else {
                    min_share / 2.0
                };
                assert!(
                    share >= min_share,
                    "{} {params:?}: only {checked} of {total} actions reached 50 times",
                    game.name
                );
            }
        }
    }
}

/// The same check can fail: a biased estimator (outcome sampling's values without the
/// importance weight, i.e. ignoring the exploration) is caught.
#[test]
fn a_biased_estimate_is_caught() {
    let kuhn = bluff::games::builtin("kuhn").unwrap();
    let s = MccfrSolver::new(&kuhn, MccfrParams::outcome(0.6), 3).unwrap();
    let prof = current_profile(&kuhn, &s);
    let exact = exact_counterfactual_values(&kuhn, &prof, 0);
    let mut sum = vec![0.0; exact.len()];
    let samples = 20_000;
    for t in 0..samples {
        for (key, values) in s.sampled_counterfactual_values(t, 0) {
            let set = &kuhn.infosets[0][key as usize];
            for (k, v) in values.iter().enumerate() {
                // Halving the values stands for a missing factor of the sampling weight.
                sum[set.action_offset + k] += v / 2.0;
            }
        }
    }
    let worst = exact
        .iter()
        .zip(&sum)
        .map(|(e, s)| (s / samples as f64 - e).abs())
        .fold(0.0, f64::max);
    assert!(worst > 0.05, "{worst}");
}

fn kuhn_converges(seed: u64) {
    let kuhn = bluff::games::builtin("kuhn").unwrap();
    let mut s = MccfrSolver::new(&kuhn, MccfrParams::external(), seed).unwrap();
    s.iterate(3_000_000);
    let e = bluff::eval::exploitability(&kuhn, &s.average_profile(&kuhn)).exploitability;
    assert!(e <= 1e-3, "seed {seed}: exploitability {e}");
}

/// External sampling on Kuhn: the average strategy's exploitability (the arena's exact best
/// response, in f64) is at most 1e-3 after 3 million iterations, for every seed 0-9
/// (measured: 1.1e-4 to 6.5e-4).
mod kuhn_every_seed {
    macro_rules! seeds {
        ($($name:ident $seed:literal),*) => {$(
            #[test]
            fn $name() {
                super::kuhn_converges($seed);
            }
        )*};
    }
    seeds!(seed_0 0, seed_1 1, seed_2 2, seed_3 3, seed_4 4, seed_5 5, seed_6 6, seed_7 7, seed_8 8, seed_9 9);
}

/// The numbers of a state with the keys left out, in the order entries were made.
fn numbers(state: &MccfrState) -> Vec<Vec<u64>> {
    state
        .entries
        .iter()
        .flat_map(|e| {
            e.iter()
                .map(|(_, v)| v.iter().map(|x| x.to_bits()).collect())
        })
        .collect()
}

/// The native Leduc rules and the arena compiled from them sample alike, so the tables
/// hold the same numbers bit for bit (only the keys differ).
#[test]
fn rules_and_their_arena_give_the_same_bits() {
    let arena = bluff::games::builtin("leduc").unwrap();
    for params in [MccfrParams::external(), MccfrParams::outcome(0.6)] {
        let mut a = MccfrSolver::new(&arena, params, 5).unwrap();
        let mut r = MccfrSolver::new(&Leduc, params, 5).unwrap();
        a.iterate(2000);
        r.iterate(2000);
        assert_eq!(numbers(&a.state()), numbers(&r.state()), "{params:?}");
        assert_eq!(a.num_infosets(), r.num_infosets());
    }
}

/// A seed and a thread count give the same bits every time; saving and restoring between
/// rounds continues the run bit for bit.
#[test]
fn threads_are_reproducible_and_resuming_continues_bit_for_bit() {
    let with_baselines = MccfrParams {
        baseline: Some(0.5),
        ..MccfrParams::outcome(0.6)
    };
    let discounted = MccfrParams {
        regret: bluff::cfr::RegretParams::discounted(1.5, 0.0, 2.0),
        epoch: 100,
        ..MccfrParams::external()
    };
    let external_with_baselines = MccfrParams {
        baseline: Some(0.25),
        ..MccfrParams::external()
    };
    for params in [
        MccfrParams::external(),
        with_baselines,
        discounted,
        external_with_baselines,
    ] {
        for threads in [1, 2, 3] {
            let run = |n: u64| {
                let mut s = MccfrSolver::new(&Leduc, params, 9)
                    .unwrap()
                    .with_threads(threads)
                    .unwrap();
                s.iterate(n);
                s
            };
            let round = run(0).round();
            let straight = run(20 * round);
            assert_eq!(straight.iterations(), 20 * round);
            assert_eq!(
                straight.state(),
                run(20 * round).state(),
                "{params:?} {threads}"
            );
            let first = run(7 * round);
            let mut resumed = MccfrSolver::restore(&Leduc, &first.state()).unwrap();
            resumed.iterate(13 * round);
            assert_eq!(straight.state(), resumed.state(), "{params:?} {threads}");
        }
    }
    let mut bad = MccfrSolver::new(&Leduc, MccfrParams::external(), 1).unwrap();
    bad.iterate(10);
    let mut state = bad.state();
    state.entries[0][0].1.pop();
    assert!(MccfrSolver::restore(&Leduc, &state).is_err());
}

#[test]
fn bad_parameters_are_refused() {
    let kuhn = bluff::games::builtin("kuhn").unwrap();
    for params in [
        MccfrParams::outcome(0.0),
        MccfrParams::outcome(1.5),
        MccfrParams {
            baseline: Some(0.0),
            ..MccfrParams::external()
        },
        MccfrParams {
            baseline: Some(1.5),
            ..MccfrParams::outcome(0.6)
        },
        MccfrParams {
            epoch: 0,
            ..MccfrParams::external()
        },
        MccfrParams {
            regret: bluff::cfr::RegretParams::predictive_plus(),
            ..MccfrParams::external()
        },
    ] {
        assert!(MccfrSolver::new(&kuhn, params, 0).is_err(), "{params:?}");
    }
    assert!(MccfrSolver::new(&kuhn, MccfrParams::external(), 0)
        .unwrap()
        .with_threads(100_000)
        .is_err());
    let _ = Sampling::External;
}

/// The average strategy a rules solver holds at the set of `node` (an arena node compiled from
/// those rules): the node's path replayed on the rules gives the state and its key.
fn rules_average<G: Rules>(rules: &G, s: &MccfrSolver<G>, game: &Game, node: usize) -> Vec<f64> {
    let mut path = Vec::new();
    let mut n = node;
    while game.nodes[n].parent != u32::MAX {
        path.push(game.nodes[n].action as usize);
        n = game.nodes[n].parent as usize;
    }
    let mut state = rules.root();
    for &a in path.iter().rev() {
        rules.apply(&mut state, a);
    }
    let Turn::Player(p) = rules.turn(&state) else {
        panic!("node {node} is a decision of the arena, not of the rules");
    };
    let mut out = vec![0.0; rules.num_actions(&state)];
    s.average_strategy(p, rules.infoset_key(&state), out.len(), &mut out);
    out
}

/// An arena game says `chance_is_uniform` at exactly the chance nodes its rules say it at, so
/// the arena and the rules draw chance alike: the same seed gives the same average strategy
/// at every information set, bit for bit (sets matched through their histories, not their
/// keys), and the same tables.
fn arena_and_rules_agree<G: Rules>(rules: &G, spec: &str, iterations: u64) {
    let arena = bluff::games::builtin(spec).unwrap();
    let mut uniform = 0;
    for (n, node) in arena.nodes.iter().enumerate() {
        if node.kind == NodeKind::Chance {
            uniform += usize::from(arena.chance_is_uniform_at(n));
        } else {
            assert!(!arena.chance_is_uniform_at(n), "{spec}: node {n}");
        }
    }
    // Every chance node of these games deals one of the cards or dice left, evenly.
    let chance = arena.nodes.iter().filter(|n| n.kind == NodeKind::Chance);
    assert_eq!(uniform, chance.count(), "{spec}");
    for params in [MccfrParams::external(), MccfrParams::outcome(0.6)] {
        let mut a = MccfrSolver::new(&arena, params, 11).unwrap();
        let mut r = MccfrSolver::new(rules, params, 11).unwrap();
        a.iterate(iterations);
        r.iterate(iterations);
        assert_eq!(
            numbers(&a.state()),
            numbers(&r.state()),
            "{spec} {params:?}"
        );
        let prof = a.average_profile(&arena);
        let mut seen = vec![[false; 2]; 0];
        seen.resize(
            arena.infosets[0].len().max(arena.infosets[1].len()),
            [false; 2],
        );
        for (n, node) in arena.nodes.iter().enumerate() {
            let NodeKind::Decision { player, infoset } = node.kind else {
                continue;
            };
            let (p, id) = (player as usize, infoset as usize);
            if std::mem::replace(&mut seen[id][p], true) {
                continue;
            }
            let range = arena.infosets[p][id].action_range();
            let from_rules = rules_average(rules, &r, &arena, n);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&prof.probs[p][range]),
                bits(&from_rules),
                "{spec} {params:?}: set {}",
                arena.infosets[p][id].label
            );
        }
    }
}

#[test]
fn kuhn_arena_and_rules_give_the_same_average_strategy() {
    arena_and_rules_agree(&Kuhn, "kuhn", 20_000);
}

#[test]
fn leduc_arena_and_rules_give_the_same_average_strategy() {
    arena_and_rules_agree(&Leduc, "leduc", 5_000);
}

/// The arena's flag is decided on exact probabilities, by every constructor: thirds written
/// out one by one are uniform, halves and quarters are not, a `.efg` file read back keeps the
/// flags, and a lock's chance nodes are uniform exactly where the lock is.
#[test]
fn uniform_chance_is_exact_in_every_constructor() {
    use bluff::game::GameBuilder;
    use bluff::scalar::rat;
    let mut b = GameBuilder::new("flags", "P1", "P2");
    let root = b.root();
    let kids = b
        .chance(root, vec![("a", rat(1, 2)), ("b", rat(1, 2))])
        .unwrap();
    let thirds = b
        .chance(
            kids[0],
            (0..3).map(|i| (format!("t{i}"), rat(1, 3))).collect(),
        )
        .unwrap();
    let uneven = b
        .chance(
            kids[1],
            vec![("h", rat(1, 2)), ("q", rat(1, 4)), ("r", rat(1, 4))],
        )
        .unwrap();
    for (i, &leaf) in thirds.iter().chain(&uneven).enumerate() {
        let set = b.decision(leaf, 0, "x", &["l", "r"]).unwrap();
        for (j, &t) in set.iter().enumerate() {
            b.terminal(t, [rat(i as i64 - j as i64, 1), rat(0, 1)])
                .unwrap();
        }
    }
    let game = b.build().unwrap();
    let flags = |g: &Game| -> Vec<bool> {
        (0..g.nodes.len())
            .map(|n| g.chance_is_uniform_at(n))
            .collect()
    };
    let chance_flags = |g: &Game| -> Vec<(bool, usize)> {
        (0..g.nodes.len())
            .filter(|&n| g.nodes[n].kind == NodeKind::Chance)
            .map(|n| (g.chance_is_uniform_at(n), g.nodes[n].num_children as usize))
            .collect()
    };
    assert_eq!(chance_flags(&game), [(true, 2), (true, 3), (false, 3)]);
    assert!(Rules::chance_is_uniform(&game, &0));
    let text = bluff::format::efg::write_efg(&bluff::format::efg::game_to_efg(&game)).unwrap();
    let (read, _) = bluff::format::efg::load_efg(text.as_bytes(), |_| {}).unwrap();
    assert_eq!(flags(&read), flags(&game));
    // Kuhn with player 1's opening set locked: to even odds, then to 1/3 against 2/3.
    let kuhn = bluff::games::builtin("kuhn").unwrap();
    for (probs, uniform) in [
        ([rat(1, 2), rat(1, 2)], true),
        ([rat(1, 3), rat(2, 3)], false),
    ] {
        let mut lock = bluff::lock::Lock::default();
        lock.sets[0].push(bluff::lock::LockedSet {
            infoset: 0,
            probs: probs.to_vec(),
        });
        let locked = lock.to_chance(&kuhn);
        let mut at_set = 0;
        for (n, node) in kuhn.nodes.iter().enumerate() {
            let was_set = matches!(
                node.kind,
                NodeKind::Decision {
                    player: 0,
                    infoset: 0
                }
            );
            at_set += usize::from(was_set);
            let expect = if was_set {
                uniform
            } else {
                kuhn.chance_is_uniform_at(n)
            };
            assert_eq!(locked.chance_is_uniform_at(n), expect, "node {n}");
            assert_eq!(
                locked.nodes[n].kind == NodeKind::Chance,
                node.kind == NodeKind::Chance || was_set
            );
        }
        assert!(at_set > 0);
    }
}
