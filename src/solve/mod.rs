//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod lp;
pub mod sequence_form;
pub mod simplex;
pub mod cfr;
