//! Locks, best responses out, head to head and diff on the command line.

mod common;

use bluff::scalar::{parse_rational, Rational};
use common::cli::{assert_refused, bluff, json_of, solve_json, stderr_of};
use common::{data, write_in};
use serde_json::Value;

fn exact(v: &Value) -> Rational {
    parse_rational(v["exact"].as_str().unwrap()).unwrap()
}

/// `bluff solve --lock`: the locked game's exact value and the locked sets in `--json`.
#[test]
fn solve_with_a_lock_reports_the_locked_game() {
    let lock = data("locks/kuhn_jack_half.json");
    let v = solve_json(&["kuhn", "--algo", "lp", "--lock", &lock]);
    assert_eq!(v["value_p1"]["exact"], "-1/9");
    assert_eq!(v["locked"], serde_json::json!({"P1": ["J"], "P2": []}));
    let v = solve_json(&[
        "kuhn", "--algo", "cfr+", "--target", "1e-7", "--lock", &lock,
    ]);
    assert!((v["value_p1"].as_f64().unwrap() + 1.0 / 9.0).abs() < 1e-6);
    assert_eq!(v["locked"]["P1"][0], "J");
}

/// Bad locks exit 1 naming the set and action, and write nothing.
#[test]
fn bad_locks_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    for (name, text, needle) in [
        (
            "wrong action",
            r#"{"strategy": {"P1": {"J": {"Raise": 1}}}}"#,
            "P1 \"J\": no action \"Raise\"",
        ),
        (
            "wrong player",
            r#"{"strategy": {"P2": {"J": {"Bet": 1}}}}"#,
            "P2 \"J\": that information set is P1's, not P2's",
        ),
        (
            "negative",
            r#"{"strategy": {"P1": {"K": {"Pass": "-1/2", "Bet": "3/2"}}}}"#,
            "P1 \"K\" \"Pass\": probability -1/2 is negative",
        ),
        (
            "another game",
            r#"{"game": "leduc", "strategy": {}}"#,
            "the file is for game \"leduc\", not \"kuhn\"",
        ),
    ] {
        let lock = write_in(dir.path(), "lock.json", text);
        for algo in ["lp", "cfr"] {
            let o = bluff()
                .args([
                    "solve",
                    "kuhn",
                    "--algo",
                    algo,
                    "--iterations",
                    "5",
                    "--lock",
                ])
                .arg(&lock)
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            if algo == "lp" {
                // --iterations does not apply to lp: refused before the lock is read.
                assert_refused(&o, name, "--iterations does not apply to lp");
                continue;
            }
            assert_refused(&o, name, needle);
            assert!(!out.exists(), "{name}: nothing written");
        }
    }
    let lock = data("locks/kuhn_jack_half.json");
    let o = bluff()
        .args(["solve", "kuhn", "--algo", "lcp", "--lock", &lock])
        .output()
        .unwrap();
    assert_refused(&o, "lcp", "--lock does not apply to lcp");
}

/// A locked run (the CFR family and both sampling solvers) resumed with its lock ends on the
/// same bits as a straight run; resumed without it or under another lock, the run says it is
/// a warm start and still plays the lock it is given.
#[test]
fn a_locked_checkpoint_resumes_to_the_same_bits() {
    for algo in ["dcfr", "es-mccfr", "os-mccfr"] {
        locked_checkpoint_resumes(algo);
    }
}

fn locked_checkpoint_resumes(algo: &str) {
    let dir = tempfile::tempdir().unwrap();
    write_in(
        dir.path(),
        "lock.json",
        r#"{"strategy": {"P1": {"Js|": {"Call": "1"}}, "P2": {"Qh|r": {"Fold": "1"}}}}"#,
    );
    write_in(
        dir.path(),
        "other.json",
        r#"{"strategy": {"P1": {"Qs|": {"Raise": "1/4", "Call": "3/4"}}}}"#,
    );
    let run = |args: &[&str]| {
        let o = bluff()
            .current_dir(dir.path())
            .args(["solve", "leduc", "--algo", algo, "--threads", "1"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{algo} {args:?}: {}", stderr_of(&o));
        stderr_of(&o)
    };
    run(&[
        "--iterations",
        "40",
        "--lock",
        "lock.json",
        "-o",
        "straight.json",
    ]);
    run(&[
        "--iterations",
        "20",
        "--lock",
        "lock.json",
        "--checkpoint",
        "c.bin",
    ]);
    let quiet = run(&[
        "--resume",
        "c.bin",
        "--iterations",
        "40",
        "--lock",
        "lock.json",
        "-o",
        "resumed.json",
    ]);
    assert!(!quiet.contains("warm start"), "{algo}: {quiet}");
    let straight = std::fs::read(dir.path().join("straight.json")).unwrap();
    let resumed = std::fs::read(dir.path().join("resumed.json")).unwrap();
    assert_eq!(straight, resumed, "{algo}");
    let warm = run(&["--resume", "c.bin", "--iterations", "40"]);
    assert!(
        warm.contains("saved under another lock: resuming without --lock is a warm start"),
        "{algo}: {warm}"
    );
    let warm = run(&[
        "--resume",
        "c.bin",
        "--iterations",
        "40",
        "--lock",
        "other.json",
        "-o",
        "warm.json",
    ]);
    assert!(
        warm.contains("resuming with this --lock is a warm start"),
        "{algo}: {warm}"
    );
    let warm: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("warm.json")).unwrap()).unwrap();
    let raise = &warm["strategy"]["P1"]["Qs|"]["Raise"];
    let raise = raise
        .as_f64()
        .or_else(|| raise.as_str().map(|s| s.parse().unwrap()));
    assert_eq!(raise, Some(0.25), "{algo}: the new lock is played");
}

/// Leduc's equilibrium with player 1 calling everywhere in the first round: the written best
/// responses gain exactly what `bluff eval` reports, and head to head confirms it.
#[test]
fn a_bad_strategy_best_response_and_head_to_head_agree() {
    let dir = tempfile::tempdir().unwrap();
    let eq = dir.path().join("eq.json");
    bluff()
        .args(["solve", "leduc", "--algo", "lp", "-o"])
        .arg(&eq)
        .assert()
        .success();
    let mut strategy: Value = serde_json::from_slice(&std::fs::read(&eq).unwrap()).unwrap();
    let sets = strategy["strategy"]["P1"].as_object_mut().unwrap();
    let mut first_round = 0;
    for (label, actions) in sets.iter_mut() {
        if label.matches('|').count() == 1 {
            first_round += 1;
            for (action, p) in actions.as_object_mut().unwrap().iter_mut() {
                *p = Value::String(if action == "Call" { "1" } else { "0" }.into());
            }
        }
    }
    assert!(first_round >= 6);
    let bad = write_in(dir.path(), "bad.json", strategy.to_string());
    let br = dir.path().join("br.json");
    let e = json_of(
        bluff()
            .args(["eval", "leduc"])
            .arg(&bad)
            .arg("--best-response")
            .arg("-o")
            .arg(&br),
    );
    let (g1, g2) = (
        exact(&e["best_response_gain_p1"]),
        exact(&e["best_response_gain_p2"]),
    );
    assert!(
        g2 > Rational::from_integer(0.into()),
        "P2 exploits the calls"
    );
    let h = json_of(
        bluff()
            .args(["eval", "leduc"])
            .arg(&bad)
            .arg("--against")
            .arg(&br),
    );
    assert_eq!(exact(&h["value_a_first"]), exact(&e["value_p1"]) - &g2);
    assert_eq!(exact(&h["value_a_second"]), exact(&e["value_p2"]) + &g1);
    // Every set where the best response differs is listed, the largest change first.
    let sets = h["sets"].as_array().unwrap();
    assert!(!sets.is_empty());
    let sizes: Vec<f64> = sets
        .iter()
        .map(|s| s["change"]["float"].as_f64().unwrap().abs())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    // The best response scored as a strategy: each player's part gains nothing more against
    // the bad one's other part, exactly.
    let d = json_of(bluff().args(["diff", "leduc"]).arg(&bad).arg(&eq));
    let d = d["sets"].as_array().unwrap();
    assert_eq!(d.len(), first_round - count_already_calling(&eq));
    for s in d {
        assert_eq!(s["player"], "P1");
        assert!(s["set"].as_str().unwrap().matches('|').count() == 1);
    }
}

/// P1's first-round sets of a strategy file that already call with probability 1.
fn count_already_calling(path: &std::path::Path) -> usize {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["strategy"]["P1"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(label, actions)| {
            label.matches('|').count() == 1 && actions["Call"].as_str() == Some("1")
        })
        .count()
}

/// `bluff report --lock --against`: the locked sets marked, and the head to head's sets.
#[test]
fn the_report_marks_locked_sets_and_shows_where_a_strategy_loses() {
    let dir = tempfile::tempdir().unwrap();
    let lock = data("locks/kuhn_jack_half.json");
    let ok = |args: &[&str]| {
        let o = bluff().current_dir(dir.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
    };
    ok(&[
        "solve",
        "kuhn",
        "--algo",
        "lp",
        "--lock",
        &lock,
        "-o",
        "locked.json",
    ]);
    ok(&[
        "eval",
        "kuhn",
        "locked.json",
        "--best-response",
        "-o",
        "br.json",
    ]);
    ok(&[
        "report",
        "kuhn",
        "locked.json",
        "--lock",
        &lock,
        "--against",
        "br.json",
        "-o",
        "r.html",
    ]);
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.contains("J <span class=\"locked\">(locked)</span>"));
    assert!(html.contains("<ul id=\"locked\"><li>P1: J</li></ul>"));
    assert!(html.contains("<table id=\"against\">"));
    // P1's jack set is where B (the best responses) differs the most from a half bluff.
    assert!(html.contains("<h2 id=\"against-heading\">Against br.json</h2>"));
}

/// `bluff solve --lock --report`: the run's own report marks the locked sets, for the exact LP
/// and for the CFR family alike.
#[test]
fn a_locked_solve_report_marks_its_locked_sets() {
    let dir = tempfile::tempdir().unwrap();
    let lock = data("locks/kuhn_jack_half.json");
    for algo in [
        &["--algo", "lp"][..],
        &["--algo", "cfr+", "--iterations", "50"],
    ] {
        let o = bluff()
            .current_dir(dir.path())
            .args(["solve", "kuhn", "--lock", &lock, "--report", "r.html"])
            .args(algo)
            .output()
            .unwrap();
        assert!(o.status.success(), "{algo:?}: {}", stderr_of(&o));
        let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
        assert!(
            html.contains("J <span class=\"locked\">(locked)</span>"),
            "{algo:?}"
        );
        assert!(
            html.contains("<ul id=\"locked\"><li>P1: J</li></ul>"),
            "{algo:?}"
        );
        // Only the locked set is marked.
        assert_eq!(html.matches("(locked)</span>").count(), 1, "{algo:?}");
        std::fs::remove_file(dir.path().join("r.html")).unwrap();
    }
}
