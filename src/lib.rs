//! bluff: compute, check and explain Nash equilibria of two-player games with hidden
//! information, zero-sum above all.
//!
//! Layout: [`game`] is the model and builder, [`games`] the built-in games, [`solve`] the
//! solvers, [`lcp`] the exact solvers of two-player general-sum games, [`eval`] values, best
//! responses and exploitability, [`format`](mod@format) file formats and [`report`] the HTML
//! report. The command line is the `bluff-cli` crate of the workspace (`cli/`), the Python
//! package the `bluff-python` crate (`python/`).

// The module docs explain the design by linking the private modules that carry it out; they
// resolve with `cargo doc --document-private-items`, the developers' view.
#![allow(rustdoc::private_intra_doc_links)]
// Every public item says in one line what it is (as good_lp does).
#![deny(missing_docs)]
// Player-indexed loops (`for p in 0..2`) read better than iterator chains over paired arrays.
#![allow(clippy::needless_range_loop)]

pub mod cfr;
pub mod curve;
pub mod error;
pub use error::{Error, Result};
pub mod eval;
pub mod exact;
pub mod format;
mod fxhash;
pub mod game;
pub mod games;
pub mod holdem;
pub mod lcp;
pub mod lock;
pub mod lp;
pub mod matrix;
pub mod mccfr;
mod prefetch;
pub mod problems;
pub mod report;
pub mod scalar;
pub mod solve;
pub mod strategy;
pub mod streaming;
pub mod study;
pub mod threads;
