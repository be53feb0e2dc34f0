//! Signals, with std only and the C library's `signal()` (no extra crate; both handlers below
//! are async-signal-safe: one atomic store, one `signal()` call):
//!
//! - SIGPIPE gets its default action back (Rust ignores it, which turns a closed pipe such as
//!   `bluff ... | head -1` into a panic in `println!`). A closed pipe now ends the process the
//!   conventional way, silently, by the signal (the shell reports status 141).
//! - SIGINT and SIGTERM, while a long run is under way, set a flag that the run polls, so it can
//!   write its checkpoint and strategy and exit with 130 or 143 (128 + the signal number). A
//!   second signal ends the process at once (the handler restores the default action).

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
mod sys {
    extern "C" {
        /// `sighandler_t signal(int, sighandler_t)` from the C library that std links anyway.
        pub fn signal(signum: i32, handler: usize) -> usize;
    }
    /// `SIG_DFL`.
    pub const SIG_DFL: usize = 0;
}

#[cfg(unix)]
extern "C" fn on_stop_signal(signum: i32) {
    RECEIVED.store(signum, Ordering::SeqCst);
    // A second Ctrl-C must still work if the run is stuck in one long iteration.
    // SAFETY: signal() is async-signal-safe (POSIX).
    unsafe {
        sys::signal(signum, sys::SIG_DFL);
    }
}

/// Restores SIGPIPE's default action so a closed output pipe ends the process quietly.
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: installing the default action has no preconditions.
    unsafe {
        sys::signal(SIGPIPE, sys::SIG_DFL);
    }
}

/// Catches SIGINT and SIGTERM from now on; see [`stop_signal`].
pub fn catch_stop_signals() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and calls signal().
    unsafe {
        let handler: extern "C" fn(i32) = on_stop_signal;
        sys::signal(SIGINT, handler as usize);
        sys::signal(SIGTERM, handler as usize);
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
