//! The library's errors: typed, so that a caller (the command line, the Python package, any
//! program using the crate) can tell a malformed file from an invalid game, a size refused
//! before allocating or a game outside what the solvers take, and say so in its own words.
//!
//! Modules with a richer vocabulary keep their own error types ([`GameError`],
//! [`ParseError`], [`crate::lp::LpError`], [`crate::exact::ExactError`],
//! [`crate::solve::run::RunError`], ...); [`Error`] gathers them for the calls that can fail in
//! several ways, such as loading a game from a spec.

use crate::cfr::checkpoint::CheckpointError;
use crate::exact::ExactError;
use crate::format::efg::ParseError;
use crate::format::output::WriteError;
use crate::format::strategy_json::StrategyFileError;
use crate::game::GameError;
use crate::lp::LpError;
use crate::solve::run::RunError;

/// Why a library call failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file that does not follow its format, with the line and column where it goes wrong.
    #[error("{file}: {error}")]
    Parse {
        /// The file.
        file: String,
        /// Where and what.
        error: ParseError,
    },
    /// A size over a limit, refused before allocating.
    #[error("{what} has {size}, above the limit of {limit}")]
    TooBig {
        /// What was measured (a game spec, a normal form).
        what: String,
        /// Its size, with units ("1310719531 nodes").
        size: String,
        /// The limit.
        limit: String,
    },
    /// An invalid game: probabilities, payoffs, actions, perfect recall.
    #[error(transparent)]
    InvalidGame(#[from] GameError),
    /// A valid game outside what bluff's solvers take (more than two players, general-sum
    /// payoffs, imperfect recall).
    #[error("{0}")]
    Unsupported(String),
    /// A game spec that names no built-in game, or parameters it does not take.
    #[error("{0}")]
    Spec(String),
    /// A file that could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// An argument or input the call cannot take; the message names it.
    #[error("{0}")]
    Invalid(String),
    /// A strategy file that does not fit its game.
    #[error(transparent)]
    Strategy(#[from] StrategyFileError),
    /// A checkpoint that cannot be read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// An output that could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A linear program that could not be solved exactly.
    #[error(transparent)]
    Lp(#[from] LpError),
    /// An exact solve that failed.
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// The sequence-form LCP gave no certified equilibrium.
    #[error(transparent)]
    Lcp(#[from] crate::lcp::LcpError),
    /// The bimatrix enumeration gave no answer.
    #[error(transparent)]
    Bimatrix(#[from] crate::lcp::bimatrix::BimatrixError),
    /// A CFR run that could not be started, continued or saved.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A sampling solver that could not be set up or restored.
    #[error(transparent)]
    Mccfr(#[from] crate::mccfr::MccfrError),
    /// A sampling checkpoint that cannot be read.
    #[error(transparent)]
    MccfrCheckpoint(#[from] crate::mccfr::checkpoint::CheckpointError),
    /// A streaming best response that could not run.
    #[error(transparent)]
    Stream(#[from] crate::streaming::StreamError),
    /// Another error, with what was being done.
    #[error("{context}: {source}")]
    Context {
        /// What was being done.
        context: String,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// This error with what was being done in front of it.
    pub fn context(self, context: impl Into<String>) -> Error {
        Error::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The innermost error under any [`Error::Context`].
    pub fn root(&self) -> &Error {
        match self {
            Error::Context { source, .. } => source.root(),
            other => other,
        }
    }
}

/// Adds context to a fallible result, as `anyhow`'s `with_context` does, but typed.
pub trait ResultExt<T> {
    /// Puts `f()` in front of the error, if any.
    fn context_with(self, f: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<Error>> ResultExt<T> for std::result::Result<T, E> {
    fn context_with(self, f: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.into().context(f()))
    }
}

/// Returns early with an [`Error`] variant holding a formatted message:
/// `fail!(Invalid, "x {y}")`.
macro_rules! fail {
    ($variant:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::$variant(format!($($arg)*)).into())
    };
}
pub(crate) use fail;

/// An [`Error`] variant holding a formatted message: `err!(Invalid, "x {y}")`.
macro_rules! err {
    ($variant:ident, $($arg:tt)*) => {
        $crate::error::Error::$variant(format!($($arg)*))
    };
}
pub(crate) use err;

/// Turns a missing value into an [`Error::Invalid`] naming what is missing.
pub trait OptionExt<T> {
    /// `Some(x)` is `Ok(x)`; `None` is an invalid-input error with message `f()`.
    fn or_invalid(self, f: impl FnOnce() -> String) -> Result<T>;
}

impl<T> OptionExt<T> for Option<T> {
    fn or_invalid(self, f: impl FnOnce() -> String) -> Result<T> {
        self.ok_or_else(|| Error::Invalid(f()))
    }
}
