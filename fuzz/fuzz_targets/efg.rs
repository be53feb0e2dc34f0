//! Gambit .efg readers on arbitrary bytes: an error or a game, never a panic; and the streaming
//! loader agrees with the general tree route on which inputs make a game.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tree = bluff::format::efg::read_efg_bytes(data)
        .ok()
        .map(|efg| bluff::format::efg::efg_to_game(&efg.game).is_ok());
    let stream = bluff::format::efg::load_efg(data, |_| {});
    if tree == Some(true) {
        assert!(stream.is_ok(), "the tree route accepts what the stream refuses");
    }
    if stream.is_ok() {
        assert_eq!(tree, Some(true), "the stream accepts what the tree route refuses");
    }
});
