//! Game specs (`name(key=value,...)`) on arbitrary text: an error or checked parameters.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = bluff::games::parse_spec(text);
    }
});
