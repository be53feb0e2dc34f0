//! `bluff solve --algo lp --max-memory`: an LP over the budget is refused before allocating,
//! with its size in the message, and a bad size is a clear error.

use assert_cmd::Command;
use predicates::prelude::*;

#[test]
fn lp_over_the_budget_is_refused_with_its_size() {
    Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", "leduc", "--algo", "lp", "--max-memory", "1M"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("rows x"))
        .stderr(predicate::str::contains("over the memory budget of 1 MB"));
    // The dense tableau's estimate for Leduc is far larger than the sparse method's.
    Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", "leduc", "--algo", "lp", "--lp-method", "tableau"])
        .args(["--max-memory", "100M"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("dense exact tableau"));
}

#[test]
fn kuhn_fits_a_small_budget_and_bad_sizes_are_errors() {
    Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", "kuhn", "--algo", "lp", "--max-memory", "50M"])
        .assert()
        .success()
        .stdout(predicate::str::contains("-1/18"));
    Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", "kuhn", "--algo", "lp", "--max-memory", "lots"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("expected a size"));
    Command::cargo_bin("bluff")
        .unwrap()
        .args(["solve", "kuhn", "--algo", "cfr", "--max-memory", "1G"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--max-memory does not apply to cfr; it applies to the exact LP (lp) and the LCP (lcp)",
        ));
}
