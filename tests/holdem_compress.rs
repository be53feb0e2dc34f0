//! The compressed storage of hold'em spots (`--compress`, `Precision::Compressed16`): solves of
//! the small spots reach the f32 solve's exploitability and root EVs, the compressed average
//! strategy is what an independent evaluator reads from it, the bits do not depend on the
//! thread count, a checkpointed and resumed run equals a straight one, and the memory estimate
//! is 2 bytes per regret and per sum plus the scales (and the arrays kept f32).

use bluff::cfr::RegretParams;
use bluff::holdem::checkpoint::{self, Header};
use bluff::holdem::solver::{Deals, Game, GameKind, Precision, Solver, SpotValues};
use bluff::holdem::spot::Spot;
use bluff::holdem::strategy_file::spot_key;

fn spot(name: &str) -> Spot {
    let path = format!("{}/tests/data/spots/{name}", env!("CARGO_MANIFEST_DIR"));
    Spot::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn game(s: &Spot) -> Game {
    Game::build_with(s, 10_000_000, Deals::Isomorphic).unwrap()
}

fn solved(s: &Spot, params: RegretParams, precision: Precision, n: u64) -> Solver {
    let mut solver = Solver::with_precision(game(s), params, 1, precision);
    solver.iterate(n);
    solver
}

/// An evaluator of `s` holding `solver`'s average strategy, copied node by node (f64 sums).
fn evaluated(s: &Spot, solver: &Solver) -> SpotValues {
    let mut eval = Solver::evaluator(game(s), 1);
    for (i, node) in solver.game.nodes.iter().enumerate() {
        if let GameKind::Decision(_) = node.kind {
            eval.set_average_at(i, &solver.average_at(i));
        }
    }
    eval.values()
}

/// The small spots the storages are compared on (the flop spot's chance nodes are covered by
/// the thread and resume tests below; its solve takes longer).
const SPOTS: [&str; 2] = ["turn_reduced.toml", "river.toml"];

/// The compressed solve reaches the f32 solve's exploitability (within twice it, or 0.05% of
/// the pot: half the 0.1% target) and root EVs (within 0.05% of the pot) after the
/// same iterations, for the default dcfr+, a predictive rule (its last regrets kept f32) and
/// simultaneous updates; and its values are those an evaluator computes from its average
/// strategy in f64.
#[test]
fn compressed_solves_reach_the_f32_exploitability_and_evs() {
    let mut simultaneous = RegretParams::cfr_plus();
    simultaneous.alternating = false;
    for name in SPOTS {
        let s = spot(name);
        let pot = s.pot as f64;
        for (params, n) in [
            (RegretParams::dcfr_plus(), 100),
            (RegretParams::predictive_plus(), 60),
            (simultaneous, 60),
        ] {
            let mut f32_run = solved(&s, params, Precision::F32, n);
            let mut c = solved(&s, params, Precision::Compressed16, n);
            let (a, b) = (f32_run.values(), c.values());
            let what = format!("{name} {params:?}: f32 {a:?}, compressed {b:?}");
            // Far from the uniform start (cfr+ with simultaneous updates converges slowest).
            assert!(a.exploitability < 0.03 * pot, "{what}");
            assert!(
                b.exploitability <= (2.0 * a.exploitability).max(5e-4 * pot),
                "{what}"
            );
            for p in 0..2 {
                assert!((a.ev[p] - b.ev[p]).abs() <= 5e-4 * pot, "{what}");
            }
            // The same average strategy read by an evaluator of its own (f64 sums).
            let e = evaluated(&s, &c);
            assert!(
                (e.exploitability - b.exploitability).abs() <= 1e-9 * pot,
                "{what}"
            );
            for p in 0..2 {
                assert!((e.ev[p] - b.ev[p]).abs() <= 1e-9 * pot, "{what}");
            }
        }
    }
}

/// The 3betpotFAST turn spot (the turn ranges) to 0.1% of the pot with compression:
/// the root EVs of the f32 solve's (postflop-solver's 95.88 / 84.12) within 0.2.
#[test]
fn the_turn_spot_reaches_a_tenth_of_a_percent_compressed() {
    let s = spot("3betpot_turn.toml");
    let pot = s.pot as f64;
    let mut c = Solver::with_precision(
        game(&s),
        RegretParams::dcfr_plus(),
        2,
        Precision::Compressed16,
    );
    let mut v = c.values();
    while v.exploitability > 1e-3 * pot && c.iterations() < 300 {
        c.iterate(10);
        v = c.values();
    }
    assert!(
        v.exploitability <= 1e-3 * pot,
        "{} iterations: {v:?}",
        c.iterations()
    );
    assert!(
        (v.ev[0] - 95.88).abs() <= 0.2 && (v.ev[1] - 84.12).abs() <= 0.2,
        "{v:?}"
    );
}

/// Compressed runs give the same bits on 1, 2 and 3 threads (chance nodes' cards walked in
/// parallel; each node encoded by one walk).
#[test]
fn compressed_bits_do_not_depend_on_the_thread_count() {
    for name in ["flop_symmetric.toml", "turn_reduced.toml"] {
        let s = spot(name);
        let run = |threads| {
            let mut solver = Solver::with_precision(
                game(&s),
                RegretParams::dcfr_plus(),
                threads,
                Precision::Compressed16,
            );
            solver.iterate(12);
            let v = solver.values();
            let arrays: Vec<Vec<u8>> = state_bytes_of(&solver);
            (
                v.exploitability.to_bits(),
                v.ev[0].to_bits(),
                solver.average_at(0),
                arrays,
            )
        };
        let one = run(1);
        assert_eq!(one, run(2), "{name}");
        assert_eq!(one, run(3), "{name}");
    }
}

/// Every state array's bytes, as a checkpoint writes them.
fn state_bytes_of(solver: &Solver) -> Vec<Vec<u8>> {
    use bluff::holdem::solver::snapshot::ArrayRef;
    solver
        .state_arrays()
        .iter()
        .map(|(_, a)| match a {
            ArrayRef::F32(x) => x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ArrayRef::F64(x) => x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ArrayRef::I16(x) => x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ArrayRef::U16(x) => x.iter().flat_map(|v| v.to_le_bytes()).collect(),
        })
        .collect()
}

/// A compressed run checkpointed after 7 iterations and resumed to 15 has the state of a
/// straight run of 15, bit for bit (regrets, sums, scales, and the f32 `last` of a predictive
/// rule); a checkpoint of the compressed state is refused by an f32 solver.
#[test]
fn a_resumed_compressed_run_equals_a_straight_one() {
    let s = spot("flop_symmetric.toml");
    for params in [RegretParams::dcfr_plus(), RegretParams::predictive_plus()] {
        let straight = solved(&s, params, Precision::Compressed16, 15);
        let first = solved(&s, params, Precision::Compressed16, 7);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let header = Header {
            spot: spot_key(&s, &first.game),
            algo: "test".into(),
            params: format!("{params:?}"),
            precision: String::new(),
            iterations: 0,
            solve_seconds: 0.0,
            points: Vec::new(),
            arrays: Vec::new(),
        };
        let bytes = checkpoint::save(&path, &first, &header).unwrap();
        assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        let opened = checkpoint::open(&path).unwrap();
        assert_eq!(opened.header.precision, "compressed16");
        let mut resumed = Solver::with_precision(game(&s), params, 2, Precision::Compressed16);
        opened.restore(&mut resumed).unwrap();
        assert_eq!(resumed.iterations(), 7);
        resumed.iterate(8);
        assert_eq!(state_bytes_of(&straight), state_bytes_of(&resumed));
        let mut other = Solver::with_precision(game(&s), params, 1, Precision::F32);
        let err = checkpoint::open(&path)
            .unwrap()
            .restore(&mut other)
            .unwrap_err();
        assert!(err.to_string().contains("compressed16"), "{err}");
    }
}

/// The memory estimate: 2 bytes per regret and per sum, 4 per entry of an array kept f32
/// (a predictive rule's last regrets), 8 per game node for the two scales; the same bytes
/// as the arrays the solver holds (counted from them).
#[test]
fn the_estimate_is_two_bytes_per_entry_plus_the_scales() {
    let s = spot("flop_symmetric.toml");
    let g = game(&s);
    let entries = (g.state_len[0] + g.state_len[1]) as u64;
    let nodes = g.nodes.len() as u64;
    let dcfr = RegretParams::dcfr_plus();
    let pcfr = RegretParams::predictive_plus();
    assert_eq!(
        g.state_bytes_in(&dcfr, Precision::Compressed16),
        4 * entries + 8 * nodes
    );
    assert_eq!(
        g.state_bytes_in(&pcfr, Precision::Compressed16),
        8 * entries + 8 * nodes
    );
    assert_eq!(g.state_bytes_in(&dcfr, Precision::F32), 8 * entries);
    for params in [dcfr, pcfr] {
        let estimate = g.state_bytes_in(&params, Precision::Compressed16);
        let solver = Solver::with_precision(game(&s), params, 1, Precision::Compressed16);
        let held: u64 = solver
            .state_arrays()
            .iter()
            .map(|(_, a)| a.len() as u64 * a.width())
            .sum();
        assert_eq!(held, estimate);
    }
}
