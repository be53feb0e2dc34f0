//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod card_guessing;
pub mod lp;
pub mod sequence_form;
pub mod simplex;
