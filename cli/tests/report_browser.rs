//! `bluff report` in a real browser: each report is loaded in headless Chromium, which must run
//! its script without errors; the tables and pictures must be in the rendered DOM; the summary
//! numbers must equal `bluff eval --json` on the same strategy; a screenshot of each page is
//! kept in `target/report-screenshots/`.
//!
//! Needs Debian's `chromium` (or `BLUFF_CHROMIUM=/path`). Without it the test says it skips,
//! unless `BLUFF_REQUIRE_CHROMIUM=1` (set by `.ci/run`), which makes that a failure.

mod common;

use assert_cmd::Command;
use common::chromium;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn bluff(args: &[&str]) -> String {
    let out = Command::cargo_bin("bluff")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bluff {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs headless Chromium on `html`: returns the DOM after the page's scripts ran and the
/// browser's log; writes a screenshot.
fn browse(chrome: &Path, html: &Path, shot: &Path, profile: &Path) -> (String, String) {
    let flags: Vec<&str> = common::HEADLESS
        .into_iter()
        .chain(["--enable-logging=stderr", "--v=0"])
        .collect();
    let url = format!("file://{}", html.display());
    let user = format!("--user-data-dir={}", profile.display());
    let dom = std::process::Command::new("timeout")
        .arg("180")
        .arg(chrome)
        .args(&flags)
        .arg(&user)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("running chromium");
    assert!(
        dom.status.success(),
        "chromium --dump-dom failed: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let shot_arg = format!("--screenshot={}", shot.display());
    let pic = std::process::Command::new("timeout")
        .arg("180")
        .arg(chrome)
        .args(&flags)
        .arg(&user)
        .arg("--window-size=1280,2000")
        .arg(shot_arg)
        .arg(&url)
        .output()
        .expect("running chromium");
    assert!(pic.status.success(), "chromium --screenshot failed");
    let mut log = String::from_utf8_lossy(&dom.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&pic.stderr));
    (String::from_utf8(dom.stdout).unwrap(), log)
}

/// The value of attribute `name` in the first tag that contains `marker`.
fn attr_after(dom: &str, marker: &str, name: &str) -> Option<String> {
    let at = dom.find(marker)?;
    let tag_start = dom[..at].rfind('<')?;
    let tag_end = at + dom[at..].find('>')?;
    let tag = &dom[tag_start..tag_end];
    let key = format!("{name}=\"");
    let v = tag.find(&key)? + key.len();
    let end = v + tag[v..].find('"')?;
    Some(tag[v..end].replace("&amp;", "&"))
}

/// A simple pseudo-random poker-like game with about 1e5 nodes: chance deals each player one of
/// 10 cards, then 9 binary moves alternate (player 1 first); a player sees its card and the
/// public moves (perfect recall); payoffs are deterministic small integers.
fn big_efg() -> String {
    const CARDS: usize = 10;
    const DEPTH: usize = 9;
    let mut out = String::from("EFG 2 R \"random 1e5-node test game\" { \"P1\" \"P2\" }\n\n");
    let mut deals = String::new();
    for a in 0..CARDS {
        for b in 0..CARDS {
            let _ = write!(deals, " \"{a} {b}\" 1/{}", CARDS * CARDS);
        }
    }
    let _ = writeln!(out, "c \"\" 1 \"\" {{{deals} }} 0");
    let mut ids: [HashMap<String, usize>; 2] = [HashMap::new(), HashMap::new()];
    let mut outcome = 0usize;
    for a in 0..CARDS {
        for b in 0..CARDS {
            // Pre-order over histories: a stack of (history bits, depth).
            let mut stack = vec![(0u32, 0usize)];
            while let Some((bits, depth)) = stack.pop() {
                let history: String = (0..depth)
                    .map(|k| if bits >> k & 1 == 1 { 'r' } else { 'l' })
                    .collect();
                if depth == DEPTH {
                    outcome += 1;
                    let h = (a as u64 * 7919 + b as u64 * 104729 + bits as u64 * 2654435761)
                        % 1_000_003;
                    let edge = a as i64 - b as i64;
                    let pay = (h % 7) as i64 - 3 + edge.signum() * (bits.count_ones() as i64 % 3);
                    let _ = writeln!(out, "t \"\" {outcome} \"\" {{ {pay}, {} }}", -pay);
                    continue;
                }
                let player = depth % 2;
                let card = if player == 0 { a } else { b };
                let label = format!("{card}|{history}");
                let next = ids[player].len() + 1;
                let id = *ids[player].entry(label.clone()).or_insert(next);
                let _ = writeln!(
                    out,
                    "p \"\" {} {id} \"{label}\" {{ \"l\" \"r\" }} 0",
                    player + 1
                );
                stack.push((bits | 1 << depth, depth + 1));
                stack.push((bits, depth + 1));
            }
        }
    }
    out
}

/// The strategy file's sets with probabilities k/8 and 1 - k/8 (k from 1 to 7, varied by set).
fn eighths_strategy(dcfr: &str) -> String {
    let mut v: Value = serde_json::from_str(dcfr).unwrap();
    let mut k = 0u64;
    for player in v["strategy"].as_object_mut().unwrap().values_mut() {
        for set in player.as_object_mut().unwrap().values_mut() {
            k += 1;
            let p = (k * 5) % 7 + 1;
            let actions = set.as_object_mut().unwrap();
            let names: Vec<String> = actions.keys().cloned().collect();
            assert_eq!(names.len(), 2);
            actions.insert(names[0].clone(), Value::String(format!("{p}/8")));
            actions.insert(names[1].clone(), Value::String(format!("{}/8", 8 - p)));
        }
    }
    v.to_string()
}

struct Case {
    name: &'static str,
    game: String,
    /// Arguments of `bluff report` after the game (output added by the test).
    report_args: Vec<String>,
    /// The strategy file whose `bluff eval --json` the summary must equal.
    strategy: PathBuf,
    /// Total information sets of the game.
    infosets: usize,
    /// Picture ids that must be present.
    pictures: &'static [&'static str],
    /// Whether the summary is exact.
    exact: bool,
}

#[test]
fn reports_render_in_chromium_and_match_eval() {
    let Some(chrome) = chromium() else {
        if std::env::var("BLUFF_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!("BLUFF_REQUIRE_CHROMIUM=1 but no chromium in PATH (apt-get install chromium)");
        }
        eprintln!("skipping: no chromium in PATH (set BLUFF_REQUIRE_CHROMIUM=1 to fail instead)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let s = |p: PathBuf| p.display().to_string();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/report-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = d("png");
    std::fs::create_dir_all(&png).unwrap();

    // Exact strategies from the LP for the small games; the report solves the same LP itself
    // where no strategy is given (kuhn, baby poker, card guessing).
    for (game, file) in [
        ("kuhn", "kuhn.json"),
        ("one-card-poker(n=50)", "ocp.json"),
        ("baby-poker", "baby.json"),
        ("shrek-donkey(m=1,n=2)", "sd.json"),
    ] {
        bluff(&["solve", game, "--algo", "lp", "-o", &s(d(file))]);
    }
    // Leduc: a DCFR run's strategy and curve, reported by `solve --report` and from the files.
    bluff(&[
        "solve",
        "leduc",
        "--algo",
        "dcfr",
        "--iterations",
        "200",
        "-o",
        &s(d("leduc.json")),
        "--curve",
        &s(d("leduc.csv")),
        "--report",
        &s(d("leduc-solve.html")),
    ]);
    std::fs::write(d("big.efg"), big_efg()).unwrap();
    bluff(&[
        "solve",
        &s(d("big.efg")),
        "--algo",
        "dcfr",
        "--iterations",
        "20",
        "-o",
        &s(d("big-dcfr.json")),
        "--curve",
        &s(d("big.csv")),
    ]);
    // The curve comes from that short DCFR run; the strategy reported has eighths as
    // probabilities, so that `bluff eval` (always exact) checks it quickly, while the report
    // (1e5 nodes) evaluates in f64.
    let dcfr = std::fs::read_to_string(d("big-dcfr.json")).unwrap();
    std::fs::write(d("big.json"), eighths_strategy(&dcfr)).unwrap();

    let cases = vec![
        Case {
            name: "kuhn",
            game: "kuhn".into(),
            report_args: vec![],
            strategy: d("kuhn.json"),
            infosets: 12,
            pictures: &[],
            exact: true,
        },
        Case {
            name: "leduc",
            game: "leduc".into(),
            report_args: vec![s(d("leduc.json")), "--curve".into(), s(d("leduc.csv"))],
            strategy: d("leduc.json"),
            infosets: 936,
            pictures: &["convergence"],
            exact: false,
        },
        Case {
            name: "one-card-poker-50",
            game: "one-card-poker(n=50)".into(),
            report_args: vec![s(d("ocp.json")), "--png".into(), s(png.clone())],
            strategy: d("ocp.json"),
            infosets: 400,
            pictures: &["one-card-poker"],
            exact: true,
        },
        Case {
            name: "baby-poker",
            game: "baby-poker".into(),
            report_args: vec!["--png".into(), s(png.clone())],
            strategy: d("baby.json"),
            infosets: 12,
            pictures: &["baby-poker-strategies", "baby-poker-b-set"],
            exact: true,
        },
        Case {
            name: "card-guessing",
            game: "shrek-donkey(m=1,n=2)".into(),
            report_args: vec!["--png".into(), s(png.clone())],
            strategy: d("sd.json"),
            infosets: 568,
            pictures: &["card-guessing"],
            exact: true,
        },
        Case {
            name: "big-efg",
            game: s(d("big.efg")),
            report_args: vec![s(d("big.json")), "--curve".into(), s(d("big.csv"))],
            strategy: d("big.json"),
            infosets: 5110,
            pictures: &["convergence"],
            exact: false,
        },
    ];
    let mut failures = Vec::new();
    for case in &cases {
        let html = d(&format!("{}.html", case.name));
        let mut args: Vec<String> = vec!["report".into(), case.game.clone()];
        args.extend(case.report_args.iter().cloned());
        args.extend(["-o".to_string(), s(html.clone())]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        bluff(&refs);
        let eval: Value = serde_json::from_str(&bluff(&[
            "eval",
            &case.game,
            &s(case.strategy.clone()),
            "--json",
        ]))
        .unwrap();
        let shot = shots.join(format!("{}.png", case.name));
        let (dom, log) = browse(&chrome, &html, &shot, &d(&format!("chrome-{}", case.name)));
        let mut check = |ok: bool, what: String| {
            if !ok {
                failures.push(format!("{}: {what}", case.name));
            }
        };
        check(
            dom.contains("id=\"js-status\">ready<"),
            "the page's script did not finish".into(),
        );
        let errors = dom
            .find("id=\"js-errors\"")
            .map(|at| {
                let start = at + dom[at..].find('>').unwrap() + 1;
                let end = start + dom[start..].find("</pre>").unwrap();
                dom[start..end].to_string()
            })
            .unwrap_or_else(|| "(no error element)".into());
        check(errors.is_empty(), format!("script errors: {errors}"));
        for line in log.lines() {
            check(
                !(line.contains(":CONSOLE(") || line.contains("Uncaught")),
                format!("console message: {line}"),
            );
        }
        check(
            dom.contains("id=\"filter\""),
            "the filter box was not added".into(),
        );
        let shown: usize = attr_after(&dom, "id=\"row-count\"", "data-shown")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let total: usize = attr_after(&dom, "id=\"row-count\"", "data-total")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        check(
            total == case.infosets,
            format!("{total} sets listed, expected {}", case.infosets),
        );
        check(
            shown == case.infosets.min(3000),
            format!("{shown} rows shown"),
        );
        check(
            dom.matches("<tr data-label=").count() == shown,
            "row count differs from data-shown".into(),
        );
        check(
            dom.contains(&format!("{shown} of {shown} rows shown")),
            "the filter's count is missing".into(),
        );
        for pic in case.pictures {
            let marker = format!("id=\"fig-{pic}\"");
            let ok = dom
                .find(&marker)
                .is_some_and(|at| dom[at..].find("<svg").is_some_and(|k| k < 400));
            check(ok, format!("picture {pic} missing"));
        }
        for key in [
            "value_p1",
            "value_p2",
            "best_response_value_p1",
            "best_response_value_p2",
            "nash_conv",
            "exploitability",
        ] {
            let marker = format!("data-key=\"{key}\"");
            let want = &eval[key];
            if case.exact {
                let got = attr_after(&dom, &marker, "data-exact");
                check(
                    got.as_deref() == want["exact"].as_str(),
                    format!("{key}: page {got:?}, eval {}", want["exact"]),
                );
            } else {
                let got: f64 = attr_after(&dom, &marker, "data-float")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN);
                let w = want["float"].as_f64().unwrap();
                check(
                    (got - w).abs() <= 1e-9 * w.abs().max(1.0),
                    format!("{key}: page {got}, eval {w}"),
                );
            }
        }
        check(
            std::fs::metadata(&shot)
                .map(|m| m.len() > 10_000)
                .unwrap_or(false),
            "no screenshot".into(),
        );
    }
    // The LP-solved reports also show the exact value; Kuhn's is -1/18.
    let kuhn = std::fs::read_to_string(d("kuhn.html")).unwrap();
    assert_eq!(
        attr_after(&kuhn, "data-key=\"game_value_p1\"", "data-exact").as_deref(),
        Some("-1/18")
    );
    // `solve --report` wrote a report with the run's curve.
    let solve_report = std::fs::read_to_string(d("leduc-solve.html")).unwrap();
    assert!(solve_report.contains("id=\"fig-convergence\""));
    // PNG exports are real PNGs.
    for pic in [
        "one-card-poker",
        "baby-poker-strategies",
        "baby-poker-b-set",
        "card-guessing",
    ] {
        let bytes = std::fs::read(png.join(format!("{pic}.png"))).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 5000,
            "{pic}.png"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
