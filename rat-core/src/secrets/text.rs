//! The text as a rule reads it ([`Ctx`]), how it is read ([`How`]), and what a rule finds in
//! it ([`Found`]): what the rules and the scan share, below both.

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
