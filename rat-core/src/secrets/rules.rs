//! What counts as a secret: the table of rules, each with its source named
//! (`docs/design/secrets.md`, What is masked). A rule is a keyword the prefilter finds (a
//! token's prefix, a name's ending) and a check by hand at the place it was found: no regex,
//! no allocation, nothing done where no keyword is.

use super::text::{Ctx, Found};

/// One rule: the keywords that wake it, its check, and where its format comes from.
pub(crate) struct Rule {
    /// The kind named in its placeholders.
    pub kind: &'static str,
    /// Found by the prefilter, exactly (names in their three cases): at most 64 in all, so
    /// that the prefilter is Teddy's SIMD search.
    pub keywords: &'static [&'static str],
    /// Checks a keyword found at `at..end`: the part of the text to mask.
    pub check: fn(&Ctx<'_>, usize, usize) -> Option<Found>,
    /// Where the format is documented (listed in docs/design/secrets.md).
    pub source: &'static str,
}

/// The rules, the specific ones (prefixes) before the assignments.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        check: github,
        source: "GitHub docs, About authentication: token prefixes; GitHub blog 2021-04-05, \
                 Behind GitHub's new authentication token formats (base62, CRC32 checksum)",
    },
    Rule {
        kind: "gitlab-token",
        keywords: &["glpat-", "gldt-", "glrt-", "glptt-", "gloas-"],
        check: gitlab,
        source: "GitLab docs, Token overview: token prefixes",
    },
    Rule {
        kind: "slack-token",
        keywords: &["xox", "xapp-"],
        check: slack,
        source: "Slack API docs, Token types; gitleaks rules slack-*-token",
    },
    Rule {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com/services/"],
        check: slack_webhook,
        source: "Slack API docs, Sending messages using incoming webhooks",
    },
    Rule {
        kind: "stripe-key",
        keywords: &["k_live_", "k_test_", "whsec_"],
        check: stripe,
        source: "Stripe docs, API keys (sk_/rk_ live and test keys); webhook signing secrets",
    },
    Rule {
        kind: "aws-access-key",
        keywords: &["AKIA", "ASIA", "ABIA", "ACCA"],
        check: aws,
        source: "AWS IAM docs, Unique identifiers (access key IDs); gitleaks aws-access-token",
    },
    Rule {
        kind: "google-api-key",
        keywords: &["AIza"],
        check: google,
        source: "Google Cloud docs, API keys; gitleaks gcp-api-key",
    },
    Rule {
        kind: "openai-key",
        keywords: &["sk-"],
        check: sk_dash,
        source: "OpenAI API keys (sk-proj-, sk-svcacct-, sk-admin-, legacy T3BlbkFJ); Anthropic \
                 API keys (sk-ant-); gitleaks openai-api-key, anthropic-api-key",
    },
    Rule {
        kind: "npm-token",
        keywords: &["npm_"],
        check: npm,
        source: "GitHub blog 2021-09-23, npm granular tokens: npm_ with a CRC32 checksum",
    },
    Rule {
        kind: "pypi-token",
        keywords: &["pypi-AgEIcHlwaS5vcmc"],
        check: pypi,
        source: "PyPI docs, API tokens (macaroons, pypi- prefix); gitleaks pypi-upload-token",
    },
    Rule {
        kind: "private-key",
        keywords: &["-----BEGIN ", "-----END "],
        check: private_key,
        source: "RFC 7468 (PEM text encodings), OpenSSH key format; gitleaks private-key",
    },
    Rule {
        kind: "jwt",
        keywords: &["eyJ"],
        check: jwt,
        source: "RFC 7519 (JSON Web Token); gitleaks jwt",
    },
    Rule {
        kind: "url-password",
        keywords: &["://"],
        check: url_password,
        source: "RFC 3986 section 3.2.1 (user information, deprecated user:password)",
    },
    Rule {
        kind: "authorization",
        keywords: &["uthorization", "AUTHORIZATION"],
        check: authorization,
        source: "RFC 9110 section 11.6.2 (Authorization), as curl -v prints it",
    },
    Rule {
        kind: "assignment",
        keywords: &[
            "token", "Token", "TOKEN", "secret", "Secret", "SECRET", "pass", "Pass", "PASS", "key",
            "Key", "KEY",
        ],
        check: assignment,
        source: "gitleaks generic-api-key (names that say secret); env, ini, YAML, JSON, TOML \
                 and shell assignment syntax",
    },
];

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_under(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
fn base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// A token: `prefix` exactly (case counts) at `at`, not glued to a word before it, then at
/// least `min` characters of `class`; the whole run is the secret.
fn prefixed(
    c: &Ctx<'_>,
    at: usize,
    prefix: usize,
    class: fn(u8) -> bool,
    min: usize,
    kind: &'static str,
) -> Option<Found> {
    if !c.starts_word(at) {
        return None;
    }
    let end = c.run(at + prefix, class);
    let len = end - (at + prefix);
    (len >= min || (len > 0 && c.open_at(end))).then_some(Found::new(at, end, kind))
}

fn github(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    lower(c, at, end)?;
    if end - at == "github_pat_".len() {
        return prefixed(c, at, end - at, alnum_under, 70, "github-token");
    }
    prefixed(c, at, 4, alnum, 30, "github-token")
}

fn gitlab(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    lower(c, at, end)?;
    prefixed(c, at, end - at, base64url, 20, "gitlab-token")
}

fn slack(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    if &bytes[at..end] == b"xox"
        && !(matches!(
            bytes.get(end),
            Some(b'b' | b'p' | b'a' | b'r' | b's' | b'e')
        ) && bytes.get(end + 1) == Some(&b'-'))
    {
        return None;
    }
    prefixed(c, at, 5, alnum_dash, 10, "slack-token")
}

fn slack_webhook(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    lower(c, at, end)?;
    let stop = c.run(end, |b| alnum(b) || b == b'/');
    (stop - end >= 20).then_some(Found::new(end, stop, "slack-webhook"))
}

fn stripe(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    // k_live_ and k_test_ after s (secret keys) or r (restricted keys).
    let at = match bytes[at] {
        b'k' if at > 0 && matches!(bytes[at - 1], b's' | b'r') => at - 1,
        b'k' => return None,
        _ => at,
    };
    prefixed(c, at, end - at, alnum, 16, "stripe-key")
}

fn aws(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    if !bytes[at..end].iter().all(u8::is_ascii_uppercase) || !c.starts_word(at) {
        return None;
    }
    let stop = c.run(end, |b| {
        b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)
    });
    (stop - end == 16 && !bytes.get(stop).is_some_and(|&b| alnum(b))).then_some(Found::new(
        at,
        stop,
        "aws-access-key",
    ))
}

fn google(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    if &c.bytes()[at..end] != b"AIza" || !c.starts_word(at) {
        return None;
    }
    let stop = c.run(end, base64url);
    (stop - end == 35 || (stop - end > 0 && c.open_at(stop))).then_some(Found::new(
        at,
        stop,
        "google-api-key",
    ))
}

/// `sk-`: OpenAI's project, service account and admin keys, its legacy keys (48 characters
/// holding `T3BlbkFJ`, "OpenAI" in base64), and Anthropic's `sk-ant-`.
fn sk_dash(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    lower(c, at, end)?;
    let rest = &c.bytes()[end..];
    for (tail, kind) in [
        (&b"ant-"[..], "anthropic-key"),
        (b"proj-", "openai-key"),
        (b"svcacct-", "openai-key"),
        (b"admin-", "openai-key"),
    ] {
        if rest.starts_with(tail) {
            return prefixed(c, at, 3 + tail.len(), base64url, 32, kind);
        }
    }
    let found = prefixed(c, at, 3, alnum, 48, "openai-key")?;
    let key = &c.bytes()[found.start..found.end];
    memchr::memmem::find(key, b"T3BlbkFJ").map(|_| found)
}

fn npm(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    lower(c, at, end)?;
    let found = prefixed(c, at, 4, alnum, 36, "npm-token")?;
    (found.end - found.start == 40 || c.open_at(found.end)).then_some(found)
}

fn pypi(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    if &c.bytes()[at..end] != b"pypi-AgEIcHlwaS5vcmc" {
        return None;
    }
    prefixed(c, at, end - at, base64url, 50, "pypi-token")
}

/// A PEM or OpenSSH private key block, from its BEGIN line to its END line's end (to the text's
/// end when the END is not there: a cut, or a key still printing). An END without its BEGIN (a
/// cut above it): from the first of the base64 lines above it.
fn private_key(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    let line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
    let label = &bytes[end..line_end];
    let Some(dashes) = memchr::memmem::find(label, b"-----") else {
        // An unfinished BEGIN line at the end of the text.
        return (bytes[at..end] == *b"-----BEGIN " && c.open_at(line_end)).then_some(Found::new(
            at,
            line_end,
            "private-key",
        ));
    };
    let label = &label[..dashes];
    if !label.ends_with(b"PRIVATE KEY") && !label.ends_with(b"PRIVATE KEY BLOCK") {
        return None;
    }
    if bytes[at..end] == *b"-----BEGIN " {
        let stop = match memchr::memmem::find(&bytes[line_end..], b"-----END ") {
            Some(i) => {
                let from = line_end + i + 9;
                memchr::memmem::find(&bytes[from..], b"-----").map_or(bytes.len(), |j| from + j + 5)
            }
            None => bytes.len(),
        };
        return Some(Found::new(at, stop, "private-key"));
    }
    if bytes[at..end] != *b"-----END " {
        return None;
    }
    // Back over the lines of base64 (and headers such as Proc-Type) above the END.
    let mut start = at;
    while start > 0 {
        let above_end = start - 1;
        let above = memchr::memrchr(b'\n', &bytes[..above_end]).map_or(0, |i| i + 1);
        let line = &bytes[above..above_end];
        let base64 = !line.is_empty()
            && line.iter().all(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\t' | b' ')
            });
        let header = memchr::memchr(b':', line).is_some() && line.len() < 100;
        if !(base64 || header) {
            break;
        }
        start = above;
    }
    Some(Found::new(
        start,
        at + dashes + 5 + (end - at),
        "private-key",
    ))
}

/// A JSON Web Token: three base64url parts, the first two JSON objects (`eyJ` is `{"`).
fn jwt(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    if &c.bytes()[at..end] != b"eyJ" || !c.starts_word(at) {
        return None;
    }
    let bytes = c.bytes();
    let header = c.run(at, base64url);
    if header - at < 10 {
        return (c.open_at(header) && header - at >= 3).then_some(Found::new(at, header, "jwt"));
    }
    if bytes.get(header) != Some(&b'.') {
        return None;
    }
    let payload = c.run(header + 1, base64url);
    if c.open_at(payload) || c.open_at(header + 1) {
        return Some(Found::new(at, payload, "jwt"));
    }
    if payload - header - 1 < 10
        || !bytes[header + 1..].starts_with(b"eyJ")
        || bytes.get(payload) != Some(&b'.')
    {
        return None;
    }
    let signature = c.run(payload + 1, base64url);
    Some(Found::new(at, signature, "jwt"))
}

/// `scheme://user:password@host`: the password.
fn url_password(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    if at == 0 || !bytes[at - 1].is_ascii_alphabetic() {
        return None;
    }
    let userinfo =
        |b: u8| !b.is_ascii_whitespace() && !matches!(b, b'/' | b'@' | b'"' | b'\'' | b'<' | b'>');
    let user = c.run(end, |b| userinfo(b) && b != b':');
    if bytes.get(user) != Some(&b':') {
        return None;
    }
    let password = c.run(user + 1, userinfo);
    (password > user + 1 && bytes.get(password) == Some(&b'@')).then_some(Found::new(
        user + 1,
        password,
        "url-password",
    ))
}

/// `Authorization: Bearer <credentials>` (and Basic, token, ...), as headers, curl -v's lines
/// and JSON print it: the credentials.
fn authorization(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    // "uthorization" after a or A (Authorization, authorization), or AUTHORIZATION.
    let at = match bytes[at] {
        b'u' if at > 0 && matches!(bytes[at - 1], b'a' | b'A') => at - 1,
        b'u' => return None,
        _ => at,
    };
    if at > 0 && alnum_under(bytes[at - 1]) {
        return None;
    }
    let mut i = end;
    i = c.skip(i, |b| b == b'"' || b == b'\'');
    i = c.skip(i, |b| b == b' ' || b == b'\t');
    if !matches!(bytes.get(i), Some(b':' | b'=')) {
        return None;
    }
    i = c.skip(i + 1, |b| {
        b == b' ' || b == b'\t' || b == b'"' || b == b'\''
    });
    let value = |b: u8| !b.is_ascii_whitespace() && !matches!(b, b'"' | b'\'' | b',' | b';');
    let scheme = c.run(i, |b| b.is_ascii_alphabetic());
    if scheme > i && bytes.get(scheme) == Some(&b' ') {
        let from = c.skip(scheme, |b| b == b' ');
        let stop = c.run(from, value);
        return (stop - from >= 8 || (stop > from && c.open_at(stop))).then_some(Found::new(
            from,
            stop,
            "authorization",
        ));
    }
    let stop = c.run(i, value);
    (stop - i >= 16).then_some(Found::new(i, stop, "authorization"))
}

/// The name endings that say secret, and the kind each names.
const NAME_ENDS: &[(&str, &str)] = &[
    ("secret_access_key", "aws-secret-key"),
    ("token", "token"),
    ("secret", "secret"),
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("_pass", "password"),
    ("api_key", "api-key"),
    ("apikey", "api-key"),
    ("api-key", "api-key"),
    ("access_key", "key"),
    ("secret_key", "key"),
    ("private_key", "key"),
    ("accesskey", "key"),
    ("secretkey", "key"),
    ("privatekey", "key"),
];

/// The kind a variable's name says, when it says secret.
pub(crate) fn says_secret(name: &[u8]) -> Option<&'static str> {
    NAME_ENDS
        .iter()
        .find(|(ending, _)| {
            name.len() >= ending.len()
                && name[name.len() - ending.len()..].eq_ignore_ascii_case(ending.as_bytes())
        })
        .map(|(_, kind)| *kind)
}

/// The endings of [`says_secret`] as bash globs, for the prompt hook that hands ratd the values
/// of such variables (`terminals::hook`): names are read by the same table in both places.
/// `(gate, cases)`: `cases` the patterns of a `case`, `*ENDING|...` with each letter as
/// `[xX]`; `gate` one plain glob every such name matches, its last five characters each from
/// what the endings hold there, so that one `compgen -X` passes over a shell with none (an
/// extglob alternation costs bash ten times more). Endings a variable's name cannot hold
/// (`api-key`) are left out.
pub(crate) fn bash_name_globs() -> (String, String) {
    let either = |b: u8| {
        if b.is_ascii_alphabetic() {
            format!(
                "[{}{}]",
                b.to_ascii_lowercase() as char,
                b.to_ascii_uppercase() as char
            )
        } else {
            (b as char).to_string()
        }
    };
    let endings: Vec<&[u8]> = NAME_ENDS
        .iter()
        .map(|(ending, _)| ending.as_bytes())
        .filter(|e| e.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_'))
        .collect();
    let cases: Vec<String> = endings
        .iter()
        .map(|e| format!("*{}", e.iter().map(|&b| either(b)).collect::<String>()))
        .collect();
    let mut gate = String::from("*");
    let last = endings.iter().map(|e| e.len()).min().unwrap_or(0).min(5);
    for back in (1..=last).rev() {
        let mut class: Vec<u8> = endings
            .iter()
            .flat_map(|e| {
                let b = e[e.len() - back];
                [b.to_ascii_lowercase(), b.to_ascii_uppercase()]
            })
            .collect();
        class.sort_unstable();
        class.dedup();
        gate.push('[');
        gate.extend(class.iter().map(|&b| b as char));
        gate.push(']');
    }
    (gate, cases.join("|"))
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// `NAME=value`, `NAME: value`, `"name": "value"`, `--name=value`, `export NAME='value'`,
/// where NAME ends with a word that says secret: the value.
fn assignment(c: &Ctx<'_>, at: usize, end: usize) -> Option<Found> {
    let bytes = c.bytes();
    let mut start = at;
    while start > 0 && name_byte(bytes[start - 1]) {
        start -= 1;
    }
    let stop = c.run(end, name_byte);
    let kind = says_secret(&bytes[start..stop])?;
    // A reference ($NAME, ${NAME}), a placeholder, or a word in the middle of something else.
    if start > 0
        && matches!(
            bytes[start - 1],
            b'$' | b'{' | b'[' | b'%' | b'@' | b'&' | b'/' | b'\\'
        )
    {
        return None;
    }
    let mut i = c.skip(stop, |b| b == b'"' || b == b'\'');
    i = c.skip(i, |b| b == b' ' || b == b'\t');
    let colon = match bytes.get(i) {
        Some(b'=') if bytes.get(i + 1) != Some(&b'=') => false,
        Some(b':') if bytes.get(i + 1) == Some(&b'=') => {
            i += 1;
            false
        }
        Some(b':') if bytes.get(i + 1) != Some(&b':') => true,
        _ => return None,
    };
    i = c.skip(i + 1, |b| b == b' ' || b == b'\t');
    let (from, to) = match bytes.get(i) {
        Some(&quote @ (b'"' | b'\'' | b'`')) => {
            let close = memchr::memchr2(quote, b'\n', &bytes[i + 1..]).map(|j| i + 1 + j);
            match close {
                Some(j) if bytes[j] == quote => (i + 1, j),
                // Unclosed at the text's end: still printing.
                None => (i + 1, bytes.len()),
                Some(_) => return None,
            }
        }
        _ => {
            let to = c.run(i, |b| {
                !b.is_ascii_whitespace() && !matches!(b, b',' | b';' | b'}' | b']' | b'"' | b'\'')
            });
            if colon {
                // YAML, headers and prose share the colon: a value that looks like one.
                let value = &bytes[i..to];
                let mixed = value.iter().any(|b| !b.is_ascii_alphabetic());
                if value.len() < 8 || !(mixed || value.len() >= 16) {
                    return None;
                }
            }
            (i, to)
        }
    };
    let value = &bytes[from..to];
    if value.is_empty() || not_a_value(value) {
        return None;
    }
    Some(Found::new(from, to, kind))
}

/// Values that are no secret: empty words, references, templates, placeholders.
fn not_a_value(value: &[u8]) -> bool {
    const WORDS: &[&str] = &[
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "yes",
        "no",
    ];
    WORDS
        .iter()
        .any(|w| value.eq_ignore_ascii_case(w.as_bytes()))
        || matches!(value[0], b'$' | b'<' | b'%' | b'*' | b'{' | b'(')
        || value.starts_with(b"[secret:")
        || value
            .iter()
            .all(|&b| b == b'*' || b == b'x' || b == b'X' || b == b'.')
}

/// Fails when the keyword found is not all lowercase: the prefixes are.
fn lower(c: &Ctx<'_>, at: usize, end: usize) -> Option<()> {
    (!c.bytes()[at..end].iter().any(u8::is_ascii_uppercase)).then_some(())
}
