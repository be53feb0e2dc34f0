//! Inputs the fuzz targets (`scripts/fuzz.sh`) once crashed on, kept as tests: each must now
//! give a clear error (or a result), never a panic.

use bluff::holdem::spot::Spot;
use bluff::holdem::HoldemError;

/// A spot whose IP range holds a token with a two-byte character where a single combo's second
/// card would start (`Kǖ*`): the range reader sliced the token at byte 2 and panicked.
#[test]
fn holdem_spot_range_token_with_a_multibyte_character() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz_holdem_spot_multibyte_range.toml");
    let text = std::fs::read_to_string(path).unwrap();
    match Spot::parse(&text) {
        Err(HoldemError::Spot { key, reason }) => {
            assert_eq!(key, "ip_range");
            assert!(reason.contains("K\u{1d6}*"), "{reason}");
        }
        other => panic!("expected the ip_range error, got {other:?}"),
    }
}
