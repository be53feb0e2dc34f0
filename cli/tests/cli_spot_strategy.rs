//! Hold'em strategy files from the command line: `bluff solve SPOT.toml -o S`, `bluff eval
//! SPOT.toml S` and `bluff export-strategy SPOT.toml S --node PATH`, and the files and paths
//! they refuse.

mod common;

use common::cli::{assert_refused, bluff, json_of, solve_json};
use common::data;

fn river() -> String {
    data("spots/river.toml")
}

/// A turn spot on a reduced deck: a river card to name in paths, quick to solve.
const TURN_SPOT: &str = include_str!("../../tests/data/spots/turn_reduced.toml");

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn eval_of_the_written_strategy_gives_the_solves_exploitability() {
    let dir = tempfile::tempdir().unwrap();
    let turn = common::write_in(dir.path(), "turn.toml", TURN_SPOT);
    for spot in [river(), turn.display().to_string()] {
        let s = dir.path().join("s.bin");
        let s_arg = s.display().to_string();
        let solved = solve_json(&[&spot, "--iterations", "30", "-o", &s_arg]);
        let evaluated = json_of(bluff().args(["eval", &spot, &s_arg]));
        let pot = f(&solved["pot"]);
        // The file holds f32 probabilities: each within 6e-8 of the solver's f64, so the
        // values agree to 1e-6 of the pot.
        let close =
            |a: &serde_json::Value, b: &serde_json::Value| (f(a) - f(b)).abs() <= 1e-6 * pot;
        assert!(
            close(&solved["exploitability"], &evaluated["exploitability"]),
            "{solved} {evaluated}"
        );
        for p in 0..2 {
            assert!(close(&solved["root_ev"][p], &evaluated["root_ev"][p]));
            assert!(close(
                &solved["best_response"][p],
                &evaluated["best_response"][p]
            ));
            assert_eq!(solved["root_equity"][p], evaluated["root_equity"][p]);
        }
        assert!(f(&evaluated["exploitability"]) > 0.0);
        let pct = f(&evaluated["exploitability"]) / pot * 100.0;
        assert!((f(&evaluated["exploitability_pot_pct"]) - pct).abs() < 1e-12);
        assert_eq!(evaluated["iterations"], 30);
        // The text form says the same.
        let out = bluff().args(["eval", &spot, &s_arg]).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("exploitability") && text.contains("root EV"),
            "{text}"
        );
    }
}

#[test]
fn export_strategy_prints_one_node_per_hand() {
    let dir = tempfile::tempdir().unwrap();
    let turn = common::write_in(dir.path(), "turn.toml", TURN_SPOT);
    let turn = turn.display().to_string();
    let s = dir.path().join("s.bin").display().to_string();
    let out = bluff()
        .args(["solve", &turn, "--iterations", "20", "-o", &s])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::cli::stderr_of(&out));
    // No progress display when standard error is not a terminal.
    assert!(out.stderr.is_empty(), "{}", common::cli::stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("strategy written to {s} (")),
        "{text}"
    );
    // IP's first river decision after the turn checked through and the As came.
    let v = json_of(bluff().args([
        "export-strategy",
        &turn,
        &s,
        "--node",
        "turn:check,check;river:As:check",
    ]));
    assert_eq!(v["node"], "turn:check,check;river:As:check");
    assert_eq!(v["player"], "ip");
    assert_eq!(v["actions"], serde_json::json!(["check", "bet15"]));
    let hands = v["hands"].as_array().unwrap();
    assert!(!hands.is_empty());
    for h in hands {
        let s: f64 = h["strategy"].as_object().unwrap().values().map(f).sum();
        assert!((s - 1.0).abs() < 1e-6, "{h}");
        let name = h["hand"].as_str().unwrap();
        assert_eq!(name.len(), 4);
        // A hand holding the dealt ace cannot be here; the others have their weight times
        // IP's probability of checking the turn.
        if name.contains("As") {
            assert_eq!(f(&h["reach"]), 0.0);
        } else {
            assert!(f(&h["reach"]) <= f(&h["weight"]) + 1e-12);
        }
    }
    // The text form: a row per hand.
    let out = bluff()
        .args(["export-strategy", &turn, &s, "--node", "turn"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("node turn (OOP to act)"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains("check") && lines.len() > 2, "{text}");
}

#[test]
fn bad_nodes_files_and_outputs_are_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let r = river();
    let s = dir.path().join("s.bin").display().to_string();
    solve_json(&[&r, "--iterations", "10", "-o", &s]);
    let turn = common::write_in(dir.path(), "turn.toml", TURN_SPOT)
        .display()
        .to_string();
    let bytes = std::fs::read(&s).unwrap();
    let cut = common::write_in(dir.path(), "cut.bin", &bytes[..bytes.len() / 2])
        .display()
        .to_string();
    let node = |spot: &str, file: &str, path: &str| {
        bluff()
            .args(["export-strategy", spot, file, "--node", path])
            .output()
            .unwrap()
    };
    for (out, what, needle) in [
        (
            node(&r, &s, "river:check,bet60"),
            "a path that is not a node",
            "--node: node path `river:check,bet60`: no action `bet60` here",
        ),
        (
            node(&r, &s, "river:check,check"),
            "a terminal",
            "not a decision node",
        ),
        (
            node(&turn, &s, "turn"),
            "a file for another spot",
            "made for another spot: its board is QsJh2h8d7c",
        ),
        (node(&r, &cut, "river"), "a truncated file", "truncated"),
        (
            bluff().args(["eval", &turn, &s]).output().unwrap(),
            "eval of a file for another spot",
            "made for another spot",
        ),
        (
            bluff().args(["eval", &r, &cut]).output().unwrap(),
            "eval of a truncated file",
            "truncated",
        ),
        (
            bluff().args(["eval", &r, &r]).output().unwrap(),
            "eval of a spot file as a strategy",
            "not a hold'em strategy file",
        ),
    ] {
        let e = assert_refused(&out, what, needle);
        assert!(out.stdout.is_empty(), "{what}: {e}");
    }
    // Outputs: never the input, never standard output, nothing written when refused.
    let spot_before = std::fs::read(&r).unwrap();
    let out = bluff()
        .args(["solve", &r, "--iterations", "5", "-o", &r])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&r).unwrap(), spot_before);
    let out = bluff()
        .args(["solve", &r, "--iterations", "5", "-o", "-"])
        .output()
        .unwrap();
    assert_refused(&out, "-o -", "binary");
    let new = dir.path().join("new.bin");
    let out = bluff()
        .args(["solve", &r, "--iterations", "5", "--kernel", "tree", "-o"])
        .arg(&new)
        .output()
        .unwrap();
    assert_refused(&out, "a refused solve", "--kernel");
    assert!(!new.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

/// `bluff eval SPOT S --exact` gives the exploitability in rationals (the spot played hand
/// against hand as an ordinary game, each stored probability read exactly): on the reduced
/// turn spot it equals the engine's float evaluation of the same file (1e-9 relative: both
/// read the same f32 numbers); a spot too big to play as a game is refused with its node count.
#[test]
fn eval_exact_agrees_with_the_engine_and_refuses_big_spots() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("turn.toml"), TURN_SPOT).unwrap();
    let solve = bluff()
        .current_dir(dir.path())
        .args(["solve", "turn.toml", "--iterations", "60", "-o", "t.bin"])
        .output()
        .unwrap();
    assert!(
        solve.status.success(),
        "{}",
        String::from_utf8_lossy(&solve.stderr)
    );
    let out = bluff()
        .current_dir(dir.path())
        .args(["eval", "turn.toml", "t.bin", "--exact", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let exact = &v["exploitability"];
    let (p, q) = exact["exact"].as_str().unwrap().split_once('/').unwrap();
    assert!(!p.is_empty() && !q.is_empty());
    let float = bluff()
        .current_dir(dir.path())
        .args(["eval", "turn.toml", "t.bin", "--json"])
        .output()
        .unwrap();
    let f: serde_json::Value = serde_json::from_slice(&float.stdout).unwrap();
    let engine = f["exploitability"].as_f64().unwrap();
    let x = exact["float"].as_f64().unwrap();
    assert!(
        engine > 0.0 && ((x - engine) / engine).abs() < 1e-9,
        "{x} against {engine}"
    );
    let gains = &v["exact"]["best_response_gain"];
    let sum = gains[0]["float"].as_f64().unwrap() + gains[1]["float"].as_f64().unwrap();
    assert!((sum / 2.0 - x).abs() < 1e-12, "the mean of the gains");

    // QsJh2h with small ranges on the full deck: millions of nodes hand against hand.
    let flop = include_str!("../../tests/data/spots/flop_symmetric.toml");
    std::fs::write(dir.path().join("flop.toml"), flop).unwrap();
    let solve = bluff()
        .current_dir(dir.path())
        .args(["solve", "flop.toml", "--iterations", "2", "-o", "f.bin"])
        .output()
        .unwrap();
    assert!(solve.status.success());
    let out = bluff()
        .current_dir(dir.path())
        .args(["eval", "flop.toml", "f.bin", "--exact"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nodes, above the limit of 5000000"), "{err}");
}
