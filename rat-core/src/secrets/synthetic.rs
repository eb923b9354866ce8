//! Synthetic secrets for tests: valid in shape and checksum, made from a seed, never real.

/// A secret as a test prints it.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The kind its placeholder names.
    pub kind: &'static str,
    /// The secret itself: never in an answer.
    pub value: String,
    /// A line holding it, as a file or a program prints it.
    pub line: String,
}

/// A small generator (xorshift64*), so that a seed gives the same secrets.
#[derive(Debug, Clone)]
pub struct Random(u64);

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

impl Random {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// `n` characters of `alphabet`.
    pub fn chars(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char)
            .collect()
    }
}

/// CRC-32 (IEEE), as GitHub's and npm's token checksums use it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// `n` in base62, left-padded with `0` to 6 characters.
fn base62_6(mut n: u32) -> String {
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8(out.to_vec()).expect("ASCII")
}

/// A token of GitHub's format: `prefix`, 30 base62 characters, their CRC-32 in 6.
pub fn checksummed(r: &mut Random, prefix: &str) -> String {
    let body = r.chars(30, BASE62);
    format!("{prefix}{body}{}", base62_6(crc32(body.as_bytes())))
}

/// Whether `token` (after its `prefix`) carries a valid checksum.
pub fn checksum_valid(token: &str, prefix: &str) -> bool {
    let rest = &token[prefix.len()..];
    rest.len() == 36 && base62_6(crc32(&rest.as_bytes()[..30])) == rest[30..]
}

/// base64url without padding.
pub fn base64url(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(BASE64URL[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A private key block of `label` (`OPENSSH`, `RSA`, `EC`), lines of `width`.
pub fn private_key(r: &mut Random, label: &str, width: usize) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut key = format!("-----BEGIN {label} PRIVATE KEY-----\n");
    for _ in 0..6 {
        key.push_str(&r.chars(width, alphabet));
        key.push('\n');
    }
    key.push_str(&r.chars(24, alphabet));
    key.push_str("==\n");
    key.push_str(&format!("-----END {label} PRIVATE KEY-----"));
    key
}

/// One secret of every kind ratd masks, each in a line as it is printed (env, ini, YAML,
/// JSON, shell, a URL, a header).
pub fn corpus(seed: u64) -> Vec<Sample> {
    let r = &mut Random::new(seed);
    let alnum = BASE62;
    let upper32 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut samples = Vec::new();
    let mut add = |kind, value: String, line: String| {
        samples.push(Sample { kind, value, line });
    };
    let v = checksummed(r, "ghp_");
    add("github-token", v.clone(), format!("GITHUB_TOKEN={v}"));
    let v = checksummed(r, "gho_");
    add("github-token", v.clone(), format!("oauth: {v}"));
    let v = format!("github_pat_{}_{}", r.chars(22, alnum), r.chars(59, alnum));
    add("github-token", v.clone(), format!("token = \"{v}\""));
    let v = format!("glpat-{}", r.chars(20, BASE64URL));
    add("gitlab-token", v.clone(), format!("export GL={v}"));
    let v = format!(
        "xoxb-{}-{}-{}",
        r.chars(12, b"0123456789"),
        r.chars(13, b"0123456789"),
        r.chars(24, alnum)
    );
    add("slack-token", v.clone(), format!("slack_bot: {v}"));
    let v = format!(
        "T{}/B{}/{}",
        r.chars(8, upper32),
        r.chars(8, upper32),
        r.chars(24, alnum)
    );
    add(
        "slack-webhook",
        v.clone(),
        format!("url: https://hooks.slack.com/services/{v}"),
    );
    let v = format!("sk_live_{}", r.chars(24, alnum));
    add("stripe-key", v.clone(), format!("stripe {v}"));
    let v = format!("AKIA{}", r.chars(16, upper32));
    add(
        "aws-access-key",
        v.clone(),
        format!("aws_access_key_id = {v}"),
    );
    let v = r.chars(
        40,
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    );
    add(
        "aws-secret-key",
        v.clone(),
        format!("aws_secret_access_key = {v}"),
    );
    let v = format!("AIza{}", r.chars(35, BASE64URL));
    add("google-api-key", v.clone(), format!("\"key\": \"{v}\""));
    let v = format!("sk-proj-{}", r.chars(48, alnum));
    add("openai-key", v.clone(), format!("OPENAI={v}"));
    let v = format!("sk-ant-api03-{}AA", r.chars(93, BASE64URL));
    add("anthropic-key", v.clone(), format!("anthropic {v}"));
    let v = checksummed(r, "npm_");
    add(
        "npm-token",
        v.clone(),
        format!("//registry.npmjs.org/:_authToken={v}"),
    );
    let v = format!("pypi-AgEIcHlwaS5vcmc{}", r.chars(64, BASE64URL));
    add("pypi-token", v.clone(), format!("password: {v}"));
    let v = private_key(r, "OPENSSH", 70);
    add("private-key", v.clone(), v.clone());
    let v = format!(
        "{}.{}.{}",
        base64url(br#"{"alg":"HS256","typ":"JWT"}"#),
        base64url(
            format!(
                r#"{{"sub":"{}","iat":1733390000}}"#,
                r.chars(8, b"0123456789")
            )
            .as_bytes()
        ),
        r.chars(43, BASE64URL)
    );
    add("jwt", v.clone(), format!("session={v}"));
    let v = r.chars(20, alnum);
    add(
        "url-password",
        v.clone(),
        format!("origin\thttps://deploy:{v}@git.example.com/app.git (fetch)"),
    );
    let v = r.chars(32, alnum);
    add(
        "authorization",
        v.clone(),
        format!("> Authorization: Bearer {v}"),
    );
    let v = format!("{}!{}", r.chars(10, alnum), r.chars(4, b"0123456789"));
    add("password", v.clone(), format!("DB_PASSWORD='{v}'"));
    let v = r.chars(24, alnum);
    add("secret", v.clone(), format!("  client_secret: {v}"));
    let v = r.chars(32, b"0123456789abcdef");
    add("api-key", v.clone(), format!("{{\"api_key\": \"{v}\"}}"));
    let v = r.chars(28, alnum);
    add("token", v.clone(), format!("SERVICE_TOKEN={v}"));
    samples
}
