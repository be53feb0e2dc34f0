//! `bluff report` on the command line: self-contained output, exact/f64 choice, bad input.

mod common;

use common::cli::bluff;
use predicates::prelude::*;
use predicates::str::contains;

#[test]
fn kuhn_report_is_self_contained_and_exact() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kuhn.html");
    bluff()
        .args(["report", "kuhn", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stderr(contains("12 of 12 information sets").and(contains("exact evaluation")));
    let html = std::fs::read_to_string(&out).unwrap();
    // Nothing is fetched: the only URL is the SVG namespace name.
    assert_eq!(
        html.matches("http").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );
    for attr in [" src=", " href=", "@import", "url("] {
        assert!(!html.contains(attr), "{attr}");
    }
    assert!(html.contains("data-key=\"game_value_p1\" data-exact=\"-1/18\""));
    assert!(html.contains("data-key=\"nash_conv\" data-exact=\"0\""));
}

#[test]
fn float_files_are_evaluated_in_f64_unless_exact_is_forced() {
    let dir = tempfile::tempdir().unwrap();
    let strat = dir.path().join("s.json");
    let curve = dir.path().join("c.csv");
    bluff()
        .args([
            "solve",
            "kuhn",
            "--algo",
            "cfr",
            "--iterations",
            "300",
            "-o",
        ])
        .arg(&strat)
        .arg("--curve")
        .arg(&curve)
        .assert()
        .success();
    let out = dir.path().join("r.html");
    bluff()
        .args(["report", "kuhn"])
        .arg(&strat)
        .arg("--curve")
        .arg(&curve)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(contains("f64 evaluation").and(contains("1 pictures")));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("id=\"fig-convergence\""));
    bluff()
        .args(["report", "kuhn"])
        .arg(&strat)
        .arg("--exact")
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(contains("exact evaluation"));
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let strat = dir.path().join("s.json");
    bluff()
        .args(["solve", "kuhn", "--algo", "lp", "-o"])
        .arg(&strat)
        .assert()
        .success();
    let before = std::fs::read(&strat).unwrap();
    // The output may not be an input.
    bluff()
        .args(["report", "kuhn"])
        .arg(&strat)
        .arg("-o")
        .arg(&strat)
        .assert()
        .failure()
        .stderr(contains("input file"));
    assert_eq!(std::fs::read(&strat).unwrap(), before);
    // A malformed curve names its line.
    let curve = dir.path().join("c.csv");
    std::fs::write(&curve, "iteration,exploitability\n1,0.5\n2,abc\n").unwrap();
    let out = dir.path().join("r.html");
    bluff()
        .args(["report", "kuhn"])
        .arg(&strat)
        .arg("--curve")
        .arg(&curve)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure()
        .stderr(contains("line 3").and(contains("exploitability")));
    std::fs::write(&curve, "iter,expl\n1,0.5\n").unwrap();
    bluff()
        .args(["report", "kuhn", "--curve"])
        .arg(&curve)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure()
        .stderr(contains("no column \"iteration\""));
    // --png needs an existing directory.
    bluff()
        .args(["report", "baby-poker", "--png"])
        .arg(dir.path().join("missing"))
        .arg("-o")
        .arg(&out)
        .assert()
        .failure()
        .stderr(contains("not an existing directory"));
    assert!(!out.exists());
    // A strategy for another game is an error naming the problem.
    bluff()
        .args(["report", "leduc"])
        .arg(&strat)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure();
    assert!(!out.exists());
}
