//! Sharded CFR (`bluff::solve::cfr::CfrShard`, the library side of `bluff.ray.solve_sharded`)
//! run in one process: for 1, 2 and 3 shards the state after 100 iterations is the
//! single-process solver's, bit for bit (the independent route: `CfrSolver`, itself pinned
//! by tests/cfr_pinned_bits.rs), on Kuhn, Leduc and liars dice 1x4 with CFR+ and DCFR, and
//! for fewer iterations with the other update rules.

use bluff::games::builtin;
use bluff::solve::cfr::{CfrShard, CfrSolver, RegretParams};

fn sharded(spec: &str, params: RegretParams, shards: usize, iterations: u64) -> Vec<CfrShard> {
    let g = builtin(spec).unwrap();
    let mut all: Vec<CfrShard> = (0..shards)
        .map(|k| CfrShard::new(&g, params, shards, k).unwrap())
        .collect();
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
        for (k, s) in sharded(spec, params, shards, iterations).iter().enumerate() {
            assert_eq!(s.iterations(), iterations);
            assert!(
                s.state() == want,
                "{spec} {params:?}: shard {k} of {shards} differs"
            );
            assert_eq!(s.average_profile(), one.average_profile());
        }
    }
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
    let mut s = CfrShard::new(&g, RegretParams::cfr_plus(), 1, 0).unwrap();
    assert!(s.evaluate(2).is_err());
    assert!(s.fold(0, &[], &mut [0.0; 3]).is_err());
    assert!(s.apply(0, &[0.0; 3]).is_err());
}
