//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod card_guessing;
pub mod cfr;
pub mod lp;
pub mod matrix;
pub mod mccfr;
pub mod normal_form;
pub mod one_card;
pub mod plan_certificate;
pub mod polytope;
pub mod resumable;
pub mod sequence_form;
pub(crate) mod terminal_weights;

/// The least [`max_threads`] can be.
const MIN_MAX_THREADS: usize = 4;

/// The cores this process may use (1 if the system cannot tell): the solvers' default
/// thread count.
pub fn available_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The most worker threads a solver takes: 4 per available core, between 4 and 256 (results
/// never depend on the count; more threads than that only cost memory and spinning).
pub fn max_threads() -> usize {
    (4 * available_cores()).clamp(MIN_MAX_THREADS, 256)
}

/// Whether `threads` is more than a solver takes (see [`max_threads`]). Counts up to 4 are
/// accepted without asking the system for its cores, which reads cgroup files.
pub fn too_many_threads(threads: usize) -> bool {
    threads > MIN_MAX_THREADS && threads > max_threads()
}
