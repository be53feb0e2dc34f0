//! Building blocks of the exact LP solver: a float simplex that proposes a basis, an exact
//! sparse LU, and the exact verification and repair of a proposed basis.

pub(crate) mod float;
pub(crate) mod guided;
pub mod lu;
