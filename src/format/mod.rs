//! File formats: strategy profiles as JSON (and, with their own modules, game interchange).

pub mod atomic;
pub mod strategy_json;
