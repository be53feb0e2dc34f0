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

/// A game whose sets list Fold, Call and Raise in different orders.
const ORDERS_EFG: &str = r#"EFG 2 R "Action orders" { "P1" "P2" }
""

p "" 1 1 "first" { "Fold" "Call" } 0
t "" 1 "a" { -1 1 }
p "" 2 1 "second" { "Call" "Raise" "Fold" } 0
t "" 2 "b" { 1 -1 }
p "" 1 2 "third" { "Raise" "Fold" "Call" } 0
t "" 3 "c" { 2 -2 }
t "" 4 "d" { -2 2 }
t "" 5 "e" { 0 0 }
t "" 6 "f" { 1 -1 }
"#;

/// The (action, colour) of every coloured piece of the strategy bars.
fn bar_colours(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for piece in html.split("<span style=\"width:").skip(1) {
        let colour = piece.split("background:").nth(1).unwrap()[..7].to_string();
        let title = piece.split("title=\"").nth(1).unwrap();
        let action = title.split(": ").next().unwrap().to_string();
        out.push((action, colour));
    }
    out
}

#[test]
fn an_action_has_one_colour_whatever_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let efg = dir.path().join("orders.efg");
    std::fs::write(&efg, ORDERS_EFG).unwrap();
    // One CFR iteration: the average strategy is uniform, so every action has a bar piece.
    let strategy = dir.path().join("s.json");
    bluff()
        .args(["solve"])
        .arg(&efg)
        .args(["--algo", "cfr", "--iterations", "1", "-o"])
        .arg(&strategy)
        .assert()
        .success();
    let html_path = dir.path().join("r.html");
    bluff()
        .arg("report")
        .arg(&efg)
        .arg(&strategy)
        .arg("-o")
        .arg(&html_path)
        .assert()
        .success();
    let pieces = bar_colours(&std::fs::read_to_string(&html_path).unwrap());
    let mut colour = std::collections::BTreeMap::new();
    let mut seen = std::collections::BTreeMap::new();
    for (action, c) in &pieces {
        let first = colour.entry(action.clone()).or_insert_with(|| c.clone());
        assert_eq!(first, c, "{action} has two colours");
        *seen.entry(action.clone()).or_insert(0) += 1;
    }
    // Fold sits first, third and second in its three sets; Call second, first, third.
    assert_eq!(seen.get("Fold"), Some(&3), "{pieces:?}");
    assert_eq!(seen.get("Call"), Some(&3), "{pieces:?}");
    assert_eq!(seen.get("Raise"), Some(&2), "{pieces:?}");
    let distinct: std::collections::BTreeSet<_> = colour.values().collect();
    assert_eq!(distinct.len(), 3, "{colour:?}");
}
