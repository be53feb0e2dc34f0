//! Quoting user input in error messages: at most [`QUOTE_CHARS`] characters, so a 200 MB token
//! gives a one-line message that still says how long the token was.

/// Characters of a quoted input token shown in an error message.
pub const QUOTE_CHARS: usize = 60;

/// `text` as a Rust-style quoted string, cut to [`QUOTE_CHARS`] characters with its full
/// length in bytes when longer.
pub fn quoted(text: &str) -> String {
    let mut chars = text.char_indices();
    match chars.nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}... ({} bytes)", &text[..cut], text.len()),
    }
}

/// `text` unquoted, cut the same way (for messages that show input without quotes).
pub fn shortened(text: &str) -> String {
    let mut chars = text.char_indices();
    match chars.nth(QUOTE_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole_and_long_text_is_cut() {
        assert_eq!(quoted("abc"), "\"abc\"");
        let long = "9".repeat(1_000_000);
        let q = quoted(&long);
        assert!(q.len() < 100, "{q}");
        assert!(q.ends_with("(1000000 bytes)"), "{q}");
        // Multi-byte characters are never split.
        let wide = "é".repeat(100);
        assert!(quoted(&wide).starts_with("\"éé"));
        assert!(shortened(&long).len() < 100);
    }
}
