//! The scan: one pass of an Aho-Corasick automaton over the whole text for the rules' keywords
//! (and the session's known values), each keyword found checked by its rule where it stands.
//! Nothing is allocated for text with nothing to mask.

use aho_corasick::{AhoCorasick, MatchKind};

use super::rules::{RULES, Rule};

/// A part of the text to mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// The kind a placeholder names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A rule's (or an assignment's) kind.
    Named(&'static str),
    /// The value of a variable the session's shell holds: its index among the known values.
    Known(usize),
}

impl Found {
    pub(crate) fn new(start: usize, end: usize, kind: &'static str) -> Self {
        Self {
            start,
            end,
            kind: Kind::Named(kind),
        }
    }
}

/// How a text is read: where rows wrap, and whether its end may continue later.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct How {
    /// The terminal's width, when the text's rows are not joined: a token running to the end
    /// of a row this wide continues on the next.
    pub width: Option<usize>,
    /// The text's end may be the start of what is still printing: a token's start there is
    /// masked, not left whole until the rest comes.
    pub open_end: bool,
    /// A secret over several lines keeps them: its placeholder, then as many line breaks (the
    /// rows of an answer are counted).
    pub keep_lines: bool,
}

/// The text as a rule reads it.
pub(crate) struct Ctx<'a> {
    text: &'a [u8],
    how: How,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(text: &'a str, how: How) -> Self {
        Self {
            text: text.as_bytes(),
            how,
        }
    }

    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.text
    }

    /// `at` begins a word: no letter or digit before it.
    pub(crate) fn starts_word(&self, at: usize) -> bool {
        at == 0 || !self.text[at - 1].is_ascii_alphanumeric()
    }

    /// `end` is the end of an open text.
    pub(crate) fn open_at(&self, end: usize) -> bool {
        self.how.open_end && end == self.text.len()
    }

    /// The end of the run of `class` from `from`, over row ends where rows wrap.
    pub(crate) fn run(&self, from: usize, class: impl Fn(u8) -> bool) -> usize {
        let text = self.text;
        let mut i = from;
        loop {
            while i < text.len() && class(text[i]) {
                i += 1;
            }
            match self.how.width {
                Some(width)
                    if i + 1 < text.len()
                        && text[i] == b'\n'
                        && class(text[i + 1])
                        && row_chars(text, i) == width =>
                {
                    i += 1;
                }
                _ => return i,
            }
        }
    }

    /// The end of the run of `class` from `from`, on one row.
    pub(crate) fn skip(&self, from: usize, class: impl Fn(u8) -> bool) -> usize {
        let mut i = from;
        while i < self.text.len() && class(self.text[i]) {
            i += 1;
        }
        i
    }
}

/// The characters of the row ending at `end` (a line break).
fn row_chars(text: &[u8], end: usize) -> usize {
    let start = memchr::memrchr(b'\n', &text[..end]).map_or(0, |i| i + 1);
    text[start..end]
        .iter()
        .filter(|&&b| (b as i8) >= -0x40)
        .count()
}

/// What a keyword found wakes.
enum Hook {
    Rule(&'static Rule),
    Known(usize),
}

/// The automaton of the rules' keywords and of a session's known values.
pub(crate) struct Scanner {
    automaton: AhoCorasick,
    hooks: Vec<Hook>,
    known: Vec<Box<str>>,
}

impl Scanner {
    /// The rules, and `known` values (masked wherever they stand, exactly).
    pub(crate) fn new(known: &[&str]) -> Self {
        let mut patterns: Vec<&str> = Vec::new();
        let mut hooks = Vec::new();
        for rule in RULES {
            for keyword in rule.keywords {
                patterns.push(keyword);
                hooks.push(Hook::Rule(rule));
            }
        }
        debug_assert!(patterns.len() <= 64, "Teddy's limit");
        for (i, value) in known.iter().enumerate() {
            patterns.push(value);
            hooks.push(Hook::Known(i));
        }
        // Case-sensitive, and 64 keywords at most: the prefilter is aho-corasick's packed
        // (Teddy, SIMD) search, at several GB/s; ASCII case ignored would disable it.
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&patterns)
            .expect("the keywords build an automaton");
        Self {
            automaton,
            hooks,
            known: known.iter().map(|&v| v.into()).collect(),
        }
    }

    /// The parts of `text` to mask, in order, not overlapping.
    pub(crate) fn find(&self, text: &str, how: How) -> Vec<Found> {
        let ctx = Ctx::new(text, how);
        let bytes = text.as_bytes();
        let mut found: Vec<Found> = Vec::new();
        let mut pos = 0;
        // One stream of matches: those inside a part found already are passed over.
        for m in self.automaton.find_iter(bytes) {
            if m.start() < pos {
                continue;
            }
            let hit = match self.hooks[m.pattern().as_usize()] {
                Hook::Rule(rule) => (rule.check)(&ctx, m.start(), m.end()).map(|mut hit| {
                    if rule.kind == "assignment" {
                        hit.kind = self.specific(&text[hit.start..hit.end]).unwrap_or(hit.kind);
                    }
                    hit
                }),
                Hook::Known(i) => self.known_at(&ctx, m.start(), m.end(), i),
            };
            match hit {
                Some(hit) if hit.end > hit.start => {
                    pos = hit.end.max(m.end());
                    match found.last_mut() {
                        Some(last) if hit.start < last.end => {
                            last.start = last.start.min(hit.start);
                            last.end = last.end.max(hit.end);
                        }
                        _ => found.push(hit),
                    }
                }
                _ => {}
            }
        }
        found
    }

    /// A known value, exactly (the prefilter ignores case), not inside a longer word.
    fn known_at(&self, ctx: &Ctx<'_>, at: usize, end: usize, i: usize) -> Option<Found> {
        let bytes = ctx.bytes();
        let value = self.known[i].as_bytes();
        let glued = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
        (&bytes[at..end] == value
            && !(at > 0 && glued(bytes.get(at - 1)))
            && !glued(bytes.get(end)))
        .then_some(Found {
            start: at,
            end,
            kind: Kind::Known(i),
        })
    }

    /// The specific kind of an assignment's value that is a token of a known format.
    fn specific(&self, value: &str) -> Option<Kind> {
        let m = self.automaton.find(value)?;
        let Hook::Rule(rule) = self.hooks[m.pattern().as_usize()] else {
            return None;
        };
        let hit = (rule.check)(&Ctx::new(value, How::default()), m.start(), m.end())?;
        (rule.kind != "assignment" && hit.start == 0 && hit.end == value.len()).then_some(hit.kind)
    }
}
