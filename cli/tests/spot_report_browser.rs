//! `bluff report SPOT.toml S` in a real browser: headless Chromium, driven through the
//! DevTools protocol (`common::browser`), loads the range-grid page of the reduced turn spot,
//! runs its script without errors, draws both 13x13 grids, walks the action tree with the
//! node picker (an action, then a dealt card) and sees the grid change, lists a cell's combos,
//! and keeps a screenshot in `target/report-screenshots/`.
//!
//! Needs Debian's `chromium` (or `BLUFF_CHROMIUM=/path`). Without it the test says it skips,
//! unless `BLUFF_REQUIRE_CHROMIUM=1`, which makes that a failure.

mod common;

use common::browser::Browser;
use common::chromium;
use common::cli::bluff;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// What the strategy grid shows: each cell's bar colours and height.
const GRID: &str = "JSON.stringify([...document.querySelectorAll('#grid .cell .fill')].map(f => f.style.background + '|' + f.style.height))";

#[test]
fn the_spot_report_runs_in_chromium_and_its_picker_walks_the_tree() {
    let Some(chrome) = chromium() else {
        if std::env::var("BLUFF_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!("BLUFF_REQUIRE_CHROMIUM=1 but no chromium in PATH (apt-get install chromium)");
        }
        eprintln!("skipping: no chromium in PATH (set BLUFF_REQUIRE_CHROMIUM=1 to fail instead)");
        return;
    };
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/report-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spot = common::data("spots/turn_reduced.toml");
    let s = dir.path().join("s.bspt");
    let html = dir.path().join("spot.html");
    for args in [
        vec![
            "solve",
            &spot,
            "--target-pot-pct",
            "0.1",
            "-o",
            s.to_str().unwrap(),
        ],
        vec![
            "report",
            &spot,
            s.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ],
    ] {
        let out = bluff().args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            common::cli::stderr_of(&out)
        );
    }
    let mut b = Browser::launch(&chrome, &dir.path().join("profile"));
    let minute = Duration::from_secs(60);
    b.call(
        "Page.navigate",
        json!({"url": format!("file://{}", html.display())}),
    );
    b.wait(
        "document.getElementById('js-status')?.textContent === 'ready'",
        minute,
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#grid .cell').length"),
        json!(169)
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#value-grid .cell').length"),
        json!(169)
    );
    assert_eq!(
        b.eval("document.getElementById('node-path').textContent"),
        json!("turn")
    );
    // The root's range: one frequency row per action, summing to 100%.
    let freqs = b.eval("[...document.querySelectorAll('#range-table tr.freq td')].map(td => parseFloat(td.textContent))");
    let total: f64 = freqs
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((total - 100.0).abs() < 0.05, "{freqs}");
    let at_root = b.eval(GRID);
    // Some cell is coloured: a range arrives.
    assert!(
        at_root.as_str().unwrap().contains("linear-gradient"),
        "{at_root}"
    );

    // An action: IP's node after OOP's bet.
    b.act("document.querySelector('#choices button[data-action=\"bet10\"]').click()");
    assert_eq!(
        b.eval("document.getElementById('node-path').textContent"),
        json!("turn:bet10")
    );
    assert!(b
        .eval("document.getElementById('node-heading').textContent")
        .as_str()
        .unwrap()
        .contains("IP"));
    let after_bet = b.eval(GRID);
    assert_ne!(at_root, after_bet, "the grid did not change with the node");

    // Back to the root, check-check, and deal a river card.
    b.act("document.getElementById('to-root').click()");
    assert_eq!(b.eval(GRID), at_root);
    b.act("document.querySelector('#choices button[data-action=\"check\"]').click()");
    b.act("document.querySelector('#choices button[data-action=\"check\"]').click()");
    let cards =
        b.eval("document.querySelectorAll('#choices button[data-card]:not([disabled])').length");
    assert!(cards.as_u64().unwrap() > 0, "no card to deal: {cards}");
    b.act("document.querySelector('#choices button[data-card]:not([disabled])').click()");
    let path = b.eval("document.getElementById('node-path').textContent");
    assert!(
        path.as_str()
            .unwrap()
            .starts_with("turn:check,check;river:"),
        "{path}"
    );
    let on_river = b.eval(GRID);
    assert_ne!(on_river, at_root);

    // A cell's combos.
    b.act("document.querySelector('#grid .cell:not(.empty)').click()");
    let rows = b.eval("document.querySelectorAll('#cell-info tr[data-hand]').length");
    assert!(rows.as_u64().unwrap() > 0, "{rows}");
    let classes = b.eval("document.querySelectorAll('#class-table tbody tr').length");
    assert!(classes.as_u64().unwrap() > 0);

    // No script error.
    assert_eq!(
        b.eval("document.getElementById('js-errors').hidden"),
        json!(true)
    );
    let errors: Vec<&Value> = b
        .events
        .iter()
        .filter(|e| {
            e["method"] == "Runtime.exceptionThrown"
                || (e["method"] == "Runtime.consoleAPICalled" && e["params"]["type"] == "error")
        })
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    b.screenshot(&shots.join("spot-turn-reduced.png"));
}
