//! The conformance table (`tests/data/conformance.json`) through the command line: every
//! request is accepted or refused exactly as the Python suite finds it
//! (`python/tests/test_conformance.py` reads the same file), each option spelled `--name`.

mod common;

use common::cli::bluff;
use serde_json::Value;

/// The table's requests.
fn requests() -> Vec<Value> {
    let path = common::data("conformance.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let table: Value = serde_json::from_str(&text).unwrap();
    table["requests"].as_array().unwrap().clone()
}

/// A JSON scalar as command-line text.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The command line's spelling of a message: `{name}` is `--name`, `{name:V}` `--name V`.
fn spelled(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').unwrap();
        let inner = &rest[open + 1..close];
        let (name, value) = match inner.split_once(':') {
            Some((n, v)) => (n, Some(v)),
            None => (inner, None),
        };
        out.push_str("--");
        out.push_str(&name.replace('_', "-"));
        if let Some(v) = value {
            out.push(' ');
            out.push_str(v);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The game argument: a repository file by its absolute path, else the spec.
fn game(spec: &str) -> String {
    match spec.strip_prefix("tests/data/") {
        Some(name) => common::data(name),
        None => spec.to_string(),
    }
}

#[test]
fn the_conformance_table_holds_on_the_command_line() {
    let requests = requests();
    assert!(requests.len() >= 40, "{} requests", requests.len());
    let dir = tempfile::tempdir().unwrap();
    for request in &requests {
        let mut cmd = bluff();
        cmd.current_dir(dir.path());
        cmd.arg("solve")
            .arg(game(request["game"].as_str().unwrap()));
        for (name, value) in request["options"].as_object().unwrap() {
            let flag = format!("--{}", name.replace('_', "-"));
            match value {
                Value::Bool(true) => {
                    cmd.arg(flag);
                }
                Value::Bool(false) => {}
                // A repository file named in an option, by its absolute path.
                Value::String(v) if v.starts_with("tests/data/") => {
                    cmd.arg(flag).arg(game(v));
                }
                v => {
                    cmd.arg(flag).arg(text(v));
                }
            }
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error = stderr
            .lines()
            .find_map(|l| l.strip_prefix("error: "))
            .unwrap_or("");
        if request["accepted"] == Value::Bool(true) {
            assert!(out.status.success(), "{request}: {stderr}");
        } else if let Some(m) = request["refused"].as_str() {
            assert_eq!(out.status.code(), Some(1), "{request}: {stderr}");
            assert_eq!(error, spelled(m), "{request}");
        } else {
            let m = request["refused_contains"].as_str().unwrap();
            assert_eq!(out.status.code(), Some(1), "{request}: {stderr}");
            assert!(error.contains(&spelled(m)), "{request}: {error}");
        }
    }
}
