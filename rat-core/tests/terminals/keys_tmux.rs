//! send_keys' key names against tmux itself (`docs/design/terminals.md`, send_keys): an unknown
//! name is refused, naming it, with a pointer to send_text, and nothing is sent.
//!
//! tmux 3.3a's `send-keys` types a name it cannot press as text (`S-Enter` reaches the program as
//! the seven characters), and sends nothing at all for some it parses (`C-1`); `bind-key` accepts
//! both kinds, so it is no oracle. The oracle here is what `send-keys` really writes: a private
//! tmux server, a pane where `cat` copies its raw input into a file, each name sent followed by a
//! 0xff marker byte. A name is a key to tmux when it wrote some bytes and not the name itself;
//! rat must accept exactly those names.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rat_core::terminals::keys::{SHOWN_KEYS, is_valid_key};
use tmux_cc::test_support::SocketGuard;
use tmux_cc::{Difference, Features, TmuxVersion};

/// The private tmux server of this test, killed by its socket on drop, even when the test fails
/// (the guard also removes the socket file tmux 3.3a leaves behind).
struct Server {
    guard: SocketGuard,
}

impl Server {
    fn tmux(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.args(["-L", &self.guard.socket, "-f", "/dev/null"]);
        cmd
    }

    fn run(&self, args: &[&str]) {
        let out = self.tmux().args(args).output().expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The names tried: every base key rat knows (printable ASCII, the shown names, F1 to F12, the
/// aliases) alone, with each modifier and each combination of them, and a few other spellings.
/// Not other cases (`enter`): tmux reads names in any case, rat only as written, on purpose.
fn names() -> Vec<String> {
    let mut bases: Vec<String> = (0x20u8..0x7f).map(|b| char::from(b).to_string()).collect();
    bases.extend(SHOWN_KEYS.iter().map(|k| (*k).to_owned()));
    bases.extend((1..=12).map(|n| format!("F{n}")));
    bases.extend(
        ["IC", "DC", "NPage", "PgDn", "PPage", "PgUp"]
            .iter()
            .map(|k| (*k).to_owned()),
    );
    let prefixes = [
        "", "C-", "M-", "S-", "^", "C-M-", "C-S-", "M-S-", "C-M-S-", "^M-", "^S-",
    ];
    let mut names: Vec<String> = bases
        .iter()
        .flat_map(|b| prefixes.iter().map(move |p| format!("{p}{b}")))
        .collect();
    // Characters beyond ASCII, alone and with each modifier: pressed alone and with M-; tmux
    // drops C- and S- (it writes the character alone).
    for c in ["é", "ж", "😀"] {
        names.extend(
            ["", "M-", "C-", "S-", "^"]
                .iter()
                .map(|p| format!("{p}{c}")),
        );
    }
    names.extend(
        [
            "S-C-Up", "M-C-a", "S-M-Left", "C-C-a", "S-S-Up", "^C-a", "M-^a", "C-^M-a", "^^",
            "M-^", "C-Ctrl", "Ctrl-C", "F13", "F0", "F01", "Esc",
        ]
        .iter()
        .map(|k| (*k).to_owned()),
    );
    names
}

/// The name as one tmux command-language word (source-file), whatever characters it holds.
fn quoted(name: &str) -> String {
    if name.contains('\'') {
        // No name holds both ' and one of the characters special in double quotes.
        assert!(!name.contains(['"', '\\', '$']), "{name}");
        format!("\"{name}\"")
    } else {
        format!("'{name}'")
    }
}

/// What tmux 3.3a's `send-keys NAME` writes to the pane, for each name, in order.
fn sent_by_tmux(server: &Server, dir: &Path, names: &[String]) -> Vec<Vec<u8>> {
    let out = dir.join("input");
    let reader = format!("stty raw -echo && exec cat > '{}'", out.display());
    server.run(&[
        "new-session",
        "-d",
        "-s",
        "keys",
        "-x",
        "200",
        "-y",
        "24",
        "sh",
        "-c",
        &reader,
    ]);
    let start = Instant::now();
    while !out.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "cat never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut script = String::new();
    for name in names {
        script.push_str(&format!("send-keys -t keys -- {}\n", quoted(name)));
        script.push_str("send-keys -t keys -H ff\n");
    }
    let script_path = dir.join("send.tmux");
    std::fs::write(&script_path, script).unwrap();
    server.run(&["source-file", script_path.to_str().unwrap()]);
    let start = Instant::now();
    loop {
        let bytes = std::fs::read(&out).unwrap();
        if bytes.iter().filter(|b| **b == 0xff).count() >= names.len() {
            let mut parts: Vec<Vec<u8>> = bytes.split(|b| *b == 0xff).map(<[u8]>::to_vec).collect();
            parts.truncate(names.len());
            return parts;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "tmux wrote {} of {} markers",
            bytes.iter().filter(|b| **b == 0xff).count(),
            names.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The rows of tmux-cc's version table that hold for the tmux first on PATH (`tmux -V`).
fn features_of_tmux_on_path() -> Features {
    let out = Command::new("tmux").arg("-V").output().expect("tmux -V");
    let version = TmuxVersion::parse(&String::from_utf8_lossy(&out.stdout)).expect("a version");
    Features::of_release(&version).expect("the tests run releases")
}

/// The modifiers of `name` before `base` (`C-M-` of `C-M-Tab`), if it is `base` with some:
/// each of them `C-`, `M-`, `S-` or a leading `^`.
fn modifiers_of<'a>(name: &'a str, base: &str) -> Option<Vec<&'a str>> {
    let mut rest = name.strip_suffix(base)?;
    let mut modifiers = Vec::new();
    if let Some(r) = rest.strip_prefix('^') {
        modifiers.push("C-");
        rest = r;
    }
    while !rest.is_empty() {
        let (m, r) = rest.split_at_checked(2)?;
        if !["C-", "M-", "S-"].contains(&m) {
            return None;
        }
        modifiers.push(m);
        rest = r;
    }
    (!modifiers.is_empty()).then_some(modifiers)
}

/// `C-Tab`, with or without `M-` and `S-` (`^` spelling C- too).
fn is_ctrl_tab(name: &str) -> bool {
    modifiers_of(name, "Tab").is_some_and(|m| m.contains(&"C-"))
}

/// A key, a printable ASCII character or a named one (`Enter`, `BSpace`), with `C-` or `S-`
/// among its modifiers (`C-!`, `M-S-#`, `S-Enter`).
fn is_modified_key(name: &str) -> bool {
    let mut base = name;
    while let Some(rest) = ["C-", "M-", "S-", "^"]
        .iter()
        .find_map(|m| base.strip_prefix(m))
        .filter(|rest| !rest.is_empty())
    {
        base = rest;
    }
    modifiers_of(name, base).is_some_and(|m| m.contains(&"C-") || m.contains(&"S-"))
}

#[test]
fn keys_match_tmux() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server {
        guard: SocketGuard::new("ratkeys"),
    };
    let names = names();
    let features = features_of_tmux_on_path();
    let sent = sent_by_tmux(&server, dir.path(), &names);
    let mut wrong = Vec::new();
    for (name, bytes) in names.iter().zip(&sent) {
        let pressed = !bytes.is_empty() && bytes.as_slice() != name.as_bytes();
        // A one-character name is its own bytes: both pressed and "typed".
        let pressed = pressed || (name.chars().count() == 1 && bytes.as_slice() == name.as_bytes());
        // A modifier tmux drops (C-é and S-é write é): not the key named, so not pressed.
        let dropped = name.chars().count() > 1
            && name
                .strip_prefix("C-")
                .or_else(|| name.strip_prefix("S-"))
                .or_else(|| name.strip_prefix('^'))
                .is_some_and(|base| {
                    base.chars().count() == 1 && bytes.as_slice() == base.as_bytes()
                });
        let pressed = pressed && !dropped;
        // Names newer tmux versions press and 3.3a does not (rows of tmux-cc's version table):
        // rat refuses them on every version, so that an agent gets the same answer whatever
        // the tmux. Every name rat accepts is pressed on every version.
        let newer = (features.has(Difference::KeysCtrlTab) && is_ctrl_tab(name))
            || (features.has(Difference::KeysModifiedCharacters) && is_modified_key(name));
        if pressed && newer && !is_valid_key(name) {
            continue;
        }
        if pressed != is_valid_key(name) {
            wrong.push(format!(
                "{name:?}: tmux wrote {:?}, rat {}",
                String::from_utf8_lossy(bytes),
                if is_valid_key(name) {
                    "accepts"
                } else {
                    "refuses"
                }
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} names disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // The sample is what it claims: keys accepted and refused both, S-Enter typed as text.
    let accepted = names.iter().filter(|n| is_valid_key(n)).count();
    assert!(accepted > 500 && accepted < names.len() - 500, "{accepted}");
    let s_enter = names.iter().position(|n| n == "S-Enter").unwrap();
    if features.has(Difference::KeysModifiedCharacters) {
        assert_eq!(sent[s_enter], b"\r", "S-Enter pressed as Enter");
    } else {
        assert_eq!(sent[s_enter], b"S-Enter");
    }
    let c_one = names.iter().position(|n| n == "C-1").unwrap();
    // Nothing up to 3.6b; 3.7c drops the C- and writes 1.
    let c_one_sent = sent[c_one].as_slice();
    assert!(
        c_one_sent.is_empty()
            || (features.has(Difference::KeysModifiedCharacters) && c_one_sent == b"1"),
        "C-1 wrote {c_one_sent:?}"
    );
    let s_up = names.iter().position(|n| n == "S-Up").unwrap();
    assert_eq!(sent[s_up], b"\x1b[1;2A");
}
