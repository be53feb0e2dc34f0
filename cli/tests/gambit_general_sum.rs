//! Gambit's two-player general-sum games, solved by bluff and confirmed by pygambit.
//!
//! `scripts/gambit_confirm.py ci` writes every game of pygambit 16.7's catalog (Gambit's own
//! files, from the installed package, to a temporary directory: they are GPL and never part of
//! bluff), bluff's raked games as `bluff export` writes them, and bluff's reduced normal forms of
//! the catalog's small trees; runs this build's `bluff solve --algo lcp -o` and, on `.nfg` files,
//! `bluff normal-form --all` on each; and reports what pygambit says about bluff's answers. This
//! test asserts on that report: every equilibrium has regret exactly 0 (pygambit's `max_regret`
//! where it runs, an exact best-response walk of pygambit's tree everywhere, itself checked
//! against `max_regret` on a profile that is no equilibrium), pygambit's payoffs on bluff's
//! profile are bluff's values, bluff's extreme equilibria of a bimatrix game are
//! `enummixed_solve`'s as sets of exact vectors, and games with imperfect recall or other than two
//! players are refused with the reason.
//!
//! Uses the Python `common::pygambit::python` finds (a failure under `BLUFF_REQUIRE_PYGAMBIT`).

mod common;

use bluff::scalar::{parse_rational, Rational};
use serde_json::Value;
use std::process::Command;

fn rationals(v: &Value) -> Vec<Rational> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| parse_rational(x.as_str().unwrap()).unwrap())
        .collect()
}

/// A set of equilibria as exact vectors, sorted (the script gives reduced fractions).
fn equilibria(v: &Value) -> Vec<Vec<Vec<Rational>>> {
    let mut eqs: Vec<Vec<Vec<Rational>>> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_array().unwrap().iter().map(rationals).collect())
        .collect();
    eqs.sort();
    eqs
}

#[test]
fn gambit_catalog_and_raked_games_confirmed_by_pygambit() {
    let Some(py) = common::pygambit::python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/gambit_confirm.py");
    let out = Command::new(&py)
        .arg(script)
        .arg("ci")
        .arg(env!("CARGO_BIN_EXE_bluff"))
        .arg(dir.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gambit_confirm.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["version"], "16.7.0");
    let files = report["files"].as_array().unwrap();
    let (mut solved, mut by_max_regret, mut all, mut refused) = (0, 0, 0, 0);
    let mut centroid_nonzero = 0;
    for rec in files {
        let name = rec["name"].as_str().unwrap();
        if let Some(why) = rec.get("must_refuse") {
            let msg = rec["bluff_message"].as_str().unwrap();
            assert!(msg.contains("was read but is outside"), "{name}: {msg}");
            let reason = match why.as_str().unwrap() {
                "players" => format!(
                    "the game has {} player(s); bluff takes two-player games only",
                    rec["players"]
                ),
                _ => "breaks perfect recall".to_string(),
            };
            assert!(msg.contains(&reason), "{name}: {msg}");
            refused += 1;
            continue;
        }
        assert_eq!(rec["players"], 2, "{name}");
        assert_eq!(rec["solve"], "solved", "{name}: {rec}");
        assert_eq!(rec["nash_conv"], "0", "{name}");
        assert_eq!(
            rationals(&rec["bluff_values"]),
            rationals(&rec["gambit_values"]),
            "{name}: bluff's values against pygambit's payoffs on bluff's profile"
        );
        if let Some(r) = rec.get("max_regret") {
            assert_eq!(r, "0", "{name}: pygambit's max_regret");
            by_max_regret += 1;
        }
        if rec["tree"] == true {
            assert_eq!(rec["regrets"], serde_json::json!(["0", "0"]), "{name}");
            assert_eq!(rec["agent_max_regret"], "0", "{name}");
            if let Some(c) = rec.get("centroid_agrees") {
                assert_eq!(c, true, "{name}: the walk against max_regret");
                centroid_nonzero += 1;
            }
        } else {
            assert_eq!(rec["all"], "done", "{name}: {rec}");
            let ours = equilibria(&rec["bluff_equilibria"]);
            assert!(!ours.is_empty(), "{name}");
            assert_eq!(
                ours,
                equilibria(&rec["gambit_equilibria"]),
                "{name}: bluff's extreme equilibria against enummixed_solve's"
            );
            all += 1;
        }
        assert_eq!(rec["confirmed"], true, "{name}");
        solved += 1;
    }
    let names: Vec<&str> = files.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for must in [
        "books/myerson1991/fig4_2",
        "journals/geb/bagwell1995",
        "journals/other/shapley1974/fig2",
        "kuhn(rake=0.05)",
        "one-card-poker(n=5,a=2,b=1,rake=0.05,rake_cap=0.2)",
    ] {
        assert!(names.contains(&must), "{must} missing from {names:?}");
    }
    println!(
        "pygambit {}: {} files, {solved} solved and confirmed ({by_max_regret} by max_regret, \
         {all} bimatrix sets equal), {refused} refused with the reason",
        report["version"],
        files.len()
    );
    // pygambit 16.7's catalog: 27 two-player games with perfect recall (3 of them .nfg) and 11
    // refused (8 with other than two players, 3 with imperfect recall); 4 raked games of bluff's;
    // 24 reduced normal forms.
    assert!(solved >= 55, "{solved}");
    assert!(refused >= 11, "{refused}");
    assert!(all >= 25, "{all}");
    assert!(centroid_nonzero >= 20, "{centroid_nonzero}");
}
