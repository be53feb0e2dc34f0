//! A point of a convergence curve: shared by the run loops that measure it, the checkpoints
//! that store it and the report that draws it.

/// One measured point of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Iterations done.
    pub iteration: u64,
    /// Exploitability of the average strategy (f64 evaluation by `crate::eval`).
    pub exploitability: f64,
    /// Solving time since the run started, excluding measurements and checkpoints.
    pub seconds: f64,
}
