//! Window names (plan.md, "Targets are exact" and "Names"): letters, digits, `_` and `-`, at most
//! 32 characters. In a tmux target, `:` and `.` separate the session, window and pane parts and a
//! leading `=` asks for an exact match: any of them in a name would change what it targets.

/// The longest name accepted, in characters (all ASCII, so bytes too).
pub const MAX_NAME_LEN: usize = 32;

/// The rule told to agents when a window name is refused.
pub(crate) const NAME_RULE: &str = "only letters, digits, '_' and '-', up to 32 characters";

/// Whether `name` is a valid window (or session, or tenant) name: 1 to 32 ASCII letters,
/// digits, `_` or `-`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["main", "build-2", "a_b", "0", &"x".repeat(32)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "a b", "a:b", "a.b", "=a", "é", &"x".repeat(33), "a\n"] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }
}
