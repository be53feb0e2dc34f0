//! `bluff solve` end to end: outputs agree with `bluff eval`, bad input fails cleanly.

mod common;

use assert_cmd::Command;
use common::cli::bluff;
use predicates::str::contains;
use serde_json::Value;

#[test]
fn solve_writes_strategy_curve_and_plot_that_eval_confirms() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("strategy.json");
    let curve = dir.path().join("curve.csv");
    let plot = dir.path().join("curve.svg");
    let out = bluff()
        .args([
            "solve",
            "kuhn",
            "--algo",
            "cfr+",
            "--iterations",
            "300",
            "--json",
        ])
        .arg("-o")
        .arg(&strategy)
        .arg("--curve")
        .arg(&curve)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["iterations"], 300);
    let solved = summary["exploitability"].as_f64().unwrap();
    assert!(solved > 0.0 && solved < 1e-2, "{solved}");

    // The exact evaluator, reading the written file, confirms the reported exploitability.
    let eval = bluff()
        .args(["eval", "kuhn", "--json"])
        .arg(&strategy)
        .output()
        .unwrap();
    assert!(eval.status.success());
    let eval: Value = serde_json::from_slice(&eval.stdout).unwrap();
    let exact = eval["exploitability"]["float"].as_f64().unwrap();
    assert!((exact - solved).abs() < 1e-9, "{exact} vs {solved}");

    let csv = std::fs::read_to_string(&curve).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("iteration,exploitability,seconds"));
    let rows: Vec<(u64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect();
    assert_eq!(rows.first().unwrap().0, 1);
    assert_eq!(rows.last().unwrap().0, 300);
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
    assert!((rows.last().unwrap().1 - solved).abs() < 1e-12);
    // After one iteration the average is the first strategy, uniform play, whose exploitability
    // is 11/24 (NashConv 11/12, as OpenSpiel reports for Kuhn's uniform policy).
    assert!((rows[0].1 - 11.0 / 24.0).abs() < 1e-12, "{}", rows[0].1);

    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("iterations"));
}

#[test]
fn missing_stop_rule_fails_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("s.json");
    bluff()
        .args(["solve", "kuhn", "-o"])
        .arg(&strategy)
        .assert()
        .failure()
        .stderr(contains("error: give a stop rule"));
    assert!(!strategy.exists());
}

#[test]
fn bad_options_are_rejected_with_the_option_named() {
    bluff()
        .args(["solve", "kuhn", "--iterations", "5", "--alpha", "2"])
        .assert()
        .failure()
        .stderr(contains("--alpha"));
    bluff()
        .args(["solve", "kuhn", "--target", "nan"])
        .assert()
        .failure()
        .stderr(contains("--target"));
    bluff()
        .args(["solve", "kuhn", "--iterations", "5", "--threads", "0"])
        .assert()
        .failure()
        .stderr(contains("--threads"));
    bluff()
        .args(["solve", "kuhn", "--iterations", "0"])
        .assert()
        .failure()
        .stderr(contains("--iterations 0"));
    bluff()
        .args(["solve", "kuhn", "--iterations", "5", "--algo", "magic"])
        .assert()
        .failure()
        .stderr(contains("cfr+"));
}

#[test]
fn relative_target_scales_by_the_payoff_range() {
    // Kuhn's payoffs run from -2 to 2: a relative target of 1e-3 means 4e-3 chips.
    let out = bluff()
        .args([
            "solve",
            "kuhn",
            "--algo",
            "dcfr",
            "--target-relative",
            "1e-3",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = summary["exploitability"].as_f64().unwrap();
    assert!(e <= 4e-3, "{e}");
    let f = summary["exploitability_fraction_of_range"]
        .as_f64()
        .unwrap();
    assert!((f - e / 4.0).abs() < 1e-15);
}

fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// `--algo lp` on Kuhn gives the published -1/18 exactly, the same from the game exported as
/// .efg, and the written strategy is an exact equilibrium by `bluff eval`'s own best responses.
#[test]
fn lp_solves_kuhn_exactly_built_in_and_from_efg_and_eval_confirms() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("kuhn-lp.json");
    let efg = dir.path().join("kuhn.efg");
    let v = json_of(
        bluff()
            .args(["solve", "kuhn", "--algo", "lp", "--json", "-o"])
            .arg(&strategy),
    );
    assert_eq!(v["value_p1"]["exact"], "-1/18");
    bluff()
        .args(["export", "kuhn", "-o"])
        .arg(&efg)
        .assert()
        .success();
    let from_file = json_of(
        bluff()
            .args(["solve", "--algo", "lp", "--lp-method", "tableau", "--json"])
            .arg(&efg),
    );
    assert_eq!(from_file["value_p1"]["exact"], "-1/18");
    let e = json_of(bluff().args(["eval", "kuhn", "--json"]).arg(&strategy));
    let text = e.to_string();
    assert!(text.contains("\"nash_conv\""), "{text}");
    assert_eq!(e["nash_conv"]["exact"], "0", "{text}");
}

#[test]
fn lp_rejects_cfr_only_options() {
    bluff()
        .args(["solve", "kuhn", "--algo", "lp", "--iterations", "10"])
        .assert()
        .failure()
        .stderr(contains(
            "--iterations does not apply to lp; it applies to the CFR family",
        ));
}

/// The thread options on a game big enough for the team (liars dice, 1 die, 5 sides: 51 181
/// nodes): the same strategy file whichever runs the iterations, `team_iterations` 0 on one
/// thread and all of them with `--always-threads`; by default the team runs the first
/// iterations (its warm-up) and then whichever of it and one thread was timed faster.
#[test]
fn threads_and_always_threads_give_the_same_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let game = "liars-dice(dice=1,sides=5)";
    let mut files = Vec::new();
    let mut team = Vec::new();
    for (name, extra) in [
        ("one", &["--threads", "1"][..]),
        ("always", &["--threads", "2", "--always-threads"][..]),
        ("default", &["--threads", "2"][..]),
    ] {
        let path = dir.path().join(format!("{name}.json"));
        let summary = json_of(
            bluff()
                .args(["solve", game, "--algo", "dcfr"])
                .args(["--iterations", "30", "--json", "-o", path.to_str().unwrap()])
                .args(extra),
        );
        assert_eq!(summary["iterations"], 30);
        team.push(summary["team_iterations"].as_u64().unwrap());
        files.push(std::fs::read(&path).unwrap());
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0], files[2]);
    assert_eq!(team[0], 0);
    assert_eq!(team[1], 30);
    assert!(team[2] >= 1 && team[2] <= 30, "{team:?}");
}
