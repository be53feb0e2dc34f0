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

use common::chromium;
use common::serve::Server;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A headless Chromium with one page, spoken to over the DevTools pipe.
struct Browser {
    child: Child,
    to: std::fs::File,
    from: BufReader<std::fs::File>,
    next: u64,
    session: String,
    /// Events received (console messages, exceptions, log entries).
    events: Vec<Value>,
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both were just opened and are owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    fn launch(chrome: &Path, profile: &Path) -> Browser {
        use std::os::fd::AsRawFd;
        use std::os::unix::process::CommandExt;
        let (chrome_reads, we_write) = pipe();
        let (we_read, chrome_writes) = pipe();
        let (r, w) = (chrome_reads.as_raw_fd(), chrome_writes.as_raw_fd());
        let mut cmd = Command::new(chrome);
        cmd.args(common::HEADLESS)
            .args(["--remote-debugging-pipe", "--window-size=1500,1100"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: dup2 is async-signal-safe; the duplicates (fds 3 and 4, as the protocol
        // wants) are not close-on-exec.
        unsafe {
            cmd.pre_exec(move || {
                // Moved above 4 first, so that neither dup2 closes the other's source.
                let (r, w) = (
                    libc::fcntl(r, libc::F_DUPFD, 10),
                    libc::fcntl(w, libc::F_DUPFD, 10),
                );
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("starting chromium");
        drop((chrome_reads, chrome_writes));
        let mut b = Browser {
            child,
            to: std::fs::File::from(we_write),
            from: BufReader::new(std::fs::File::from(we_read)),
            next: 0,
            session: String::new(),
            events: Vec::new(),
        };
        let target = b.send(None, "Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().unwrap().to_string();
        let attached = b.send(
            None,
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).unwrap();
        loop {
            let mut buf = Vec::new();
            let n = self.from.read_until(0, &mut buf).unwrap();
            assert!(n > 0, "chromium closed the pipe");
            buf.pop();
            let v: Value = serde_json::from_slice(&buf).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.send(Some(&s), method, params)
    }

    /// Evaluates `expr` in the page (promises awaited) and returns its value.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }

    /// Runs statements in the page (in a function of their own, so their names stay local).
    fn act(&mut self, statements: &str) {
        self.eval(&format!("(() => {{ {statements} }})()"));
    }

    /// Waits until `expr` is true in the page.
    fn wait(&mut self, expr: &str, limit: Duration) {
        let start = Instant::now();
        while self.eval(&format!("Boolean({expr})")) != json!(true) {
            assert!(start.elapsed() < limit, "waited {limit:?} for {expr}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64(shot["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"));
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &d) in chunk.iter().enumerate() {
            n |= u32::from(d) << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

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
