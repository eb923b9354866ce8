//! Window names (`docs/design/terminals.md`, Sessions and windows): letters, digits, `_` and `-`,
//! at most 32 characters, not digits only: tmux 3.3a reads a window part of digits only as an
//! index, even after the `=` asking for an exact name (with windows main(0), build(1) and `1`(2),
//! `kill-window -t '=s:=1'` killed build). In a tmux target, `:` and `.` separate the session,
//! window and pane parts and a leading `=` asks for an exact match: any of them in a name would
//! change what it targets.

/// The longest name accepted, in characters (all ASCII, so bytes too).
pub const MAX_NAME_LEN: usize = 32;

/// The rule shown to agents when a window name is refused.
pub(crate) const NAME_RULE: &str = "only letters, digits, '_' and '-', up to 32 characters, not \
     digits only (tmux reads those as a window index)";

/// Whether `name` is a valid session (or tenant) name: 1 to 32 ASCII letters, digits, `_` or
/// `-`. A session part `=NAME` is matched by name only, digits included.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether `name` is a valid window name: a valid name ([`is_valid_name`]) not of digits only,
/// which tmux would take for a window index in a target (`=s:=1` is the window at index 1).
pub fn is_valid_window_name(name: &str) -> bool {
    is_valid_name(name) && !name.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["main", "build-2", "a_b", "1a", "-1", &"x".repeat(32)] {
            assert!(is_valid_window_name(good), "{good}");
        }
        // Sessions and tenants may be digits only; windows may not.
        for digits in ["0", "1", "007"] {
            assert!(is_valid_name(digits), "{digits}");
            assert!(!is_valid_window_name(digits), "{digits}");
        }
        for bad in ["", "a b", "a:b", "a.b", "=a", "é", &"x".repeat(33), "a\n"] {
            assert!(!is_valid_name(bad), "{bad:?}");
            assert!(!is_valid_window_name(bad), "{bad:?}");
        }
    }
}
