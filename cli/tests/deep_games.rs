//! Games a million levels deep: building, reading, writing, solving and evaluating them must not
//! recurse on depth. The tests run on the default 2 MiB test-thread stack, so any traversal that
//! recursed once per level would overflow here.

mod common;

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::eval::exploitability;
use bluff::format::efg::{efg_to_game, game_to_efg, read_efg, write_efg};
use bluff::game::{Game, GameBuilder};
use bluff::scalar::{int, Rational};
use bluff::strategy::Profile;
use common::cli::bluff;
use std::fmt::Write;

/// A chain of `depth` decisions, players alternating: "stop" ends the game (the mover loses 1
/// when the depth is even, wins 1 when odd), "go" moves on; the last "go" pays 0.
fn chain(depth: usize) -> Game {
    let mut b = GameBuilder::new("chain", "A", "B");
    let mut node = b.root();
    for d in 0..depth {
        let kids = b
            .decision(node, d % 2, &format!("d{d}"), &["stop", "go"])
            .unwrap();
        b.terminal_zero_sum(kids[0], stop_payoff(d)).unwrap();
        node = kids[1];
    }
    b.terminal_zero_sum(node, int(0)).unwrap();
    b.build().unwrap()
}

/// Player 0's payoff when the mover at depth `d` stops: the mover loses 1.
fn stop_payoff(d: usize) -> Rational {
    int(if d.is_multiple_of(2) { -1 } else { 1 })
}

/// The same chain as `.efg` text, written directly (not through bluff's writer).
fn chain_efg(depth: usize) -> String {
    let mut s = String::from("EFG 2 R \"chain\" { \"A\" \"B\" }\n\n");
    for d in 0..depth {
        let p = d % 2 + 1;
        let pay = stop_payoff(d);
        writeln!(
            s,
            "p \"\" {p} {} \"d{d}\" {{ \"stop\" \"go\" }} 0",
            d / 2 + 1
        )
        .unwrap();
        writeln!(s, "t \"\" {} \"\" {{ {pay}, {} }}", d + 1, -pay.clone()).unwrap();
    }
    writeln!(s, "t \"\" {} \"\" {{ 0, 0 }}", depth + 1).unwrap();
    s
}

const DEPTH: usize = 1_000_000;

#[test]
fn a_million_deep_chain_builds_solves_evaluates_and_round_trips() {
    let game = chain(DEPTH);
    assert_eq!(game.nodes.len(), 2 * DEPTH + 1);
    // Uniform play in f64 (exact reach probabilities would carry million-bit denominators).
    let uniform = Profile::<f64>::uniform(&game);
    let e = exploitability(&game, &uniform);
    // Level d is reached with probability 2^-d and stopping there pays player 0 (-1)^(d+1):
    // value = sum_d 2^-(d+1) (-1)^(d+1) = -1/3.
    assert!((e.value[0] + 1.0 / 3.0).abs() < 1e-12, "{}", e.value[0]);
    // Player 0's best response to uniform B never stops (stopping costs 1, going costs nothing
    // more), and collects +1 each time B stops: sum_k 2^-(k+1) = 1.
    assert!((e.best_response_value[0] - 1.0).abs() < 1e-12);
    // Symmetrically B's best response never stops, and A's uniform play stops at level 0 with
    // probability 1/2 (B gets 1), then at level 2 with 1/4 ...: sum = 1.
    assert!((e.best_response_value[1] - 1.0).abs() < 1e-12);

    // CFR+ runs on it; at levels whose reach underflows f64 it learns nothing, so only check
    // that the result is a valid profile: NashConv lies in [0, 2] (payoffs lie in [-1, 1]).
    let mut solver = CfrSolver::new(&game, RegretParams::cfr_plus());
    solver.iterate(10);
    let e = exploitability(&game, &solver.average_profile());
    assert!(
        (-1e-12..=2.0 + 1e-12).contains(&e.nash_conv),
        "{}",
        e.nash_conv
    );

    // Writing and reading back gives the same arena.
    let text = write_efg(&game_to_efg(&game)).unwrap();
    let back = efg_to_game(&read_efg(&text).unwrap().game).unwrap();
    assert_eq!(back.nodes.len(), game.nodes.len());
    assert_eq!(back.infosets[1].len(), DEPTH / 2);
}

#[test]
fn a_million_deep_efg_file_reads_into_the_same_game_as_the_builder() {
    let text = chain_efg(DEPTH);
    let game = efg_to_game(&read_efg(&text).unwrap().game).unwrap();
    let built = chain(DEPTH);
    assert_eq!(game.nodes.len(), built.nodes.len());
    for (a, b) in game.nodes.iter().zip(&built.nodes) {
        assert_eq!((a.kind, a.parent, a.action), (b.kind, b.parent, b.action));
    }
}

#[test]
fn cli_solves_and_evaluates_a_million_deep_efg_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chain.efg");
    std::fs::write(&file, chain_efg(DEPTH)).unwrap();
    let strategy = dir.path().join("chain.json");
    bluff()
        .args(["solve", file.to_str().unwrap(), "--iterations", "10", "-o"])
        .arg(&strategy)
        .assert()
        .success();
    assert!(std::fs::metadata(&strategy).unwrap().len() > DEPTH as u64);
    // Exact evaluation of a mixed strategy a million levels deep needs million-bit reach
    // probabilities, so evaluate the pure equilibrium (never stop) instead: value 0, and no
    // deviation gains (stopping only loses), so NashConv is exactly 0.
    let always_go = dir.path().join("go.json");
    let mut sets = [String::new(), String::new()];
    for d in 0..DEPTH {
        let s = &mut sets[d % 2];
        if !s.is_empty() {
            s.push(',');
        }
        write!(s, "\"d{d}\":{{\"stop\":0,\"go\":1}}").unwrap();
    }
    let json = format!(
        "{{\"strategy\":{{\"A\":{{{}}},\"B\":{{{}}}}}}}",
        sets[0], sets[1]
    );
    std::fs::write(&always_go, json).unwrap();
    let out = bluff()
        .args([
            "eval",
            file.to_str().unwrap(),
            always_go.to_str().unwrap(),
            "--json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["value_p1"]["exact"], "0", "{v}");
    assert_eq!(v["nash_conv"]["exact"], "0", "{v}");
}

#[test]
fn normal_form_of_a_deep_chain_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chain.efg");
    std::fs::write(&file, chain_efg(100_000)).unwrap();
    let out = bluff()
        .args(["normal-form", file.to_str().unwrap()])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("reduced pure strategies"), "{err}");
}
