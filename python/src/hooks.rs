//! The hooks of a running solve (the GIL taken back every 50 ms to look for Ctrl-C) and what
//! the solve results share, for `bluff.solve` and `bluff.solve_rules`.

use bluff::solve::door::DoorHooks;
use bluff::solve::run::Hooks;
use bluff::solve::sampling::SamplingHooks;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::{Duration, Instant};

/// How often a running solve takes the GIL back to look for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A running solve's hooks (CFR family and sampling solvers): every 50 ms it takes the GIL back
/// to look for Ctrl-C.
pub(crate) struct PythonHooks {
    last_check: Instant,
    /// The `KeyboardInterrupt` (or other signal error) that stopped the run.
    pub(crate) interrupted: Option<PyErr>,
}

impl PythonHooks {
    /// Hooks that have seen no signal yet.
    pub(crate) fn new() -> Self {
        PythonHooks {
            last_check: Instant::now(),
            interrupted: None,
        }
    }
}

impl Hooks for PythonHooks {
    fn interrupted(&mut self) -> bool {
        if self.interrupted.is_none() && self.last_check.elapsed() >= SIGNAL_CHECK {
            self.last_check = Instant::now();
            self.interrupted = Python::with_gil(|py| py.check_signals()).err();
        }
        self.interrupted.is_some()
    }
}

impl DoorHooks for PythonHooks {}

impl SamplingHooks for PythonHooks {
    fn interrupted(&mut self) -> bool {
        Hooks::interrupted(self)
    }
}

/// A sampling run's `.stats`: seed, threads, traversals, information sets reached, bytes per
/// set, best-response seconds (shared with `bluff.solve_rules`).
pub(crate) fn sampling_stats<'py>(
    py: Python<'py>,
    outcome: &bluff::solve::sampling::SamplingOutcome,
) -> PyResult<Bound<'py, PyDict>> {
    let stats = PyDict::new(py);
    stats.set_item("seed", outcome.seed)?;
    stats.set_item("threads", outcome.threads)?;
    stats.set_item("traversals", 2 * outcome.iterations)?;
    stats.set_item("infosets", (outcome.infosets[0], outcome.infosets[1]))?;
    stats.set_item("bytes_per_infoset", outcome.bytes_per_infoset)?;
    stats.set_item("best_response_seconds", outcome.best_response_seconds)?;
    Ok(stats)
}
