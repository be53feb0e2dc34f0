//! `bluff baby-poker` end to end: JSON fields, the matrix table, and bad input.

mod common;

use common::cli::bluff;
use predicates::str::contains;

#[test]
fn json_reports_the_published_value_and_a_unique_a_optimum() {
    let out = bluff().args(["baby-poker", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for route in [
        "normal_form_lp",
        "behavioural_lp_a",
        "behavioural_lp_b",
        "sequence_form_lp",
    ] {
        assert_eq!(v["value"][route]["exact"], "5/54", "{route}");
    }
    assert_eq!(v["pure"]["saddle_points"].as_array().unwrap().len(), 0);
    assert_eq!(v["a_behavioural"]["unique"], true);
    assert_eq!(
        v["a_behavioural"]["p"],
        serde_json::json!(["2/3", "0", "0", "0", "1", "1"])
    );
    assert!(v["b_behavioural"]["equalities"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("q2 + q3 + q4 = 4/3")));
    // Counts confirmed independently in tests/baby_poker.rs.
    assert_eq!(v["b_behavioural"]["vertices"].as_array().unwrap().len(), 6);
    assert_eq!(v["mixed"]["b"]["vertices"].as_array().unwrap().len(), 23);
    assert_eq!(v["mixed"]["a"]["vertices"].as_array().unwrap().len(), 1);
}

#[test]
fn matrix_option_prints_every_row_scaled_to_integers() {
    let out = bluff()
        .args(["baby-poker", "--sides", "3", "--raise", "2", "--matrix"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("times 9"));
    // Row 111 (always raise) against column 111 (always fold): A wins 1 = 9/9.
    let row = text.lines().find(|l| l.starts_with("111 ")).unwrap();
    assert_eq!(row.split_whitespace().last(), Some("9"));
    assert_eq!(
        text.lines()
            .filter(|l| l.len() > 4
                && l.as_bytes()[3] == b' '
                && l[..3].bytes().all(|b| b == b'0' || b == b'1'))
            .count(),
        8
    );
}

#[test]
fn bad_arguments_fail_cleanly() {
    bluff()
        .args(["baby-poker", "--sides", "1"])
        .assert()
        .failure()
        .stderr(contains("not in 2..=8"));
    bluff()
        .args(["baby-poker", "--raise", "x"])
        .assert()
        .failure()
        .stderr(contains("--raise"));
}

#[test]
fn registry_builds_the_game_with_parameters() {
    bluff()
        .args(["games"])
        .assert()
        .success()
        .stdout(contains("baby-poker"));
    let g = bluff::games::load("baby-poker(sides=4,raise=3)")
        .unwrap()
        .game;
    assert_eq!(g.infosets[0].len(), 4);
    assert!(bluff::games::load("baby-poker(sides=1)").is_err());
}

#[test]
fn normal_form_command_solves_kuhn_to_its_published_value() {
    let out = bluff()
        .args(["normal-form", "kuhn", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"]["exact"], "-1/18");
    // P1: 3 reduced choices per card (bet, pass-fold, pass-call); P2: 2^6.
    assert_eq!(v["strategies"], serde_json::json!([27, 64]));
    assert_eq!(v["saddle_points"].as_array().unwrap().len(), 0);
    bluff()
        .args(["normal-form", "kuhn", "--max-strategies", "10"])
        .assert()
        .failure()
        .stderr(contains(
            "has 27 reduced pure strategies, more than the limit 10",
        ));
    bluff()
        .args(["normal-form", "nonsense"])
        .assert()
        .failure()
        .stderr(contains("unknown game"));
}
