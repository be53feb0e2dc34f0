//! Pruning the subtrees no update can see changes nothing: every variant gives bit-identical
//! solver states with pruning on and off, on 1, 2 and 3 threads, on games whose strategies
//! put exactly-0 probabilities on actions (vanilla regret matching, CFR+ floors) and on a game
//! with a chance probability of 0.

use bluff::cfr::{CfrSolver, Pacing, RegretParams};
use bluff::game::{Game, GameBuilder};
use bluff::games::load;
use bluff::scalar::Rational;
use num_bigint::BigInt;
use num_traits::One;

mod common;
use common::cfr_variants::variants;

/// Runs `iterations` with pruning off on one thread, then with pruning on at 1, 2 and 3
/// threads, and asserts the states are equal bit for bit. Returns the fewest live nodes a
/// pruned run saw in its last pass.
fn check(game: &Game, name: &str, params: RegretParams, iterations: u64) -> usize {
    let mut plain = CfrSolver::new(game, params).with_pruning(false);
    plain.iterate(iterations);
    let want = plain.state();
    assert_eq!(
        plain.live_nodes(),
        game.nodes.len(),
        "{name}: unpruned pass skipped nodes"
    );
    let mut fewest = usize::MAX;
    for threads in [1, 2, 3] {
        let mut pruned = CfrSolver::new(game, params)
            .with_pacing(Pacing::Team)
            .with_threads(threads)
            .unwrap();
        pruned.iterate(iterations);
        assert!(
            pruned.state() == want,
            "{name} at {threads} threads differs from unpruned"
        );
        fewest = fewest.min(pruned.live_nodes());
    }
    fewest
}

/// The variants added after the pinned ones (kept out of `cfr_variants::variants`, whose order
/// indexes the pinned bits); VAD-CFR averaging after `iterations / 2` so that every rule runs.
fn newer_variants(iterations: u64) -> Vec<(&'static str, RegretParams)> {
    let mut vad = RegretParams::vad_cfr();
    if let Some(v) = vad.volatility.as_mut() {
        v.warmup = (iterations / 2) as f64;
    }
    vec![
        ("sapcfr+", RegretParams::sapcfr_plus()),
        (
            "hs-dcfr-15",
            RegretParams::hs_dcfr_revised(15.0, iterations),
        ),
        (
            "hs-pcfr+-15",
            RegretParams::hs_pcfr_plus_revised(15.0, iterations),
        ),
        (
            "hs-pdcfr+-30",
            RegretParams::hs_pdcfr_plus(30.0, iterations),
        ),
        ("vad-cfr", vad),
    ]
}

#[test]
fn pruning_is_exact_on_leduc_for_every_variant() {
    let game = load("leduc").unwrap().game;
    for (name, params) in variants(60).into_iter().chain(newer_variants(60)) {
        let live = check(&game, name, params, 60);
        // Regret matching puts exactly 0 on actions in every variant, so passes shrink.
        assert!(live < game.nodes.len(), "{name}: nothing pruned");
    }
}

/// 51 181 nodes: levels big enough for the parallel kernels.
#[test]
fn pruning_is_exact_on_liars_dice_5_sides_at_every_thread_count() {
    let game = load("liars-dice(sides=5)").unwrap().game;
    for (name, params) in variants(25).into_iter().chain(newer_variants(25)) {
        let live = check(&game, name, params, 25);
        assert!(
            live < game.nodes.len() / 2,
            "{name}: only {live} pruned of {}",
            game.nodes.len()
        );
    }
}

#[test]
fn pruning_is_exact_with_a_probability_zero_chance_branch() {
    let path = format!("{}/tests/data/prob0_chance.efg", env!("CARGO_MANIFEST_DIR"));
    let game = load(&path).unwrap().game;
    for (name, params) in variants(30) {
        let live = check(&game, name, params, 30);
        // The dead chance branch (4 of 14 nodes below it) is never computed.
        assert!(live <= game.nodes.len() - 5, "{name}: {live}");
    }
}

fn pow2(e: u32) -> Rational {
    Rational::from_integer(BigInt::one() << e)
}

/// A reach that underflows to 0 without any 0 probability must not be pruned: P1 at `X`
/// (reached with chance 2^-300) compares `B` (payoff 0) with `A`, a chance of 2^-800 of a P2
/// node paying 2^900 or 2^901. P2's counterfactual reach there is 2^-1100, which is 0 in f64;
/// `A` is still worth 2^-800 * 1.5 * 2^900 > 0, so after one iteration P1 plays `A` only.
#[test]
fn an_underflowing_reach_is_not_pruned() {
    let mut b = GameBuilder::new("underflow", "P1", "P2");
    let root = b.root();
    let tiny = pow2(300).recip();
    let kids = b
        .chance(
            root,
            vec![("tiny", tiny.clone()), ("rest", Rational::one() - tiny)],
        )
        .unwrap();
    b.terminal_zero_sum(kids[1], Rational::from_integer(0.into()))
        .unwrap();
    let x = b.decision(kids[0], 0, "X", &["A", "B"]).unwrap();
    b.terminal_zero_sum(x[1], Rational::from_integer(0.into()))
        .unwrap();
    let deep = pow2(800).recip();
    let g0 = b
        .chance(
            x[0],
            vec![("deep", deep.clone()), ("flat", Rational::one() - deep)],
        )
        .unwrap();
    b.terminal_zero_sum(g0[1], Rational::from_integer(0.into()))
        .unwrap();
    let y = b.decision(g0[0], 1, "Y", &["l", "r"]).unwrap();
    b.terminal_zero_sum(y[0], pow2(900)).unwrap();
    b.terminal_zero_sum(y[1], pow2(901)).unwrap();
    let game = b.build().unwrap();
    for (name, params) in variants(10) {
        check(&game, name, params, 10);
        let mut s = CfrSolver::new(&game, params);
        s.iterate(1);
        assert_eq!(s.current_profile().probs[0], vec![1.0, 0.0], "{name}");
    }
}

/// The lean serial passes (one straight loop over all nodes, used for small games) give the
/// same bits as the level-by-level pruned passes, forced both ways on games big and small,
/// for every variant; the live-node count they report is the pruned pass's.
#[test]
fn lean_passes_equal_pruned_passes() {
    let games = [
        ("kuhn", 200),
        ("leduc", 40),
        ("liars-dice(sides=5)", 10),
        ("goofspiel(cards=4,order=descending)", 30),
    ];
    for (spec, iterations) in games {
        let game = load(spec).unwrap().game;
        for (name, params) in variants(iterations) {
            let mut lean = CfrSolver::new(&game, params).with_lean_passes(true);
            let mut general = CfrSolver::new(&game, params).with_lean_passes(false);
            for _ in 0..iterations {
                lean.iterate(1);
                general.iterate(1);
                assert_eq!(lean.live_nodes(), general.live_nodes(), "{spec} {name}");
            }
            assert!(
                lean.state() == general.state(),
                "{spec} {name}: states differ"
            );
        }
    }
}
