//! Gambit .efg reader on arbitrary bytes: an error or a game, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(efg) = bluff::format::efg::read_efg_bytes(data) {
        let _ = bluff::format::efg::efg_to_game(&efg.game);
    }
});
