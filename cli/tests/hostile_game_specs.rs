//! Game specs as a careless or hostile user types them: every malformed spec is an error that
//! names what is wrong (and lists what would be right), quickly, before any big allocation;
//! the same rules hold in every command that takes a game.

mod common;

use common::cli::{assert_refused, bluff};
use std::time::{Duration, Instant};

/// Runs `bluff normal-form SPEC` (a command that takes any game) and returns stderr, asserting
/// exit code 1 and no panic.
fn refused(spec: &str) -> String {
    let out = bluff().args(["normal-form", spec]).output().unwrap();
    let e = assert_refused(&out, &format!("{spec:?}"), "");
    assert!(e.len() < 1000, "{spec:?}: {} bytes of message", e.len());
    e
}

#[test]
fn an_unknown_game_lists_the_built_in_ones() {
    let e = refused("poker");
    assert!(e.contains("unknown game \"poker\""), "{e}");
    for name in ["kuhn", "leduc", "liars-dice", "goofspiel", "one-card-poker"] {
        assert!(e.contains(name), "{e}");
    }
}

#[test]
fn an_empty_spec_is_an_unknown_game() {
    assert!(refused("").contains("unknown game \"\""));
}

#[test]
fn a_missing_parenthesis_is_named() {
    assert!(refused("leduc(").contains("missing closing ')'"));
    assert!(refused("liars-dice(sides=4").contains("missing closing ')'"));
}

#[test]
fn an_unknown_parameter_lists_the_parameters() {
    let e = refused("liars-dice(faces=4)");
    assert!(e.contains("no parameter \"faces\""), "{e}");
    assert!(e.contains("dice") && e.contains("sides"), "{e}");
    let e = refused("kuhn(n=1)");
    assert!(e.contains("its parameters are: rake, rake_cap"), "{e}");
}

#[test]
fn a_parameter_without_a_value_is_named() {
    let e = refused("liars-dice(sides)");
    assert!(e.contains("should look like name=value"), "{e}");
}

#[test]
fn a_repeated_parameter_is_refused() {
    assert!(refused("liars-dice(sides=4,sides=5)").contains("given twice"));
}

#[test]
fn values_out_of_range_or_not_integers_are_named() {
    assert!(refused("baby-poker(sides=1)").contains("outside 2..="));
    assert!(refused("baby-poker(sides=-3)").contains("outside 2..="));
    assert!(refused("baby-poker(sides=6.5)").contains("is not an integer"));
    assert!(refused(&format!("baby-poker(sides={})", "9".repeat(50))).contains("outside"));
    let e = refused("goofspiel(order=sideways)");
    assert!(
        e.contains("is not one of") && e.contains("descending"),
        "{e}"
    );
}

#[test]
fn games_too_big_to_build_are_refused_quickly_by_their_size() {
    for (spec, size) in [
        ("liars-dice(dice=2,sides=5)", "1310719531 nodes"),
        ("goofspiel(cards=31)", "more than 1.8e19 nodes"),
    ] {
        let start = Instant::now();
        let e = refused(spec);
        assert!(e.contains(size) && e.contains("limit"), "{e}");
        // Said once: the error's cause is not printed a second time after its context.
        assert_eq!(e.matches(size).count(), 1, "{e}");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{spec} took {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn a_missing_file_spec_names_the_path() {
    for spec in ["nowhere/g.efg", "G.EFG", "x.nfg"] {
        let e = refused(spec);
        assert!(e.contains(spec) && e.contains("No such file"), "{e}");
    }
}

#[test]
fn a_folder_named_like_a_game_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("tree.efg");
    std::fs::create_dir(&folder).unwrap();
    let e = refused(folder.to_str().unwrap());
    assert!(e.contains("tree.efg"), "{e}");
}

#[test]
fn every_command_refuses_a_bad_spec_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("s.json");
    std::fs::write(&strategy, "{}").unwrap();
    let out_file = dir.path().join("o");
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            "solve".as_ref(),
            "leduc(x=1)".as_ref(),
            "--iterations".as_ref(),
            "9".as_ref(),
        ],
        vec![
            "export".as_ref(),
            "leduc(x=1)".as_ref(),
            "-o".as_ref(),
            out_file.as_ref(),
        ],
        vec!["eval".as_ref(), "leduc(x=1)".as_ref(), strategy.as_ref()],
        vec![
            "report".as_ref(),
            "leduc(x=1)".as_ref(),
            "-o".as_ref(),
            out_file.as_ref(),
        ],
    ];
    for args in cases {
        let out = bluff().args(&args).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {e}");
        assert!(
            e.contains("game leduc has no parameter \"x\""),
            "{args:?}: {e}"
        );
        assert!(!out_file.exists(), "{args:?} wrote its output");
    }
}

#[test]
fn surrounding_spaces_and_empty_parentheses_are_accepted() {
    for spec in ["  kuhn  ", "kuhn()", "liars-dice( sides = 3 )"] {
        let out = bluff()
            .args(["solve", spec, "--algo", "lp", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{spec:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
