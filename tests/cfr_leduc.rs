//! CFR on Leduc poker against OpenSpiel's published and measured numbers (no LP needed).

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::eval::exploitability;
use bluff::games::leduc::leduc_poker;

/// OpenSpiel's `CFRSolver` (C++ and python alike) runs alternating updates
/// (`alternating_updates=True` in its constructor). Measured with pyspiel 2.0.2's C++
/// `CFRSolver` (`bench/cfr_vs_openspiel.sh`): 0.0957163530 after 100 iterations, 0.0118635055
/// after 999; the project's reference figures are 0.0939 and 0.0118. (Simultaneous updates give
/// 0.173 and 0.040 here, so the match also pins the update order.)
#[test]
fn vanilla_alternating_cfr_matches_openspiel_after_100_and_999_iterations() {
    let game = leduc_poker().unwrap();
    let mut solver = CfrSolver::new(&game, RegretParams::vanilla_alternating());
    solver.iterate(100);
    let e100 = exploitability(&game, &solver.average_profile()).exploitability;
    assert!((e100 - 0.095716353).abs() < 1e-6, "100 iterations: {e100}");
    assert!((e100 - 0.0939).abs() < 3e-3, "100 iterations: {e100}");
    solver.iterate(899);
    let e999 = exploitability(&game, &solver.average_profile()).exploitability;
    assert!((e999 - 0.011863506).abs() < 1e-6, "999 iterations: {e999}");
    assert!((e999 - 0.0118).abs() < 1e-4, "999 iterations: {e999}");
}

#[test]
fn dcfr_reaches_1e_3_and_the_published_value() {
    let game = leduc_poker().unwrap();
    let mut solver = CfrSolver::new(&game, RegretParams::discounted_default())
        .with_threads(2)
        .unwrap();
    solver.iterate(1000);
    let e = exploitability(&game, &solver.average_profile());
    assert!(
        e.exploitability <= 1e-3,
        "exploitability {}",
        e.exploitability
    );
    assert!(
        (e.value[0] - -0.085606424078).abs() <= 1e-3,
        "value {}",
        e.value[0]
    );
}

/// pyspiel 2.0.2's C++ `CFRPlusSolver` (alternating, regret matching+, linear averaging, no
/// delay) after 100 Leduc iterations: 0.013415994970897835. Its `CFRSolver` and
/// `CFRPlusSolver` on Kuhn after 1000: 0.0009376166469929614 and 8.736532252084928e-05.
#[test]
fn cfr_plus_and_kuhn_runs_match_openspiel() {
    let leduc = leduc_poker().unwrap();
    let mut solver = CfrSolver::new(&leduc, RegretParams::cfr_plus());
    solver.iterate(100);
    let e = exploitability(&leduc, &solver.average_profile()).exploitability;
    assert!((e - 0.013415994970897835).abs() < 1e-9, "{e}");

    let kuhn = bluff::games::kuhn::kuhn_poker().unwrap();
    for (params, expected) in [
        (RegretParams::vanilla_alternating(), 0.0009376166469929614),
        (RegretParams::cfr_plus(), 8.736532252084928e-05),
    ] {
        let mut solver = CfrSolver::new(&kuhn, params);
        solver.iterate(1000);
        let e = exploitability(&kuhn, &solver.average_profile()).exploitability;
        assert!((e - expected).abs() < 1e-12, "{params:?}: {e}");
    }
}
