//! Equilibrium solvers: the CFR family, exact linear programming, matrix games.

pub mod one_card;
