//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod cfr;
pub mod card_guessing;
pub mod lp;
pub mod one_card;
pub mod matrix;
pub mod normal_form;
pub mod polytope;
pub mod sequence_form;
pub mod simplex;
