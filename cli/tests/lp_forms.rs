//! The merged sequence-form LP (one-action information sets' sequences merged into their
//! parents') against the textbook LP on games: the same exact value, both certified by exact
//! best responses of the rational evaluator (`bluff::eval`, an independent implementation),
//! and exactly one row fewer per one-action set.

use bluff::eval::exploitability;
use bluff::exact::sequence_form::{build_lp_as, LpForm};
use bluff::exact::{solve_exact_with, ExactOptions};
use bluff::lp::{Method, SolveOptions};
use bluff::scalar::{rat, Rational};
use num_traits::Zero;

/// Solves `spec` in both forms and checks them; returns the value and the rows (merged,
/// textbook).
fn both_forms(spec: &str) -> (Rational, usize, usize) {
    let game = bluff::games::load(spec).unwrap().game;
    let solve = |form| {
        let options = ExactOptions {
            lp: SolveOptions::new(Method::FloatThenExact),
            form,
            ..Default::default()
        };
        solve_exact_with(&game, &options).unwrap()
    };
    let merged = solve(LpForm::Merged);
    let textbook = solve(LpForm::Textbook);
    assert_eq!(merged.value, textbook.value, "{spec}");
    for s in [&merged, &textbook] {
        let e = exploitability(&game, &s.profile);
        assert!(e.nash_conv.is_zero(), "{spec}");
        assert_eq!(e.value[0], s.value, "{spec}");
    }
    let one_action_sets = game
        .infosets
        .iter()
        .flatten()
        .filter(|set| set.actions.len() == 1)
        .count();
    let rows = |form| build_lp_as(&game, form).lp.num_constraints();
    let (m, t) = (rows(LpForm::Merged), rows(LpForm::Textbook));
    // Each one-action set takes away one row: its sequence's row (player 2's sets) or its
    // `E` row (player 1's).
    assert_eq!(t - m, one_action_sets, "{spec}");
    (merged.value, m, t)
}

#[test]
fn liars_dice_merges_and_keeps_its_values() {
    // 1/16 for 4 sides (tests/lp_reconstruction.rs; OpenSpiel's LP agrees).
    assert_eq!(
        both_forms("liars-dice(dice=1,sides=4)"),
        (rat(1, 16), 1022, 1534)
    );
    let (_, m, t) = both_forms("liars-dice(dice=1,sides=3)");
    assert!(m < t);
}

#[test]
fn games_without_one_action_sets_build_the_same_lp() {
    // Kuhn's value is -1/18 (Kuhn 1950).
    assert_eq!(both_forms("kuhn"), (rat(-1, 18), 20, 20));
    for spec in ["one-card-poker(n=5,a=2,b=1)", "baby-poker"] {
        let (_, m, t) = both_forms(spec);
        assert_eq!(m, t, "{spec}");
    }
}

/// `bluff solve --algo lp --write-mps` writes the program it solves, of the form asked: its
/// rows and columns are those of the library's build of that form (merged and textbook differ
/// on liars dice), and the exact value is still printed.
#[test]
fn write_mps_writes_the_solved_lp_of_its_form() {
    let spec = "liars-dice(dice=1,sides=3)";
    let game = bluff::games::load(spec).unwrap().game;
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = Vec::new();
    for (name, form) in [("merged", LpForm::Merged), ("textbook", LpForm::Textbook)] {
        let path = dir.path().join(format!("{name}.mps"));
        let json = solve_writing_mps(spec, &["--lp-form", name], &path);
        assert_eq!(json["value_p1"]["exact"], "1/9", "{name}");
        let text = std::fs::read_to_string(&path).unwrap();
        let section = |from: &str, to: &str| -> Vec<String> {
            let start = text.find(&format!("\n{from}\n")).unwrap() + from.len() + 2;
            let end = text[start..].find(&format!("\n{to}\n")).unwrap() + start;
            text[start..end].lines().map(str::to_owned).collect()
        };
        // Constraint rows, without the objective's `N` row.
        let rows = section("ROWS", "COLUMNS")
            .iter()
            .filter(|l| !l.trim_start().starts_with('N'))
            .count();
        let mut columns: Vec<String> = section("COLUMNS", "RHS")
            .iter()
            .map(|l| l.split_whitespace().next().unwrap().to_owned())
            .collect();
        columns.dedup();
        let lp = build_lp_as(&game, form).lp;
        assert_eq!(rows, lp.num_constraints(), "{name}");
        assert_eq!(columns.len(), lp.num_vars(), "{name}");
        assert_eq!(json["lp_rows"], rows, "{name}");
        sizes.push(rows);
    }
    assert!(
        sizes[0] < sizes[1],
        "merged {} rows, textbook {}",
        sizes[0],
        sizes[1]
    );
}

/// `bluff solve SPEC --algo lp --json EXTRA --write-mps PATH`: its JSON summary.
fn solve_writing_mps(spec: &str, extra: &[&str], path: &std::path::Path) -> serde_json::Value {
    let out = assert_cmd::Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", spec, "--algo", "lp", "--json"])
        .args(extra)
        .arg("--write-mps")
        .arg(path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// `--lp-primal p1|p2` solves either player's maximin program: the same exact value for P1
/// (1/9, as above), the JSON names the program, the MPS file has the program's rows (player
/// 1's: a row per P2 sequence class, x_empty and P1's sets; player 2's the other way round),
/// and a CFR run refuses the option.
#[test]
fn lp_primal_solves_and_writes_either_players_program() {
    let spec = "liars-dice(dice=1,sides=3)";
    let game = bluff::games::load(spec).unwrap().game;
    let dir = tempfile::tempdir().unwrap();
    for (name, primal) in [("p1", 0), ("p2", 1)] {
        let path = dir.path().join(format!("{name}.mps"));
        let json = solve_writing_mps(spec, &["--lp-primal", name], &path);
        assert_eq!(json["value_p1"]["exact"], "1/9", "{name}");
        assert_eq!(json["lp_primal"], name);
        let lp = bluff::exact::sequence_form::build_lp_for(&game, LpForm::Merged, primal).lp;
        assert_eq!(json["lp_rows"], lp.num_constraints(), "{name}");
        let text = std::fs::read_to_string(&path).unwrap();
        let rows = text
            .split("\nCOLUMNS\n")
            .next()
            .unwrap()
            .split("\nROWS\n")
            .nth(1)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with('N'))
            .count();
        assert_eq!(rows, lp.num_constraints(), "{name}");
    }
    assert_cmd::Command::cargo_bin("bluff")
        .unwrap()
        .args([
            "solve",
            spec,
            "--algo",
            "cfr",
            "--iterations",
            "5",
            "--lp-primal",
            "p2",
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--lp-primal"));
}
