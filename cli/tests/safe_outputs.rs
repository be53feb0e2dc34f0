//! Outputs and messages a hostile or careless user cannot turn against the machine (issue 26):
//! devices, FIFOs and pipes are written in place, never replaced; symbolic links are followed
//! and kept; a replaced file keeps its mode; a stop signal ignored at start stays ignored; and
//! no reader echoes a long token or a terminal escape sequence into an error message.

#![cfg(unix)]

mod common;

use common::cli::{bluff, stderr_of, stop_signals, StopSignals};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes a FIFO (named pipe) at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// A character device equal to /dev/null (major 1, minor 3) at `path`; needs root.
fn mknod_null(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(made, 0, "mknod: {}", std::io::Error::last_os_error());
}

fn assert_char_device(path: &Path) {
    let ft = std::fs::symlink_metadata(path).unwrap().file_type();
    assert!(
        ft.is_char_device(),
        "{} is no longer a device",
        path.display()
    );
}

/// `-o` onto a character device writes into it and leaves the device node in place (as root,
/// on a node of our own; otherwise on /dev/null, where a rename could not even be tried).
#[test]
fn a_character_device_is_written_in_place_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let device = if is_root() {
        let node = dir.path().join("null");
        mknod_null(&node);
        node
    } else {
        Path::new("/dev/null").to_path_buf()
    };
    let outputs: [&[&str]; 3] = [
        &["solve", "kuhn", "--algo", "cfr", "--iterations", "10", "-o"],
        &["export", "leduc", "-o"],
        &["solve", "kuhn", "--algo", "lp", "-o"],
    ];
    for args in outputs {
        let out = bluff().args(args).arg(&device).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
        assert_char_device(&device);
    }
    // Every output of one run into the same device is fine: it is not one file twice.
    let out = bluff()
        .args(["solve", "kuhn", "--iterations", "10", "-o"])
        .arg(&device)
        .arg("--curve")
        .arg(&device)
        .arg("--checkpoint")
        .arg(&device)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_char_device(&device);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        is_root() as usize
    );
}

/// A FIFO is written in place, opened only when the output is written: a run that fails
/// before that never blocks waiting for a reader.
#[test]
fn a_fifo_is_written_in_place_and_never_opened_early() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    // No reader: a run that fails after checking its outputs must end, not hang.
    let start = Instant::now();
    let out = bluff()
        .args(["solve", "no-such-game", "-o"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(start.elapsed() < Duration::from_secs(50));
    // With a reader: the strategy arrives through the pipe.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = bluff()
        .args(["solve", "kuhn", "--algo", "cfr", "--iterations", "10", "-o"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = reader.join().unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["game"], "kuhn");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// `-o /dev/stdout` ends at this process's pipe: written in place, so it arrives on stdout.
#[test]
fn dev_stdout_writes_into_the_pipe() {
    let out = bluff()
        .args([
            "solve",
            "kuhn",
            "--algo",
            "cfr",
            "--iterations",
            "10",
            "-o",
            "/dev/stdout",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    // The strategy, then the run's summary (not `-`, so the summary goes to stdout too).
    let mut values = serde_json::Deserializer::from_slice(&out.stdout).into_iter();
    let json: serde_json::Value = values.next().unwrap().unwrap();
    assert_eq!(json["game"], "kuhn");
}

/// Sockets and folders are refused before any work, naming what they are.
#[test]
fn sockets_and_folders_are_refused_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (path, kind) in [(socket.as_path(), "a socket"), (dir.path(), "a folder")] {
        for args in [
            &["solve", "kuhn", "--iterations", "10", "-o"][..],
            &["export", "kuhn", "-o"][..],
        ] {
            let out = bluff().args(args).arg(path).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert!(stderr_of(&out).contains(kind), "{}", stderr_of(&out));
        }
    }
    assert!(std::fs::symlink_metadata(&socket)
        .unwrap()
        .file_type()
        .is_socket());
}

/// A link (a chain of two) is kept and the file it names gets the output; a dangling link
/// creates its target, as the shell's `>` does.
#[test]
fn links_are_followed_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("eq.json");
    std::fs::write(&target, "old").unwrap();
    let inner = dir.path().join("inner");
    let outer = dir.path().join("outer");
    std::os::unix::fs::symlink("eq.json", &inner).unwrap();
    std::os::unix::fs::symlink(&inner, &outer).unwrap();
    let out = bluff()
        .args(["solve", "kuhn", "--algo", "cfr", "--iterations", "10", "-o"])
        .arg(&outer)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    for link in [&inner, &outer] {
        assert!(std::fs::symlink_metadata(link)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(json["game"], "kuhn");

    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink("made.efg", &dangling).unwrap();
    let out = bluff()
        .args(["export", "kuhn", "-o"])
        .arg(&dangling)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let made = std::fs::read_to_string(dir.path().join("made.efg")).unwrap();
    assert!(made.starts_with("EFG 2 R"), "{made}");
    // Only the four names: no temporary left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 5);
}

/// A replaced strategy, export, checkpoint or report keeps the old file's mode.
#[test]
fn replaced_files_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        (
            "eq.json",
            &["solve", "kuhn", "--algo", "cfr", "--iterations", "10", "-o"],
        ),
        ("g.efg", &["export", "kuhn", "-o"]),
        (
            "run.ckpt",
            &["solve", "kuhn", "--iterations", "10", "--checkpoint"],
        ),
        ("r.html", &["report", "kuhn", "-o"]),
    ];
    for (name, args) in cases {
        let path = dir.path().join(name);
        for mode in [0o600, 0o640] {
            std::fs::write(&path, "old").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let out = bluff().args(args).arg(&path).output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
            let got = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, mode, "{name}: mode {mode:o} became {got:o}");
            assert_ne!(std::fs::read_to_string(&path).unwrap_or_default(), "old");
        }
    }
}

/// A run started with SIGINT and SIGTERM ignored (nohup, a background job) keeps running when
/// they arrive and ends by its own stop rule; one started with them at their defaults saves
/// and stops (the test sets each state itself, whatever the test runner's own).
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    for (how, signals_stop_it) in [(StopSignals::Ignored, false), (StopSignals::Default, true)] {
        let dir = tempfile::tempdir().unwrap();
        let ckpt = dir.path().join("run.ckpt");
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("bluff"));
        cmd.args([
            "solve",
            "leduc",
            "--algo",
            "cfr+",
            "--iterations",
            "100000000",
        ])
        .args(["--time", "2", "--checkpoint-every", "0.05", "--checkpoint"])
        .arg(&ckpt)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        stop_signals(&mut cmd, how);
        let child = cmd.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ckpt.exists() {
            assert!(Instant::now() < deadline, "no checkpoint written");
            std::thread::sleep(Duration::from_millis(20));
        }
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: kill has no memory preconditions.
            unsafe { libc::kill(child.id() as i32, signal) };
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = stderr_of(&out);
        if signals_stop_it {
            assert_eq!(out.status.code(), Some(130), "{stderr}");
            assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
        } else {
            assert!(out.status.success(), "{:?}: {stderr}", out.status);
            assert!(!stderr.contains("interrupted"), "{stderr}");
        }
    }
}

/// What a hostile token looks like: long, with a terminal title change, a bell, a colour and a
/// screen clear (the 8-bit CSI too).
fn hostile_token() -> String {
    format!(
        "{}\u{1b}]0;owned\u{7}\u{1b}[31m\u{9b}2J{}",
        "x".repeat(50),
        "y".repeat(100_000)
    )
}

/// The message is short and carries no control character but line breaks.
fn assert_tame(what: &str, out: &std::process::Output) {
    let e = stderr_of(out);
    assert!(!out.status.success(), "{what}: accepted");
    assert!(e.len() < 2000, "{what}: {} bytes of message", e.len());
    assert!(
        !e.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: control characters in {e:?}"
    );
    assert!(!e.contains("panicked"), "{what}: {e}");
}

/// Every reader cuts the input it quotes and escapes control characters in it.
#[test]
fn no_reader_echoes_long_tokens_or_terminal_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let t = hostile_token();
    let file = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let stdin_cases: [(&str, &[&str], String); 4] = [
        ("shrek-donkey m", &["shrek-donkey"], format!("{t} 1")),
        ("shrek-donkey n", &["shrek-donkey"], format!("1 {t}")),
        ("shrek-donkey extra", &["shrek-donkey"], format!("1 1 {t}")),
        ("one-card-poker", &["one-card-poker"], format!("5 {t} 1")),
    ];
    for (what, args, input) in stdin_cases {
        let out = bluff().args(args).write_stdin(input).output().unwrap();
        assert_tame(what, &out);
    }
    let out = bluff()
        .args(["shrek-donkey", "--state", &t])
        .output()
        .unwrap();
    assert_tame("--state", &out);
    for spec in [format!("kuhn({t}=1)"), format!("leduc(x={t})"), t.clone()] {
        let out = bluff().args(["solve", &spec]).output().unwrap();
        assert_tame("game spec", &out);
    }
    let efg = file("g.efg", &format!("EFG 2 R \"t\" {{ \"a\" \"b\" }}\n{t}\n"));
    let out = bluff().args(["solve"]).arg(&efg).output().unwrap();
    assert_tame(".efg", &out);
    let nfg = file(
        "g.nfg",
        &format!("NFG 1 R \"t\" {{ \"a\" \"b\" }} {{ 2 {t} }}\n"),
    );
    let out = bluff().args(["solve"]).arg(&nfg).output().unwrap();
    assert_tame(".nfg", &out);
    for (name, strategy) in [
        (
            "set.json",
            format!(r#"{{"strategy": {{"P1": {{"{t}": {{}}}}}}}}"#),
        ),
        (
            "prob.json",
            format!(r#"{{"strategy": {{"P1": {{"J": {{"Pass": "{t}"}}}}}}}}"#),
        ),
        ("player.json", format!(r#"{{"strategy": {{"{t}": {{}}}}}}"#)),
        ("game.json", format!(r#"{{"game": "{t}", "strategy": 3}}"#)),
    ] {
        let escaped = strategy
            .replace('\u{1b}', "\\u001b")
            .replace('\u{7}', "\\u0007");
        let escaped = escaped.replace('\u{9b}', "\\u009b");
        let path = file(name, &escaped);
        let out = bluff().args(["eval", "kuhn"]).arg(&path).output().unwrap();
        assert_tame(name, &out);
    }
    let input = file("t.in", "2 2 1\n");
    let contest = file("t.out", &format!("1 open: check {t}\n"));
    let out = bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(&input)
        .arg(&contest)
        .output()
        .unwrap();
    assert_tame("contest file", &out);
    let bad_input = file("bad.in", &format!("{t} 2 1\n"));
    let out = bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(&bad_input)
        .arg(&contest)
        .output()
        .unwrap();
    assert_tame("contest input", &out);
    let curve = file(
        "c.csv",
        &format!("iteration,exploitability,seconds\n1,{t},0\n"),
    );
    let out = bluff()
        .args(["report", "kuhn", "--curve"])
        .arg(&curve)
        .arg("-o")
        .arg(dir.path().join("r.html"))
        .output()
        .unwrap();
    assert_tame("curve CSV", &out);
}

/// Standard input where one short line is expected is read up to a megabyte, not whole.
#[test]
fn stdin_is_bounded_where_one_line_is_expected() {
    let big = "1 ".repeat(1 << 20);
    for cmd in ["shrek-donkey", "one-card-poker"] {
        let out = bluff().arg(cmd).write_stdin(big.clone()).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr_of(&out).contains("more than 1048576 bytes"));
    }
}
