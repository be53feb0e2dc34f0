//! A small HTTP/1.1 request reader and response writer on `std::io`, with hard limits: the
//! server's whole protocol layer. It depends on nothing but the standard library, so the fuzz
//! target `http_request` compiles this very file.
//!
//! What it accepts: a request line `METHOD TARGET HTTP/1.0|1.1`, at most [`MAX_HEADERS`]
//! header lines in at most [`MAX_HEAD_BYTES`] bytes, and a body of `Content-Length` bytes
//! (no chunked transfer coding: a request with `Transfer-Encoding` is refused, so no two
//! readings of one request's length can disagree). Every response closes the connection.

use std::io::{Read, Write};

/// Largest request line plus headers, bytes.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Most header lines.
pub const MAX_HEADERS: usize = 64;

/// A parsed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query string (after `?`), percent-decoded per pair by [`Request::query`].
    pub query: String,
    /// Header names in lower case, with their values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// Why a request was refused before routing: the status and a one-line reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// Why.
    pub reason: String,
}

/// A refusal with a status and a reason.
pub fn refuse(status: u16, reason: impl Into<String>) -> Refusal {
    Refusal {
        status,
        reason: reason.into(),
    }
}

impl Request {
    /// The value of a header (its first occurrence), by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of a query parameter, percent-decoded.
    pub fn query(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k)? == name)
                .then(|| percent_decode(v))
                .flatten()
        })
    }
}

/// Decodes `%XX` escapes and `+` (a space); `None` for a bad escape or invalid UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Parses the head (request line and headers, without the blank line that ends it).
pub fn parse_head(head: &[u8]) -> Result<Request, Refusal> {
    let text =
        std::str::from_utf8(head).map_err(|_| refuse(400, "the request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(400, "a malformed request line"));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(refuse(400, "a malformed method"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(refuse(505, "only HTTP/1.0 and HTTP/1.1"));
    }
    if !target.starts_with('/') || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(refuse(400, "a malformed request target"));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut headers = Vec::new();
    for l in lines {
        if headers.len() == MAX_HEADERS {
            return Err(refuse(431, format!("more than {MAX_HEADERS} headers")));
        }
        let Some((name, value)) = l.split_once(':') else {
            return Err(refuse(400, "a header line without a colon"));
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(refuse(400, "a malformed header name"));
        }
        if value.bytes().any(|b| b < b' ' && b != b'\t') {
            return Err(refuse(400, "a control character in a header"));
        }
        let name = name.to_ascii_lowercase();
        let once = ["host", "content-length", "content-type", "origin", "cookie"];
        if once.contains(&name.as_str()) && headers.iter().any(|(n, _)| *n == name) {
            return Err(refuse(400, format!("the header {name} is repeated")));
        }
        headers.push((name, value.trim().to_string()));
    }
    let request = Request {
        method: method.to_string(),
        path: percent_decode(path).ok_or_else(|| refuse(400, "a malformed path escape"))?,
        query: query.to_string(),
        headers,
        body: Vec::new(),
    };
    if request.path.contains('\0') {
        return Err(refuse(400, "a NUL in the path"));
    }
    if request.header("transfer-encoding").is_some() {
        return Err(refuse(
            501,
            "Transfer-Encoding is not supported; send Content-Length",
        ));
    }
    Ok(request)
}

/// The declared body length, checked against `limit`.
pub fn body_length(request: &Request, limit: usize) -> Result<usize, Refusal> {
    let Some(text) = request.header("content-length") else {
        return Ok(0);
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refuse(400, "a malformed Content-Length"));
    }
    match text.parse::<usize>() {
        Ok(n) if n <= limit => Ok(n),
        _ => Err(refuse(
            413,
            format!("the body is larger than this route's limit of {limit} bytes"),
        )),
    }
}

/// Reads one request from `stream`: the head (at most [`MAX_HEAD_BYTES`]), which `gate`
/// checks before any of the body is read and answers with the route's body limit, then a body
/// of at most that many bytes. A slow client is cut off by the stream's own read timeout.
pub fn read_request(
    stream: &mut impl Read,
    gate: impl Fn(&Request) -> Result<usize, Refusal>,
) -> Result<Request, Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let head_end = loop {
        if let Some(at) = find(&buf, b"\r\n\r\n") {
            break at;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(refuse(
                431,
                format!("the request head exceeds {MAX_HEAD_BYTES} bytes"),
            ));
        }
        let n = stream
            .read(&mut chunk)
            .map_err(|_| refuse(408, "the request was not sent in time"))?;
        if n == 0 {
            return Err(refuse(400, "the connection closed mid-request"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    if head_end > MAX_HEAD_BYTES {
        return Err(refuse(
            431,
            format!("the request head exceeds {MAX_HEAD_BYTES} bytes"),
        ));
    }
    let mut request = parse_head(&buf[..head_end])?;
    let length = body_length(&request, gate(&request)?)?;
    let mut body = buf.split_off(head_end + 4);
    if body.len() > length {
        body.truncate(length);
    }
    body.reserve_exact(length - body.len());
    while body.len() < length {
        let want = (length - body.len()).min(chunk.len());
        let n = stream
            .read(&mut chunk[..want])
            .map_err(|_| refuse(408, "the body was not sent in time"))?;
        if n == 0 {
            return Err(refuse(400, "the connection closed mid-body"));
        }
        body.extend_from_slice(&chunk[..n]);
    }
    request.body = body;
    Ok(request)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The headers every response carries.
pub const SECURITY_HEADERS: &[(&str, &str)] = &[
    (
        "Content-Security-Policy",
        "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
];

/// The reason phrase of a status.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// A response: status, extra headers, body.
#[derive(Clone, Debug)]
pub struct Response {
    /// The status.
    pub status: u16,
    /// Headers besides the security headers, `Content-Length` and `Connection`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A response with a content type.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// Adds a header.
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Writes the response and its headers.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\n",
            self.status,
            reason_phrase(self.status)
        );
        for (n, v) in SECURITY_HEADERS {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        for (n, v) in &self.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.body.len()
        ));
        out.write_all(head.as_bytes())?;
        out.write_all(&self.body)?;
        out.flush()
    }
}

/// The head of a server-sent event stream (the body follows, open-ended).
pub fn event_stream_head() -> String {
    let mut head = String::from("HTTP/1.1 200 OK\r\n");
    for (n, v) in SECURITY_HEADERS {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("Content-Type: text/event-stream\r\nConnection: close\r\n\r\n");
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, limit: usize) -> Result<Request, Refusal> {
        read_request(&mut text.as_bytes(), |_| Ok(limit))
    }

    /// Random bytes and mutations of good requests: a request within the limits or a refusal
    /// with an error status, never a panic (the fuzz target `http_request` does the same with
    /// coverage guidance in CI).
    #[test]
    fn random_input_gives_a_request_or_a_refusal() {
        let good =
            b"POST /api/jobs?x=%41 HTTP/1.1\r\nHost: localhost:1\r\nContent-Length: 4\r\n\r\nabcd";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut input = good.to_vec();
            for _ in 0..(next() % 8) {
                let at = next() as usize % input.len().max(1);
                match next() % 3 {
                    0 if at < input.len() => input[at] = next() as u8,
                    1 if at < input.len() => {
                        input.remove(at);
                    }
                    _ => input.insert(at, b"\r\n:% ?"[next() as usize % 6]),
                }
            }
            match read_request(&mut input.as_slice(), |_| Ok(16)) {
                Ok(r) => {
                    assert!(r.body.len() <= 16);
                    let _ = r.query("x");
                }
                Err(e) => assert!((400..600).contains(&e.status), "{e:?}"),
            }
        }
    }

    #[test]
    fn a_request_with_a_body() {
        let r = read(
            "POST /api/x?a=1&b=%2Fc HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcdef",
            10,
        )
        .unwrap();
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/api/x");
        assert_eq!(r.query("b").as_deref(), Some("/c"));
        assert_eq!(r.body, b"abc");
    }

    #[test]
    fn limits_and_malformed_requests_are_refused() {
        let big = read(
            "POST / HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n",
            1 << 20,
        );
        assert_eq!(big.unwrap_err().status, 413);
        let head = format!(
            "GET / HTTP/1.1\r\nX: {}\r\n\r\n",
            "a".repeat(MAX_HEAD_BYTES)
        );
        assert_eq!(read(&head, 0).unwrap_err().status, 431);
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(read(chunked, 10).unwrap_err().status, 501);
        let twice = "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n";
        assert_eq!(read(twice, 0).unwrap_err().status, 400);
        assert_eq!(
            read("GET /%00 HTTP/1.1\r\n\r\n", 0).unwrap_err().status,
            400
        );
        assert_eq!(read("GET / HTTP/2\r\n\r\n", 0).unwrap_err().status, 505);
        assert_eq!(read("GET / HTTP/1.1\r\n", 0).unwrap_err().status, 400);
    }
}
