//! Key names for `send_keys` (`docs/design/terminals.md`, send_keys).
//!
//! tmux types a name it does not know as text instead of failing (`Ctrl-C` would be typed rather
//! than interrupting the command), so names are validated before anything is sent. A name is
//! an optional `^` (tmux reads it as `C-`, only first), any number of modifiers `C-`, `M-`, `S-`,
//! then a printable character (one Unicode scalar: `é` and `😀` are keys, `👍🏽` is two) or one
//! of the named keys. Names are case-sensitive (stricter
//! than tmux).
//!
//! Not every combination is a key to tmux 3.3a's `send-keys` (measured here, and checked against
//! tmux by the `keys_match_tmux` test of rat-core): tmux types `S-Enter`, `S-a`, `C-~` or
//! `C-M-1` as text, and sends nothing at all for `C-Enter` or `C-1`. So, as tmux 3.3a does
//! (`input_key` with extended keys off):
//! - `M-` goes with every key;
//! - `S-` only with [`EDIT_KEYS`] and `F1` to `F12` (`S-Up` is `ESC [1;2A`);
//! - `C-` with those, with `Space`, and with the characters that have a control code: a letter,
//!   space, `@ [ \ ] ^ _ ?`, and, without `M-`, `- / 2 6`; never with `Enter`, `Tab`, `BTab`,
//!   `BSpace`, `Escape`.
//!
//! The names shown to agents are [`SHOWN_KEYS`]; tmux 3.3a's aliases (`key-string.c`: `IC`,
//! `DC`, `NPage`, `PgDn`, `PPage`, `PgUp`) are accepted but not shown.

/// The named keys shown to agents, in the order the description lists them (`F1` to `F12` are
/// listed as a range).
pub const SHOWN_KEYS: &[&str] = &[
    "Space", "Enter", "Tab", "BTab", "BSpace", "Escape", "Up", "Down", "Left", "Right", "Home",
    "End", "PageUp", "PageDown", "Insert", "Delete",
];

/// The named keys of [`SHOWN_KEYS`] that take every modifier, `S-` included (with `F1` to
/// `F12`): tmux 3.3a sends them as `ESC [1;<modifiers>X` sequences.
pub const EDIT_KEYS: &[&str] = &[
    "Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "Insert", "Delete",
];

/// tmux 3.3a's other names for keys of [`EDIT_KEYS`] (`key-string.c`), accepted, never shown.
const ALIASES: &[&str] = &["IC", "DC", "NPage", "PgDn", "PPage", "PgUp"];

/// The printable characters `C-` goes with, with or without `M-` (besides letters and space).
const CTRL_CHARS: &str = "@[\\]^_?";

/// The printable characters `C-` goes with only without `M-` (tmux 3.3a types `C-M-2` as text).
const CTRL_ONLY_CHARS: &str = "-/26";

/// Whether `name` is a key name tmux 3.3a's `send-keys` presses as a key: not typed as text, not
/// dropped (the rules are in the module doc).
pub fn is_valid_key(name: &str) -> bool {
    let (mut ctrl, mut meta, mut shift) = (false, false, false);
    let mut rest = name;
    // "^" alone is the key ^; "^x" is C-x, and tmux reads ^ only in first place.
    if rest.len() > 1
        && let Some(after) = rest.strip_prefix('^')
    {
        ctrl = true;
        rest = after;
    }
    // A modifier needs something after it: "C-" alone is not a key, "-" is.
    while rest.len() > 2 {
        let flag = if let Some(after) = rest.strip_prefix("C-") {
            rest = after;
            &mut ctrl
        } else if let Some(after) = rest.strip_prefix("M-") {
            rest = after;
            &mut meta
        } else if let Some(after) = rest.strip_prefix("S-") {
            rest = after;
            &mut shift
        } else {
            break;
        };
        *flag = true;
    }
    let Some(base) = base_key(rest) else {
        return false;
    };
    match base {
        Base::Edit => true,
        Base::Plain if shift => false,
        Base::Plain => !ctrl || rest == "Space",
        Base::Char(_) if shift => false,
        Base::Char(c) => {
            !ctrl
                || c.is_ascii_alphabetic()
                || c == ' '
                || CTRL_CHARS.contains(c)
                || (!meta && CTRL_ONLY_CHARS.contains(c))
        }
    }
}

/// What a key without modifiers is, for the modifiers it takes.
enum Base {
    /// One printable character (space included).
    Char(char),
    /// Space, Enter, Tab, BTab, BSpace, Escape.
    Plain,
    /// [`EDIT_KEYS`], their aliases, F1 to F12.
    Edit,
}

/// A key without modifiers, or None when it is not one.
fn base_key(key: &str) -> Option<Base> {
    let bytes = key.as_bytes();
    if bytes.len() == 1 {
        return (0x20..0x7f)
            .contains(&bytes[0])
            .then_some(Base::Char(char::from(bytes[0])));
    }
    // One character beyond ASCII (é, ж, 😀): tmux 3.3a writes it as UTF-8, and with M- after
    // ESC; with C- or S- it drops the modifier, writing the character alone (refused, by the
    // rules of characters without a control code, and of S-).
    let mut chars = key.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && !c.is_control()
    {
        return Some(Base::Char(c));
    }
    if EDIT_KEYS.contains(&key) || ALIASES.contains(&key) {
        return Some(Base::Edit);
    }
    if SHOWN_KEYS.contains(&key) {
        return Some(Base::Plain);
    }
    key.strip_prefix('F')
        .and_then(|n| n.parse::<u8>().ok().filter(|_| !n.starts_with('0')))
        .is_some_and(|n| (1..=12).contains(&n))
        .then_some(Base::Edit)
}

/// The first key of `keys` that is not a valid name, with its position (from 0).
pub fn first_invalid_key(keys: &[String]) -> Option<(usize, &str)> {
    keys.iter()
        .enumerate()
        .find(|(_, k)| !is_valid_key(k))
        .map(|(i, k)| (i, k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_keys() {
        for key in [
            "a",
            "Z",
            "1",
            ";",
            " ",
            "-",
            "^",
            "~",
            "Enter",
            "Space",
            "BTab",
            "BSpace",
            "Escape",
            "F1",
            "F12",
            "C-c",
            "C-d",
            "M-x",
            "S-Up",
            "C-M-S-Left",
            "C-[",
            "C--",
            "C-/",
            "C-2",
            "C-?",
            "C-Space",
            "C- ",
            "C-M-Space",
            "C-M-?",
            "M-Enter",
            "M-~",
            "M-S-F5",
            "S-C-Up",
            "C-C-a",
            "^C-a",
            "^M-x",
            "^^",
            "S-PgUp",
            "S-IC",
            "^C",
            "^[",
            "IC",
            "DC",
            "NPage",
            "PgDn",
            "PPage",
            "PgUp",
            "Insert",
            "Delete",
            "PageUp",
            "PageDown",
            "Home",
            "End",
            "é",
            "ж",
            "😀",
            "M-é",
        ] {
            assert!(is_valid_key(key), "{key:?} should be valid");
        }
    }

    #[test]
    fn invalid_keys() {
        for key in [
            "",
            "Ctrl-C",
            "enter",
            "ENTER",
            "F0",
            "F13",
            "F01",
            "C-",
            "M-",
            "ab",
            "👍🏽",
            "\u{85}",
            "S-é",
            "\t",
            "\u{7f}",
            "C-Ctrl",
            "Esc",
            "Return",
            "KP1",
            "c-c",
            "aé",
            "C-é",
            "^é",
            // tmux 3.3a types these as text:
            "S-Enter",
            "S-Space",
            "S-BSpace",
            "S-Escape",
            "S-Tab",
            "S-BTab",
            "S-a",
            "S-A",
            "S-1",
            "S- ",
            "C-S-a",
            "M-S-Enter",
            "C-~",
            "C-{",
            "C-$",
            "C-M-1",
            "C-M--",
            "C-M-Enter",
            "M-^a",
            "C-^M-a",
            // and sends nothing for these:
            "C-Enter",
            "C-Tab",
            "C-BTab",
            "C-BSpace",
            "C-Escape",
            "C-1",
            "C-0",
            "C-;",
            "C-.",
            "^1",
            "^Enter",
        ] {
            assert!(!is_valid_key(key), "{key:?} should be invalid");
        }
    }

    #[test]
    fn first_invalid() {
        let keys: Vec<String> = ["C-c", "Enter", "Ctrl-D", "bad"].map(String::from).into();
        assert_eq!(first_invalid_key(&keys), Some((2, "Ctrl-D")));
        assert_eq!(first_invalid_key(&keys[..2]), None);
    }
}
