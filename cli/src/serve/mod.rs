//! `bluff serve`: a local web application to set up, solve and explore a game in the browser.
//!
//! The server is a small HTTP/1.1 server written here on `std::net`, one thread per connection
//! ([`http`]), rather than a crate (hyper, axum, tiny_http, rouille). Why: what it must do is
//! small and mostly about refusing (loopback only, a token, `Host`/`Origin` checks, size limits,
//! timeouts, no chunked bodies, one response per connection), and every one of those rules is
//! easier to state and test in 400 lines read top to bottom than as configuration of a
//! general server whose defaults (keep-alive, chunked decoding, redirects, CORS layers) would
//! each need turning off; it adds no dependency, so the cold build of CI gains no minutes, and
//! the request reader depends on the standard library alone, so the fuzz target `http_request`
//! compiles the very same file. The connection count is capped ([`MAX_CONNECTIONS`]), so a
//! thread per connection stays bounded; a solve runs on a thread of its own ([`jobs`]).
//!
//! The front end is thin: every decision of a solve is the library's (`bluff::solve::door`),
//! every figure comes from its evaluator (`bluff::report::analysis`), every colour from
//! `bluff::report::charts::action_color`; this module parses requests and presents answers.
//! The page (`page/`) is plain HTML, CSS and JavaScript embedded in the binary: no build step,
//! no package, no network.

mod api;
pub mod events;
pub mod guard;
pub mod http;
pub mod jobs;

use anyhow::{bail, Context, Result};
use clap::Args;
use http::{Refusal, Request, Response};
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Most connections served at once (more are answered 503 at once).
pub const MAX_CONNECTIONS: usize = 512;
/// Largest JSON body, bytes.
pub const MAX_JSON_BYTES: usize = 1 << 20;
/// Largest upload (a game file sent as JSON text), bytes.
pub const MAX_UPLOAD_BYTES: usize = 64 << 20;
/// A client must send its request (and take its response) within this time.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);
/// Seconds a stop signal leaves running solves to save their checkpoints.
pub const STOP_SECONDS: f64 = 4.0;

/// Arguments of `bluff serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port to listen on (0: a free port chosen by the system).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The folder the page may open game files from and keeps its solves in.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Address to listen on; off loopback, traffic is unencrypted (a warning says so).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Solves running at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Largest sum of the running solves' memory estimates (e.g. 8G; default: the LP's budget
    /// from the machine's memory).
    #[arg(long, value_name = "SIZE", value_parser = bluff::lp::memory::parse_bytes)]
    max_memory: Option<u64>,
}

/// What every connection's thread shares.
pub struct Server {
    /// The token.
    token: String,
    /// The port.
    port: u16,
    /// The names the server answers to.
    hosts: guard::Hosts,
    /// The queue of solves.
    jobs: Arc<jobs::Jobs>,
    /// The event streams.
    events: Arc<events::Events>,
    connections: AtomicUsize,
}

/// Runs the server until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> Result<()> {
    if args.jobs == 0 {
        bail!("--jobs 0: expected at least 1");
    }
    let root = args
        .dir
        .canonicalize()
        .with_context(|| format!("--dir {}", args.dir.display()))?;
    if !root.is_dir() {
        bail!("--dir {}: not a folder", args.dir.display());
    }
    let ip: IpAddr = if args.host == "localhost" {
        IpAddr::from([127, 0, 0, 1])
    } else {
        args.host
            .parse()
            .with_context(|| format!("--host {}: expected an IP address", args.host))?
    };
    let token = guard::new_token().context("reading the token from /dev/urandom")?;
    crate::signals::catch_stop_signals();
    let listener = TcpListener::bind(SocketAddr::new(ip, args.port))
        .with_context(|| format!("listening on {}:{}", args.host, args.port))?;
    let port = listener.local_addr()?.port();
    if !ip.is_loopback() {
        eprintln!(
            "warning: --host {} is not loopback: traffic is unencrypted, and whoever holds the \
             token controls solves and files in {}",
            args.host,
            root.display()
        );
    }
    let events = Arc::new(events::Events::default());
    let max_memory = args
        .max_memory
        .unwrap_or_else(bluff::lp::memory::default_budget);
    let jobs = jobs::Jobs::open(&root, args.jobs, max_memory, events.clone())?;
    let extra = (!ip.is_loopback()).then_some(args.host.as_str());
    let server = Arc::new(Server {
        token,
        port,
        hosts: guard::Hosts::new(port, extra),
        jobs,
        events,
        connections: AtomicUsize::new(0),
    });
    let shown = if ip.is_loopback() {
        "127.0.0.1".to_string()
    } else {
        args.host.clone()
    };
    let url = format!("http://{shown}:{port}/?token={}", server.token);
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{url}")?;
        out.flush()?;
    }
    if args.open {
        open_browser(&url);
    }
    listener.set_nonblocking(true)?;
    while crate::signals::stop_signal().is_none() {
        match listener.accept() {
            Ok((stream, _)) => {
                let s = server.clone();
                if s.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    s.connections.fetch_sub(1, Ordering::SeqCst);
                    let mut stream = stream;
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                    let _ = text(503, "too many connections").write_to(&mut stream);
                    continue;
                }
                std::thread::spawn(move || {
                    s.serve(stream);
                    s.connections.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    server.jobs.stop_all(Duration::from_secs_f64(STOP_SECONDS));
    eprintln!("bluff serve: stopped; running solves were checkpointed");
    Ok(())
}

/// Opens `url` in the desktop's browser (a warning if none).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("warning: --open: could not run {opener}; open the address above yourself");
    }
}

/// A plain-text response.
pub fn text(status: u16, body: &str) -> Response {
    Response::new(status, "text/plain; charset=utf-8", format!("{body}\n"))
}

/// A JSON response.
pub fn json(status: u16, value: &serde_json::Value) -> Response {
    Response::new(status, "application/json", value.to_string())
}

/// A JSON error `{"error": ...}`.
pub fn error(status: u16, message: impl Into<String>) -> Response {
    json(status, &serde_json::json!({"error": message.into()}))
}

impl Server {
    /// Whether the request carries the token (cookie, `X-Bluff-Token` header, or the page's
    /// `?token=` on `GET /`), compared in constant time.
    fn authorised(&self, r: &Request) -> bool {
        let want = self.token.as_bytes();
        let cookie = r
            .header("cookie")
            .and_then(|c| guard::cookie(c, &guard::cookie_name(self.port)));
        let header = r.header("x-bluff-token");
        let query = (r.path == "/").then(|| r.query("token")).flatten();
        let ok = [cookie, header, query.as_deref()]
            .into_iter()
            .flatten()
            .any(|t| guard::constant_time_eq(t.as_bytes(), want));
        ok
    }

    /// The checks on a request's head, before its body is read: `Host`, `Origin`, the token,
    /// the method and content type of a state change; returns the route's body limit.
    fn gate(&self, r: &Request) -> Result<usize, Refusal> {
        match r.header("host") {
            Some(h) if self.hosts.host_ok(h) => {}
            _ => {
                return Err(http::refuse(
                    421,
                    "the Host header must name this server (127.0.0.1, localhost or [::1] with its port)",
                ))
            }
        }
        if let Some(o) = r.header("origin") {
            if !self.hosts.origin_ok(o) {
                return Err(http::refuse(403, "a foreign Origin"));
            }
        }
        if !self.authorised(r) {
            return Err(http::refuse(
                403,
                "the token is missing or wrong: open the address `bluff serve` printed",
            ));
        }
        match r.method.as_str() {
            "GET" => Ok(0),
            "POST" => {
                let ct = r.header("content-type").unwrap_or("");
                let media = ct.split(';').next().unwrap_or("").trim();
                if !media.eq_ignore_ascii_case("application/json") {
                    return Err(http::refuse(
                        415,
                        "state changes are POST requests with Content-Type: application/json",
                    ));
                }
                Ok(if r.path == "/api/upload" {
                    MAX_UPLOAD_BYTES
                } else {
                    MAX_JSON_BYTES
                })
            }
            _ => Err(http::refuse(405, "only GET and POST")),
        }
    }

    fn serve(&self, mut stream: TcpStream) {
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(CLIENT_TIMEOUT));
        let _ = stream.set_write_timeout(Some(CLIENT_TIMEOUT));
        let request = match http::read_request(&mut stream, |r| self.gate(r)) {
            Ok(r) => r,
            Err(refusal) => {
                let _ = text(refusal.status, &refusal.reason).write_to(&mut stream);
                // Let the client read the answer before the rest of its request is cut off.
                let _ = stream.shutdown(std::net::Shutdown::Write);
                return;
            }
        };
        if request.method == "GET" && request.path == "/api/events" {
            let Some(rx) = self.events.subscribe() else {
                let _ = error(503, "too many event streams").write_to(&mut stream);
                return;
            };
            if stream
                .write_all(http::event_stream_head().as_bytes())
                .is_ok()
            {
                events::pump(&mut stream, rx, &self.jobs.shutdown);
            }
            return;
        }
        let response = api::route(self, &request);
        let _ = response.write_to(&mut stream);
    }
}
