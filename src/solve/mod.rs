//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod card_guessing;
pub mod cfr;
pub mod lp;
pub mod matrix;
pub mod normal_form;
pub mod one_card;
pub mod plan_certificate;
pub mod polytope;
pub mod resumable;
pub mod sequence_form;
pub(crate) mod terminal_weights;
