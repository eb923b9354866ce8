//! The scan: one pass of an Aho-Corasick automaton over the whole text for the rules' keywords
//! (and the session's known values), each keyword found checked by its rule where it stands.
//! Nothing is allocated for text with nothing to mask.

use aho_corasick::{AhoCorasick, MatchKind};

use super::rules::{RULES, Rule};
use super::text::{Ctx, Found, How, Kind};

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
