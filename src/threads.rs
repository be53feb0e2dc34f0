//! The thread policy every solver and front end shares: all available cores by default, at
//! most 4 per core (between 4 and 256); results never depend on the count.

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

/// How many worker threads a solver runs: the thread policy of every front end. Results never
/// depend on the count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// All available cores (the default).
    #[default]
    Available,
    /// This many (checked: at least 1, at most [`max_threads`]).
    Exactly(usize),
}

impl Threads {
    /// `Some(n)` is exactly `n`, `None` all available cores.
    pub fn from_option(threads: Option<usize>) -> Self {
        threads.map_or(Threads::Available, Threads::Exactly)
    }

    /// The checked count.
    pub fn count(self) -> Result<usize, ThreadsError> {
        match self {
            Threads::Available => Ok(available_cores()),
            Threads::Exactly(0) => Err(ThreadsError::Zero),
            Threads::Exactly(n) if too_many_threads(n) => Err(ThreadsError::TooMany {
                asked: n,
                max: max_threads(),
            }),
            Threads::Exactly(n) => Ok(n),
        }
    }
}

/// A thread count a solver does not take, or threads that could not be started.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ThreadsError {
    /// No thread at all.
    #[error("0 threads: expected at least 1")]
    Zero,
    /// More than [`max_threads`].
    #[error(
        "{asked} threads: at most {max} (4 per available core, between 4 and 256); results do \
         not depend on the thread count"
    )]
    TooMany {
        /// The count asked for.
        asked: usize,
        /// The most allowed here.
        max: usize,
    },
    /// The system refused to start a thread.
    #[error("starting the worker threads: {0}")]
    Spawn(String),
}
