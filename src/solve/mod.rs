//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod cfr;
pub mod lp;
pub mod one_card;
pub mod sequence_form;
pub mod simplex;
