//! Duplicate keys in JSON objects. `serde_json` keeps the last of repeated keys silently; this
//! one linear pass over text that already parsed as JSON finds the first repeated key and its
//! path, so readers can refuse it by name.

use std::collections::HashSet;

/// The first key that appears twice in one object, as `path.key` (keys JSON-quoted), or `None`.
/// `text` must be valid JSON (call after `serde_json` accepted it).
pub fn first_duplicate_key(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // One entry per open container: its keys (None for arrays) and the key it sits under.
    let mut stack: Vec<(Option<HashSet<String>>, String)> = Vec::new();
    let mut pending_key: Option<String> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let end = (i + 1).min(bytes.len());
                let mut j = end;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let is_key = j < bytes.len()
                    && bytes[j] == b':'
                    && matches!(stack.last(), Some((Some(_), _)));
                if is_key {
                    let raw = &text[start..end];
                    let key: String = serde_json::from_str(raw).unwrap_or_else(|_| raw.to_string());
                    let (keys, _) = stack.last_mut().expect("checked");
                    let keys = keys.as_mut().expect("checked");
                    if !keys.insert(key.clone()) {
                        let mut path: Vec<String> = stack
                            .iter()
                            .skip(1)
                            .map(|(_, k)| k.clone())
                            .filter(|k| !k.is_empty())
                            .collect();
                        path.push(crate::format::text::quoted(&key));
                        return Some(path.join("."));
                    }
                    pending_key = Some(crate::format::text::quoted(&key));
                }
                i = end;
                continue;
            }
            b'{' => stack.push((Some(HashSet::new()), pending_key.take().unwrap_or_default())),
            b'[' => stack.push((None, pending_key.take().unwrap_or_default())),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => pending_key = None,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_repeated_keys_with_their_path() {
        assert_eq!(first_duplicate_key(r#"{"a":1,"b":{"c":2}}"#), None);
        assert_eq!(
            first_duplicate_key(r#"{"a":1,"b":{"c":2,"c":3}}"#).as_deref(),
            Some(r#""b"."c""#)
        );
        // Escapes are decoded before comparing: "\u0041" is "A".
        assert_eq!(
            first_duplicate_key(r#"{"A":1,"\u0041":2}"#).as_deref(),
            Some(r#""A""#)
        );
        // The same key in sibling objects and strings containing quotes or colons are fine.
        assert_eq!(first_duplicate_key(r#"[{"k":"x\":"},{"k":"y"}]"#), None);
    }
}
