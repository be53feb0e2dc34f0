//! End-to-end tests of `bluff shrek-donkey`.

use assert_cmd::Command;
use predicates::prelude::*;

fn run(stdin: &str, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("bluff")
        .unwrap()
        .arg("shrek-donkey")
        .args(args)
        .write_stdin(stdin)
        .assert()
}

#[test]
fn samples_print_exactly_as_given() {
    // Codeforces 98E's samples.
    run("0 3\n", &[]).success().stdout("0.25 0.75\n");
    run("1 0\n", &[]).success().stdout("1 0\n");
    run("1 1\n", &[]).success().stdout("0.5 0.5\n");
    run("", &["--m", "1", "--n", "1"])
        .success()
        .stdout("0.5 0.5\n");
}

#[test]
fn exact_values_and_floats_agree() {
    // (2, 2): 5/9, the value of the explicit game certified by exact best responses in
    // tests/shrek_donkey.rs.
    run("2 2", &["--exact"]).success().stdout("5/9 4/9\n");
    let out = run("2 2", &["--json"])
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let shrek = v["shrek"].as_f64().unwrap();
    assert!((shrek - 5.0 / 9.0).abs() < 1e-15);
    assert_eq!(v["printed"], "0.555555555556 0.444444444444");
}

#[test]
fn largest_input_runs() {
    let out = run("1000 1000", &[]).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let parts: Vec<f64> = text
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(parts.len(), 2);
    assert!(parts.iter().all(|p| (0.0..=1.0).contains(p)));
    assert!((parts[0] + parts[1] - 1.0).abs() < 1e-11);
}

#[test]
fn strategy_table_and_single_state() {
    run("2 1", &["--strategy", "--exact"])
        .success()
        .stdout(predicate::str::contains("Shrek   2    1    mixed     2/3"))
        .stdout(predicate::str::contains("Donkey  1    1    mixed     1/2"));
    run("", &["--state", "1,1", "--exact"])
        .success()
        .stdout(predicate::str::contains(
            "1    1    mixed  1/2    0      2/3     1/3    1/2",
        ))
        .stdout(predicate::str::contains("[[1/4, 3/4], [1, 0]]"));
    let out = run("3 3", &["--strategy", "--json", "--max-rows", "2"])
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["states"].as_array().unwrap().len(), 2);
    assert_eq!(v["states_reachable"], 15);
}

#[test]
fn check_certifies_the_dp_in_the_explicit_game() {
    run("1 2", &["--check"])
        .success()
        .stdout(predicate::str::contains("2353 nodes, 568 information sets"))
        .stdout(predicate::str::contains("value 1/2 and NashConv 0"))
        .stdout(predicate::str::contains(
            "exact sequence-form LP on the explicit game: value 1/2",
        ));
}

#[test]
fn bad_input_is_refused_clearly() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("", &[], "got nothing"),
        ("5", &[], "got only \"5\""),
        ("1 2 3", &[], "got 3 values"),
        (
            "a 2",
            &[],
            "m (first value on stdin): expected a whole number",
        ),
        (
            "2 -1",
            &[],
            "n (second value on stdin) = -1 is out of range 0..=1000",
        ),
        ("1001 0", &[], "out of range 0..=1000"),
        ("1.5 2", &[], "expected a whole number"),
        ("", &["--m", "1"], "--m was given without --n"),
        ("", &["--m", "-2", "--n", "1"], "--m = -2 is out of range"),
        ("20 20", &["--exact"], "exceeds 26"),
        ("3 3", &["--check"], "m + n <= 5"),
        ("", &["--state", "1;1"], "expected OWN,OPP"),
    ];
    for (stdin, args, message) in cases {
        run(stdin, args)
            .failure()
            .stdout("")
            .stderr(predicate::str::contains(*message));
    }
}
