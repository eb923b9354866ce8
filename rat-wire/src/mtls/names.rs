//! Plain names: what a tenant and a client (session) may be called: letters, digits, `_`, `-`,
//! at most 32 characters, as window names (`docs/design/bundles.md`, Names).

/// The longest plain name, in bytes (= characters, as only ASCII is allowed). For tenants it
/// keeps the tmux socket path (`/tmp/tmux-UID/rat-TENANT`) well under the Unix socket path limit.
pub const MAX_NAME_LEN: usize = 32;

/// The beginning of the names of the tmux sessions tmux-cc makes for itself by default
/// (`tmux-cc-PID-N`, and `-blocking`, `-events` after them), which ratd used for its own
/// sessions before it named them with a `+` (see [`check_client_name`]). Kept from client names.
pub const RESERVED_CLIENT_PREFIX: &str = "tmux-cc-";

/// Why a name is not a plain name, or not a client name, shown after the name itself in errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidName {
    /// The name refused, as given.
    pub name: String,
    /// Whether the name is plain but kept for ratd's own tmux sessions
    /// ([`RESERVED_CLIENT_PREFIX`]).
    pub reserved: bool,
}

impl std::fmt::Display for InvalidName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.reserved {
            write!(
                f,
                "invalid name {:?}: a client name may not begin with {RESERVED_CLIENT_PREFIX}, which names the tmux sessions ratd uses itself (choose another client name)",
                self.name
            )
        } else {
            write!(
                f,
                "invalid name {:?}: only letters, digits, '_' and '-' are allowed (1 to {MAX_NAME_LEN} characters)",
                self.name
            )
        }
    }
}

impl std::error::Error for InvalidName {}

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
            reserved: false,
        })
    }
}

/// Checks that `name` can name a client (its tmux session): a plain name ([`check_name`]) that
/// does not begin with [`RESERVED_CLIENT_PREFIX`]. No client name can equal a session ratd uses
/// itself: those hold a `+` (`ratd+PID+N`, `ratd+PID+N-blocking`, `ratd+PID+N-events`), which
/// no plain name holds, and tmux keeps in session names (it changes only `.` and `:`).
///
/// # Errors
/// [`InvalidName`] naming the refused name.
pub fn check_client_name(name: &str) -> Result<(), InvalidName> {
    check_name(name)?;
    if name.starts_with(RESERVED_CLIENT_PREFIX) {
        return Err(InvalidName {
            name: name.to_owned(),
            reserved: true,
        });
    }
    Ok(())
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

    #[test]
    fn client_names_never_name_ratds_own_sessions() {
        assert_eq!(check_client_name("alice"), Ok(()));
        assert_eq!(check_client_name("tmux-cc"), Ok(()));
        for own in ["ratd+41+0", "ratd+41+0-blocking", "ratd+41+0-events"] {
            assert!(!check_client_name(own).unwrap_err().reserved, "{own}");
        }
        assert_eq!(
            check_client_name("tmux-cc-1-0").unwrap_err().to_string(),
            "invalid name \"tmux-cc-1-0\": a client name may not begin with tmux-cc-, which names the tmux sessions ratd uses itself (choose another client name)"
        );
        // A name tmux-cc gave a session by default stays a valid tenant name.
        assert_eq!(check_name("tmux-cc-1-0"), Ok(()));
    }
}
