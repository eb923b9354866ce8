//! Control characters in `send_text` (`docs/design/terminals.md`, send_text).
//!
//! Any Unicode control character (general category Cc: U+0000 to U+001F, U+007F to U+009F) but
//! tab and new line is refused: pasted, an ESC could end the bracketed paste early and run the
//! line (tmux 3.3a does not sanitise pastes), a CR runs the line, and a C-c or C-d typed inside
//! the text is a key the agent meant to press with `send_keys`. Nothing is sent.

/// The first control character refused in a text input: the character and its line (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlChar {
    /// The character.
    pub ch: char,
    /// Its line in the text, counted from 1 (new lines separate lines).
    pub line: usize,
}

impl ControlChar {
    /// How the character is named to agents: `U+001B (escape)`, `U+0003 (C-c)`, `U+0085`.
    pub fn describe(&self) -> String {
        let code = self.ch as u32;
        let name = match code {
            0x00 => Some("NUL"),
            0x01..=0x1a => None,
            0x1b => Some("escape"),
            0x7f => Some("delete"),
            _ => None,
        };
        let name = match (code, name) {
            (0x08, _) => Some("backspace".to_string()),
            (0x0d, _) => Some("carriage return".to_string()),
            (0x07, _) => Some("bell".to_string()),
            (0x0b, _) => Some("vertical tab".to_string()),
            (0x0c, _) => Some("form feed".to_string()),
            (0x01..=0x1a, None) => Some(format!("C-{}", (b'a' + (code as u8) - 1) as char)),
            (_, Some(n)) => Some(n.to_string()),
            _ => None,
        };
        match name {
            Some(n) => format!("U+{code:04X} ({n})"),
            None => format!("U+{code:04X}"),
        }
    }
}

/// The first control character of `text` that `send_text` refuses, if any.
pub fn first_control_char(text: &str) -> Option<ControlChar> {
    let mut line = 1;
    for ch in text.chars() {
        match ch {
            '\n' => line += 1,
            '\t' => {}
            c if c.is_control() => return Some(ControlChar { ch: c, line }),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed() {
        assert_eq!(first_control_char("a\tb\nc é ✓ 漢字 🐀\n"), None);
    }

    #[test]
    fn refused() {
        let c = first_control_char("ok\nline 2\nx\u{1b}[201~\r").unwrap();
        assert_eq!((c.ch, c.line), ('\u{1b}', 3));
        assert_eq!(c.describe(), "U+001B (escape)");
        let describe = |s: &str| first_control_char(s).unwrap().describe();
        assert_eq!(describe("a\r\n"), "U+000D (carriage return)");
        assert_eq!(describe("\u{3}"), "U+0003 (C-c)");
        assert_eq!(describe("\u{4}"), "U+0004 (C-d)");
        assert_eq!(describe("\u{0}"), "U+0000 (NUL)");
        assert_eq!(describe("\u{7f}"), "U+007F (delete)");
        assert_eq!(describe("\u{85}"), "U+0085");
        assert_eq!(describe("\u{8}"), "U+0008 (backspace)");
    }
}
