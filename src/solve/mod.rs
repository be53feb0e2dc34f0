//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod lp;
pub mod matrix;
pub mod normal_form;
pub mod polytope;
pub mod sequence_form;
pub mod simplex;
