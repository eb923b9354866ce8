//! Plain names: what a tenant and a client (session) may be called: letters, digits, `_`, `-`,
//! at most 32 characters, as window names (`docs/design/bundles.md`, Names).

/// The longest plain name, in bytes (= characters, as only ASCII is allowed). For tenants it
/// keeps the tmux socket path (`/tmp/tmux-UID/rat-TENANT`) well under the Unix socket path limit.
pub const MAX_NAME_LEN: usize = 32;

/// Why a name is not a plain name, shown after the name itself in errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid name {name:?}: only letters, digits, '_' and '-' are allowed (1 to {max} characters)",
    max = MAX_NAME_LEN
)]
pub struct InvalidName {
    /// The name refused, as given.
    pub name: String,
}

/// Checks that `name` is a plain name: 1 to [`MAX_NAME_LEN`] ASCII letters, digits, `_` or `-`.
/// The empty name is refused.
///
/// # Errors
/// [`InvalidName`] naming the refused name.
pub fn check_name(name: &str) -> Result<(), InvalidName> {
    let plain = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain {
        Ok(())
    } else {
        Err(InvalidName {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names() {
        for ok in ["a", "prod", "web-1", "A_b-9", &"x".repeat(32)] {
            assert_eq!(check_name(ok), Ok(()), "{ok}");
        }
        for bad in ["", "a b", "a.b", "é", "a:b", "a/b", &"x".repeat(33)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert_eq!(
            check_name("a b").unwrap_err().to_string(),
            "invalid name \"a b\": only letters, digits, '_' and '-' are allowed (1 to 32 characters)"
        );
    }
}
