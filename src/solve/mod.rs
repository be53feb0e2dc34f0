//! The solve layer: the one door every front end calls ([`door`]: one request, one check, one
//! result for every family), the algorithm [`registry`], the CFR family's run loop ([`run`]),
//! the sampling solvers' runs ([`sampling`]), a strategy within a budget ([`best_effort`]) and
//! the runs of a CFR split into shards ([`shards`]). The engines it drives live in rooms of
//! their own below it (`cfr`, `mccfr`, `exact`, `lp`, `matrix`); the thread policy is
//! [`crate::threads`], re-exported here for the front ends.

pub mod best_effort;
pub mod door;
pub mod registry;
pub mod run;
pub mod sampling;
pub mod shards;
pub mod spot;
pub mod spot_lp;

pub use crate::threads::{available_cores, max_threads, too_many_threads, Threads, ThreadsError};
