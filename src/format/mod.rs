//! File formats: strategy profiles as JSON (and, with their own modules, game interchange).

pub mod atomic;
pub mod efg;
pub mod nfg;
pub mod ocp;
pub mod strategy_json;
