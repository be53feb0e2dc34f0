//! Quoting user input in error messages: at most [`QUOTE_CHARS`] characters, so a 200 MB token
//! gives a one-line message that still says how long the token was, with control characters
//! escaped (`\u{1b}`), so input cannot move the cursor, recolour or retitle the user's
//! terminal through an error message.

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

/// Most items of a list shown in a message.
pub const LIST_ITEMS: usize = 10;

/// A list of labels for a message, `["a", "b"]`: each label [`quoted`], at most
/// [`LIST_ITEMS`] of them, then how many there are in all.
pub fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(LIST_ITEMS)
        .map(|s| quoted(s.as_ref()))
        .collect();
    if items.len() > LIST_ITEMS {
        format!("[{}, ... ({} in all)]", shown.join(", "), items.len())
    } else {
        format!("[{}]", shown.join(", "))
    }
}

/// `text` unquoted, cut the same way and with its control characters escaped (for messages
/// that show input without quotes).
pub fn shortened(text: &str) -> String {
    let mut chars = text.char_indices();
    let (shown, cut) = match chars.nth(QUOTE_CHARS) {
        None => (text, false),
        Some((cut, _)) => (&text[..cut], true),
    };
    let mut out = String::with_capacity(shown.len() + 24);
    for c in shown.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if cut {
        out.push_str(&format!("... ({} bytes)", text.len()));
    }
    out
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

    #[test]
    fn control_characters_and_terminal_escapes_are_escaped() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{1b}[31mred\u{9b}2Jc\r\n";
        for shown in [quoted(hostile), shortened(hostile)] {
            assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
            assert!(shown.contains("\\u{1b}"), "{shown}");
        }
    }
}
