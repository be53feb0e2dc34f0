//! Who may ask what: the token (from the OS, compared in constant time), the `Host` and
//! `Origin` checks, and the confinement of paths to the served folder.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Bytes of the token (256 bits).
const TOKEN_BYTES: usize = 32;

/// A fresh token from the OS's random source, as hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    // Keep the compiler from turning the loop into an early exit.
    std::hint::black_box(diff) == 0
}

/// The name of the token cookie of the server on `port` (one per port, so two servers on one
/// machine do not overwrite each other's cookie).
pub fn cookie_name(port: u16) -> String {
    format!("bluff_token_{port}")
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

/// The host names the server answers to, with their port: `127.0.0.1:PORT`,
/// `localhost:PORT`, `[::1]:PORT` and the `--host` name.
#[derive(Clone, Debug)]
pub struct Hosts {
    allowed: Vec<String>,
}

impl Hosts {
    /// The loopback names and `extra` (the `--host` name), each with `port`.
    pub fn new(port: u16, extra: Option<&str>) -> Hosts {
        let mut allowed: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        if let Some(h) = extra {
            let h = if h.contains(':') && !h.starts_with('[') {
                format!("[{h}]")
            } else {
                h.to_string()
            };
            allowed.push(format!("{h}:{port}"));
        }
        Hosts { allowed }
    }

    /// Whether a `Host` header names this server.
    pub fn host_ok(&self, host: &str) -> bool {
        self.allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
    }

    /// Whether an `Origin` header is this server's own (`http://` and an allowed host).
    pub fn origin_ok(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|h| self.host_ok(h))
    }
}

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// Not a relative path inside the folder.
    #[error("{0}: give a path relative to the served folder, without '..'")]
    Outside(String),
    /// It resolves (through a symbolic link) outside the folder.
    #[error("{0}: leads outside the served folder")]
    Escapes(String),
    /// It does not exist or cannot be read.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
}

/// Resolves `rel` inside `root` (already canonical): refuses absolute paths, `..`, NUL, and a
/// path whose canonical form (symbolic links followed) leaves `root`. Returns the canonical
/// path of an existing file.
pub fn confine(root: &Path, rel: &str) -> Result<PathBuf, PathError> {
    let shown = bluff::format::text::quoted(rel);
    if rel.is_empty() || rel.contains('\0') || rel.contains('\\') {
        return Err(PathError::Outside(shown));
    }
    let path = Path::new(rel);
    if !path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(PathError::Outside(shown));
    }
    let canonical = root
        .join(path)
        .canonicalize()
        .map_err(|e| PathError::Io(shown.clone(), e))?;
    if !canonical.starts_with(root) {
        return Err(PathError::Escapes(shown));
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_fresh() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(constant_time_eq(a.as_bytes(), a.clone().as_bytes()));
        assert!(!constant_time_eq(a.as_bytes(), b.as_bytes()));
        assert!(!constant_time_eq(b"ab", b"abc"));
    }

    #[test]
    fn hosts_and_origins() {
        let h = Hosts::new(8080, None);
        assert!(
            h.host_ok("127.0.0.1:8080") && h.host_ok("LOCALHOST:8080") && h.host_ok("[::1]:8080")
        );
        assert!(
            !h.host_ok("127.0.0.1:8081")
                && !h.host_ok("evil.example:8080")
                && !h.host_ok("127.0.0.1")
        );
        assert!(h.origin_ok("http://localhost:8080"));
        assert!(!h.origin_ok("https://localhost:8080") && !h.origin_ok("http://evil.example"));
        assert_eq!(
            cookie("a=1; bluff_token_1=xy; b=2", "bluff_token_1"),
            Some("xy")
        );
    }

    #[test]
    fn paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("g.efg"), "x").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("out.efg")).unwrap();
        assert!(confine(&root, "g.efg").is_ok());
        assert!(confine(&root, "./g.efg").is_ok());
        for bad in ["/etc/passwd", "../g.efg", "a/../../g.efg", "g\0.efg", ""] {
            assert!(
                matches!(confine(&root, bad), Err(PathError::Outside(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            confine(&root, "out.efg"),
            Err(PathError::Escapes(_))
        ));
    }
}
