//! Sampling checkpoints (`BLUFFMCC`) on arbitrary bytes: an error or a solver restored on Kuhn's
//! rules, never a panic or an allocation the file's length does not back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    // The reader takes a path (checkpoints are streamed): one scratch file per process.
    let path = std::env::temp_dir().join(format!("bluff-fuzz-mcc-{}", std::process::id()));
    let written = std::fs::File::create(&path).and_then(|mut f| f.write_all(data));
    if written.is_ok() {
        let _ = bluff::mccfr::checkpoint::read_header_of(&path);
        let _ = bluff::mccfr::checkpoint::load(&path, &bluff::games::kuhn::Kuhn);
    }
});
