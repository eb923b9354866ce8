//! Secrets never reach the model (`docs/design/secrets.md`): every text ratd answers is masked,
//! each secret replaced by a placeholder naming its kind, unique within the session
//! (`[secret:github-token:k7f3]`); a placeholder in send_text's text or write_file's content is
//! put back to the real value before it reaches the terminal or the file.
//!
//! - [`Secrets`]: the mode (`ratd --secrets mask|show`) and a [`Vault`] per tmux session.
//! - [`Vault`]: the session's placeholders (at most [`Vault::LIMIT`], the oldest forgotten
//!   first), [`Vault::mask`] and [`Vault::restore`].
//! - `rules`: what counts as a secret, each rule with its source; `scan`: one pass of an
//!   Aho-Corasick automaton over the text for the rules' keywords, each found checked where it
//!   stands: no regex, and no allocation for text with nothing to mask; `text`: what both
//!   share (the text as a rule reads it, and what a rule finds).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::result::ToolResult;

mod rules;
mod scan;
#[cfg(any(test, feature = "test-support"))]
pub mod synthetic;
#[cfg(test)]
mod tests;
mod text;

use scan::Scanner;
pub use text::How;
use text::Kind;

/// The rules, as `(kind, source)`: what each masks and where its format is documented. An
/// assignment's kind is the one its name says (`token`, `password`, ...).
pub fn rules() -> impl Iterator<Item = (&'static str, &'static str)> {
    rules::RULES.iter().map(|rule| (rule.kind, rule.source))
}

/// The sentence a tool's description adds when secrets are masked, for the tools whose
/// answers or inputs meet them: an agent knows a placeholder is a secret it may use, not a bug.
pub fn described(tool: &str) -> Option<&'static str> {
    match tool {
        "read_window" | "wait_window" | "read_file" => Some(
            " Secrets in the answer (tokens, keys, passwords) are replaced by placeholders such as \
             [secret:github-token:k7f3]: use them as the values, send_text and write_file put the \
             real ones back.",
        ),
        "send_text" | "write_file" => Some(
            " A placeholder of a secret ([secret:KIND:ID], as answers show them) is replaced by its \
             real value before it reaches the terminal or the file.",
        ),
        _ => None,
    }
}

/// Whether ratd masks secrets (`ratd --secrets`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Secrets masked in every answer, placeholders restored in every input (the default).
    #[default]
    Mask,
    /// Raw output, for a tenant that wants it: nothing masked, nothing restored.
    Show,
}

/// The secrets of a tenant: its mode, and a vault per tmux session.
#[derive(Debug, Default)]
pub struct Secrets {
    mode: Mode,
    vaults: Mutex<HashMap<String, Arc<Vault>>>,
}

impl Secrets {
    /// The secrets of a tenant in `mode`.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            vaults: Mutex::default(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The vault of `session`, made at its first use; `None` when secrets are shown.
    pub fn vault(&self, session: &str) -> Option<Arc<Vault>> {
        if self.mode == Mode::Show {
            return None;
        }
        let mut vaults = self.vaults.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(vault) = vaults.get(session) {
            return Some(vault.clone());
        }
        Some(vaults.entry(session.to_owned()).or_default().clone())
    }
}

/// A placeholder's id: 4 characters of `[a-z0-9]`.
type Id = [u8; 4];

/// A session's placeholders, and the values of secret-named variables its shells hold.
pub struct Vault {
    store: Mutex<Store>,
    scanner: RwLock<Arc<Scanner>>,
    /// The processes whose environment was read (each is read once: it never changes).
    environs: Mutex<HashSet<u32>>,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values.
        f.debug_struct("Vault").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Store {
    by_value: HashMap<Box<str>, Id>,
    by_id: HashMap<Id, (Box<str>, Box<str>)>,
    order: VecDeque<Id>,
    keys: RandomState,
    /// Secret-named variables (name, value) of the session's shells, in the scanner's order.
    known: Vec<(Box<str>, Box<str>)>,
}

/// The rules alone, built once.
fn base_scanner() -> Arc<Scanner> {
    static BASE: OnceLock<Arc<Scanner>> = OnceLock::new();
    BASE.get_or_init(|| Arc::new(Scanner::new(&[]))).clone()
}

impl Default for Vault {
    fn default() -> Self {
        Self {
            store: Mutex::default(),
            scanner: RwLock::new(base_scanner()),
            environs: Mutex::default(),
        }
    }
}

/// A placeholder in an input that the session does not know: nothing is sent or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// The placeholder, as the input holds it.
    pub placeholder: String,
}

impl Unknown {
    /// The result refusing a call of `tool` whose `what` ("text", "content") holds it.
    pub fn refusal(&self, tool: &str, what: &str) -> ToolResult {
        ToolResult::refused(
            format!(
                "The {what} of {tool} holds {}, a placeholder this session does not know (masked \
                 in another session, or before ratd restarted). Nothing was sent or written: read \
                 the secret again to get its placeholder.",
                self.placeholder
            ),
            "unknown placeholder",
        )
    }
}

/// The most known values (secret-named variables) a session keeps: with the rules' keywords,
/// within the 64 patterns of the prefilter's SIMD search.
const KNOWN_LIMIT: usize = 16;

impl Vault {
    /// The most placeholders a session keeps: past it, the oldest is forgotten (its placeholder
    /// refused from then on; the secret gets a new one when it is read again).
    pub const LIMIT: usize = 4096;

    /// `text` with every secret replaced by its placeholder; borrowed when there is none.
    pub fn mask<'a>(&self, text: &'a str, how: How) -> Cow<'a, str> {
        let scanner = self
            .scanner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut found = scanner.find(text, how);
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        // A placeholder is never masked again, nor any part of it: a URL's password or an
        // Authorization header's credentials that are a placeholder already (an answer masked
        // twice, or text the agent wrote back) keep it, so that it restores to the value.
        let placeholders = placeholder_spans(text);
        if !placeholders.is_empty() {
            found.retain(|hit| {
                !placeholders
                    .iter()
                    .any(|&(start, end)| hit.start < end && start < hit.end)
            });
            if found.is_empty() {
                return Cow::Borrowed(text);
            }
        }
        let mut store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::with_capacity(text.len() + found.len() * 24);
        let mut last = 0;
        for hit in &found {
            out.push_str(&text[last..hit.start]);
            let raw = &text[hit.start..hit.end];
            let (kind, value): (Cow<str>, Cow<str>) = match hit.kind {
                Kind::Named(kind) if kind != "private-key" && raw.contains('\n') => {
                    (kind.into(), raw.replace('\n', "").into())
                }
                Kind::Named(kind) => (kind.into(), raw.into()),
                Kind::Known(i) => (env_kind(&store.known[i].0).into(), raw.into()),
            };
            store.placeholder(&kind, &value, &mut out);
            if how.keep_lines {
                out.extend(raw.bytes().filter(|&b| b == b'\n').map(|_| '\n'));
            }
            last = hit.end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// The result's text masked (a whole answer: no open end, lines not kept).
    pub fn mask_result(&self, result: &mut ToolResult) {
        if let Cow::Owned(masked) = self.mask(&result.text, How::default()) {
            result.text = masked;
        }
    }

    /// The end of `content` masked, for a cut of its start to `keep` bytes: at least `keep` bytes
    /// of the masked text (whole lines, from a line start), or all of it. What is left out is
    /// never shown; masked first, a cut leaves no piece of a secret.
    pub fn mask_end(&self, content: &str, keep: usize, how: How) -> String {
        let bytes = content.as_bytes();
        let mut margin = 8 * 1024;
        loop {
            let mut from = content.len().saturating_sub(keep + margin);
            if from > 0 {
                // From a line's start: a token is never cut (a key block's END finds its lines).
                from = memchr::memrchr(b'\n', &bytes[..from]).map_or(0, |i| i + 1);
            }
            let masked = self.mask(&content[from..], how);
            if from == 0 || masked.len() >= keep + 1024 {
                return masked.into_owned();
            }
            margin *= 4;
        }
    }

    /// `text` with every placeholder of this session replaced by its value; an unknown one
    /// refuses the whole text. A text without `[secret:` is borrowed, untouched.
    pub fn restore<'a>(&self, text: &'a str) -> Result<Cow<'a, str>, Unknown> {
        let mut places = memchr::memmem::find_iter(text.as_bytes(), b"[secret:").peekable();
        if places.peek().is_none() {
            return Ok(Cow::Borrowed(text));
        }
        let store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for at in places {
            if at < last {
                continue;
            }
            let Some((kind, id, end)) = parse_placeholder(&text[at..]) else {
                continue;
            };
            match store.by_id.get(&id) {
                Some((known, value)) if **known == *kind => {
                    out.push_str(&text[last..at]);
                    out.push_str(value);
                    last = at + end;
                }
                _ => {
                    return Err(Unknown {
                        placeholder: text[at..at + end].to_owned(),
                    });
                }
            }
        }
        if last == 0 {
            return Ok(Cow::Borrowed(text));
        }
        out.push_str(&text[last..]);
        Ok(Cow::Owned(out))
    }

    /// Learns the secret-named variables of process `pid`'s environment (once per process: it
    /// holds the environment the process started with), to mask their values wherever they
    /// are printed, named or not.
    pub fn learn_environ(&self, pid: u32) {
        {
            let mut seen = self.environs.lock().unwrap_or_else(|e| e.into_inner());
            if !seen.insert(pid) {
                return;
            }
        }
        let Ok(data) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return;
        };
        self.learn(entries(&data));
    }

    /// Learns the secret-named variables a shell's prompt hook handed over in the file at
    /// `path` (`terminals::hook`): `NAME=VALUE` entries each ended by a NUL, then `.` and a
    /// NUL. A file without that end (missing, or read while bash rewrites it) teaches nothing;
    /// the next read takes it whole.
    pub fn learn_handed(&self, path: &std::path::Path) {
        let Ok(data) = std::fs::read(path) else {
            return;
        };
        let Some(data) = data.strip_suffix(b".\0") else {
            return;
        };
        if !data.is_empty() && !data.ends_with(b"\0") {
            return;
        }
        self.learn(entries(data));
    }

    /// Learns `(name, value)` pairs of secret-named variables: their values are masked wherever
    /// they stand. A value is taken without the spaces around it (a terminal's rows lose those
    /// at their ends), when 8 bytes or more are left: a shorter one would mask common words.
    pub fn learn<'a>(&self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) {
        let mut store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let before = store.known.len();
        for (name, value) in pairs {
            let value = value.trim_matches(|c: char| c.is_ascii_whitespace());
            let fits = rules::says_secret(name.as_bytes()).is_some() && value.len() >= 8;
            if fits
                && store.known.len() < KNOWN_LIMIT
                && !store.known.iter().any(|(_, v)| **v == *value)
            {
                store.known.push((name.into(), value.into()));
            }
        }
        if store.known.len() != before {
            let values: Vec<&str> = store.known.iter().map(|(_, v)| &**v).collect();
            *self.scanner.write().unwrap_or_else(|e| e.into_inner()) =
                Arc::new(Scanner::new(&values));
        }
    }

    /// The placeholders held now.
    pub fn len(&self) -> usize {
        self.store
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .order
            .len()
    }

    /// No placeholder held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The `NAME=VALUE` entries of an environment (each ended by a NUL), those in UTF-8.
fn entries(data: &[u8]) -> impl Iterator<Item = (&str, &str)> {
    data.split(|&b| b == 0).filter_map(|entry| {
        let eq = memchr::memchr(b'=', entry)?;
        let name = std::str::from_utf8(&entry[..eq]).ok()?;
        let value = std::str::from_utf8(&entry[eq + 1..]).ok()?;
        Some((name, value))
    })
}

/// The name endings that say secret, as bash globs for the prompt hook: `(gate, cases)` (see
/// `rules::bash_name_globs`).
pub(crate) fn bash_name_globs() -> (String, String) {
    rules::bash_name_globs()
}

/// The kind of a variable's value: `env-` and its name, lowercase, `_` as `-`.
fn env_kind(name: &str) -> String {
    let mut kind = String::from("env-");
    kind.extend(
        name.chars()
            .take(40)
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .map(|c| {
                if c == '_' {
                    '-'
                } else {
                    c.to_ascii_lowercase()
                }
            }),
    );
    kind
}

/// Where the placeholders of `text` stand: `(start, end)` of each `[secret:KIND:ID]`.
fn placeholder_spans(text: &str) -> Vec<(usize, usize)> {
    memchr::memmem::find_iter(text.as_bytes(), b"[secret:")
        .filter_map(|at| parse_placeholder(&text[at..]).map(|(_, _, len)| (at, at + len)))
        .collect()
}

/// `[secret:KIND:ID]` at the start of `text`: its kind, id and length.
fn parse_placeholder(text: &str) -> Option<(&str, Id, usize)> {
    let rest = text.strip_prefix("[secret:")?;
    let colon = rest.find(':')?;
    let kind = &rest[..colon];
    if kind.is_empty()
        || kind.len() > 48
        || !kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return None;
    }
    let id = rest.as_bytes().get(colon + 1..colon + 6)?;
    if id[4] != b']'
        || !id[..4]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return None;
    }
    Some((kind, [id[0], id[1], id[2], id[3]], 8 + colon + 6))
}

impl Store {
    /// Writes the placeholder of `value` into `out`, making one if new.
    fn placeholder(&mut self, kind: &str, value: &str, out: &mut String) {
        let id = match self.by_value.get(value) {
            Some(id) => *id,
            None => {
                let mut salt = 0u64;
                let id = loop {
                    let id = base36(self.keys.hash_one((value, salt)));
                    if !self.by_id.contains_key(&id) {
                        break id;
                    }
                    salt += 1;
                };
                if self.order.len() >= Vault::LIMIT
                    && let Some(old) = self.order.pop_front()
                    && let Some((_, old_value)) = self.by_id.remove(&old)
                {
                    self.by_value.remove(&old_value);
                }
                self.order.push_back(id);
                self.by_value.insert(value.into(), id);
                self.by_id.insert(id, (kind.into(), value.into()));
                id
            }
        };
        let kind = &self.by_id[&id].0;
        out.push_str("[secret:");
        out.push_str(kind);
        out.push(':');
        out.extend(id.iter().map(|&b| b as char));
        out.push(']');
    }
}

fn base36(mut hash: u64) -> Id {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut id = [0; 4];
    for byte in &mut id {
        *byte = DIGITS[(hash % 36) as usize];
        hash /= 36;
    }
    id
}

/// The rows of an answer masked, before its cut to the last rows: a secret over several rows
/// keeps them (rows are counted). `open_end`: the last row may be printing still, so a token's
/// start at its end is masked; not for a row the command ended (its end is known).
pub(crate) fn mask_rows<'a>(
    vault: Option<&Vault>,
    rows: Vec<Cow<'a, str>>,
    open_end: bool,
) -> Vec<Cow<'a, str>> {
    let Some(vault) = vault else {
        return rows;
    };
    let joined = rows.join("\n");
    let how = How {
        width: None,
        open_end,
        keep_lines: true,
    };
    match vault.mask(&joined, how) {
        Cow::Borrowed(_) => rows,
        Cow::Owned(masked) => masked
            .split('\n')
            .map(|r| Cow::Owned(r.to_owned()))
            .collect(),
    }
}
