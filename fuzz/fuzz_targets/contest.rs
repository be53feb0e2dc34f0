//! The one-card-poker contest formats: the `N A B` input line and the 4N-line strategy file
//! (for N = 1 + first byte % 8), on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = bluff::problems::one_card_poker::contest_format::parse_input(text);
        let _ = bluff::problems::one_card_poker::contest_format::parse_strategy(text, 1 + first as usize % 8);
    }
});
