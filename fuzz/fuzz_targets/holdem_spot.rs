//! Hold'em spot files (TOML) on arbitrary text: an error, or a spot whose action tree builds
//! within a node limit.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(spot) = bluff::holdem::spot::Spot::parse(text) {
            let _ = bluff::holdem::tree::Tree::build(&spot, 100_000);
        }
    }
});
