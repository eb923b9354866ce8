//! The tmux version, and the one table of what differs from one tmux version to another.
//!
//! Every per-version fact tmux-cc knows is a row of [`DIFFERENCES`]: what differs, the
//! versions it holds for, and how it was found (tmux's CHANGES, the commit, or a measurement on
//! the release builds of the version matrix). The [`Client`](crate::Client) reads the server's
//! version once when it connects (`#{version}`) and takes its [`Features`] from the table; a
//! development build (`master`, `next-3.x`, `openbsd-7.x`), whose version string can not tell,
//! gets each row detected by trying it ([`Difference::probe`]).

use std::fmt;

use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::Reply;

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
    /// The oldest version tmux-cc supports: 3.2 (the facts were measured on 3.3a; what differs in
    /// other releases is a row of [`DIFFERENCES`]).
    pub const MIN: (u32, u32) = crate::error::OLDEST_TMUX;

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

    /// `Ok` when this version is supported, else [`Error::TmuxTooOld`].
    ///
    /// # Errors
    /// [`Error::TmuxTooOld`], naming this version and the minimum.
    pub fn check_supported(&self) -> Result<()> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(Error::TmuxTooOld {
                version: format!("{}.{}", self.major, self.minor),
                said: self.said.clone(),
            })
        }
    }

    /// Whether this is a build from tmux's development tree (`master`, `next-3.6`) or from
    /// OpenBSD's base (`openbsd-7.5`): its version string does not tell which changes it has.
    pub fn is_development(&self) -> bool {
        let rest = self.said.strip_prefix("tmux ").unwrap_or(&self.said);
        rest == "master" || rest.starts_with("next-") || rest.starts_with("openbsd-")
    }
}

/// The tmux versions a [`Row`] holds for: from `from` (a release, `(3, 7)` for 3.7 and its
/// letter releases) up to `until`, excluded (`None`: every later release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// The first release it holds for, as (major, minor).
    pub from: (u32, u32),
    /// The first release it no longer holds for, `None` when it still holds.
    pub until: Option<(u32, u32)>,
}

impl Versions {
    /// Whether `version` (a release) is in the range.
    pub fn contains(&self, version: &TmuxVersion) -> bool {
        let v = (version.major, version.minor);
        v >= self.from && self.until.is_none_or(|until| v < until)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = self.from;
        match self.until {
            None => write!(f, "{a}.{b} and later"),
            Some((c, d)) if (c, d) == (a, b + 1) => write!(f, "{a}.{b} only"),
            Some((c, d)) => write!(f, "{a}.{b} to before {c}.{d}"),
        }
    }
}

/// Something tmux does differently from one version to another, that tmux-cc handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Difference {
    /// `paste-buffer` passes the data through vis(3) (an ESC is pasted as the four characters
    /// `\033`) unless it is given `-S`. tmux-cc's paste then adds `-S`.
    PasteEscapes,
    /// A `$` followed by a letter, `_` or `{` in an option's value is stored as `\$` (by any
    /// client, a forked `tmux set-option` too), so the value read back, by `show-options` or in
    /// a format, is not the value set. tmux-cc removes that one backslash from every option
    /// value it reads ([`Features::option_value`]).
    OptionDollarEscaped,
    /// `new-session -d -x W -y H` sent by a control client makes a window of the control
    /// client's own size (80x24 unless set), whatever W and H, `ignore-size` or not. tmux-cc
    /// then sets its client's size first (`refresh-client -C WxH`, in the same input), so that
    /// the session's program starts at W x H.
    NewSessionSizeIgnored,
    /// `capture-pane -J` gives the blank cells of a joined row as spaces, beyond what was
    /// printed (a row of 250 characters comes back as 300), so printed trailing spaces can not
    /// be told apart from blank cells. Nothing tmux-cc can undo: a caller that trims trailing spaces
    /// (rat does) reads the same text on every version.
    JoinedCapturePadded,
    /// `send-keys` presses `C-Tab` (as Tab) and `C-S-Tab` (as BackTab, `ESC [ Z`), with or
    /// without `M-`, names that 3.3a does not press. Nothing to handle: a caller with a list of
    /// key names of its own (rat's) keeps it the same on every version.
    KeysCtrlTab,
    /// `send-keys` presses `C-` and `S-` with any key, a printable ASCII character or a named
    /// one (`C-!` writes `1`, `C-S-a`, `M-S-#`; `S-Enter` writes CR, `C-M-Escape`), names that
    /// older versions type as text or drop (3.7 also writes `1` for `C-1`).
    /// Nothing to handle, as [`Difference::KeysCtrlTab`].
    KeysModifiedCharacters,
    /// The name tmux makes of a command (`#{pane_current_command}`, an automatic window name)
    /// is passed through vis(3): a backslash is doubled, and a name holding a control
    /// character, or bytes that are not UTF-8, is empty. tmux-cc gives the name this server
    /// shows for a command line's first word ([`Features::command_name`]), so a caller can
    /// tell tmux's name of a process apart from another process's.
    NamesCleaned,
}

/// A way to detect a [`Difference`] by trying it: the commands to send, in one input, and
/// the reading of their replies (true: the server has it).
pub type Probe = (Vec<Command>, fn(&[Reply]) -> bool);

/// One row of [`DIFFERENCES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// What differs (and what tmux-cc does about it).
    pub difference: Difference,
    /// The releases that have it.
    pub versions: Versions,
    /// How it was found: the CHANGES entry, the commit, or the measurement.
    pub found: &'static str,
}

/// Every per-version fact of tmux-cc, one row each. Versions are releases (3.7 covers 3.7a,
/// 3.7b, 3.7c); the matrix (`scripts/tmux-matrix`) runs every test on 3.2a, 3.3a, 3.4, 3.5a,
/// 3.6b and 3.7c.
pub const DIFFERENCES: &[Row] = &[
    Row {
        difference: Difference::PasteEscapes,
        versions: Versions {
            from: (3, 7),
            until: None,
        },
        found: "tmux CHANGES, 3.6b to 3.7: \"Pass paste buffer through vis(3) when pasting to \
                prevent buffers containing for example the bracket end sequence causing \
                issues, a new -S flag disables\"; measured: a paste of ESC arrives as \\033 \
                on 3.7c without -S",
    },
    Row {
        difference: Difference::OptionDollarEscaped,
        versions: Versions {
            from: (3, 4),
            until: Some((3, 5)),
        },
        found: "measured: `set-option @x '$HOME'` then `show-options -v @x` gives \\$HOME on \
                3.4 only, and `#{@x}` too; in tmux 3.4's utf8_strvis the `$` escape is not \
                tied to VIS_DQ, which 3.5 added (`if ((flag & VIS_DQ) && src[0] == '$'`)",
    },
    Row {
        difference: Difference::NewSessionSizeIgnored,
        versions: Versions {
            from: (3, 2),
            until: Some((3, 3)),
        },
        found: "measured: `new-session -d -s b -x 200 -y 24` from a `tmux -C` client with \
                no-output,ignore-size, then `#{window_width}x#{window_height}`: 80x24 on 3.2a \
                (default-size 200x24 set or not; 200x24 after `refresh-client -C 200x24`, and \
                then -x 100 -y 30 gives 200x24 too), 200x24 on 3.3a (tmux-cc's test \
                sessions_are_created_sized_checked_and_killed)",
    },
    Row {
        difference: Difference::JoinedCapturePadded,
        versions: Versions {
            from: (3, 2),
            until: Some((3, 3)),
        },
        found: "measured: `printf %0250d 0 | tr 0 x; echo 'ab   '` in a 200-column pane, then \
                `capture-pane -p -J`: rows of 300 and 50 characters on 3.2a, 250 and 5 on 3.3a \
                (tmux-cc's test captures_screen_history_joined_and_alternate_as_bytes)",
    },
    Row {
        difference: Difference::KeysCtrlTab,
        versions: Versions {
            from: (3, 4),
            until: None,
        },
        found: "measured: rat-core's keys_tmux test (each name sent by send-keys, the bytes the \
                pane reads) on the matrix: C-Tab, C-M-Tab, C-S-Tab and C-M-S-Tab are pressed \
                from 3.4, not on 3.2a and 3.3a",
    },
    Row {
        difference: Difference::KeysModifiedCharacters,
        versions: Versions {
            from: (3, 5),
            until: None,
        },
        found: "measured: rat-core's keys_tmux test on the matrix: 509 more names with C- or S- \
                are pressed by 3.5a and 3.6b, 516 by 3.7c (on printable characters, and on \
                Space, Enter, Tab, BTab, BSpace and Escape), none by 3.4",
    },
    Row {
        difference: Difference::NamesCleaned,
        versions: Versions {
            from: (3, 7),
            until: None,
        },
        found: "the matrix: rat-core's terminals_exact failed on 3.7c only; tmux 3.7c's names.c \
                ends parse_window_name with clean_name (tmux.c: utf8_isvalid refuses a byte \
                under 0x20 or over 0x7e outside UTF-8, then utf8_stravis with VIS_OCTAL, \
                VIS_CSTYLE, VIS_TAB, VIS_NL); measured: a program run as `./back\\slash p` shows \
                as `./back\\\\slash`, one run as `./$'tab\\tprog'` as an empty name, on 3.7c only",
    },
];

impl Difference {
    /// The row of this difference in [`DIFFERENCES`].
    pub fn row(self) -> &'static Row {
        DIFFERENCES
            .iter()
            .find(|row| row.difference == self)
            .expect("every difference has its row")
    }

    /// How to detect it by trying, on a server whose version string can not tell: the
    /// commands to send (with `session`, an exact `=NAME:` target of a session the caller
    /// owns), and how to read their replies (true: the server has this difference). `None`
    /// where no probe is needed: a development build, newer than the releases, is taken to
    /// have what the newest release has (the row holds when its range has no end).
    pub fn probe(self, session: &str) -> Option<Probe> {
        Some(match self {
            // An unknown flag is refused before the buffer is looked up (`unknown flag -S`,
            // 3.2a: `unknown option -- S`); a tmux with -S answers `no buffer NAME`.
            Difference::PasteEscapes => (
                vec![Command::new("paste-buffer").args([
                    "-S",
                    "-b",
                    "tmux-cc-probe-no-such-buffer",
                    "-t",
                    session,
                ])],
                |replies| {
                    replies.first().is_some_and(|r| {
                        r.lines
                            .iter()
                            .any(|l| String::from_utf8_lossy(l).starts_with("no buffer"))
                    })
                },
            ),
            Difference::NewSessionSizeIgnored
            | Difference::JoinedCapturePadded
            | Difference::NamesCleaned
            | Difference::KeysCtrlTab
            | Difference::KeysModifiedCharacters => return None,
            Difference::OptionDollarEscaped => (
                vec![
                    Command::new("set-option").args(["-t", session, "@tmux-cc-probe", "$a"]),
                    Command::new("show-options").args(["-v", "-t", session, "@tmux-cc-probe"]),
                    Command::new("set-option").args(["-u", "-t", session, "@tmux-cc-probe"]),
                ],
                |replies| {
                    replies
                        .get(1)
                        .is_some_and(|r| r.lines.first().is_some_and(|l| l == b"\\$a"))
                },
            ),
        })
    }
}

/// What the connected server does differently: the rows of [`DIFFERENCES`] that hold for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features {
    has: Vec<Difference>,
}

impl Features {
    /// The rows that hold for `version`, from the table; `None` for a development build,
    /// whose differences are detected by trying them.
    pub fn of_release(version: &TmuxVersion) -> Option<Features> {
        if version.is_development() {
            return None;
        }
        Some(Features {
            has: DIFFERENCES
                .iter()
                .filter(|row| row.versions.contains(version))
                .map(|row| row.difference)
                .collect(),
        })
    }

    /// Features with exactly these differences (detected by trying them).
    pub(crate) fn with(has: impl IntoIterator<Item = Difference>) -> Features {
        Features {
            has: has.into_iter().collect(),
        }
    }

    /// Whether the server has `difference`.
    pub fn has(&self, difference: Difference) -> bool {
        self.has.contains(&difference)
    }

    /// The flags of `paste-buffer` that paste the buffer as it is, as a bracketed paste when
    /// the program asked for one: `-p -r`, and `-S` where tmux escapes pastes otherwise.
    pub fn paste_flags(&self) -> &'static [&'static str] {
        if self.has(Difference::PasteEscapes) {
            &["-p", "-r", "-S"]
        } else {
            &["-p", "-r"]
        }
    }

    /// The name this server gives a command whose first word (as tmux cuts it: at the first
    /// space, trailing non-ASCII removed, the last component of an absolute path) is `name`:
    /// `name` itself, or on a server with [`Difference::NamesCleaned`] its backslashes doubled
    /// and empty when it holds a control character or is not UTF-8.
    pub fn command_name(&self, name: &[u8]) -> Vec<u8> {
        if !self.has(Difference::NamesCleaned) {
            return name.to_vec();
        }
        match std::str::from_utf8(name) {
            Ok(text) if !text.chars().any(char::is_control) => {
                let mut out = Vec::with_capacity(name.len());
                for &b in name {
                    if b == b'\\' {
                        out.push(b'\\');
                    }
                    out.push(b);
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// An option's value as it was set, from what the server gives back (`show-options`, a
    /// format): on a server with [`Difference::OptionDollarEscaped`], the backslash tmux
    /// put before each `$` followed by a letter, `_` or `{` is removed (tmux adds exactly one
    /// before each, so this gives back the value set, whatever it held). Unchanged elsewhere.
    pub fn option_value(&self, value: Vec<u8>) -> Vec<u8> {
        if !self.has(Difference::OptionDollarEscaped) {
            return value;
        }
        let mut out = Vec::with_capacity(value.len());
        let mut i = 0;
        while i < value.len() {
            let escaped_dollar = value[i] == b'\\'
                && value.get(i + 1) == Some(&b'$')
                && value
                    .get(i + 2)
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'{');
            if !escaped_dollar {
                out.push(value[i]);
            }
            i += 1;
        }
        out
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
        check("tmux 3.2a", Some((3, 2, "a", true)));
        check("tmux 3.1c", Some((3, 1, "c", false)));
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

    fn release(said: &str) -> Features {
        Features::of_release(&TmuxVersion::parse(said).unwrap()).unwrap()
    }

    #[test]
    fn each_release_of_the_matrix_has_its_rows() {
        use Difference::*;
        let rows = |said: &str| -> Vec<Difference> {
            let f = release(said);
            [
                PasteEscapes,
                OptionDollarEscaped,
                NewSessionSizeIgnored,
                JoinedCapturePadded,
                KeysCtrlTab,
                KeysModifiedCharacters,
            ]
            .into_iter()
            .filter(|d| f.has(*d))
            .collect()
        };
        assert_eq!(
            rows("tmux 3.2a"),
            vec![NewSessionSizeIgnored, JoinedCapturePadded]
        );
        assert_eq!(rows("tmux 3.3a"), vec![]);
        assert_eq!(rows("tmux 3.4"), vec![OptionDollarEscaped, KeysCtrlTab]);
        assert_eq!(rows("tmux 3.5a"), vec![KeysCtrlTab, KeysModifiedCharacters]);
        assert_eq!(rows("tmux 3.6b"), vec![KeysCtrlTab, KeysModifiedCharacters]);
        let newest = vec![PasteEscapes, KeysCtrlTab, KeysModifiedCharacters];
        assert_eq!(rows("tmux 3.7c"), newest);
        assert_eq!(rows("tmux 3.8"), newest);
        assert_eq!(release("tmux 3.6b").paste_flags(), ["-p", "-r"]);
        assert_eq!(release("tmux 3.7").paste_flags(), ["-p", "-r", "-S"]);
        for dev in ["tmux master", "tmux next-3.7", "tmux openbsd-7.6"] {
            let version = TmuxVersion::parse(dev).unwrap();
            assert!(version.is_development(), "{dev}");
            assert_eq!(Features::of_release(&version), None, "{dev}");
        }
        assert!(!TmuxVersion::parse("tmux 3.6-rc").unwrap().is_development());
    }

    #[test]
    fn every_difference_has_one_row_with_its_source() {
        for row in DIFFERENCES {
            assert_eq!(row.difference.row(), row);
            assert!(!row.found.is_empty());
        }
        assert_eq!(
            Difference::PasteEscapes.row().versions.to_string(),
            "3.7 and later"
        );
        assert_eq!(
            Difference::OptionDollarEscaped.row().versions.to_string(),
            "3.4 only"
        );
    }

    /// tmux 3.4's rule (utf8_strvis): a backslash before each `$` followed by an ASCII letter,
    /// `_` or `{`.
    fn escape_like_3_4(value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, &b) in value.iter().enumerate() {
            let next = value.get(i + 1).copied();
            if b == b'$' && next.is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'{')
            {
                out.push(b'\\');
            }
            out.push(b);
        }
        out
    }

    #[test]
    fn option_values_escaped_by_3_4_read_back_as_set() {
        let on_3_4 = release("tmux 3.4");
        let values: [&[u8]; 10] = [
            b"$HOME",
            b"\\$HOME",
            b"\\\\$HOME",
            b"${x}y $_z",
            b"$1 $$ $ $-",
            b"a$",
            b"$$HOME",
            b"\\",
            "caf\u{e9} $\u{e9}t\u{e9}".as_bytes(),
            b"",
        ];
        for value in values {
            let stored = escape_like_3_4(value);
            assert_eq!(on_3_4.option_value(stored.clone()), value, "{stored:?}");
            // Other versions store values as they are: nothing is taken away.
            assert_eq!(release("tmux 3.5a").option_value(value.to_vec()), value);
        }
        assert_eq!(escape_like_3_4(b"x\\$y $z $$ $"), b"x\\\\$y \\$z $$ $");
    }
    #[test]
    fn command_names_as_each_version_shows_them() {
        let cases: [(&[u8], &[u8]); 7] = [
            (b"vim", b"vim"),
            (b"../back\\slash", b"../back\\\\slash"),
            (b"tab\tprog", b""),
            (b"ctl\x01", b""),
            (b"del\x7f", b""),
            (b"caf\xe9", b""),
            (
                "\u{e9}t\u{e9} \u{2713}".as_bytes(),
                "\u{e9}t\u{e9} \u{2713}".as_bytes(),
            ),
        ];
        for (name, on_3_7) in cases {
            assert_eq!(release("tmux 3.7c").command_name(name), on_3_7, "{name:?}");
            assert_eq!(release("tmux 3.6b").command_name(name), name, "{name:?}");
        }
    }
}
