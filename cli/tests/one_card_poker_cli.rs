//! The `bluff one-card-poker` command line: solve, validate, batch and zip.

mod common;

use common::cli::bluff;
use predicates::str::contains;
use std::io::Read;

const OFFICIAL: &str = "1 open: check\n1 check: bet 0.5\n1 bet: fold\n1 check-bet: fold 0.9\n2 open: bet 0.8\n2 check: bet\n2 bet: call\n2 check-bet: call 0.8\n";

#[test]
fn solves_from_stdin_and_the_printed_file_validates_at_the_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let out = bluff()
        .arg("one-card-poker")
        .write_stdin("5 3 2\n")
        .assert()
        .success()
        .stderr(contains("certified"))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 20);
    std::fs::write(dir.path().join("t.in"), "5 3 2\n").unwrap();
    std::fs::write(dir.path().join("t.out"), &text).unwrap();
    let json = bluff()
        .args(["one-card-poker", "validate", "--json", "--input"])
        .arg(dir.path().join("t.in"))
        .arg(dir.path().join("t.out"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["optimum"]["exact"], "3/2");
    assert!(v["gap"]["float"].as_f64().unwrap() < 1e-9);
}

#[test]
fn exact_flag_prints_fractions_scoring_exactly_the_optimum() {
    let out = bluff()
        .args([
            "one-card-poker",
            "--n",
            "4",
            "--ante",
            "2",
            "--bet",
            "1",
            "--exact",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["printed_score"]["gap"]["exact"], "0");
    assert_eq!(v["printed_score"]["average"]["exact"], "1");
    assert_eq!(v["lines"].as_array().unwrap().len(), 16);
}

#[test]
fn official_example_validates_with_its_exact_score() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ex.in"), "2 2 1\n").unwrap();
    std::fs::write(dir.path().join("ex.out"), OFFICIAL).unwrap();
    bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(dir.path().join("ex.in"))
        .arg(dir.path().join("ex.out"))
        .assert()
        .success()
        .stdout(contains("17/20"))
        .stdout(contains("3/20"));
}

#[test]
fn invalid_files_fail_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ex.in"), "2 2 1\n").unwrap();
    let bad = OFFICIAL
        .replace("1 bet: fold", "1 bet: raise")
        .replace("2 open: bet 0.8\n", "");
    std::fs::write(dir.path().join("bad.out"), bad).unwrap();
    bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(dir.path().join("ex.in"))
        .arg(dir.path().join("bad.out"))
        .assert()
        .failure()
        .stderr(contains("line 3: action \"raise\" is not legal"))
        .stderr(contains("line 5: out of order: expected `2 open` here"))
        .stderr(contains("missing: 2 open"));
    bluff()
        .arg("one-card-poker")
        .write_stdin("51 2 1\n")
        .assert()
        .failure()
        .stderr(contains("N = 51 is outside the task's range 2..=50"));
}

#[test]
fn cfr_method_is_reported_as_an_approximation() {
    bluff()
        .args(["one-card-poker", "--method", "cfr", "--iterations", "2000"])
        .write_stdin("3 2 1\n")
        .assert()
        .success()
        .stderr(contains("approximation"));
}

#[test]
fn batch_writes_validates_and_zips() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [("01", "2 2 1\n"), ("02", "6 20 20\n")];
    for (name, text) in inputs {
        std::fs::write(dir.path().join(format!("{name}.in")), text).unwrap();
    }
    let out_dir = dir.path().join("out");
    let zip_path = dir.path().join("outputs.zip");
    let json = bluff()
        .args(["one-card-poker", "batch", "--json"])
        .arg(dir.path().join("01.in"))
        .arg(dir.path().join("02.in"))
        .arg("--out")
        .arg(&out_dir)
        .arg("--zip")
        .arg(&zip_path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[1]["n"], 6);
    assert!(tests[1]["gap"]["float"].as_f64().unwrap() < 1e-9);
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip_path).unwrap()).unwrap();
    for name in ["01.out", "02.out"] {
        let mut text = String::new();
        archive
            .by_name(name)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, std::fs::read_to_string(out_dir.join(name)).unwrap());
    }
    // A bad input is reported before anything is written.
    std::fs::write(dir.path().join("03.in"), "2 0 1\n").unwrap();
    let fresh = dir.path().join("fresh");
    bluff()
        .args(["one-card-poker", "batch"])
        .arg(dir.path().join("01.in"))
        .arg(dir.path().join("03.in"))
        .arg("--out")
        .arg(&fresh)
        .assert()
        .failure()
        .stderr(contains("A = 0 is outside"));
    assert!(!fresh.exists());
}

#[test]
fn lp_method_prints_an_exact_file_that_validates_with_gap_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = bluff()
        .args(["one-card-poker", "--method", "lp", "--exact"])
        .write_stdin("6 2 3\n")
        .assert()
        .success()
        .stderr(contains("sequence-form LP"))
        .get_output()
        .stdout
        .clone();
    std::fs::write(dir.path().join("t.in"), "6 2 3\n").unwrap();
    std::fs::write(dir.path().join("t.out"), &out).unwrap();
    let json = bluff()
        .args(["one-card-poker", "validate", "--json", "--input"])
        .arg(dir.path().join("t.in"))
        .arg(dir.path().join("t.out"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["gap"]["exact"], "0");
}
