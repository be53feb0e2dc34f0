//! Running the `bluff` binary from tests.

use assert_cmd::Command;

/// The `bluff` binary of this build.
pub fn bluff() -> Command {
    Command::cargo_bin("bluff").unwrap()
}

/// The JSON that `cmd` prints with `--json` added; the command must succeed.
pub fn json_of(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `--json` summary of `bluff solve ARGS --json`, which must succeed.
pub fn solve_json(args: &[&str]) -> serde_json::Value {
    json_of(bluff().arg("solve").args(args))
}

/// How a child starts with SIGINT and SIGTERM. A test that sends signals sets this itself:
/// children inherit ignored signals, and a suite started in the background (a non-interactive
/// shell's `&`, nohup) ignores SIGINT.
#[derive(Clone, Copy, Debug)]
pub enum StopSignals {
    /// The default actions (end the process), which bluff then catches.
    Default,
    /// Ignored, as nohup and background jobs start a process.
    Ignored,
}

/// Sets the child's SIGINT and SIGTERM actions before it executes.
#[cfg(unix)]
pub fn stop_signals(cmd: &mut std::process::Command, how: StopSignals) {
    use std::os::unix::process::CommandExt;
    let action = match how {
        StopSignals::Default => libc::SIG_DFL,
        StopSignals::Ignored => libc::SIG_IGN,
    };
    // SAFETY: between fork and exec only async-signal-safe calls may run; signal() is one, and
    // the closure allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGINT, action);
            libc::signal(libc::SIGTERM, action);
            Ok(())
        });
    }
}

/// Sends `signal` (`-INT`, `-TERM`) to `child` with `kill`, then waits for its output.
#[cfg(unix)]
pub fn signal_and_wait(child: std::process::Child, signal: &str) -> std::process::Output {
    let killed = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success(), "kill {signal} failed");
    child.wait_with_output().unwrap()
}

/// The command's stderr as text (lossy).
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts the command was refused: exit 1, `needle` in its message, no panic. `what` names
/// the case in failure messages. Returns the message.
pub fn assert_refused(out: &std::process::Output, what: &str, needle: &str) -> String {
    let e = stderr_of(out);
    assert_eq!(out.status.code(), Some(1), "{what}: {e}");
    assert!(e.contains(needle), "{what}: expected {needle:?} in {e}");
    assert!(!e.contains("panicked"), "{what}: {e}");
    e
}
