//! The former path of the exact LP API, kept so that existing callers compile: everything
//! lives in [`crate::solve::lp`].

pub use crate::solve::lp::{
    LinearProgram, LpError, LpSolution, LpStats, Method, Relation, SolveOptions,
};
