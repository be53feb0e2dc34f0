//! File formats: strategy profiles as JSON (and, with their own modules, game interchange).

pub mod strategy_json;
pub mod ocp;
