//! File formats: strategy profiles as JSON (and, with their own modules, game interchange).

pub mod efg;
pub mod json_keys;
pub mod lock_json;
pub mod nfg;
pub mod output;
pub mod strategy_json;
pub mod text;
