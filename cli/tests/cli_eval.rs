//! End-to-end tests of `bluff games` and `bluff eval`.

mod common;

use common::cli::{bluff, json_of};
use predicates::prelude::*;
use std::io::Write;

fn file_with(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

const KUHN_EQUILIBRIUM: &str = r#"{"game": "kuhn", "strategy": {
  "P1": {"J": {"Pass": "2/3", "Bet": "1/3"}, "Q": {"Pass": 1, "Bet": 0}, "K": {"Pass": 0, "Bet": 1},
         "Jpb": {"Pass": 1, "Bet": 0}, "Qpb": {"Pass": "1/3", "Bet": "2/3"}, "Kpb": {"Pass": 0, "Bet": 1}},
  "P2": {"Jp": {"Pass": "2/3", "Bet": "1/3"}, "Qp": {"Pass": 1, "Bet": 0}, "Kp": {"Pass": 0, "Bet": 1},
         "Jb": {"Pass": 1, "Bet": 0}, "Qb": {"Pass": "2/3", "Bet": "1/3"}, "Kb": {"Pass": 0, "Bet": 1}}}}"#;

#[test]
fn games_lists_kuhn() {
    bluff()
        .arg("games")
        .assert()
        .success()
        .stdout(predicate::str::contains("kuhn"));
    bluff()
        .args(["games", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"name\": \"kuhn\""));
}

#[test]
fn eval_reports_exact_value_and_zero_exploitability() {
    let f = file_with(KUHN_EQUILIBRIUM);
    bluff()
        .args(["eval", "kuhn"])
        .arg(f.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("-1/18"))
        .stdout(predicate::str::is_match(r"exploitability\s+0\s").unwrap());
    let out = bluff()
        .args(["eval", "kuhn", "--json"])
        .arg(f.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value_p1"]["exact"], "-1/18");
    assert_eq!(v["exploitability"]["exact"], "0");
}

#[test]
fn decimal_strategies_are_read_exactly() {
    // 0.5/0.5 everywhere is the uniform profile: NashConv 11/12 as OpenSpiel reports.
    let text = KUHN_EQUILIBRIUM
        .replace("\"2/3\"", "0.5")
        .replace("\"1/3\"", "0.5")
        .replace(": 1,", ": 0.5,")
        .replace(": 0}", ": 0.5}")
        .replace(": 0,", ": 0.5,")
        .replace(": 1}", ": 0.5}");
    let f = file_with(&text);
    bluff()
        .args(["eval", "kuhn"])
        .arg(f.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("11/12"));
}

#[test]
fn bad_inputs_give_clear_errors() {
    let f = file_with(KUHN_EQUILIBRIUM);
    bluff()
        .args(["eval", "chess"])
        .arg(f.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("unknown game \"chess\""));
    bluff()
        .args(["eval", "kuhn(x=1)"])
        .arg(f.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("no parameter"));
    let cases = [
        ("{\"strategy\": {", "not valid JSON"),
        ("[]", "expected an object"),
        (
            &KUHN_EQUILIBRIUM.replace("\"Qpb\": {\"Pass\": \"1/3\", \"Bet\": \"2/3\"},", ""),
            "\"Qpb\": missing information set",
        ),
        (
            &KUHN_EQUILIBRIUM.replace(
                "\"Q\": {\"Pass\": 1, \"Bet\": 0}",
                "\"Q\": {\"Pass\": 1.5, \"Bet\": 0}",
            ),
            "outside [0, 1]",
        ),
        (
            &KUHN_EQUILIBRIUM.replace(
                "\"Q\": {\"Pass\": 1, \"Bet\": 0}",
                "\"Q\": {\"Pass\": 0.5, \"Bet\": 0}",
            ),
            "sum to 0.5",
        ),
        (
            &KUHN_EQUILIBRIUM.replace(
                "\"Q\": {\"Pass\": 1, \"Bet\": 0}",
                "\"Q\": {\"Pass\": \"x\", \"Bet\": 0}",
            ),
            "\"Q\".\"Pass\": expected a probability",
        ),
        (
            &KUHN_EQUILIBRIUM.replace("\"Kb\"", "\"Kz\""),
            "\"Kz\": no such information set",
        ),
        (
            &KUHN_EQUILIBRIUM.replace("\"P2\"", "\"Bob\""),
            "unknown player",
        ),
    ];
    for (text, message) in cases {
        let f = file_with(text);
        bluff()
            .args(["eval", "kuhn"])
            .arg(f.path())
            .assert()
            .failure()
            .stderr(predicate::str::contains(message));
    }
    bluff()
        .args(["eval", "kuhn", "/nonexistent/file.json"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("reading"));
}

#[test]
fn eval_of_a_general_sum_game_gives_each_players_gain() {
    // Battle of the sexes as a .nfg; the profile (Opera, Football) pays both 0, and each
    // player gains 1 by switching: NashConv 2, the sum of the gains.
    let game = tempfile::Builder::new().suffix(".nfg").tempfile().unwrap();
    std::fs::write(
        game.path(),
        "NFG 1 R \"bos\" { \"P1\" \"P2\" }\n{ { \"Opera\" \"Football\" } { \"Opera\" \"Football\" } }\n\"\"\n2 1 0 0 0 0 1 2\n",
    )
    .unwrap();
    let strategy = file_with(
        r#"{"strategy": {"P1": {"P1": {"Opera": 1, "Football": 0}},
                         "P2": {"P2": {"Opera": 0, "Football": 1}}}}"#,
    );
    let v = json_of(bluff().arg("eval").arg(game.path()).arg(strategy.path()));
    assert_eq!(v["general_sum"], true);
    assert_eq!(v["value_p1"]["exact"], "0");
    assert_eq!(v["gain_p1"]["exact"], "1");
    assert_eq!(v["gain_p2"]["exact"], "1");
    assert_eq!(v["nash_conv"]["exact"], "2");
}
