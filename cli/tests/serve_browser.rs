//! `bluff serve` in a real browser: headless Chromium, driven through the DevTools protocol on
//! a pipe (`--remote-debugging-pipe`: no port, no terminal), works the page as a person would:
//! picks Kuhn, solves it with CFR+ and with the exact LP, watches the curve fall, walks to an
//! information set, compares the two solves, exports, and opens a game whose labels are HTML.
//! The figures must equal `bluff solve`'s for the same request; screenshots are kept in
//! `target/serve-screenshots/` (CI's artefacts).
//!
//! Needs Debian's `chromium` (or `BLUFF_CHROMIUM=/path`). Without it the test says it skips,
//! unless `BLUFF_REQUIRE_CHROMIUM=1` (set by `scripts/test.sh`), which makes that a failure.

mod common;

use common::browser::Browser;
use common::chromium;
use common::serve::Server;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

/// A two-move game whose player, set and action labels are HTML.
fn hostile_efg() -> String {
    format!(
        "EFG 2 R \"{h}\" {{ \"{h}\" \"P2\" }}\n\
         p \"\" 1 1 \"{h}\" {{ \"{h}\" \"fold\" }} 0\n\
         t \"\" 1 \"\" {{ 1, -1 }}\n\
         t \"\" 2 \"\" {{ -1, 1 }}\n",
        h = HOSTILE
    )
}

#[test]
fn the_page_sets_up_solves_and_explores_in_chromium() {
    let Some(chrome) = chromium() else {
        if std::env::var("BLUFF_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!("BLUFF_REQUIRE_CHROMIUM=1 but no chromium in PATH (apt-get install chromium)");
        }
        eprintln!("skipping: no chromium in PATH (set BLUFF_REQUIRE_CHROMIUM=1 to fail instead)");
        return;
    };
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/serve-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("games");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("hostile.efg"), hostile_efg()).unwrap();
    let server = Server::start(&folder, &[]);
    let mut b = Browser::launch(&chrome, &dir.path().join("profile"));
    let minute = Duration::from_secs(60);
    b.call("Page.navigate", json!({"url": server.url}));
    b.wait(
        "document.getElementById('js-status')?.textContent === 'ready'",
        minute,
    );
    // The token left the address bar; the cookie carries it.
    assert_eq!(
        b.eval("location.href"),
        json!(format!("http://127.0.0.1:{}/", server.port))
    );
    b.eval("window.alert = () => { window.__alerted = true; }");

    // Set up: Kuhn, inspected.
    b.eval("document.getElementById('game-select').value = 'kuhn'; document.getElementById('game-select').dispatchEvent(new Event('change')); document.getElementById('inspect-btn').click()");
    b.wait("document.getElementById('game-size')", minute);
    let size = b.eval("document.getElementById('game-size').textContent");
    assert!(size.as_str().unwrap().contains("58 nodes"), "{size}");
    assert!(b
        .eval("document.getElementById('game-fits').textContent")
        .as_str()
        .unwrap()
        .contains("exact LP fits"));
    assert_eq!(b.eval("document.getElementById('algo').value"), "lp");

    // Solve with CFR+ (2000 iterations) and watch the curve fall.
    b.act("const a = document.getElementById('algo'); a.value = 'cfr+'; a.dispatchEvent(new Event('input')); const it = document.getElementById('iterations'); it.value = '2000'; it.dispatchEvent(new Event('input'))");
    assert_eq!(
        b.eval("document.getElementById('cli-command').textContent"),
        "bluff solve kuhn --algo cfr+ --iterations 2000"
    );
    b.eval("document.getElementById('solve-btn').click()");
    b.wait(
        "document.querySelector('#jobs li[data-id=\"1\"][data-state=\"done\"]')",
        minute,
    );
    b.wait(
        "Number(document.getElementById('chart').dataset.points) > 5",
        minute,
    );
    assert!(b.eval("!!document.getElementById('curve-path')") == json!(true));
    let curve = b.eval("state.jobs.get(1).curve.map(p => p[1])");
    let curve: Vec<f64> = curve
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        curve.len() > 5 && curve.last().unwrap() < &(curve[0] / 100.0),
        "{curve:?}"
    );
    b.screenshot(&shots.join("serve-cfr.png"));
    let cli = common::cli::solve_json(&["kuhn", "--algo", "cfr+", "--iterations", "2000"]);
    let page: f64 = b
        .eval("state.jobs.get(1).exploitability")
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        page,
        cli["exploitability"].as_f64().unwrap(),
        "the page's CFR+ equals the CLI's"
    );

    // Solve with the exact LP: the CLI's value, -1/18, exactly.
    b.act("const a = document.getElementById('algo'); a.value = 'lp'; a.dispatchEvent(new Event('input')); document.getElementById('solve-btn').click()");
    b.wait(
        "document.querySelector('#jobs li[data-id=\"2\"][data-state=\"done\"]')",
        minute,
    );
    let figures = b.eval("document.querySelector('#jobs li[data-id=\"2\"] .figures').textContent");
    let lp = common::cli::solve_json(&["kuhn", "--algo", "lp"]);
    let want = lp["value_p1"]["exact"]
        .as_str()
        .or(lp["value_p1"].as_str())
        .unwrap_or("-1/18")
        .to_string();
    assert_eq!(want, "-1/18");
    assert!(
        figures.as_str().unwrap().contains("value -1/18"),
        "{figures}"
    );

    // Explore the LP's strategy: root (chance) > J > Q reaches P1's set "J".
    b.eval(
        "document.querySelector('#jobs li[data-id=\"2\"] button[data-action=\"explore\"]').click()",
    );
    b.wait(
        "document.getElementById('node-kind')?.dataset.kind === 'chance'",
        minute,
    );
    for label in ["J", "Q"] {
        b.eval(&format!(
            "document.querySelector('#node-view .child[data-label=\"{label}\"]').click()"
        ));
        b.wait(
            &format!("document.getElementById('path-text')?.textContent.endsWith('{label}')"),
            minute,
        );
    }
    b.wait(
        "document.getElementById('node-kind')?.dataset.kind === 'decision'",
        minute,
    );
    let reach = b.eval("document.querySelector('#infoset-view .reach').textContent");
    assert_eq!(reach, "1/3");
    let gain = b.eval("document.querySelector('#infoset-view .gain').textContent");
    assert_eq!(gain, "0");
    // Each action's colour is the library's colour for its name, the same in the tree.
    let api = server.get("/api/jobs/2/node?n=4").json();
    for a in api["detail"]["actions"].as_array().unwrap() {
        let label = a["label"].as_str().unwrap();
        let css = b.eval(&format!("getComputedStyle(document.querySelector('#infoset-view tr[data-label=\"{label}\"] .swatch')).backgroundColor"));
        let hex = a["color"].as_str().unwrap();
        let rgb = |i: usize| u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap();
        assert_eq!(
            css,
            json!(format!("rgb({}, {}, {})", rgb(0), rgb(1), rgb(2))),
            "{label}"
        );
        let child = b.eval(&format!("getComputedStyle(document.querySelector('#node-view .child[data-label=\"{label}\"] .swatch')).backgroundColor"));
        assert_eq!(child, css);
    }
    // Compare with the CFR+ solve: both strategies at this set, both evaluations.
    b.act("const c = document.getElementById('compare-select'); c.value = '1'; c.dispatchEvent(new Event('change'))");
    b.wait("document.getElementById('compare-table') && document.querySelectorAll('#infoset-view .infoset').length === 2", minute);
    let table = b.eval("document.getElementById('compare-table').textContent");
    assert!(
        table.as_str().unwrap().contains("cfr+") && table.as_str().unwrap().contains("-1/18"),
        "{table}"
    );
    // Head to head: the page shows the server's values (the server's are checked against
    // `bluff eval --against` in tests/serve.rs).
    let shown = b.eval(
        "[...document.querySelectorAll('#head-to-head td')].map(td => parseFloat(td.textContent))",
    );
    let api = b.eval("fetch('/api/compare?a=2&b=1').then(r => r.json()).then(c => [c.head_to_head.a_first.float, c.head_to_head.a_second.float])");
    for i in 0..2 {
        let (x, y) = (shown[i].as_f64().unwrap(), api[i].as_f64().unwrap());
        assert!(
            (x - y).abs() < 1e-6,
            "head to head {i}: page {x}, server {y}"
        );
    }
    b.screenshot(&shots.join("serve-explore.png"));
    // Exports: the strategy, the curve, the report, fetched with the page's cookie.
    let exports = b.eval("Promise.all([...document.querySelectorAll('#exports a')].map(a => fetch(a.href).then(r => r.status + ' ' + a.dataset.export)))");
    assert_eq!(
        exports,
        json!(["200 strategy.json", "200 curve.csv", "200 report.html"])
    );
    let strategy = b.eval("fetch('/api/jobs/2/strategy.json').then(r => r.json())");
    assert_eq!(
        strategy["strategy"]["P1"]["J"]["Bet"],
        lp_strategy_bet(&dir.path().join("lp.json"))
    );

    // A reload loses nothing: the queue comes back from the server.
    b.call("Page.reload", json!({}));
    b.wait("document.getElementById('js-status')?.textContent === 'ready' && document.querySelectorAll('#jobs li').length === 2", minute);
    assert_eq!(
        b.eval("document.querySelector('#jobs li[data-id=\"1\"]').dataset.state"),
        "done"
    );
    b.eval("window.alert = () => { window.__alerted = true; }");

    // A game whose labels are HTML: shown as text, never run.
    b.act("document.querySelector('#source-tabs button[data-source=\"file\"]').click(); const f = document.getElementById('file-select'); f.value = 'hostile.efg'; f.dispatchEvent(new Event('change')); const a = document.getElementById('algo'); a.value = 'lp'; a.dispatchEvent(new Event('input')); document.getElementById('solve-btn').click()");
    b.wait(
        "document.querySelector('#jobs li[data-id=\"3\"][data-state=\"done\"]')",
        minute,
    );
    b.eval(
        "document.querySelector('#jobs li[data-id=\"3\"] button[data-action=\"explore\"]').click()",
    );
    b.wait("document.getElementById('explore-which').textContent === 'Solve #3' && document.getElementById('infoset-view').textContent.includes('<img')", minute);
    let shown = b.eval("document.getElementById('infoset-view').textContent");
    assert!(shown.as_str().unwrap().contains(HOSTILE), "{shown}");
    assert_eq!(b.eval("document.querySelectorAll('img').length"), 0);
    assert_eq!(b.eval("window.__alerted === undefined"), true);
    b.screenshot(&shots.join("serve-hostile.png"));

    // No script error, no exception, no blocked resource.
    assert_eq!(
        b.eval("document.getElementById('js-errors').textContent"),
        ""
    );
    let problems: Vec<&Value> = b
        .events
        .iter()
        .filter(|e| {
            e["method"] == "Runtime.exceptionThrown"
                || (e["method"] == "Log.entryAdded"
                    && e["params"]["entry"]["level"] == "error"
                    && !e["params"]["entry"]["url"]
                        .as_str()
                        .unwrap_or("")
                        .ends_with("/favicon.ico"))
        })
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
}

/// Player 1's probability of betting with a Jack in `bluff solve kuhn --algo lp`'s strategy.
fn lp_strategy_bet(out: &Path) -> Value {
    let status = Command::new(env!("CARGO_BIN_EXE_bluff"))
        .args(["solve", "kuhn", "--algo", "lp", "-o"])
        .arg(out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let v: Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    v["strategy"]["P1"]["J"]["Bet"].clone()
}
