//! `bluff solve --algo lcp` (the default for a general-sum game): certified exact equilibria
//! through the one door, checked against closed forms.

mod common;

use common::cli::{bluff, solve_json as solve};
use serde_json::Value;

fn values(v: &Value) -> (String, String) {
    (
        v["value_p1"]["exact"].as_str().unwrap().to_string(),
        v["value_p2"]["exact"].as_str().unwrap().to_string(),
    )
}

/// Battle of the sexes, played one after the other unseen: its equilibria pay (3, 2), (2, 3)
/// and, mixed (P1 plays Opera 3/5, P2 2/5), (6/5, 6/5). The default algorithm on a
/// general-sum game is the LCP; the two pure starts reach the two pure equilibria.
#[test]
fn battle_of_the_sexes_by_the_lcp() {
    let game = common::data("general_sum.efg");
    let v = solve(&[&game]);
    assert_eq!(v["algo"], "lcp");
    assert_eq!(v["nash_conv"], "0");
    let pair = values(&v);
    let known = [("3", "2"), ("2", "3"), ("6/5", "6/5")];
    assert!(
        known
            .iter()
            .any(|(a, b)| pair == (a.to_string(), b.to_string())),
        "{pair:?}"
    );
    let oo = solve(&[&game, "--algo", "lcp", "--lcp-start", "pure:1,1"]);
    assert_eq!(values(&oo), ("3".into(), "2".into()));
    let ff = solve(&[&game, "--algo", "lcp", "--lcp-start", "pure:2,2"]);
    assert_eq!(values(&ff), ("2".into(), "3".into()));
}

/// A zero-sum game through the LCP gives the exact LP's value (Kuhn: -1/18).
#[test]
fn kuhn_through_the_lcp_gives_the_lp_value() {
    let v = solve(&["kuhn", "--algo", "lcp"]);
    assert_eq!(values(&v), ("-1/18".into(), "1/18".into()));
    let lp = solve(&["kuhn", "--algo", "lp"]);
    assert_eq!(values(&lp), values(&v));
}

/// A start naming a strategy the game does not have is refused by name; the LP refuses a
/// general-sum game naming the LCP.
#[test]
fn bad_starts_and_the_lp_on_general_sum_are_refused() {
    let game = common::data("general_sum.efg");
    let out = bluff()
        .args(["solve", &game, "--algo", "lcp", "--lcp-start", "pure:9,1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--lcp-start pure:9,1"), "{err}");
    let out = bluff()
        .args(["solve", &game, "--algo", "lp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("solve it with `lcp`"), "{err}");
}
