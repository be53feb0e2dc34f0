//! `bluff export` and game files given to other commands; the reduced normal form.

mod common;

use bluff::eval::expected_value;
use bluff::format::efg::{efg_to_game, read_efg};
use bluff::format::nfg::{read_nfg, write_nfg};
use bluff::matrix::normal_form::reduced_strategies;
use bluff::scalar::rat;
use bluff::strategy::ExactProfile;
use common::cli::{bluff, json_of};
use predicates::prelude::*;

const KUHN_EQUILIBRIUM: &str = r#"{"game": "kuhn", "strategy": {
  "P1": {"J": {"Pass": "2/3", "Bet": "1/3"}, "Q": {"Pass": 1, "Bet": 0}, "K": {"Pass": 0, "Bet": 1},
         "Jpb": {"Pass": 1, "Bet": 0}, "Qpb": {"Pass": "1/3", "Bet": "2/3"}, "Kpb": {"Pass": 0, "Bet": 1}},
  "P2": {"Jp": {"Pass": "2/3", "Bet": "1/3"}, "Qp": {"Pass": 1, "Bet": 0}, "Kp": {"Pass": 0, "Bet": 1},
         "Jb": {"Pass": 1, "Bet": 0}, "Qb": {"Pass": "2/3", "Bet": "1/3"}, "Kb": {"Pass": 0, "Bet": 1}}}}"#;

#[test]
fn exported_kuhn_evaluates_like_the_built_in_game() {
    let dir = tempfile::tempdir().unwrap();
    let efg = dir.path().join("kuhn.efg");
    bluff()
        .args(["export", "kuhn", "-o"])
        .arg(&efg)
        .assert()
        .success();
    let strategy = dir.path().join("eq.json");
    std::fs::write(&strategy, KUHN_EQUILIBRIUM).unwrap();
    let v = json_of(bluff().arg("eval").arg(&efg).arg(&strategy));
    assert_eq!(v["value_p1"]["exact"], "-1/18");
    assert_eq!(v["nash_conv"]["exact"], "0");
    // Only the final file is left: the temporary was renamed.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 2);
}

#[test]
fn export_errors_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    bluff()
        .args(["export", "kuhn", "-o"])
        .arg(dir.path().join("missing/k.efg"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("missing does not exist"));
    bluff()
        .args(["export", "nosuchgame"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("unknown game"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn malformed_files_are_reported_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.efg");
    std::fs::write(
        &bad,
        "EFG 2 R \"x\" { \"A\" \"B\" }\np \"\" 1 1 \"s\" { \"a\" } 0\nt \"\" 1 \"o\" { 1 two }\n",
    )
    .unwrap();
    bluff()
        .args(["export"])
        .arg(&bad)
        .assert()
        .failure()
        .stderr(predicate::str::contains("line 3, column 16"))
        .stderr(predicate::str::contains("player 2's payoff"));
}

#[test]
fn chance_sum_warning_reaches_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("w.efg");
    std::fs::write(&f, "EFG 2 R \"w\" { \"A\" \"B\" }\nc \"\" 1 \"\" { \"x\" 1 \"y\" 1 } 0\nt \"\" 1 \"o\" { 1 -1 }\nt \"\" 2 \"q\" { -1 1 }\n").unwrap();
    bluff()
        .arg("export")
        .arg(&f)
        .assert()
        .success()
        .stderr(predicate::str::contains("sum to 2, not 1"))
        .stdout(predicate::str::contains("\"x\" 1/2 \"y\" 1/2"));
}

/// Kuhn's reduced normal form: player 1 chooses, per card, bet or pass-then-fold/call (3^3),
/// player 2 one of 2 actions at each of 6 sets (2^6); entries equal the exact tree value of the
/// matching pure behavioural profile, and the matrix game's value is Kuhn's -1/18.
#[test]
fn reduced_normal_form_matches_tree_values_and_kuhn_value() {
    let game = bluff::games::load("kuhn").unwrap().game;
    let nf = bluff::matrix::normal_form::to_nfg(&game).unwrap();
    assert_eq!(nf.strategies[0].len(), 27);
    assert_eq!(nf.strategies[1].len(), 64);
    let s = [
        reduced_strategies(&game, 0, 100).unwrap(),
        reduced_strategies(&game, 1, 100).unwrap(),
    ];
    for (i, s0) in s[0].iter().enumerate().step_by(5) {
        for (j, s1) in s[1].iter().enumerate().step_by(7) {
            let mut prof = ExactProfile::uniform(&game);
            let pure =
                |c: &Vec<Option<usize>>| c.iter().map(|c| c.unwrap_or(0)).collect::<Vec<_>>();
            prof.set_pure(&game, 0, &pure(&s0.choices));
            prof.set_pure(&game, 1, &pure(&s1.choices));
            assert_eq!(
                nf.payoffs[nf.profile_index(&[i, j])][0],
                expected_value(&game, &prof)
            );
        }
    }
    let back = read_nfg(&write_nfg(&nf).unwrap()).unwrap();
    assert_eq!(back, nf);
    let solution = bluff::matrix::MatrixGame::from_nfg(&back)
        .unwrap()
        .solve()
        .unwrap();
    assert_eq!(solution.value, rat(-1, 18));
}

#[test]
fn nfg_files_load_as_simultaneous_move_games() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tiny.nfg");
    let tiny = efg_to_game(
        &read_efg(
            &std::fs::read_to_string(format!(
                "{}/../tests/data/tiny_bluff.efg",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap(),
        )
        .unwrap()
        .game,
    )
    .unwrap();
    std::fs::write(
        &f,
        write_nfg(&bluff::matrix::normal_form::to_nfg(&tiny).unwrap()).unwrap(),
    )
    .unwrap();
    let game = bluff::games::load(f.to_str().unwrap()).unwrap().game;
    assert_eq!(game.infosets[0][0].actions.len(), 4);
    assert_eq!(game.infosets[1][0].actions.len(), 2);
    bluff()
        .args(["export", "--format", "nfg"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("NFG 1 R \"Tiny bluff\""));
}
