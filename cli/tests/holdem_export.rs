//! `bluff export SPOT.toml`: a hold'em spot written as an ordinary game, solved from the file.

mod common;

use common::cli::{assert_refused, bluff, json_of};
use common::write_in;

/// A river spot: OOP's bluff catcher (QcQh) against IP's nuts (AcAh, weight 0.5) and two air
/// hands; IP bets half the pot. The polarised river game's value for OOP is
/// 100 (1 - v - v B / (P + B)) with v = 1/5, P = 100, B = 50: 220/3.
const RIVER: &str = r#"
board = "As8d7c4h2s"
oop_range = "QcQh"
ip_range = "AcAh:0.5,JdTd,JcTc"
pot = 100
stack = 1000
oop_river_bet = ""
ip_river_bet = "50%"
river_raise = ""
"#;

#[test]
fn an_exported_river_spot_solves_to_its_closed_form() {
    let dir = tempfile::tempdir().unwrap();
    let spot = write_in(dir.path(), "river.toml", RIVER);
    let efg = dir.path().join("river.efg");
    bluff()
        .arg("export")
        .arg(&spot)
        .arg("-o")
        .arg(&efg)
        .assert()
        .success();
    let v = json_of(bluff().args(["solve", "--algo", "lp"]).arg(&efg));
    assert_eq!(v["value_p1"]["exact"], "220/3");
}

#[test]
fn bad_or_big_spots_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.efg");
    for (name, text, needle) in [
        ("key.toml", RIVER.replace("pot = 100", "pot = 0"), "pot"),
        (
            "big.toml",
            RIVER
                .replace("As8d7c4h2s", "As8d7c")
                .replace("QcQh", "22+,A2+,K2+")
                .replace("AcAh:0.5,JdTd,JcTc", "22+,A2+,K2+,Q2+")
                .replace("oop_river_bet = \"\"", "flop_bet = \"50%\"\nflop_raise = \"a\"\nturn_bet = \"50%\"\nturn_raise = \"a\"\nriver_bet = \"50%\"")
                .replace("ip_river_bet = \"50%\"\n", ""),
            "above the limit",
        ),
    ] {
        let spot = write_in(dir.path(), name, text);
        let o = bluff()
            .arg("export")
            .arg(&spot)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_refused(&o, name, needle);
        assert!(!out.exists(), "{name}");
    }
    let o = bluff()
        .arg("export")
        .arg(dir.path().join("missing.toml"))
        .output()
        .unwrap();
    assert_refused(&o, "missing", "missing.toml");
}
