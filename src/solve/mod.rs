//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.
pub mod card_guessing;
