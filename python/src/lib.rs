//! Python bindings of bluff (the extension module `bluff._bluff`): conversions and errors
//! only, so Python and the `bluff` CLI compute with the same library code and give the same
//! numbers.

// Player-indexed loops (`for p in 0..2`) read better than iterator chains over paired arrays.
#![allow(clippy::needless_range_loop)]

mod convert;
mod distributed;
mod errors;
mod game;
mod hooks;
mod openspiel;
mod policy;
mod rules;
mod solve;
mod spot;

use pyo3::prelude::*;

/// The native part of the `bluff` package; import `bluff` instead.
#[pymodule]
fn _bluff(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<game::Game>()?;
    m.add_class::<game::GameBuilder>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::Evaluation>()?;
    m.add_class::<solve::SolveResult>()?;
    m.add_class::<rules::RulesSolveResult>()?;
    m.add_function(wrap_pyfunction!(game::game, m)?)?;
    m.add_function(wrap_pyfunction!(game::builtin_games, m)?)?;
    m.add_function(wrap_pyfunction!(game::read_efg, m)?)?;
    m.add_function(wrap_pyfunction!(game::read_nfg, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve::algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(rules::solve_rules, m)?)?;
    m.add_function(wrap_pyfunction!(rules::_unpickle_rules_result, m)?)?;
    m.add_function(wrap_pyfunction!(policy::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(policy::best_response, m)?)?;
    m.add_function(wrap_pyfunction!(openspiel::from_openspiel, m)?)?;
    m.add_function(wrap_pyfunction!(game::_unpickle_game, m)?)?;
    m.add_function(wrap_pyfunction!(policy::_unpickle_policy, m)?)?;
    m.add_function(wrap_pyfunction!(solve::_unpickle_result, m)?)?;
    distributed::register(m)?;
    spot::register(m)?;
    m.add("GameError", py.get_type::<errors::GameError>())?;
    m.add(
        "UnsupportedGameError",
        py.get_type::<errors::UnsupportedGameError>(),
    )?;
    m.add("FormatError", py.get_type::<errors::FormatError>())?;
    m.add("PolicyError", py.get_type::<errors::PolicyError>())?;
    m.add("BluffWarning", py.get_type::<errors::BluffWarning>())?;
    Ok(())
}
