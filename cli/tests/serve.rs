//! `bluff serve` over loopback: each security rule (token, Host, Origin, method and content
//! type, sizes, paths), solves through the queue equal to the command line's, many concurrent
//! requests while a solve runs, an event stream whose client leaves, and a killed server
//! restarted over its folder.

mod common;

use common::cli::solve_json;
use common::serve::Server;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const MINUTE: Duration = Duration::from_secs(60);

fn get_with(s: &Server, path: &str, headers: &str) -> common::serve::Reply {
    s.raw(format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n", s.host()).as_bytes())
}

#[test]
fn the_page_sets_a_cookie_and_everything_else_needs_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &[]);
    assert!(s.token.len() >= 32, "a token of at least 128 bits");
    let path = format!("/?token={}", s.token);
    let page = get_with(&s, &path, "");
    assert_eq!(page.status, 200, "the page, no redirect");
    assert!(page.text().contains("<title>bluff serve</title>"));
    let cookie = page.header("set-cookie").unwrap();
    let name = format!("bluff_token_{}={}", s.port, s.token);
    assert!(cookie.starts_with(&name), "{cookie}");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert_eq!(
        page.header("content-security-policy"),
        Some("default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'")
    );
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    // The page removes the token from the address bar.
    let script = get_with(&s, "/app.js", &format!("Cookie: {name}\r\n"));
    assert_eq!(script.status, 200);
    assert!(script
        .text()
        .contains("history.replaceState(null, \"\", \"/\")"));
    // Without the token, with a wrong one of the same length, or the token in a query of
    // another path: refused, static assets included.
    let wrong: String = s
        .token
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    for (p, h) in [
        ("/", String::new()),
        ("/app.js", String::new()),
        ("/app.css", String::new()),
        ("/api/jobs", String::new()),
        (&format!("/?token={wrong}")[..], String::new()),
        ("/api/jobs", format!("X-Bluff-Token: {wrong}\r\n")),
        (
            "/api/jobs",
            format!("Cookie: bluff_token_{}={wrong}\r\n", s.port),
        ),
        (
            "/api/jobs",
            format!("Cookie: bluff_token_1={}\r\n", s.token),
        ),
        (&format!("/api/jobs?token={}", s.token)[..], String::new()),
    ] {
        let r = get_with(&s, p, &h);
        assert_eq!(r.status, 403, "{p} {h}");
    }
    for h in [
        format!("Cookie: a=b; {name}\r\n"),
        format!("X-Bluff-Token: {}\r\n", s.token),
    ] {
        assert_eq!(get_with(&s, "/api/jobs", &h).status, 200, "{h}");
    }
    // No CORS headers, ever.
    let r = get_with(
        &s,
        "/api/info",
        &format!(
            "Origin: http://{}\r\n{}",
            s.host(),
            format_args!("X-Bluff-Token: {}\r\n", s.token)
        ),
    );
    assert_eq!(r.status, 200);
    assert!(r
        .headers
        .iter()
        .all(|(n, _)| !n.starts_with("access-control")));
}

#[test]
fn host_origin_method_content_type_and_sizes_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &[]);
    let t = format!("X-Bluff-Token: {}\r\n", s.token);
    let with_host = |host: &str, extra: &str| {
        s.raw(format!("GET /api/jobs HTTP/1.1\r\nHost: {host}\r\n{t}{extra}\r\n").as_bytes())
    };
    for ok in [
        format!("127.0.0.1:{}", s.port),
        format!("localhost:{}", s.port),
        format!("[::1]:{}", s.port),
    ] {
        assert_eq!(with_host(&ok, "").status, 200, "{ok}");
    }
    for bad in [
        "evil.example".to_string(),
        format!("evil.example:{}", s.port),
        format!("127.0.0.1:{}", s.port as u32 + 1),
        "127.0.0.1".to_string(),
    ] {
        assert_eq!(with_host(&bad, "").status, 421, "{bad}");
    }
    let none = s.raw(format!("GET /api/jobs HTTP/1.1\r\n{t}\r\n").as_bytes());
    assert_eq!(none.status, 421);
    // A foreign Origin: on reads, on the event stream's handshake, on state changes.
    let foreign = "Origin: http://evil.example\r\n";
    assert_eq!(with_host(&s.host(), foreign).status, 403);
    let events = s.raw(
        format!(
            "GET /api/events HTTP/1.1\r\nHost: {}\r\n{t}{foreign}\r\n",
            s.host()
        )
        .as_bytes(),
    );
    assert_eq!(events.status, 403);
    let body = r#"{"game":"kuhn","algo":"lp"}"#;
    let post = |headers: &str| {
        s.raw(
            format!(
                "POST /api/jobs HTTP/1.1\r\nHost: {}\r\n{t}{headers}Content-Length: {}\r\n\r\n{body}",
                s.host(),
                body.len()
            )
            .as_bytes(),
        )
    };
    assert_eq!(
        post(&format!("{foreign}Content-Type: application/json\r\n")).status,
        403
    );
    assert_eq!(
        post("Origin: https://127.0.0.1\r\nContent-Type: application/json\r\n").status,
        403
    );
    // State changes only by POST of JSON.
    assert_eq!(post("Content-Type: text/plain\r\n").status, 415);
    assert_eq!(
        post("Content-Type: application/x-www-form-urlencoded\r\n").status,
        415
    );
    assert_eq!(post("").status, 415);
    let put = s.raw(format!("PUT /api/jobs HTTP/1.1\r\nHost: {}\r\n{t}\r\n", s.host()).as_bytes());
    assert_eq!(put.status, 405);
    let own = format!(
        "Origin: http://localhost:{}\r\nContent-Type: application/json\r\n",
        s.port
    );
    assert_eq!(post(&own).status, 201);
    // A 1 GB body is refused from its header, before a byte of it is read (with and without
    // the token); so is a JSON body over 1 MiB and a huge head.
    let huge = |token: &str| {
        s.raw(
            format!(
                "POST /api/jobs HTTP/1.1\r\nHost: {}\r\n{token}Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{{",
                s.host()
            )
            .as_bytes(),
        )
    };
    assert_eq!(huge(&t).status, 413);
    assert_eq!(huge("").status, 403);
    let big = format!("{{\"game\":\"{}\"}}", "k".repeat((1 << 20) + 10));
    assert_eq!(
        s.post("/api/jobs", serde_json::from_str(&big).unwrap())
            .status,
        413
    );
    let head = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nX: {}\r\n\r\n",
        s.host(),
        "a".repeat(20_000)
    );
    assert_eq!(s.raw(head.as_bytes()).status, 431);
    assert_eq!(s.raw(b"GARBAGE\r\n\r\n").status, 400);
    // A slow client is cut off (the server's timeout), and the server keeps serving.
    let mut slow = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    slow.write_all(b"GET /api/jobs HTTP/1.1\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut out = Vec::new();
    let _ = slow.read_to_end(&mut out);
    assert!(
        String::from_utf8_lossy(&out).starts_with("HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&out)
    );
    assert_eq!(s.get("/api/jobs").status, 200);
}

#[test]
fn paths_are_confined_to_the_folder_and_uploads_never_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("x.efg"),
        "EFG 2 R \"x\" { \"1\" \"2\" }\nt \"\" 1 \"\" { 1, -1 }\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.efg"), dir.path().join("link.efg")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
    let s = Server::start(dir.path(), &[]);
    let abs = outside.path().join("x.efg").display().to_string();
    for game in [
        abs.as_str(),
        "../x.efg",
        "link.efg",
        "sub/x.efg",
        "a\u{0}.efg",
    ] {
        let r = s.post("/api/inspect", json!({ "game": game }));
        assert_eq!(r.status, 400, "{game}: {}", r.text());
        let e = r.json()["error"].as_str().unwrap().to_string();
        assert!(
            e.contains("relative to the served folder") || e.contains("leads outside"),
            "{game}: {e}"
        );
        let j = s.post("/api/jobs", json!({ "game": game, "algo": "lp" }));
        assert_eq!(j.status, 400, "{game}");
    }
    // The listing skips links that leave the folder.
    let info = s.get("/api/info").json();
    assert_eq!(info["files"], json!([]));
    // Uploads: read by the command line's readers, saved once, never over a file.
    let kuhn_efg = std::process::Command::new(env!("CARGO_BIN_EXE_bluff"))
        .args(["export", "kuhn", "-o", "-"])
        .output()
        .unwrap();
    let text = String::from_utf8(kuhn_efg.stdout).unwrap();
    let up = s.post("/api/upload", json!({"name": "k.efg", "text": text}));
    assert_eq!(up.status, 201, "{}", up.text());
    assert_eq!(up.json()["game"], "uploads/k.efg");
    let again = s.post(
        "/api/upload",
        json!({"name": "k.efg", "text": "EFG 2 R \"other\""}),
    );
    assert_eq!(again.status, 400);
    let again = s.post("/api/upload", json!({"name": "k.efg", "text": text}));
    assert!(again.json()["error"]
        .as_str()
        .unwrap()
        .contains("exists already"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("uploads/k.efg")).unwrap(),
        text
    );
    for name in ["../k2.efg", "/tmp/k2.efg", ".k.efg", "k.txt", "a/b.efg"] {
        let r = s.post("/api/upload", json!({"name": name, "text": text}));
        assert_eq!(r.status, 400, "{name}");
    }
    let bad = s.post("/api/upload", json!({"name": "bad.efg", "text": "EFG 2 R \"g\" { \"1\" \"2\" }\np \"\" 1 1 \"s\" { \"a\" } 0\n"}));
    assert_eq!(bad.status, 400);
    assert!(!dir.path().join("uploads/bad.efg").exists());
    let names: Vec<_> = std::fs::read_dir(dir.path().join("uploads"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("k.efg")],
        "no temporary file left"
    );
    // The uploaded game inspects like the built-in one.
    let a = s
        .post("/api/inspect", json!({"game": "uploads/k.efg"}))
        .json();
    let b = s.post("/api/inspect", json!({"game": "kuhn"})).json();
    assert_eq!(a["nodes"], b["nodes"]);
    assert_eq!(a["infosets"], b["infosets"]);
}

#[test]
fn solves_equal_the_command_line_and_many_requests_are_served_while_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &["--jobs", "1"]);
    // The exact LP: Kuhn's value -1/18, exploitability exactly 0.
    let lp = s.post("/api/jobs", json!({"game": "kuhn", "algo": "lp"}));
    assert_eq!(lp.status, 201);
    let lp = s.wait_job(1, MINUTE, |j| j["state"] == "done");
    assert_eq!(lp["value"], "-1/18");
    assert_eq!(lp["exploitability"], "0");
    // CFR+ for 300 iterations: the same exploitability as `bluff solve`.
    let cli = solve_json(&["kuhn", "--algo", "cfr+", "--iterations", "300"]);
    s.post(
        "/api/jobs",
        json!({"game": "kuhn", "algo": "cfr+", "iterations": 300}),
    );
    let job = s.wait_job(2, MINUTE, |j| j["state"] == "done");
    let ours: f64 = job["exploitability"].as_str().unwrap().parse().unwrap();
    assert_eq!(ours, cli["exploitability"].as_f64().unwrap());
    assert_eq!(job["iterations"], 300);
    assert!(job["command"]
        .as_str()
        .unwrap()
        .starts_with("bluff solve kuhn --algo cfr+ --iterations 300"));
    // The strategy export is what `bluff eval` reads, with the same exploitability.
    let strategy = s.get("/api/jobs/2/strategy.json");
    assert_eq!(strategy.status, 200);
    let file = dir.path().join("s.json");
    std::fs::write(&file, &strategy.body).unwrap();
    let eval = common::cli::json_of(common::cli::bluff().args(["eval", "kuhn"]).arg(&file));
    assert!((eval["exploitability"]["float"].as_f64().unwrap() - ours).abs() < 1e-12);
    let curve = s.get("/api/jobs/2/curve.csv").text();
    assert!(curve.starts_with("iteration,exploitability,seconds\n"));
    assert_eq!(
        curve.lines().count(),
        job["curve"].as_array().unwrap().len() + 1
    );
    let report = s.get("/api/jobs/2/report.html");
    assert_eq!(report.status, 200);
    assert!(report.text().contains("id=\"fig-convergence\""));
    // Explore: the root's first decision, with colours by name and the best response's gain.
    let n = s.get("/api/jobs/1/node?n=4").json();
    assert_eq!(n["kind"], "decision");
    assert_eq!(n["detail"]["reach"]["exact"], "1/3");
    assert_eq!(n["detail"]["gain"]["exact"], "0");
    let cmp = s.get("/api/compare?a=1&b=2").json();
    assert_eq!(cmp["a"]["evaluation"]["exploitability"]["exact"], "0");
    // Head to head, confirmed by `bluff eval --against` on the two exported strategies.
    let lp_file = dir.path().join("lp.json");
    std::fs::write(&lp_file, &s.get("/api/jobs/1/strategy.json").body).unwrap();
    let against = common::cli::json_of(
        common::cli::bluff()
            .args(["eval", "kuhn"])
            .arg(&lp_file)
            .arg("--against")
            .arg(&file),
    );
    for key in ["a_first", "a_second"] {
        let ours = cmp["head_to_head"][key]["float"].as_f64().unwrap();
        let cli = against[format!("value_{key}")]["float"].as_f64().unwrap();
        assert!((ours - cli).abs() < 1e-12, "{key}: {ours} against {cli}");
    }
    // The LP's strategy is an equilibrium: against anything it gets at least the game value.
    assert!(cmp["head_to_head"]["a_first"]["float"].as_f64().unwrap() >= -1.0 / 18.0 - 1e-12);
    assert!(cmp["head_to_head"]["a_second"]["float"].as_f64().unwrap() >= 1.0 / 18.0 - 1e-12);
    // A long solve, and 200 concurrent status requests while it runs.
    s.post(
        "/api/jobs",
        json!({"game": "leduc", "algo": "cfr+", "iterations": 100_000_000}),
    );
    s.wait_job(3, MINUTE, |j| {
        j["state"] == "running" && j["iterations"].as_u64() > Some(0)
    });
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..200)
            .map(|_| scope.spawn(|| s.get("/api/jobs/3").status))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|&c| c == 200), "{statuses:?}");
    // Stop it: its strategy so far is kept and can be explored.
    assert_eq!(s.post("/api/jobs/3/stop", json!({})).status, 200);
    let stopped = s.wait_job(3, MINUTE, |j| j["state"] == "stopped");
    assert!(stopped["explorable"].as_bool().unwrap());
    assert_eq!(s.get("/api/jobs/3/node?n=0").status, 200);
}

/// Reads the event stream until `want` appears in it (or the time is up).
fn read_events_until(stream: &mut TcpStream, want: &str, limit: Duration) -> String {
    let start = std::time::Instant::now();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    while start.elapsed() < limit {
        if let Ok(n) = stream.read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&seen).contains(want) {
                break;
            }
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

#[test]
fn a_killed_server_resumes_its_solves_and_refuses_a_truncated_checkpoint_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &["--jobs", "2"]);
    // An event stream whose client leaves mid-stream, and one that stays.
    let open = |s: &Server| {
        let mut e = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        write!(
            e,
            "GET /api/events HTTP/1.1\r\nHost: {}\r\nX-Bluff-Token: {}\r\n\r\n",
            s.host(),
            s.token
        )
        .unwrap();
        e
    };
    let mut leaving = open(&s);
    let mut staying = open(&s);
    assert!(
        read_events_until(&mut leaving, "text/event-stream", MINUTE).contains("text/event-stream")
    );
    drop(leaving);
    for _ in 0..2 {
        let r = s.post(
            "/api/jobs",
            json!({"game": "leduc", "algo": "cfr+", "iterations": 100_000_000}),
        );
        assert_eq!(r.status, 201);
    }
    let seen = read_events_until(&mut staying, "\"type\":\"point\"", MINUTE);
    assert!(seen.contains("\"type\":\"point\""), "{seen}");
    // Both run and checkpoint (every 2 s of solving).
    let ckpt = |id: u32| dir.path().join(format!(".bluff-serve/jobs/{id}.ckpt"));
    for id in [1, 2] {
        s.wait_job(id, MINUTE, |j| j["state"] == "running");
    }
    let start = std::time::Instant::now();
    while !(ckpt(1).exists() && ckpt(2).exists()) {
        assert!(start.elapsed() < MINUTE, "no checkpoints");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, _) = s.stop(libc::SIGKILL, MINUTE);
    assert!(!status.success());
    let record = |id: u32| -> serde_json::Value {
        let path = dir.path().join(format!(".bluff-serve/jobs/{id}.json"));
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    let points_before = record(2)["curve"].as_array().unwrap().len();
    // Job 1's checkpoint is cut short; job 2's is whole.
    let bytes = std::fs::read(ckpt(1)).unwrap();
    std::fs::write(ckpt(1), &bytes[..bytes.len() / 2]).unwrap();
    let s = Server::start(dir.path(), &["--jobs", "2"]);
    let failed = s.wait_job(1, MINUTE, |j| j["state"] == "failed");
    let error = failed["error"].as_str().unwrap();
    assert!(error.starts_with("job 1 (leduc): checkpoint"), "{error}");
    assert!(error.contains("1.ckpt"), "{error}");
    // Job 2 continues from its checkpoint: its curve grows with iterations after the saved
    // ones (a fresh start would measure iteration 1 again).
    let resumed = s.wait_job(2, MINUTE, |j| {
        j["state"] == "running" && j["curve"].as_array().unwrap().len() > points_before + 1
    });
    let iterations: Vec<u64> = resumed["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_u64().unwrap())
        .collect();
    assert!(iterations.windows(2).all(|w| w[0] < w[1]), "{iterations:?}");
    // SIGTERM: stops within 5 s with exit 0, the running solve checkpointed and queued for the
    // next start.
    let (status, took) = s.stop(libc::SIGTERM, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let record = record(2);
    assert_eq!(record["state"], "queued");
    // And SIGINT the same way, after the next start resumed job 2 from where it stopped.
    let s = Server::start(dir.path(), &["--jobs", "2"]);
    let again = s.wait_job(2, MINUTE, |j| j["state"] == "running");
    assert!(again["iterations"].as_u64().unwrap() >= record["iterations"].as_u64().unwrap());
    let (status, took) = s.stop(libc::SIGINT, Duration::from_secs(10));
    assert!(
        status.success() && took < Duration::from_secs(5),
        "{status:?} {took:?}"
    );
}

/// Random and mutated request bodies to every state-changing route, and random bytes as whole
/// requests: every one gets an answer (never a dropped connection from a panicking thread, never
/// a 5xx), and the server keeps serving.
#[test]
fn random_request_bodies_never_break_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &["--jobs", "1"]);
    // xorshift64*: reproducible.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let seeds = [
        r#"{"game":"kuhn","algo":"lp"}"#,
        r#"{"game":"kuhn","algo":"cfr+","iterations":10}"#,
        r#"{"game":"leduc","algo":"dcfr","target":0.5,"check_every":3}"#,
        r#"{"name":"a.efg","text":"EFG 2 R \"g\" { \"1\" \"2\" }\nt \"\" 1 \"\" { 1, -1 }\n"}"#,
        r#"{"game":"x.nfg"}"#,
    ];
    let routes = [
        "/api/jobs",
        "/api/inspect",
        "/api/upload",
        "/api/jobs/1/pause",
        "/api/jobs/1/stop",
        "/api/jobs/99999999999999999999/resume",
    ];
    for round in 0..300 {
        let seed = seeds[next() as usize % seeds.len()].as_bytes();
        let mut body = seed.to_vec();
        for _ in 0..(next() % 6) {
            let at = next() as usize % (body.len() + 1);
            match next() % 4 {
                0 if at < body.len() => body[at] = next() as u8,
                1 if at < body.len() => {
                    body.remove(at);
                }
                2 => body.insert(at, b"{}[]\",:0-e9.\\u\xff"[next() as usize % 15]),
                _ => body.truncate(at),
            }
        }
        let route = routes[next() as usize % routes.len()];
        let head = format!(
            "POST {route} HTTP/1.1\r\nHost: {}\r\nX-Bluff-Token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            s.host(),
            s.token,
            body.len()
        );
        let mut raw = head.into_bytes();
        raw.extend_from_slice(&body);
        let r = s.raw(&raw);
        assert!(
            r.status < 500,
            "round {round}: {route} {:?} -> {}",
            String::from_utf8_lossy(&body),
            r.status
        );
        // Whole requests of random bytes after a valid start.
        let mut junk = b"GET /api/".to_vec();
        junk.extend((0..next() % 200).map(|_| next() as u8));
        junk.extend_from_slice(b"\r\n\r\n");
        let r = s.raw(&junk);
        assert!(
            (400..500).contains(&r.status) || r.status == 505,
            "{junk:?} -> {}",
            r.status
        );
    }
    assert_eq!(s.get("/api/jobs").status, 200);
}

/// Pause saves the checkpoint and the strategy so far; resume continues the same run (its curve
/// goes on from the checkpoint's iteration); the exact LP cannot pause; a queued solve can be
/// cancelled; `--max-memory` refuses a solve whose estimate exceeds it.
#[test]
fn pause_resume_cancel_and_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path(), &["--jobs", "1"]);
    s.post(
        "/api/jobs",
        json!({"game": "leduc", "algo": "cfr+", "iterations": 100_000_000}),
    );
    s.post("/api/jobs", json!({"game": "kuhn", "algo": "lp"}));
    s.wait_job(1, MINUTE, |j| {
        j["state"] == "running" && j["curve"].as_array().unwrap().len() > 3
    });
    // Job 2 waits behind job 1 (one solve at a time).
    assert_eq!(s.get("/api/jobs/2").json()["state"], "queued");
    assert_eq!(s.post("/api/jobs/1/pause", json!({})).status, 200);
    let paused = s.wait_job(1, MINUTE, |j| j["state"] == "paused");
    assert!(paused["explorable"].as_bool().unwrap());
    assert!(dir.path().join(".bluff-serve/jobs/1.ckpt").exists());
    let at_pause = paused["iterations"].as_u64().unwrap();
    // Job 2 ran meanwhile.
    s.wait_job(2, MINUTE, |j| j["state"] == "done");
    // A finished solve cannot pause.
    assert_eq!(s.post("/api/jobs/2/pause", json!({})).status, 400);
    assert_eq!(s.post("/api/jobs/1/resume", json!({})).status, 200);
    let resumed = s.wait_job(1, MINUTE, |j| {
        j["state"] == "running" && j["iterations"].as_u64().unwrap() > at_pause
    });
    let iterations: Vec<u64> = resumed["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_u64().unwrap())
        .collect();
    assert!(iterations.windows(2).all(|w| w[0] < w[1]), "{iterations:?}");
    // A game too big to build here is inspected from its rules, and only the sampling
    // solvers may take it.
    let big = "liars-dice(dice=2,sides=6)";
    let inspected = s.post("/api/inspect", json!({ "game": big })).json();
    assert_eq!(inspected["built"], false);
    assert_eq!(inspected["suggested"], "es-mccfr");
    let refused = s.post(
        "/api/jobs",
        json!({"game": big, "algo": "cfr+", "iterations": 10}),
    );
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("too many to build here"));
    // A queued solve is cancelled without running.
    s.post(
        "/api/jobs",
        json!({"game": "kuhn", "algo": "cfr", "iterations": 10}),
    );
    assert_eq!(s.post("/api/jobs/3/cancel", json!({})).status, 200);
    assert_eq!(s.get("/api/jobs/3").json()["state"], "cancelled");
    assert_eq!(s.post("/api/jobs/3/resume", json!({})).status, 400);
    assert_eq!(s.post("/api/jobs/1/stop", json!({})).status, 200);
    s.wait_job(1, MINUTE, |j| j["state"] == "stopped");
    drop(s);

    let small = Server::start(dir.path(), &["--max-memory", "1K"]);
    let r = small.post(
        "/api/jobs",
        json!({"game": "kuhn", "algo": "cfr", "iterations": 10}),
    );
    assert_eq!(r.status, 400);
    let e = r.json()["error"].as_str().unwrap().to_string();
    assert!(e.contains("more than --max-memory"), "{e}");
}

/// Starts `bluff serve` as `cmd` says (no stdin, default stop signals) and reads the line it
/// prints once listening; the child's stderr stays piped.
fn spawn_until_listening(mut cmd: std::process::Command) -> (std::process::Child, String) {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    common::cli::stop_signals(&mut cmd, common::cli::StopSignals::Default);
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    (child, line)
}

/// Off loopback the server warns that traffic is unencrypted and that the token holder
/// controls the folder; the loopback names still work.
#[test]
fn host_off_loopback_warns() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bluff"));
    cmd.args(["serve", "--host", "0.0.0.0", "--dir"])
        .arg(dir.path());
    let (child, line) = spawn_until_listening(cmd);
    assert!(line.starts_with("http://0.0.0.0:"), "{line}");
    // SAFETY: kill() on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not loopback: traffic is unencrypted")
            && err.contains("whoever holds the token controls solves and files"),
        "{err}"
    );
}

/// `--open` hands the printed address to the desktop's opener (`xdg-open`, here a stand-in on
/// `PATH` that writes its argument to a file).
#[cfg(target_os = "linux")]
#[test]
fn open_hands_the_address_to_the_opener() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let seen = dir.path().join("opened.txt");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", seen.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bluff"));
    cmd.args(["serve", "--open", "--dir"])
        .arg(&games)
        .env("PATH", path);
    let (mut child, line) = spawn_until_listening(cmd);
    let deadline = std::time::Instant::now() + MINUTE;
    let opened = loop {
        match std::fs::read_to_string(&seen) {
            Ok(s) if !s.is_empty() => break s,
            _ if std::time::Instant::now() > deadline => panic!("the opener never ran"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    assert_eq!(opened, line.trim_end());
    // SAFETY: kill() on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    assert!(child.wait().unwrap().success());
}
