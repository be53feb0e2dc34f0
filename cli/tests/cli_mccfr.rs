//! `bluff solve --algo es-mccfr|os-mccfr` end to end: seeded runs repeat, a resumed run equals
//! a straight one, the strategy file scores as reported, the rules engine plays a game the
//! builder refuses.

mod common;

use common::cli::bluff;
use predicates::str::contains;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = bluff().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_seed_repeats_and_a_resumed_run_equals_a_straight_one() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("run.mcc");
    let ckpt = ckpt.to_str().unwrap();
    let base = [
        "solve", "leduc", "--algo", "os-mccfr", "--seed", "7", "--json",
    ];
    let straight = json(&[&base[..], &["--iterations", "3000", "--baseline", "0.5"]].concat());
    let again = json(&[&base[..], &["--iterations", "3000", "--baseline", "0.5"]].concat());
    assert_eq!(straight["exploitability"], again["exploitability"]);
    let other = json(&[
        "solve",
        "leduc",
        "--algo",
        "os-mccfr",
        "--seed",
        "8",
        "--json",
        "--iterations",
        "3000",
        "--baseline",
        "0.5",
    ]);
    assert_ne!(straight["exploitability"], other["exploitability"]);
    json(
        &[
            &base[..],
            &[
                "--iterations",
                "1200",
                "--baseline",
                "0.5",
                "--checkpoint",
                ckpt,
            ],
        ]
        .concat(),
    );
    let resumed = json(&["solve", "--resume", ckpt, "--iterations", "3000", "--json"]);
    assert_eq!(straight["exploitability"], resumed["exploitability"]);
    assert_eq!(resumed["iterations"], 3000);
    assert_eq!(straight["engine"], "arena");
    assert!(straight["bytes_per_infoset"].as_f64().unwrap() > 0.0);
}

#[test]
fn the_strategy_file_scores_as_reported() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("kuhn.json");
    let summary = json(&[
        "solve",
        "kuhn",
        "--algo",
        "es-mccfr",
        "--iterations",
        "20000",
        "--json",
        "-o",
        strategy.to_str().unwrap(),
    ]);
    let eval = json(&["eval", "kuhn", strategy.to_str().unwrap(), "--json"]);
    let reported = summary["exploitability"].as_f64().unwrap();
    let scored = eval["exploitability"]["float"].as_f64().unwrap();
    assert!((reported - scored).abs() < 1e-9, "{reported} {scored}");
}

/// The rules engine gives the same numbers as the arena engine (same samples, same tables)
/// and scores them with the streaming best response.
#[test]
fn rules_engine_agrees_with_the_arena_engine() {
    let run = |rules: bool| {
        let mut args = vec![
            "solve",
            "leduc",
            "--algo",
            "es-mccfr",
            "--iterations",
            "2000",
            "--json",
        ];
        if rules {
            args.push("--rules");
        }
        json(&args)
    };
    let (arena, rules) = (run(false), run(true));
    assert_eq!(rules["engine"], "rules");
    let (a, r) = (
        arena["exploitability"].as_f64().unwrap(),
        rules["exploitability"].as_f64().unwrap(),
    );
    assert!((a - r).abs() < 1e-12, "{a} {r}");
}

/// On the rules engine `-o` writes the sets the run reached, labelled through the rules'
/// `key_state`, with `"unreached": "uniform"`: every set it lists is the arena run's (same
/// label, actions and numbers), and `bluff eval` scores the file as the arena run scored
/// itself.
#[test]
fn a_rules_strategy_file_is_the_arena_strategy() {
    let dir = tempfile::tempdir().unwrap();
    for game in ["leduc", "goofspiel(cards=4,order=random)"] {
        let file = |rules: bool| dir.path().join(format!("{}.json", rules));
        let run = |rules: bool| {
            let path = file(rules);
            let mut args = vec![
                "solve",
                game,
                "--algo",
                "es-mccfr",
                "--iterations",
                "1500",
                "--json",
                "-o",
                path.to_str().unwrap(),
            ];
            if rules {
                args.push("--rules");
            }
            json(&args)
        };
        let arena = run(false);
        run(true);
        let read = |rules: bool| -> Value {
            serde_json::from_str(&std::fs::read_to_string(file(rules)).unwrap()).unwrap()
        };
        let (full, reached) = (read(false), read(true));
        assert_eq!(reached["unreached"], "uniform");
        let mut listed = 0;
        for (player, sets) in reached["strategy"].as_object().unwrap() {
            for (label, actions) in sets.as_object().unwrap() {
                assert_eq!(
                    actions, &full["strategy"][player][label],
                    "{game} {player} {label}"
                );
                listed += 1;
            }
        }
        assert!(listed > 100, "{game}: {listed} sets");
        let eval = json(&["eval", game, file(true).to_str().unwrap(), "--json"]);
        let (a, r) = (
            arena["exploitability"].as_f64().unwrap(),
            eval["exploitability"]["float"].as_f64().unwrap(),
        );
        assert!((a - r).abs() < 1e-9, "{game}: {a} {r}");
    }
}

/// Two dice of five sides: the builder refuses it (1.3e9 nodes) and names the sampling
/// solvers, which play its rules.
#[test]
fn liars_dice_two_dice_of_five_runs_on_its_rules() {
    bluff()
        .args([
            "solve",
            "liars-dice(dice=2,sides=5)",
            "--algo",
            "cfr",
            "--iterations",
            "1",
        ])
        .assert()
        .failure()
        .stderr(contains("--algo es-mccfr"));
    let out = json(&[
        "solve",
        "liars-dice(dice=2,sides=5)",
        "--algo",
        "es-mccfr",
        "--iterations",
        "50",
        "--no-eval",
        "--json",
    ]);
    assert_eq!(out["engine"], "rules");
    assert_eq!(out["iterations"], 50);
    assert!(out["exploitability"].is_null());
    assert!(out["infosets"][0].as_u64().unwrap() > 1000);
}

#[test]
fn bad_sampling_options_are_refused() {
    for (args, message) in [
        (
            vec!["--algo", "es-mccfr", "--epsilon", "0.5"],
            "applies to os-mccfr",
        ),
        (vec!["--algo", "os-mccfr", "--epsilon", "0"], "epsilon"),
        (
            vec!["--algo", "es-mccfr", "--baseline", "0"],
            "--baseline 0: expected a number in (0, 1]",
        ),
        (vec!["--algo", "cfr", "--seed", "1"], "sampling solvers"),
        (vec!["--algo", "es-mccfr", "--exact"], "does not apply"),
    ] {
        bluff()
            .args(["solve", "kuhn", "--iterations", "10"])
            .args(&args)
            .assert()
            .failure()
            .stderr(contains(message));
    }
}

/// The default engine follows the game's shape and the solver (docs/mccfr.md): the arena up to
/// 2 000 000 histories under external sampling (liar's dice 1x7: 1 605 591), 500 000 under
/// outcome sampling (liar's dice 1x6: 294 883), the rules above (goofspiel 5: 3 346 656; liar's
/// dice 2x3, 663 511, under outcome sampling); `--rules` forces the rules; a resumed run stays
/// on the engine its checkpoint was written on, whatever the default.
#[test]
fn the_default_engine_follows_the_games_size_and_a_resume_keeps_its_engine() {
    let os_engine = |game: &str| {
        json(&[
            "solve",
            game,
            "--algo",
            "os-mccfr",
            "--iterations",
            "10",
            "--no-eval",
            "--json",
        ])["engine"]
            .clone()
    };
    assert_eq!(os_engine("liars-dice"), "arena");
    assert_eq!(os_engine("liars-dice(dice=2,sides=3)"), "rules");
    let engine = |game: &str, extra: &[&str]| {
        let base = [
            "solve",
            game,
            "--algo",
            "es-mccfr",
            "--iterations",
            "10",
            "--no-eval",
            "--json",
        ];
        json(&[&base[..], extra].concat())["engine"].clone()
    };
    for game in ["kuhn", "leduc", "liars-dice", "goofspiel"] {
        assert_eq!(engine(game, &[]), "arena", "{game}");
        assert_eq!(engine(game, &["--rules"]), "rules", "{game}");
    }
    for game in ["liars-dice(dice=2,sides=3)", "liars-dice(dice=1,sides=7)"] {
        assert_eq!(engine(game, &[]), "arena", "{game}");
    }
    for game in ["goofspiel(cards=5)", "liars-dice(dice=2,sides=4)"] {
        assert_eq!(engine(game, &[]), "rules", "{game}");
    }
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("run.mcc");
    let ckpt = ckpt.to_str().unwrap();
    assert_eq!(engine("leduc", &["--rules", "--checkpoint", ckpt]), "rules");
    let resumed = json(&["solve", "--resume", ckpt, "--iterations", "20", "--json"]);
    assert_eq!(resumed["engine"], "rules");
    assert_eq!(resumed["iterations"], 20);
}
