//! The lexer of Gambit's savefile syntax (shared by the `.efg` and `.nfg` readers).

use super::{ParseError, Pos};
use crate::scalar::{parse_rational, Rational};

/// A token of Gambit's savefile syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A number's text (parsed later, exactly).
    Number(String),
    /// A quoted label, unescaped.
    Text(String),
    /// Any other run of non-space characters.
    Symbol(String),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// End of input.
    Eof,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Number(t) => format!("number {}", crate::format::text::shortened(t)),
            Tok::Text(t) => format!("text {}", crate::format::text::quoted(t)),
            Tok::Symbol(t) => crate::format::text::quoted(t),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Comma => "','".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// Splits Gambit savefile text into tokens, tracking line and column.
pub(crate) struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
    /// The current token and where it starts.
    pub tok: Tok,
    /// Start of the current token.
    pub pos: Pos,
}

impl<'a> Lexer<'a> {
    /// A lexer positioned on the first token.
    pub fn new(text: &'a str) -> Result<Self, ParseError> {
        let mut lx = Lexer {
            chars: text.chars().peekable(),
            line: 1,
            column: 1,
            tok: Tok::Eof,
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

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn take_digits(&mut self, buf: &mut String) {
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            buf.push(c);
            self.bump();
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
        self.error(format!("expected {what}, found {}", self.tok.describe()))
    }

    /// Moves to the next token.
    pub fn advance(&mut self) -> Result<(), ParseError> {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
        self.pos = self.here();
        let Some(c) = self.peek() else {
            self.tok = Tok::Eof;
            return Ok(());
        };
        self.tok = match c {
            '{' => {
                self.bump();
                Tok::LBrace
            }
            '}' => {
                self.bump();
                Tok::RBrace
            }
            ',' => {
                self.bump();
                Tok::Comma
            }
            '"' => {
                self.bump();
                Tok::Text(self.quoted()?)
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => {
                Tok::Number(self.number()?)
            }
            _ => {
                let mut s = String::new();
                while let Some(c) = self.peek().filter(|c| !c.is_whitespace()) {
                    s.push(c);
                    self.bump();
                }
                Tok::Symbol(s)
            }
        };
        Ok(())
    }

    /// The body of a quoted label after its opening quote. As in Gambit, `\"` is a quote and a
    /// backslash before any other character is kept as it is.
    fn quoted(&mut self) -> Result<String, ParseError> {
        let mut s = String::new();
        let mut last_slash = false;
        loop {
            let Some(a) = self.bump() else {
                return Err(ParseError {
                    pos: self.pos,
                    message: "this label's closing '\"' is missing (end of file reached)".into(),
                });
            };
            if a == '"' && !last_slash {
                return Ok(s);
            }
            if last_slash && a == '"' {
                s.push('"');
            } else if last_slash {
                s.push('\\');
                s.push(a);
            } else if a != '\\' {
                s.push(a);
            }
            // Gambit's rule: a backslash always escapes the next character's quote meaning.
            last_slash = a == '\\';
        }
    }

    /// A number token as Gambit's lexer cuts it: sign, digits, then a fraction `/q`, a decimal
    /// part or an exponent.
    fn number(&mut self) -> Result<String, ParseError> {
        let mut buf = String::new();
        let first = self.bump().expect("peeked");
        buf.push(first);
        self.take_digits(&mut buf);
        match self.peek() {
            Some('.') if first != '.' => {
                buf.push('.');
                self.bump();
                self.take_digits(&mut buf);
                if matches!(self.peek(), Some('e' | 'E')) {
                    self.exponent(&mut buf)?;
                }
            }
            Some('/') if first != '.' => {
                buf.push('/');
                self.bump();
                self.take_digits(&mut buf);
            }
            Some('e' | 'E') if first != '.' => self.exponent(&mut buf)?,
            _ => {}
        }
        Ok(buf)
    }

    fn exponent(&mut self, buf: &mut String) -> Result<(), ParseError> {
        buf.push(self.bump().expect("peeked"));
        match self.peek() {
            Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                buf.push(c);
                self.bump();
            }
            _ => {
                return Err(ParseError {
                    pos: self.pos,
                    message: format!(
                        "number {}: expected a sign or digit after the exponent marker",
                        crate::format::text::quoted(buf)
                    ),
                })
            }
        }
        self.take_digits(buf);
        Ok(())
    }

    /// The current token as an exact number, then advances.
    pub fn rational(&mut self, what: &str) -> Result<Rational, ParseError> {
        let Tok::Number(t) = &self.tok else {
            return Err(self.expected(what));
        };
        if let Some(e) = crate::scalar::too_many_digits(t, crate::scalar::MAX_NUMBER_DIGITS) {
            return Err(self.error(format!("{what}: {e}")));
        }
        let v = parse_rational(t).ok_or_else(|| {
            self.error(format!(
                "{what}: {} is not a number (expected a decimal or p/q with q > 0)",
                crate::format::text::quoted(t)
            ))
        })?;
        self.advance()?;
        Ok(v)
    }

    /// The current token as an integer, then advances.
    pub fn integer(&mut self, what: &str) -> Result<i64, ParseError> {
        let Tok::Number(t) = &self.tok else {
            return Err(self.expected(what));
        };
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
    pub fn text(&mut self, what: &str) -> Result<String, ParseError> {
        let Tok::Text(t) = &self.tok else {
            return Err(self.expected(what));
        };
        let t = t.clone();
        self.advance()?;
        Ok(t)
    }

    /// Takes an optional quoted text (a file's comment) if one stands here.
    pub fn optional_text(&mut self) -> Result<Option<String>, ParseError> {
        let Tok::Text(text) = &self.tok else {
            return Ok(None);
        };
        let text = text.clone();
        self.advance()?;
        Ok(Some(text))
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
        match &self.tok {
            Tok::Symbol(s) if s == word => self.advance(),
            _ => Err(self.expected(what)),
        }
    }
}

/// Decodes bytes as UTF-8, naming the line and column of the first bad byte.
pub(crate) fn decode_utf8(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid prefix");
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError {
            pos: Pos { line, column },
            message: "the file is not valid UTF-8 text".into(),
        }
    })
}
