//! `bluff serve`'s request reader (the very file the server compiles): any bytes give a
//! request within the limits or a refusal with a status, never a panic, a hang or a large
//! allocation.
#![no_main]

#[path = "../../cli/src/serve/http.rs"]
#[allow(dead_code)]
mod http;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    match http::read_request(&mut input, |r| {
        Ok(if r.path == "/api/upload" { 1 << 16 } else { 1 << 10 })
    }) {
        Ok(r) => {
            assert!(r.body.len() <= 1 << 16);
            let _ = r.query("token");
            let _ = r.header("host");
        }
        Err(refusal) => assert!((400..600).contains(&refusal.status)),
    }
});
