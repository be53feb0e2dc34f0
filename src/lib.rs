//! bluff: compute, check and explain Nash equilibria of two-player zero-sum games with hidden
//! information.
//!
//! Layout: [`game`] is the model and builder, [`games`] the built-in games, [`solve`] the
//! solvers, [`eval`] values, best responses and exploitability, [`format`] file formats and
//! [`cli`] the command line.

// Player-indexed loops (`for p in 0..2`) read better than iterator chains over paired arrays.
#![allow(clippy::needless_range_loop)]

pub mod cli;
pub mod eval;
pub mod format;
mod fxhash;
pub mod game;
pub mod games;
pub mod report;
pub mod scalar;
pub mod solve;
pub mod strategy;
