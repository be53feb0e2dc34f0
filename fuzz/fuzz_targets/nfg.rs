//! Gambit .nfg reader on arbitrary bytes: an error or a game, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(nfg) = bluff::format::nfg::read_nfg_bytes(data) {
        let _ = bluff::format::nfg::nfg_to_game(&nfg);
    }
});
