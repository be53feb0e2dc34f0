//! The lexer of Gambit's savefile syntax (shared by the `.efg` and `.nfg` readers).
//!
//! It streams: tokens are cut straight out of a [`BufRead`]'s buffer, so a file is never held
//! whole in memory, and the current token's text lives in one reused buffer (no allocation per
//! token). Whitespace is ASCII whitespace, as in Gambit's own C lexer; every other byte belongs
//! to a token, so checking each token's text is UTF-8 checks the whole file.

use super::{ParseError, Pos};
use crate::scalar::{parse_rational, Rational};
use std::io::BufRead;

/// The kind of a token of Gambit's savefile syntax; its text is [`Lexer::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A number (parsed later, exactly).
    Number,
    /// A quoted label, unescaped.
    Text,
    /// Any other run of non-space characters.
    Symbol,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// End of input.
    Eof,
}

/// A number token in a fixed-size form when numerator and denominator fit in 64 bits: the
/// common case, read without any heap allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SmallRational {
    /// Numerator, in lowest terms with the denominator.
    pub numer: i64,
    /// Denominator, positive.
    pub denom: i64,
}

impl SmallRational {
    /// The exact value.
    pub fn to_rational(self) -> Rational {
        crate::scalar::rat(self.numer, self.denom)
    }
}

/// Splits Gambit savefile text into tokens, tracking line and column.
pub(crate) struct Lexer<R: BufRead> {
    src: R,
    line: usize,
    column: usize,
    /// Bytes consumed so far (for progress reports).
    pub offset: u64,
    /// The current token's kind.
    pub tok: Tok,
    /// The current token's text (unescaped for labels; empty for punctuation and end of file).
    text: String,
    raw: Vec<u8>,
    /// Start of the current token.
    pub pos: Pos,
}

fn io_error(pos: Pos, e: std::io::Error) -> ParseError {
    ParseError {
        pos,
        message: format!("reading failed here: {e}"),
    }
}

#[cfg(test)]
impl<'a> Lexer<&'a [u8]> {
    /// A lexer over text in memory, positioned on the first token.
    pub fn over_str(text: &'a str) -> Result<Self, ParseError> {
        Lexer::new(text.as_bytes())
    }
}

impl<R: BufRead> Lexer<R> {
    /// A lexer positioned on the first token.
    pub fn new(src: R) -> Result<Self, ParseError> {
        let mut lx = Lexer {
            src,
            line: 1,
            column: 1,
            offset: 0,
            tok: Tok::Eof,
            text: String::new(),
            raw: Vec::new(),
            pos: Pos { line: 1, column: 1 },
        };
        lx.advance()?;
        Ok(lx)
    }

    fn here(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    /// The next byte without consuming it.
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, ParseError> {
        let pos = self.here();
        match self.src.fill_buf() {
            Ok(b) => Ok(b.first().copied()),
            Err(e) => Err(io_error(pos, e)),
        }
    }

    /// Consumes one byte already peeked, updating line and column (columns count characters:
    /// UTF-8 continuation bytes do not move the column).
    #[inline]
    fn bump(&mut self, b: u8) {
        self.src.consume(1);
        self.offset += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else if b & 0xC0 != 0x80 {
            self.column += 1;
        }
    }

    /// Consumes bytes while `keep` holds, appending them to `raw`, a buffer at a time.
    fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> Result<(), ParseError> {
        loop {
            let pos = self.here();
            let buf = self.src.fill_buf().map_err(|e| io_error(pos, e))?;
            if buf.is_empty() {
                return Ok(());
            }
            let n = buf.iter().position(|&b| !keep(b)).unwrap_or(buf.len());
            let more = n == buf.len();
            let chunk = &buf[..n];
            // None of the bytes kept here is a newline (callers never keep one).
            self.column += chunk.iter().filter(|&&b| b & 0xC0 != 0x80).count();
            self.raw.extend_from_slice(chunk);
            self.src.consume(n);
            self.offset += n as u64;
            if !more {
                return Ok(());
            }
        }
    }

    /// Skips ASCII whitespace, a buffer at a time.
    fn skip_space(&mut self) -> Result<(), ParseError> {
        loop {
            let pos = self.here();
            let buf = self.src.fill_buf().map_err(|e| io_error(pos, e))?;
            if buf.is_empty() {
                return Ok(());
            }
            let n = buf
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(buf.len());
            let more = n == buf.len();
            for &b in &buf[..n] {
                if b == b'\n' {
                    self.line += 1;
                    self.column = 1;
                } else {
                    self.column += 1;
                }
            }
            self.src.consume(n);
            self.offset += n as u64;
            if !more {
                return Ok(());
            }
        }
    }

    /// The current token's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// A short description of the current token for messages.
    pub fn describe(&self) -> String {
        match self.tok {
            Tok::Number => format!("number {}", crate::format::text::shortened(&self.text)),
            Tok::Text => format!("text {}", crate::format::text::quoted(&self.text)),
            Tok::Symbol => crate::format::text::quoted(&self.text),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Comma => "','".into(),
            Tok::Eof => "end of file".into(),
        }
    }

    /// An error at the current token.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            pos: self.pos,
            message: message.into(),
        }
    }

    /// An error saying what was expected instead of the current token.
    pub fn expected(&self, what: &str) -> ParseError {
        self.error(format!("expected {what}, found {}", self.describe()))
    }

    /// Moves `raw` into `text`, requiring UTF-8 (the error names the first bad byte's place).
    fn set_text(&mut self) -> Result<(), ParseError> {
        // The two buffers swap, so the text is never copied.
        match String::from_utf8(std::mem::take(&mut self.raw)) {
            Ok(text) => {
                self.raw = std::mem::replace(&mut self.text, text).into_bytes();
                Ok(())
            }
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                self.raw = e.into_bytes();
                Err(ParseError {
                    pos: self.pos,
                    message: format!(
                        "the file is not valid UTF-8 text (a bad byte {valid} byte(s) into this token)"
                    ),
                })
            }
        }
    }

    /// Moves to the next token.
    pub fn advance(&mut self) -> Result<(), ParseError> {
        self.skip_space()?;
        self.pos = self.here();
        self.raw.clear();
        if let Some(tok) = self.fast_token()? {
            self.tok = tok;
            return Ok(());
        }
        let Some(c) = self.peek()? else {
            self.text.clear();
            self.tok = Tok::Eof;
            return Ok(());
        };
        self.tok = match c {
            b'{' => {
                self.bump(c);
                self.text.clear();
                Tok::LBrace
            }
            b'}' => {
                self.bump(c);
                self.text.clear();
                Tok::RBrace
            }
            b',' => {
                self.bump(c);
                self.text.clear();
                Tok::Comma
            }
            b'"' => {
                self.bump(c);
                self.quoted()?;
                self.set_text()?;
                Tok::Text
            }
            c if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => {
                self.number()?;
                self.set_text()?;
                Tok::Number
            }
            _ => {
                self.take_while(|b| !b.is_ascii_whitespace())?;
                self.set_text()?;
                Tok::Symbol
            }
        };
        Ok(())
    }

    /// The usual tokens, cut straight from the buffer when they lie wholly in it: punctuation,
    /// a label without escapes or newlines, an integer or `p/q`, a symbol. `None` leaves the general
    /// path to handle anything else (including a token cut by the buffer's end).
    #[inline]
    fn fast_token(&mut self) -> Result<Option<Tok>, ParseError> {
        let pos = self.pos;
        let buf = self.src.fill_buf().map_err(|e| io_error(pos, e))?;
        let Some(&c) = buf.first() else {
            return Ok(None);
        };
        let (tok, len, columns) = match c {
            b'{' => (Tok::LBrace, 1, 1),
            b'}' => (Tok::RBrace, 1, 1),
            b',' => (Tok::Comma, 1, 1),
            b'"' => {
                let Some(j) = buf[1..]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\' || b == b'\n')
                else {
                    return Ok(None);
                };
                if buf[1 + j] != b'"' {
                    return Ok(None);
                }
                let body = &buf[1..1 + j];
                let columns = if body.is_ascii() {
                    j
                } else {
                    body.iter().filter(|&&b| b & 0xC0 != 0x80).count()
                };
                self.raw.extend_from_slice(body);
                (Tok::Text, j + 2, columns + 2)
            }
            b'0'..=b'9' | b'-' | b'+' => {
                let digits = |from: usize| {
                    buf[from..]
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .map(|k| from + k)
                };
                let Some(mut end) = digits(1) else {
                    return Ok(None);
                };
                match buf[end] {
                    b'.' | b'e' | b'E' => return Ok(None),
                    b'/' => match digits(end + 1) {
                        Some(e) => end = e,
                        None => return Ok(None),
                    },
                    _ => {}
                }
                self.raw.extend_from_slice(&buf[..end]);
                (Tok::Number, end, end)
            }
            b'.' => return Ok(None),
            _ => {
                let Some(end) = buf.iter().position(|b| b.is_ascii_whitespace()) else {
                    return Ok(None);
                };
                let word = &buf[..end];
                let columns = if word.is_ascii() {
                    end
                } else {
                    word.iter().filter(|&&b| b & 0xC0 != 0x80).count()
                };
                self.raw.extend_from_slice(word);
                (Tok::Symbol, end, columns)
            }
        };
        self.src.consume(len);
        self.offset += len as u64;
        self.column += columns;
        if matches!(tok, Tok::Text | Tok::Number | Tok::Symbol) {
            self.set_text()?;
        } else {
            self.text.clear();
        }
        Ok(Some(tok))
    }

    /// The body of a quoted label after its opening quote, into `raw`. As in Gambit, `\"` is a
    /// quote and a backslash before any other character is kept as it is.
    fn quoted(&mut self) -> Result<(), ParseError> {
        let mut last_slash = false;
        loop {
            if !last_slash {
                // A run without quotes, backslashes or newlines is copied a buffer at a time.
                self.take_while(|b| b != b'"' && b != b'\\' && b != b'\n')?;
            }
            let Some(a) = self.peek()? else {
                return Err(ParseError {
                    pos: self.pos,
                    message: "this label's closing '\"' is missing (end of file reached)".into(),
                });
            };
            self.bump(a);
            if a == b'"' && !last_slash {
                return Ok(());
            }
            if last_slash && a == b'"' {
                self.raw.push(b'"');
            } else if last_slash {
                self.raw.push(b'\\');
                self.raw.push(a);
            } else if a != b'\\' {
                self.raw.push(a);
            }
            // Gambit's rule: a backslash always escapes the next character's quote meaning.
            last_slash = a == b'\\';
        }
    }

    fn take_digits(&mut self) -> Result<(), ParseError> {
        self.take_while(|b| b.is_ascii_digit())
    }

    /// Takes one byte that was peeked into `raw`.
    fn take_byte(&mut self, b: u8) {
        self.bump(b);
        self.raw.push(b);
    }

    /// A number token as Gambit's lexer cuts it, into `raw`: sign, digits, then a fraction `/q`,
    /// a decimal part or an exponent.
    fn number(&mut self) -> Result<(), ParseError> {
        let first = self.peek()?.expect("peeked");
        self.take_byte(first);
        self.take_digits()?;
        match self.peek()? {
            Some(b'.') if first != b'.' => {
                self.take_byte(b'.');
                self.take_digits()?;
                if let Some(e @ (b'e' | b'E')) = self.peek()? {
                    self.exponent(e)?;
                }
            }
            Some(b'/') if first != b'.' => {
                self.take_byte(b'/');
                self.take_digits()?;
            }
            Some(e @ (b'e' | b'E')) if first != b'.' => self.exponent(e)?,
            _ => {}
        }
        Ok(())
    }

    fn exponent(&mut self, e: u8) -> Result<(), ParseError> {
        self.take_byte(e);
        match self.peek()? {
            Some(c) if c == b'+' || c == b'-' || c.is_ascii_digit() => self.take_byte(c),
            _ => {
                return Err(ParseError {
                    pos: self.pos,
                    message: format!(
                        "number {}: expected a sign or digit after the exponent marker",
                        crate::format::text::quoted(&String::from_utf8_lossy(&self.raw))
                    ),
                })
            }
        }
        self.take_digits()
    }

    /// The current number token as an exact value, small when it fits (no allocation then),
    /// then advances.
    pub fn number_value(&mut self, what: &str) -> Result<Number, ParseError> {
        if self.tok != Tok::Number {
            return Err(self.expected(what));
        }
        let v = match parse_small(&self.text) {
            Some(v) => Number::Small(v),
            None => Number::from_rational(self.big_rational(what)?),
        };
        self.advance()?;
        Ok(v)
    }

    fn big_rational(&self, what: &str) -> Result<Rational, ParseError> {
        let t = &self.text;
        if let Some(e) = crate::scalar::too_many_digits(t, crate::scalar::MAX_NUMBER_DIGITS) {
            return Err(self.error(format!("{what}: {e}")));
        }
        parse_rational(t).ok_or_else(|| {
            self.error(format!(
                "{what}: {} is not a number (expected a decimal or p/q with q > 0)",
                crate::format::text::quoted(t)
            ))
        })
    }

    /// The current token as an exact number, then advances.
    pub fn rational(&mut self, what: &str) -> Result<Rational, ParseError> {
        Ok(self.number_value(what)?.to_rational())
    }

    /// The current token as an integer, then advances.
    pub fn integer(&mut self, what: &str) -> Result<i64, ParseError> {
        if self.tok != Tok::Number {
            return Err(self.expected(what));
        }
        let t = &self.text;
        // Plain short digit strings (ids, mostly) skip the general parser.
        if (1..=18).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) {
            let v = t.bytes().fold(0i64, |v, b| v * 10 + i64::from(b - b'0'));
            self.advance()?;
            return Ok(v);
        }
        let v = t
            .strip_prefix('+')
            .unwrap_or(t)
            .parse::<i64>()
            .map_err(|_| {
                self.error(format!(
                    "{what}: {} is not an integer",
                    crate::format::text::quoted(t)
                ))
            })?;
        self.advance()?;
        Ok(v)
    }

    /// The current token as a quoted label, then advances.
    pub fn take_text(&mut self, what: &str) -> Result<String, ParseError> {
        if self.tok != Tok::Text {
            return Err(self.expected(what));
        }
        let t = std::mem::take(&mut self.text);
        self.advance()?;
        Ok(t)
    }

    /// Takes an optional quoted text (a file's comment) if one stands here.
    pub fn optional_text(&mut self) -> Result<Option<String>, ParseError> {
        if self.tok != Tok::Text {
            return Ok(None);
        }
        Ok(Some(self.take_text("text")?))
    }

    /// Requires the current token to be `tok`, then advances.
    pub fn expect(&mut self, tok: Tok, what: &str) -> Result<(), ParseError> {
        if self.tok != tok {
            return Err(self.expected(what));
        }
        self.advance()
    }

    /// Requires the symbol `word`, then advances.
    pub fn keyword(&mut self, word: &str, what: &str) -> Result<(), ParseError> {
        if self.tok == Tok::Symbol && self.text == word {
            self.advance()
        } else {
            Err(self.expected(what))
        }
    }

    /// Checks that the rest of the input (after the last token read) is UTF-8 text, a buffer at
    /// a time, without keeping it.
    pub fn check_rest_utf8(&mut self) -> Result<(), ParseError> {
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let pos = self.here();
            let buf = self.src.fill_buf().map_err(|e| io_error(pos, e))?;
            let end = buf.is_empty();
            let n = buf.len();
            // File offset of carry[0]: its bytes were counted before.
            let start = self.offset - carry.len() as u64;
            carry.extend_from_slice(buf);
            self.src.consume(n);
            match std::str::from_utf8(&carry) {
                Ok(_) => carry.clear(),
                // A character cut at the buffer's end is completed by the next read.
                Err(e) if e.error_len().is_none() && !end => {
                    carry.drain(..e.valid_up_to());
                }
                Err(e) => {
                    return Err(self.error(format!(
                        "the file is not valid UTF-8 text (a bad byte at byte offset {}, after the last node)",
                        start + e.valid_up_to() as u64
                    )))
                }
            }
            self.offset += n as u64;
            if end {
                return Ok(());
            }
        }
    }
}

/// An exact number read from a file: small when numerator and denominator fit in 64 bits.
/// Equal values have equal forms (a value that fits is always `Small`), so the derived `Eq` and
/// `Hash` are the value's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Number {
    /// In lowest terms, fixed size.
    Small(SmallRational),
    /// Anything larger.
    Big(Rational),
}

impl Number {
    /// The canonical form of an exact value.
    pub fn from_rational(r: Rational) -> Self {
        use num_traits::ToPrimitive;
        match (r.numer().to_i64(), r.denom().to_i64()) {
            (Some(numer), Some(denom)) => Number::Small(SmallRational { numer, denom }),
            _ => Number::Big(r),
        }
    }
    /// The exact value.
    pub fn to_rational(&self) -> Rational {
        match self {
            Number::Small(s) => s.to_rational(),
            Number::Big(r) => r.clone(),
        }
    }
    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        match self {
            Number::Small(s) => s.numer < 0,
            Number::Big(r) => num_traits::Signed::is_negative(r),
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `[+-]digits` or `[+-]digits/digits` with both parts in 64 bits (denominator > 0), in lowest
/// terms; `None` for anything else (decimals, exponents, big numbers, bad text), which the exact
/// parser then handles.
fn parse_small(t: &str) -> Option<SmallRational> {
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (p, q) = match body.split_once('/') {
        Some((p, q)) => (p, Some(q)),
        None => (body, None),
    };
    let digits = |s: &str| -> Option<u64> {
        if s.is_empty() || s.len() > 18 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let p = digits(p)?;
    let q = match q {
        Some(q) => digits(q)?,
        None => 1,
    };
    if q == 0 {
        return None;
    }
    let g = gcd(p, q).max(1);
    // Both fit in 60 bits (18 digits), so the casts are exact.
    let numer = (p / g) as i64;
    Some(SmallRational {
        numer: if neg { -numer } else { numer },
        denom: (q / g) as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// All tokens (kind, text, position) or the first error.
    fn tokens<R: BufRead>(src: R) -> Result<Vec<(Tok, String, Pos)>, ParseError> {
        let mut lx = Lexer::new(src)?;
        let mut out = Vec::new();
        while lx.tok != Tok::Eof {
            out.push((lx.tok, lx.text().to_string(), lx.pos));
            lx.advance()?;
        }
        Ok(out)
    }

    #[test]
    fn numbers_are_cut_as_gambit_cuts_them() {
        let t = tokens("1/3 -2 +4 0.5 1e-3 -/3 5/ 7x".as_bytes()).unwrap();
        let texts: Vec<&str> = t.iter().map(|(_, s, _)| s.as_str()).collect();
        assert_eq!(
            texts,
            ["1/3", "-2", "+4", "0.5", "1e-3", "-/3", "5/", "7", "x"]
        );
        assert_eq!(
            parse_small("6/4"),
            Some(SmallRational { numer: 3, denom: 2 })
        );
        assert_eq!(
            parse_small("-0/5"),
            Some(SmallRational { numer: 0, denom: 1 })
        );
        assert_eq!(parse_small("1/0"), None);
        assert_eq!(parse_small("1234567890123456789"), None);
    }

    proptest! {
        /// The in-buffer fast path and the byte-by-byte path (a 1-byte buffer forces the
        /// latter) cut the same tokens at the same places, and fail at the same place.
        #[test]
        fn fast_and_byte_paths_agree(text in "[ \n{},\"\\\\a-c0-9./eE+\u{e9}-]{0,60}") {
            let fast = tokens(std::io::BufReader::with_capacity(1 << 12, text.as_bytes()));
            let slow = tokens(std::io::BufReader::with_capacity(1, text.as_bytes()));
            prop_assert_eq!(fast, slow);
        }
    }
}
