//! The tmux version, read from `tmux -V`.

use std::fmt;

use crate::error::{Error, Result};

/// A tmux version as `tmux -V` prints it: `tmux 3.3a` is 3.3 with suffix `a`; `tmux next-3.6`
/// is 3.6; `tmux master` and `tmux openbsd-7.5` (builds from the development tree or OpenBSD's
/// base) count as newer than any release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxVersion {
    /// Major number (3 in 3.3a).
    pub major: u32,
    /// Minor number (3 in 3.3a).
    pub minor: u32,
    /// What follows the numbers (`a` in 3.3a, `-rc` in 3.4-rc), empty if nothing.
    pub suffix: String,
    /// What `tmux -V` printed, trimmed.
    pub said: String,
}

impl TmuxVersion {
    /// The oldest version tmux-cc supports: 3.3 (plan.md: every fact was measured on 3.3a).
    pub const MIN: (u32, u32) = (3, 3);

    /// Parses the output of `tmux -V`.
    ///
    /// # Errors
    /// [`Error::TmuxVersionUnknown`] when no version is found.
    pub fn parse(said: &str) -> Result<TmuxVersion> {
        let said = said.trim();
        let unknown = || Error::TmuxVersionUnknown {
            said: said.to_string(),
        };
        let rest = said.strip_prefix("tmux ").ok_or_else(unknown)?;
        if rest == "master" || rest.starts_with("openbsd-") {
            return Ok(TmuxVersion {
                major: u32::MAX,
                minor: 0,
                suffix: rest.to_string(),
                said: said.to_string(),
            });
        }
        let rest = rest.strip_prefix("next-").unwrap_or(rest);
        let (major, rest) = split_number(rest).ok_or_else(unknown)?;
        let rest = rest.strip_prefix('.').ok_or_else(unknown)?;
        let (minor, suffix) = split_number(rest).ok_or_else(unknown)?;
        Ok(TmuxVersion {
            major,
            minor,
            suffix: suffix.to_string(),
            said: said.to_string(),
        })
    }

    /// Whether this version is at least [`TmuxVersion::MIN`].
    pub fn is_supported(&self) -> bool {
        (self.major, self.minor) >= Self::MIN
    }
}

fn split_number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, &s[end..]))
}

impl fmt::Display for TmuxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.major == u32::MAX {
            f.write_str(&self.suffix)
        } else {
            write!(f, "{}.{}{}", self.major, self.minor, self.suffix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(said: &str, expect: Option<(u32, u32, &str, bool)>) {
        match (TmuxVersion::parse(said), expect) {
            (Ok(v), Some((major, minor, suffix, ok))) => {
                assert_eq!(
                    (v.major, v.minor, v.suffix.as_str()),
                    (major, minor, suffix)
                );
                assert_eq!(v.is_supported(), ok, "{said}");
            }
            (Err(e), None) => assert!(matches!(e, Error::TmuxVersionUnknown { .. })),
            (got, want) => panic!("{said:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn versions() {
        check("tmux 3.3a\n", Some((3, 3, "a", true)));
        check("tmux 3.2a", Some((3, 2, "a", false)));
        check("tmux 2.9", Some((2, 9, "", false)));
        check("tmux 3.4", Some((3, 4, "", true)));
        check("tmux 3.5a", Some((3, 5, "a", true)));
        check("tmux 3.6-rc", Some((3, 6, "-rc", true)));
        check("tmux next-3.6", Some((3, 6, "", true)));
        check("tmux 10.0", Some((10, 0, "", true)));
        check("tmux master", Some((u32::MAX, 0, "master", true)));
        check("tmux openbsd-7.5", Some((u32::MAX, 0, "openbsd-7.5", true)));
        check("screen 4.0", None);
        check("tmux", None);
        check("tmux 3", None);
        check("", None);
    }
}
