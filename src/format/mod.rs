//! File formats: strategy profiles as JSON (and, with their own modules, game interchange).

pub mod atomic;
pub mod ocp;
pub mod efg;
pub mod nfg;
pub mod strategy_json;
