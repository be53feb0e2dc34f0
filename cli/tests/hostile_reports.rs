//! `bluff report` against hostile games, strategies, curves and output locations: labels never
//! become markup, bad inputs are refused naming the line or field before anything is written,
//! and pictures go through the safe-write rules.

mod common;

use common::cli::{assert_refused, bluff, stderr_of};
use common::write_in as write;
use std::path::Path;

/// Runs `bluff report ARGS`; asserts exit 1 with `needle` in the message and that `html` was
/// not written.
fn refused(args: &[&std::ffi::OsStr], html: &Path, needle: &str) {
    let out = bluff().arg("report").args(args).output().unwrap();
    assert_refused(&out, &format!("{args:?}"), needle);
    assert!(!html.exists(), "{args:?}: the report was written anyway");
}

const XSS_EFG: &str = r#"EFG 2 R "<script>alert(1)</script>" { "<b>A</b>" "B&amp;" }
"</title><script>x()</script>"
p "" 1 1 "<img src=x onerror=alert(1)>" { "<script>" "Check" } 0
p "" 2 1 "</td><script>" { "Call" "Fold" } 0
t "" 1 "o1" { 1 -1 }
t "" 2 "o2" { -1 1 }
p "" 2 1 "</td><script>" { "Call" "Fold" } 0
t "" 3 "o3" { 1 -1 }
t "" 4 "o4" { -1 1 }
"#;

#[test]
fn labels_with_markup_are_shown_as_text_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let efg = write(dir.path(), "xss.efg", XSS_EFG.as_bytes());
    let html = dir.path().join("r.html");
    let out = bluff()
        .arg("report")
        .arg(&efg)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    // The page's own script tags (as many as on a page of plain labels), and no element from
    // any label.
    let plain = dir.path().join("kuhn.html");
    let out = bluff()
        .args(["report", "kuhn", "-o"])
        .arg(&plain)
        .output()
        .unwrap();
    assert!(out.status.success());
    let own = std::fs::read_to_string(&plain)
        .unwrap()
        .matches("<script")
        .count();
    assert_eq!(page.matches("<script").count(), own, "{page}");
    assert!(!page.contains("<img") && !page.contains("<b>A"), "{page}");
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"));
}

#[test]
fn a_strategy_of_another_game_is_refused_naming_the_set() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("leduc.json");
    let out = bluff()
        .args(["solve", "leduc", "--iterations", "3", "-o"])
        .arg(&strategy)
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = dir.path().join("r.html");
    refused(
        &[
            "kuhn".as_ref(),
            strategy.as_ref(),
            "-o".as_ref(),
            html.as_ref(),
        ],
        &html,
        "no such information set",
    );
}

#[test]
fn a_probability_outside_zero_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = write(
        dir.path(),
        "s.json",
        br#"{"strategy": {"P1": {"J": {"Pass": "3/2", "Bet": "-1/2"}}}}"#,
    );
    let html = dir.path().join("r.html");
    refused(
        &[
            "kuhn".as_ref(),
            strategy.as_ref(),
            "-o".as_ref(),
            html.as_ref(),
        ],
        &html,
        "outside [0, 1]",
    );
}

#[test]
fn bad_curves_are_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    for (name, bytes, needle) in [
        (
            "empty.csv",
            &b"iteration,exploitability,seconds\n"[..],
            "no data lines",
        ),
        (
            "neg.csv",
            &b"iteration,exploitability,seconds\n1,-0.5,0\n"[..],
            "line 2: exploitability",
        ),
        (
            "nan.csv",
            &b"iteration,exploitability,seconds\n1,NaN,0\n"[..],
            "not a finite",
        ),
        ("columns.csv", &b"when,how\n1,2\n"[..], "has no column"),
        ("binary.csv", &b"\xff\xfe\x00\x01"[..], "UTF-8"),
    ] {
        let curve = write(dir.path(), name, bytes);
        refused(
            &[
                "kuhn".as_ref(),
                "--curve".as_ref(),
                curve.as_ref(),
                "-o".as_ref(),
                html.as_ref(),
            ],
            &html,
            needle,
        );
    }
}

#[test]
fn a_png_location_that_is_no_folder_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "plain", b"keep");
    let html = dir.path().join("r.html");
    refused(
        &[
            "kuhn".as_ref(),
            "-o".as_ref(),
            html.as_ref(),
            "--png".as_ref(),
            file.as_ref(),
        ],
        &html,
        "not an existing directory",
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
}

#[test]
fn the_report_may_not_replace_its_strategy_or_be_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = dir.path().join("s.json");
    let out = bluff()
        .args(["solve", "kuhn", "--iterations", "3", "-o"])
        .arg(&strategy)
        .output()
        .unwrap();
    assert!(out.status.success());
    let before = std::fs::read(&strategy).unwrap();
    let out = bluff()
        .arg("report")
        .arg("kuhn")
        .arg(&strategy)
        .arg("-o")
        .arg(&strategy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("input file of this command"));
    assert_eq!(std::fs::read(&strategy).unwrap(), before);
    let out = bluff()
        .args(["report", "kuhn", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("a folder"), "{}", stderr_of(&out));
}

#[test]
fn a_three_player_game_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let efg = write(
        dir.path(),
        "three.efg",
        b"EFG 2 R \"3p\" { \"A\" \"B\" \"C\" }\n\"\"\np \"\" 1 1 \"s\" { \"a\" \"b\" } 0\nt \"\" 1 \"o\" { 1 -1 0 }\nt \"\" 2 \"o2\" { -1 1 0 }\n",
    );
    let html = dir.path().join("r.html");
    refused(
        &[efg.as_ref(), "-o".as_ref(), html.as_ref()],
        &html,
        "3 player(s)",
    );
}

#[test]
fn max_rows_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    refused(
        &[
            "kuhn".as_ref(),
            "-o".as_ref(),
            html.as_ref(),
            "--max-rows".as_ref(),
            "0".as_ref(),
        ],
        &html,
        "--max-rows 0",
    );
}

#[test]
fn a_strategy_file_naming_another_game_is_reported_as_asked_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // A Kuhn strategy whose "game" field names something else (quoted and cut in the warning).
    let strategy = dir.path().join("s.json");
    let out = bluff()
        .args(["solve", "kuhn", "--algo", "lp", "-o"])
        .arg(&strategy)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&strategy).unwrap();
    let renamed = text.replacen(
        "\"kuhn\"",
        &format!("\"\\u001b[2J{}\"", "z".repeat(5000)),
        1,
    );
    std::fs::write(&strategy, renamed).unwrap();
    let html = dir.path().join("r.html");
    let out = bluff()
        .arg("report")
        .arg("kuhn")
        .arg(&strategy)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    let e = stderr_of(&out);
    assert!(out.status.success(), "{e}");
    assert!(
        e.contains("warning:") && e.len() < 1000 && !e.contains('\u{1b}'),
        "{e}"
    );
    assert!(html.exists());
}

#[cfg(unix)]
#[test]
fn pictures_follow_links_and_keep_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let pics = dir.path().join("pics");
    std::fs::create_dir(&pics).unwrap();
    let elsewhere = write(dir.path(), "kept.png", b"old");
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, pics.join("one-card-poker.png")).unwrap();
    let out = bluff()
        .args(["report", "one-card-poker(n=3,a=2,b=1)", "-o"])
        .arg(dir.path().join("r.html"))
        .arg("--png")
        .arg(&pics)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let link = pics.join("one-card-poker.png");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let png = std::fs::read(&elsewhere).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    let mode = std::fs::metadata(&elsewhere).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}
