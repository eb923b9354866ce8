//! Key names for `send_keys` (ratd-design.txt, Tools: send_keys; plan.md, "Input").
//!
//! tmux types a name it does not know as text instead of failing (`Ctrl-C` would be typed rather
//! than interrupting the command), so names are validated before anything is sent. A name is
//! any number of modifiers `C-`, `M-`, `S-` (tmux also reads `^` as `C-`) followed by a printable
//! ASCII character or one of the named keys. Names are case-sensitive (stricter than tmux).
//!
//! The names shown to agents are [`SHOWN_KEYS`]; tmux 3.3a's aliases (`key-string.c`: `IC`,
//! `DC`, `NPage`, `PgDn`, `PPage`, `PgUp`) are accepted but not shown.

/// The named keys told to agents, in the order the description lists them (`F1` to `F12` are
/// told as a range).
pub const SHOWN_KEYS: &[&str] = &[
    "Space", "Enter", "Tab", "BTab", "BSpace", "Escape", "Up", "Down", "Left", "Right", "Home",
    "End", "PageUp", "PageDown", "Insert", "Delete",
];

/// tmux 3.3a's other names for keys of [`SHOWN_KEYS`] (`key-string.c`), accepted, never shown.
const ALIASES: &[&str] = &["IC", "DC", "NPage", "PgDn", "PPage", "PgUp"];

/// Whether `name` is a key name tmux presses as a key (not types as text).
pub fn is_valid_key(name: &str) -> bool {
    let mut rest = name;
    loop {
        // A modifier needs something after it: "C-" alone is not a key, "-" is.
        if rest.len() > 2 && matches!(&rest[..2], "C-" | "M-" | "S-") {
            rest = &rest[2..];
        } else if rest.len() > 1 && rest.starts_with('^') {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    is_base_key(rest)
}

/// A key without modifiers: one printable ASCII character (space included), or a name.
fn is_base_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    if bytes.len() == 1 {
        return (0x20..0x7f).contains(&bytes[0]);
    }
    if SHOWN_KEYS.contains(&key) || ALIASES.contains(&key) {
        return true;
    }
    key.strip_prefix('F')
        .and_then(|n| n.parse::<u8>().ok().filter(|_| !n.starts_with('0')))
        .is_some_and(|n| (1..=12).contains(&n))
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
        ] {
            assert!(is_valid_key(key), "{key:?} should be valid");
        }
    }

    #[test]
    fn invalid_keys() {
        for key in [
            "", "Ctrl-C", "enter", "ENTER", "F0", "F13", "F01", "C-", "M-", "é", "ab", "\t",
            "\u{7f}", "C-Ctrl", "Esc", "Return", "KP1", "c-c",
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
