//! A `bluff serve` child and a raw HTTP/1.1 client over loopback for the server's tests.

use super::cli::{stop_signals, StopSignals};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server.
pub struct Server {
    /// The child process.
    pub child: Child,
    /// The address it printed.
    pub url: String,
    /// Its port.
    pub port: u16,
    /// Its token.
    pub token: String,
}

/// A response: status, headers (names lower case), body.
#[derive(Debug)]
pub struct Reply {
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{e}: status {} body {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Server {
    /// Starts `bluff serve --dir DIR EXTRA...` with the default stop-signal actions and reads
    /// the one line it prints.
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bluff"));
        cmd.arg("serve")
            .arg("--dir")
            .arg(dir)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        stop_signals(&mut cmd, StopSignals::Default);
        let mut child = cmd.spawn().expect("starting bluff serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("printed {url:?}"));
        let (port, token) = rest.split_once("/?token=").expect("a token");
        Server {
            port: port.parse().unwrap(),
            token: token.to_string(),
            url: url.clone(),
            child,
        }
    }

    /// The Host header's value.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `raw` and reads the whole response (the server closes every connection).
    pub fn raw(&self, raw: &[u8]) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        // The server may answer and close before taking the whole request.
        let _ = s.write_all(raw);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        parse(&out)
    }

    /// A request with the token header, the right Host and (for a body) JSON.
    pub fn call(&self, method: &str, path: &str, body: Option<&serde_json::Value>) -> Reply {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let ct = if method == "POST" {
            "Content-Type: application/json\r\n"
        } else {
            ""
        };
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nX-Bluff-Token: {}\r\n{ct}Content-Length: {}\r\n\r\n{body}",
            self.host(),
            self.token,
            body.len()
        );
        self.raw(req.as_bytes())
    }

    /// `GET` with the token.
    pub fn get(&self, path: &str) -> Reply {
        self.call("GET", path, None)
    }

    /// `POST` of JSON with the token.
    pub fn post(&self, path: &str, body: serde_json::Value) -> Reply {
        self.call("POST", path, Some(&body))
    }

    /// Waits until job `id` satisfies `done` (up to `limit`); returns its summary.
    pub fn wait_job(
        &self,
        id: u64,
        limit: Duration,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let start = Instant::now();
        loop {
            let j = self.get(&format!("/api/jobs/{id}")).json();
            if done(&j) {
                return j;
            }
            assert!(start.elapsed() < limit, "job {id} did not get there: {j}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends `signal` and waits for the exit status (at most `limit`).
    pub fn stop(mut self, signal: i32, limit: Duration) -> (std::process::ExitStatus, Duration) {
        let start = Instant::now();
        // SAFETY: kill() on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, start.elapsed());
            }
            assert!(
                start.elapsed() < limit,
                "the server did not stop in {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses a whole response.
pub fn parse(out: &[u8]) -> Reply {
    let end = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(out)));
    let head = String::from_utf8_lossy(&out[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: out[end + 4..].to_vec(),
    }
}
