//! Sharded CFR (`bluff::cfr::CfrShard`, the library side of `bluff.ray.solve_sharded`)
//! run in one process: for 1, 2 and 3 shards the state after 100 iterations is the
//! single-process solver's, bit for bit (the independent route: `CfrSolver`, itself pinned
//! by tests/cfr_pinned_bits.rs), on Kuhn, Leduc and liars dice 1x4 with CFR+ and DCFR, and
//! for fewer iterations with the other update rules. Shards built from the game's rules hold
//! only the top and their own subtrees (`tree::partial`) and give the same bits; their node
//! counts are checked against the whole arena's subtree sizes.

use bluff::cfr::{CfrShard, CfrSolver, RegretParams};
use bluff::game::Game;
use bluff::games::builtin;
use bluff::solve::shards::rules_result_for_spec;

/// The whole-arena shards (`CfrShard::new`) or the partial ones (`CfrShard::from_spec`).
fn shards_of(spec: &str, params: RegretParams, shards: usize, partial: bool) -> Vec<CfrShard> {
    let g = builtin(spec).unwrap();
    (0..shards)
        .map(|k| {
            if partial {
                bluff::solve::shards::shard_from_spec(spec, params, shards, k, None)
                    .unwrap()
                    .expect("a built-in game with rules")
            } else {
                CfrShard::new(&g, params, shards, k).unwrap()
            }
        })
        .collect()
}

fn sharded(spec: &str, params: RegretParams, shards: usize, iterations: u64) -> Vec<CfrShard> {
    sharded_as(spec, params, shards, iterations, false)
}

fn sharded_as(
    spec: &str,
    params: RegretParams,
    shards: usize,
    iterations: u64,
    partial: bool,
) -> Vec<CfrShard> {
    let g = builtin(spec).unwrap();
    let mut all = shards_of(spec, params, shards, partial);
    // Every shard has work below the cut, and the shards' work tiles it.
    assert!(
        all.iter().all(|s| s.own_nodes() > 0),
        "{spec}: {shards} shards"
    );
    let below: usize = all.iter().map(CfrShard::own_nodes).sum();
    assert!(below > g.nodes.len() / 2 && below < g.nodes.len(), "{spec}");
    CfrShard::run_in_process(&mut all, iterations).unwrap();
    all
}

fn check(spec: &str, params: RegretParams, iterations: u64) {
    let g = builtin(spec).unwrap();
    let mut one = CfrSolver::new(&g, params);
    one.iterate(iterations);
    let want = one.state();
    for shards in [1, 2, 3] {
        for partial in [false, true] {
            let all = sharded_as(spec, params, shards, iterations, partial);
            for (k, s) in all.iter().enumerate() {
                assert_eq!(s.iterations(), iterations);
                assert!(
                    s.state() == want,
                    "{spec} {params:?}: shard {k} of {shards} (partial {partial}) differs"
                );
                assert_eq!(s.average_profile(), one.average_profile());
            }
        }
    }
}

/// Each node's level and subtree size in the arena (breadth-first, children after their
/// parent), computed here from the arena alone.
fn levels_and_sizes(g: &Game) -> (Vec<usize>, Vec<usize>) {
    let n = g.nodes.len();
    let mut level = vec![0usize; n];
    for h in 1..n {
        level[h] = level[g.nodes[h].parent as usize] + 1;
    }
    let mut size = vec![1usize; n];
    for h in (1..n).rev() {
        size[g.nodes[h].parent as usize] += size[h];
    }
    (level, size)
}

/// A partial shard holds exactly the top, the cut level and its own subtrees: counted from
/// the arena's subtree sizes at the whole-arena shard's cut, and the parts of all shards
/// together hold the game once below the cut.
#[test]
fn a_partial_shard_holds_the_top_and_its_subtrees() {
    for spec in ["leduc", "liars-dice(sides=5)", "goofspiel(cards=4)"] {
        let g = builtin(spec).unwrap();
        let (level, size) = levels_and_sizes(&g);
        for shards in [1, 2, 3, 4] {
            let whole = shards_of(spec, RegretParams::cfr_plus(), shards, false);
            let part = shards_of(spec, RegretParams::cfr_plus(), shards, true);
            let mut below = 0;
            for (w, p) in whole.iter().zip(&part) {
                let (cut, range) = w.cut();
                assert_eq!(p.cut(), (cut, range.clone()), "{spec}");
                let above = level.iter().filter(|&&l| l <= cut).count();
                let own: usize = range.map(|h| size[h] - 1).sum();
                assert_eq!(p.held_nodes(), above + own, "{spec} {shards}");
                assert_eq!(w.held_nodes(), g.nodes.len());
                assert_eq!(p.game_nodes(), g.nodes.len() as u64);
                assert_eq!(p.own_nodes(), w.own_nodes());
                below += own;
            }
            let cut = whole[0].cut().0;
            assert_eq!(
                below,
                level.iter().filter(|&&l| l > cut).count(),
                "{spec} {shards}"
            );
            if shards == 4 && spec != "leduc" {
                // A quarter of the game and a small top.
                let most = part.iter().map(CfrShard::held_nodes).max().unwrap();
                assert!(
                    most * 3 < g.nodes.len(),
                    "{spec}: {most} of {}",
                    g.nodes.len()
                );
            }
        }
    }
}

/// A partial shard gives the whole-arena shard's state after each iteration, bit for bit,
/// with alternating and simultaneous updates, and restores from a whole shard's state.
#[test]
fn partial_shards_equal_whole_shards_bit_for_bit() {
    for (spec, params) in [
        ("liars-dice(sides=5)", RegretParams::vanilla()),
        ("goofspiel(cards=4)", RegretParams::discounted_default()),
    ] {
        let mut whole = shards_of(spec, params, 3, false);
        let mut part = shards_of(spec, params, 3, true);
        for _ in 0..5 {
            CfrShard::run_in_process(&mut whole, 1).unwrap();
            CfrShard::run_in_process(&mut part, 1).unwrap();
            for (w, p) in whole.iter().zip(&part) {
                assert!(w.state() == p.state(), "{spec}");
            }
        }
        let state = whole[0].state();
        part[2] = bluff::solve::shards::shard_from_spec(spec, params, 3, 2, Some(&state))
            .unwrap()
            .unwrap();
        CfrShard::run_in_process(&mut whole, 3).unwrap();
        CfrShard::run_in_process(&mut part, 3).unwrap();
        assert!(part.iter().all(|p| p.state() == whole[0].state()), "{spec}");
    }
    // A game from a file has no rules to compile from: the caller builds it whole.
    assert!(
        bluff::solve::shards::shard_from_spec("x.efg", RegretParams::cfr_plus(), 2, 0, None)
            .unwrap()
            .is_none()
    );
}

#[test]
fn cfr_plus_and_dcfr_sharded_are_bit_identical_to_one_process() {
    for spec in ["kuhn", "leduc", "liars-dice(sides=4)"] {
        check(spec, RegretParams::cfr_plus(), 100);
        check(spec, RegretParams::discounted_default(), 100);
    }
}

/// VAD-CFR averaging from iteration 6 on, so that a short run exercises every rule.
fn vad_early() -> RegretParams {
    let mut params = RegretParams::vad_cfr();
    if let Some(v) = params.volatility.as_mut() {
        v.warmup = 5.0;
    }
    params
}

#[test]
fn every_update_rule_sharded_is_bit_identical() {
    for params in [
        RegretParams::vanilla(),
        RegretParams::vanilla_alternating(),
        RegretParams::linear(),
        RegretParams::predictive_plus(),
        RegretParams::dcfr_plus(),
        RegretParams::pdcfr_plus(),
        RegretParams::sapcfr_plus(),
        RegretParams::hs_pdcfr_plus(30.0, 30),
        RegretParams::hs_dcfr_revised(15.0, 30),
        vad_early(),
    ] {
        check("leduc", params, 30);
    }
    check("liars-dice(sides=5)", RegretParams::vanilla(), 12);
    check("goofspiel(cards=4)", RegretParams::cfr_plus(), 12);
}

/// A shard restored from any shard's state continues the same run.
#[test]
fn a_restored_shard_continues_bit_identically() {
    let g = builtin("leduc").unwrap();
    let params = RegretParams::cfr_plus();
    let mut one = CfrSolver::new(&g, params);
    one.iterate(40);
    let mut first = sharded("leduc", params, 3, 17);
    let state = first[1].state();
    first[1] = CfrShard::restore(&g, params, &state, 3, 1).unwrap();
    CfrShard::run_in_process(&mut first, 23).unwrap();
    assert!(first.iter().all(|s| s.state() == one.state()));
}

#[test]
fn bad_requests_are_errors() {
    let g = builtin("kuhn").unwrap();
    assert!(CfrShard::new(&g, RegretParams::cfr_plus(), 2, 2).is_err());
    assert!(CfrShard::new(&g, RegretParams::cfr_plus(), 0, 0).is_err());
    assert!(
        bluff::solve::shards::shard_from_spec("kuhn", RegretParams::cfr_plus(), 2, 2, None)
            .is_err()
    );
    let mut s = CfrShard::new(&g, RegretParams::cfr_plus(), 1, 0).unwrap();
    assert!(s.evaluate(2).is_err());
    assert!(s.fold(0, &[], &mut [0.0; 3]).is_err());
    assert!(s.apply(0, &[0.0; 3]).is_err());
}

/// A sharded run's result without the whole tree (`rules_result_for_spec`, what
/// `solve_sharded(..., result="rules")` returns): every set's label and probabilities are the
/// arena's set for set, and the streaming best response's exploitability is the arena's
/// best response's to rounding (the independent route: `eval::exploitability` on the compiled
/// game; tests/streaming.rs shows the two walks equal in rationals), the same bits on any
/// number of threads.
#[test]
fn a_rules_result_equals_the_arena_result_without_the_tree() {
    for spec in ["kuhn", "leduc", "liars-dice(sides=4)", "goofspiel(cards=4)"] {
        let g = builtin(spec).unwrap();
        let all = sharded_as(spec, RegretParams::cfr_plus(), 2, 30, true);
        let keys = all[0].set_keys().expect("compiled from rules");
        let avg = all[0].average_profile();
        let want = bluff::eval::exploitability(&g, &avg).exploitability;
        let mut bits = None;
        for threads in [1, 2] {
            let r = rules_result_for_spec(spec, keys, &avg, true, true, threads)
                .unwrap()
                .expect("rules");
            let e = r.exploitability.expect("asked for");
            assert!((e - want).abs() <= 1e-12, "{spec}: {e} against {want}");
            // The same bits on any number of threads.
            assert_eq!(*bits.get_or_insert(e.to_bits()), e.to_bits(), "{spec}");
            for (p, arena_sets) in g.infosets.iter().enumerate() {
                let labelled = &r.labelled.sets[p];
                assert_eq!(labelled.len(), arena_sets.len(), "{spec}");
                for (set, key) in arena_sets.iter().zip(&keys[p]) {
                    let got = labelled
                        .binary_search_by_key(key, |s| s.key)
                        .map(|j| &labelled[j])
                        .unwrap();
                    assert_eq!(got.label, set.label, "{spec}");
                    assert_eq!(got.actions, set.actions.to_vec(), "{spec}");
                    assert_eq!(got.probs, avg.probs[p][set.action_range()], "{spec}");
                }
            }
        }
        let none = rules_result_for_spec(spec, keys, &avg, false, false, 1)
            .unwrap()
            .unwrap();
        assert_eq!(none.exploitability, None);
        assert!(none
            .labelled
            .sets
            .iter()
            .flatten()
            .all(|s| s.actions.is_empty()));
        // A profile that does not fit the sets is an error, not a panic.
        let mut short = avg.clone();
        short.probs[1].pop();
        assert!(rules_result_for_spec(spec, keys, &short, false, true, 1).is_err());
        // Every shard names the game alike, and another game differently.
        let fp = all[0].rules_fingerprint().expect("from rules");
        assert!(all.iter().all(|s| s.rules_fingerprint() == Some(fp)));
        let other = bluff::solve::shards::shard_from_spec(
            "liars-dice(sides=3)",
            RegretParams::cfr_plus(),
            2,
            0,
            None,
        )
        .unwrap()
        .unwrap();
        assert_ne!(other.rules_fingerprint(), Some(fp), "{spec}");
    }
    assert!(
        CfrShard::new(&builtin("kuhn").unwrap(), RegretParams::cfr_plus(), 1, 0)
            .unwrap()
            .set_keys()
            .is_none()
    );
}
