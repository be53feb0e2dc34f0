//! Strategy JSON reader (against Kuhn poker) on arbitrary text: an error or a profile.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static GAME: OnceLock<bluff::game::Game> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let game = GAME.get_or_init(|| bluff::games::builtin("kuhn").expect("kuhn builds"));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = bluff::format::strategy_json::profile_from_json(game, text);
    }
});
