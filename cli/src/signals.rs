//! Signals, with the C library's `signal()` and `sigaction()` (through `libc`; the handler below
//! is async-signal-safe: one atomic store, one `signal()` call):
//!
//! - SIGPIPE gets its default action back (Rust ignores it, which turns a closed pipe such as
//!   `bluff ... | head -1` into a panic in `println!`). A closed pipe now ends the process the
//!   conventional way, silently, by the signal (the shell reports status 141).
//! - SIGINT and SIGTERM, while a long run is under way, set a flag that the run polls, so it can
//!   write its checkpoint and strategy and exit with 130 or 143 (128 + the signal number). A
//!   second signal ends the process at once (the handler restores the default action).
//! - A stop signal that was ignored when the process started stays ignored: `nohup` and the
//!   shell's background jobs ignore SIGINT on purpose, and a run started that way must not stop
//!   when the terminal's Ctrl-C reaches its process group.

use std::sync::atomic::{AtomicI32, Ordering};

/// SIGINT's number on Linux and the BSDs.
pub const SIGINT: i32 = 2;
/// SIGPIPE's number on Linux and the BSDs.
pub const SIGPIPE: i32 = 13;
/// SIGTERM's number on Linux and the BSDs.
pub const SIGTERM: i32 = 15;

/// The last stop signal received (0 = none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_stop_signal(signum: i32) {
    RECEIVED.store(signum, Ordering::SeqCst);
    // A second Ctrl-C must still work if the run is stuck in one long iteration.
    // SAFETY: signal() is async-signal-safe (POSIX).
    unsafe {
        libc::signal(signum, libc::SIG_DFL);
    }
}

/// `true` when `signum`'s action is to ignore it (read with `sigaction`, which changes nothing).
#[cfg(unix)]
fn ignored(signum: i32) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only reads.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signum, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Restores SIGPIPE's default action so a closed output pipe ends the process quietly.
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: installing the default action has no preconditions.
    unsafe {
        libc::signal(SIGPIPE, libc::SIG_DFL);
    }
}

/// Catches SIGINT and SIGTERM from now on, except one the process was started ignoring, which
/// stays ignored; see [`stop_signal`].
pub fn catch_stop_signals() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and calls signal().
    unsafe {
        let handler: extern "C" fn(i32) = on_stop_signal;
        for signum in [SIGINT, SIGTERM] {
            if !ignored(signum) {
                libc::signal(signum, handler as libc::sighandler_t);
            }
        }
    }
}

/// The stop signal received since [`catch_stop_signals`], if any.
pub fn stop_signal() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The flag a long run polls.
pub fn stop_flag() -> &'static AtomicI32 {
    &RECEIVED
}

/// The conventional exit status after a signal: 128 + its number (130 for SIGINT, 143 for
/// SIGTERM).
pub fn exit_status(signum: i32) -> u8 {
    (128 + signum).clamp(0, 255) as u8
}
