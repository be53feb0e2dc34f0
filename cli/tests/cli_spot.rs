//! `bluff solve SPOT.toml`: a hold'em spot through the door, its JSON, and the requests it
//! refuses with the reason.

mod common;

use common::cli::{assert_refused, bluff, json_of, solve_json};
use common::data;

fn river() -> String {
    data("spots/river.toml")
}

#[test]
fn a_river_spot_is_solved_to_its_target() {
    let v = solve_json(&[&river(), "--target-pot-pct", "0.1", "--threads", "2"]);
    assert_eq!(v["algo"], "dcfr+");
    let pot = v["pot"].as_f64().unwrap();
    let e = v["exploitability"].as_f64().unwrap();
    let pct = v["exploitability_pot_pct"].as_f64().unwrap();
    assert!(e <= 0.001 * pot, "{v}");
    assert!((pct - e / pot * 100.0).abs() < 1e-12);
    let ev = [
        v["root_ev"][0].as_f64().unwrap(),
        v["root_ev"][1].as_f64().unwrap(),
    ];
    // Unraked: the two players share the pot.
    assert!((ev[0] + ev[1] - pot).abs() < 1e-9, "{v}");
    let eq = [
        v["root_equity"][0].as_f64().unwrap(),
        v["root_equity"][1].as_f64().unwrap(),
    ];
    assert!((eq[0] + eq[1] - 1.0).abs() < 1e-12);
    // Measured every 10 iterations by default.
    assert_eq!(v["iterations"].as_u64().unwrap() % 10, 0);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["build_seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn a_river_spot_is_solved_exactly_by_the_lp() {
    let v = solve_json(&[&river(), "--algo", "lp"]);
    assert_eq!(v["nash_conv"], "0");
    assert_eq!(v["exploitability"], "0");
    // The exact EVs are the LP's values and share the pot exactly (pot 100).
    assert_eq!(v["root_ev"]["exact"][0], v["value_p1"]["exact"]);
    assert_eq!(v["root_ev"]["exact"][1], v["value_p2"]["exact"]);
    let ev: Vec<f64> = (0..2)
        .map(|p| v["root_ev"]["float"][p].as_f64().unwrap())
        .collect();
    assert!((ev[0] + ev[1] - 100.0).abs() < 1e-9, "{v}");
    assert_eq!(v["combos"][0], 33);
    assert_eq!(v["compatible_pairs"], 878);
}

#[test]
fn the_lp_equilibrium_is_written_as_a_spot_strategy_file() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("lp.spt");
    let s = s.to_str().unwrap();
    let v = solve_json(&[&river(), "--algo", "lp", "-o", s]);
    assert_eq!(v["strategy_file"]["precision"], "f32");
    assert!(v["strategy_file"]["bytes"].as_u64().unwrap() > 0, "{v}");
    // The exact evaluator reads the file back on the spot built hand against hand: the
    // equilibrium rounded to f32 is exploitable by the rounding alone, and plays the LP's EVs.
    let e = json_of(bluff().args(["eval", &river(), s, "--exact"]));
    let expl = e["exploitability"]["float"].as_f64().unwrap();
    assert!((0.0..1e-5).contains(&expl), "{e}");
    for p in 0..2 {
        let lp = v["root_ev"]["float"][p].as_f64().unwrap();
        let file = e["exact"]["root_ev"][p]["float"].as_f64().unwrap();
        assert!((lp - file).abs() < 1e-5, "player {p}: LP {lp}, file {file}");
    }
}

#[test]
fn the_other_families_and_game_options_are_refused_with_the_reason() {
    let r = river();
    let t = data("spots/3betpot_turn.toml");
    for (args, needle) in [
        (
            vec![t.as_str(), "--algo", "lp"],
            "only river spots (a board of 5 cards) are solved exactly",
        ),
        (
            vec![r.as_str(), "--algo", "lp", "--max-memory", "1000"],
            "compatible pairs, 18439 game nodes; LP 452 rows x 898 columns",
        ),
        (
            vec![r.as_str(), "--algo", "es-mccfr", "--iterations", "5"],
            "es-mccfr samples the game tree",
        ),
        (
            vec![r.as_str(), "--iterations", "5", "--kernel", "tree"],
            "--kernel does not apply to hold'em spots",
        ),
        (
            vec![r.as_str()],
            "give a stop rule: --iterations N, --target-pot-pct P",
        ),
        (
            vec![r.as_str(), "--target-pot-pct", "0"],
            "--target-pot-pct 0: expected a finite positive number",
        ),
        (
            vec!["kuhn", "--iterations", "5", "--target-pot-pct", "1"],
            "--target-pot-pct applies to hold'em spots",
        ),
        (
            vec!["kuhn", "--iterations", "5", "--precision", "f64"],
            "--precision applies to hold'em spots",
        ),
        (
            vec![r.as_str(), "--iterations", "5", "--precision", "f16"],
            "--precision f16: expected f32 or f64",
        ),
        (
            vec![r.as_str(), "--iterations", "5", "--max-memory", "1000"],
            "the solver's state needs",
        ),
    ] {
        let out = bluff().arg("solve").args(&args).output().unwrap();
        assert_refused(&out, &format!("{args:?}"), needle);
    }
}

#[test]
fn a_bad_spot_file_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(river()).unwrap() + "flop_bet = \"50%\"\n";
    let path = common::write_in(dir.path(), "bad.toml", text);
    let out = bluff()
        .arg("solve")
        .arg(&path)
        .args(["--iterations", "5"])
        .output()
        .unwrap();
    assert_refused(&out, "flop key on a river spot", "flop_bet");
}

#[test]
fn the_state_is_f32_by_default_and_f64_on_request() {
    let r = river();
    let f32_run = solve_json(&[&r, "--iterations", "20", "--threads", "1"]);
    let f64_run = solve_json(&[
        &r,
        "--iterations",
        "20",
        "--threads",
        "1",
        "--precision",
        "f64",
    ]);
    assert_eq!(f32_run["precision"], "f32");
    assert_eq!(f64_run["precision"], "f64");
    let bytes = |v: &serde_json::Value| v["state_bytes"].as_u64().unwrap();
    assert_eq!(bytes(&f64_run), 2 * bytes(&f32_run));
    // The same run to 1e-5 of the pot in either precision.
    let pot = f32_run["pot"].as_f64().unwrap();
    for key in ["exploitability", "root_ev"] {
        let (a, b) = (&f32_run[key], &f64_run[key]);
        let pairs: Vec<(f64, f64)> = if a.is_array() {
            (0..2)
                .map(|i| (a[i].as_f64().unwrap(), b[i].as_f64().unwrap()))
                .collect()
        } else {
            vec![(a.as_f64().unwrap(), b.as_f64().unwrap())]
        };
        for (x, y) in pairs {
            assert!((x - y).abs() <= 1e-5 * pot, "{key}: {x} in f32, {y} in f64");
        }
    }
}

/// A raked river spot through the LCP: each player's exact value is its root EV, the JSON
/// carries the spot's fields, and the equilibrium written with `-o` is one in the engine's own
/// evaluator (f64, its probabilities rounded to f32): both best-response gains near 0 and the
/// same EVs, checked by `bluff eval` rather than by the LCP's certificate.
#[test]
fn a_raked_river_spot_is_solved_by_the_lcp_and_its_file_evaluates_as_an_equilibrium() {
    let dir = tempfile::tempdir().unwrap();
    let spot = dir.path().join("raked.toml");
    let text = std::fs::read_to_string(river()).unwrap() + "rake = 0.05\nrake_cap = 8\n";
    std::fs::write(&spot, text).unwrap();
    let s = dir.path().join("eq.spt");
    let v = solve_json(&[
        spot.to_str().unwrap(),
        "--algo",
        "lcp",
        "-o",
        s.to_str().unwrap(),
    ]);
    assert_eq!(v["algo"], "lcp", "{v}");
    assert_eq!(v["general_sum"], true, "{v}");
    assert_eq!(v["nash_conv"], "0", "{v}");
    assert_eq!(v["root_ev"]["exact"][0], v["value_p1"]["exact"], "{v}");
    assert_eq!(v["root_ev"]["exact"][1], v["value_p2"]["exact"], "{v}");
    // The rake left out, the check-down shares are the unraked spot's (the LP's).
    let lp = solve_json(&[&river(), "--algo", "lp"]);
    assert_eq!(
        v["root_equity"]["exact"], lp["root_equity"]["exact"],
        "{v} {lp}"
    );
    let ev = [
        v["value_p1"]["float"].as_f64().unwrap(),
        v["value_p2"]["float"].as_f64().unwrap(),
    ];
    // The rake leaves the players less than the pot.
    let pot = v["pot"].as_f64().unwrap();
    assert!(ev[0] + ev[1] < pot, "{v}");
    assert!(v["strategy_file"]["bytes"].as_u64().unwrap() > 0, "{v}");
    let e = json_of(bluff().args(["eval", spot.to_str().unwrap(), s.to_str().unwrap()]));
    let f = |x: &serde_json::Value| x.as_f64().unwrap();
    assert!(f(&e["exploitability"]) < 1e-4, "{e}");
    for p in 0..2 {
        assert!((f(&e["root_ev"][p]) - ev[p]).abs() < 1e-4, "{e} {ev:?}");
    }
}

/// dcfr+ on spots weights its average by t^5 unless `--gamma` says otherwise: the default run
/// is the explicit `--algo dcfr+ --gamma 5` run, bit for bit, and `--gamma 4` (its authors'
/// exponent) is another run; dcfr+ takes no alpha or beta.
#[test]
fn dcfr_plus_on_spots_defaults_to_gamma_5() {
    let run = |extra: &[&str]| {
        let mut args = vec![river(), "--iterations".into(), "30".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        solve_json(&args)
    };
    let default = run(&[]);
    let five = run(&["--algo", "dcfr+", "--gamma", "5"]);
    let four = run(&["--algo", "dcfr+", "--gamma", "4"]);
    assert_eq!(default["params"]["gamma"], 5.0);
    assert_eq!(four["params"]["gamma"], 4.0);
    assert_eq!(default["exploitability"], five["exploitability"]);
    assert_eq!(default["root_ev"], five["root_ev"]);
    assert_ne!(default["exploitability"], four["exploitability"]);
    let out = bluff()
        .args([
            "solve",
            &river(),
            "--iterations",
            "5",
            "--algo",
            "dcfr+",
            "--alpha",
            "2",
        ])
        .output()
        .unwrap();
    assert_refused(
        &out,
        "--alpha on dcfr+",
        "does not apply to dcfr+ (it takes gamma only)",
    );
}
