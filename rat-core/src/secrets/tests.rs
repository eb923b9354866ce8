use std::borrow::Cow;

use super::synthetic::{self, Random, corpus};
use super::{How, Mode, Secrets, Vault};

fn placeholders(text: &str) -> Vec<&str> {
    text.match_indices("[secret:")
        .map(|(at, _)| &text[at..at + text[at..].find(']').unwrap() + 1])
        .collect()
}

#[test]
fn the_synthetic_tokens_carry_valid_checksums() {
    let r = &mut Random::new(7);
    for prefix in ["ghp_", "npm_"] {
        let token = synthetic::checksummed(r, prefix);
        assert!(synthetic::checksum_valid(&token, prefix), "{token}");
        let mut broken = token.clone().into_bytes();
        broken[5] = if broken[5] == b'a' { b'b' } else { b'a' };
        assert!(!synthetic::checksum_valid(
            std::str::from_utf8(&broken).unwrap(),
            prefix
        ));
    }
    // CRC-32 of "123456789" is cbf43926 (the standard check value).
    assert_eq!(synthetic::crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(
        synthetic::base64url(br#"{"alg":"HS256"}"#),
        "eyJhbGciOiJIUzI1NiJ9"
    );
}

#[test]
fn every_kind_is_masked_by_its_placeholder() {
    let vault = Vault::default();
    for sample in corpus(1) {
        let masked = vault.mask(&sample.line, How::default());
        assert!(!masked.contains(&sample.value), "{}: {masked}", sample.kind);
        let found = placeholders(&masked);
        assert_eq!(found.len(), 1, "{}: {masked}", sample.kind);
        assert!(
            found[0].starts_with(&format!("[secret:{}:", sample.kind)),
            "{}: {masked}",
            sample.kind
        );
        assert_eq!(vault.restore(&masked).unwrap(), sample.line);
    }
}

#[test]
fn all_kinds_in_one_text_each_once_and_the_same_value_the_same_placeholder() {
    let vault = Vault::default();
    let samples = corpus(2);
    let text: String = samples.iter().map(|s| format!("{}\n", s.line)).collect();
    let masked = vault.mask(&text, How::default());
    for sample in &samples {
        assert!(!masked.contains(&sample.value), "{}", sample.kind);
    }
    assert_eq!(placeholders(&masked).len(), samples.len(), "{masked}");
    assert_eq!(vault.mask(&text, How::default()), masked, "stable");
    assert_eq!(vault.restore(&masked).unwrap(), text);
}

#[test]
fn exact_lines_as_users_see_them() {
    let vault = Vault::default();
    let mask = |text: &str| vault.mask(text, How::default()).into_owned();
    let token = synthetic::checksummed(&mut Random::new(3), "ghp_");
    let masked = mask(&format!(
        "origin\thttps://{token}@github.com/o/r.git (fetch)"
    ));
    let id = &placeholders(&masked)[0];
    assert_eq!(
        masked,
        format!("origin\thttps://{id}@github.com/o/r.git (fetch)")
    );
    assert!(
        id.starts_with("[secret:github-token:") && id.len() == 26,
        "{id}"
    );
    assert_eq!(
        mask("postgres://app:hunter2hunter@db:5432/x"),
        format!(
            "postgres://app:{}@db:5432/x",
            placeholders(&mask("postgres://app:hunter2hunter@db:5432/x"))[0]
        )
    );
    // Values that are no secret stay.
    for text in [
        "PASSWORD=",
        "echo $GITHUB_TOKEN",
        "TOKEN=${GITHUB_TOKEN}",
        "password: null",
        "\"secret\": true",
        "the token: expired",
        "tokenizers==0.15.2",
        "max_tokens: 4096",
        "[secret:token:ab12]",
        "Authorization: Bearer",
    ] {
        assert_eq!(mask(text), text);
    }
}

#[test]
fn no_placeholder_in_a_real_session_output() {
    let vault = Vault::default();
    let r = &mut Random::new(9);
    let hex = b"0123456789abcdef";
    let b64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for i in 0..200 {
        text += &format!("{}  target/debug/deps/file{i}.rlib\n", r.chars(64, hex));
        text += &format!(
            "commit {}\nAuthor: A <a@b.c>\n\n    fix the token refresh\n",
            r.chars(40, hex)
        );
        text += &format!(
            "id {}-{}-4{}-a{}-{}\n",
            r.chars(8, hex),
            r.chars(4, hex),
            r.chars(3, hex),
            r.chars(3, hex),
            r.chars(12, hex)
        );
        text += &format!("      \"integrity\": \"sha512-{}==\",\n", r.chars(86, b64));
        text += &format!("-rw-r--r-- 1 rat rat  {i} Dec  5 07:53 secret_{i}.txt\n");
        text += &format!("tokenizers=={i}.1.0\npasslib==1.7.4\n");
        text += &format!("   Compiling secrecy v0.{i}.0\n");
    }
    text += "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA";
    for _ in 0..2000 {
        text += &r.chars(76, b64);
        text.push('\n');
    }
    let masked = vault.mask(
        &text,
        How {
            open_end: true,
            ..How::default()
        },
    );
    assert!(
        matches!(masked, Cow::Borrowed(_)),
        "{:?}",
        placeholders(&masked)
    );
}

#[test]
fn a_token_wrapped_over_two_rows_is_masked_whole() {
    let vault = Vault::default();
    let token = synthetic::checksummed(&mut Random::new(4), "ghp_");
    let row = format!("{}{}", "x ".repeat(90), &token[..20]);
    assert_eq!(row.chars().count(), 200);
    let text = format!("{row}\n{} done\nnext", &token[20..]);
    let how = How {
        width: Some(200),
        ..How::default()
    };
    let masked = vault.mask(&text, how);
    assert!(
        !masked.contains(&token[..20]) && !masked.contains(&token[20..]),
        "{masked}"
    );
    let id = placeholders(&masked)[0].to_owned();
    assert_eq!(masked, format!("{}{id} done\nnext", "x ".repeat(90)));
    assert_eq!(vault.restore(&id).unwrap(), token);
}

#[test]
fn an_unfinished_token_at_an_open_end_is_masked_from_where_it_begins() {
    let vault = Vault::default();
    let token = synthetic::checksummed(&mut Random::new(5), "ghp_");
    let text = format!("printing {}", &token[..12]);
    let open = How {
        open_end: true,
        ..How::default()
    };
    let masked = vault.mask(&text, open);
    assert!(!masked.contains(&token[4..12]), "{masked}");
    assert_eq!(vault.mask(&text, How::default()), text);
}

#[test]
fn a_key_block_keeps_its_rows_when_asked_and_a_cut_above_its_end_masks_its_rest() {
    let vault = Vault::default();
    let key = synthetic::private_key(&mut Random::new(6), "RSA", 64);
    let text = format!("before\n{key}\nafter");
    let keep = How {
        keep_lines: true,
        ..How::default()
    };
    let masked = vault.mask(&text, keep);
    assert_eq!(masked.lines().count(), text.lines().count());
    assert!(masked.starts_with("before\n[secret:private-key:"));
    assert!(masked.ends_with("\nafter"));
    assert_eq!(
        vault.restore(&vault.mask(&text, How::default())).unwrap(),
        text
    );
    // A cut in the block's middle (its BEGIN gone): the rest is masked to its END.
    let cut = &key[key.find('\n').unwrap() + 30..];
    let masked = vault.mask(cut, How::default());
    assert_eq!(placeholders(&masked).len(), 1);
    assert!(masked.starts_with("[secret:private-key:"), "{masked}");
    // A block still printing: masked to the end.
    let open = &key[..key.len() / 2];
    assert!(
        vault
            .mask(open, How::default())
            .starts_with("[secret:private-key:")
    );
}

#[test]
fn the_end_kept_for_a_cut_is_masked_and_the_cut_leaves_no_piece() {
    let vault = Vault::default();
    let token = synthetic::checksummed(&mut Random::new(8), "ghp_");
    let mut content = String::new();
    for i in 0..10_000 {
        content += &format!("row {i:05} GITHUB_TOKEN={token} {}\n", "y".repeat(150));
    }
    let end = vault.mask_end(&content, 64 * 1024, How::default());
    assert!(
        end.len() >= 64 * 1024 && end.len() < 64 * 1024 + 20 * 1024,
        "{}",
        end.len()
    );
    assert!(!end.contains(&token[4..]));
    assert!(end.starts_with("row "));
    assert!(end.ends_with(&format!("{}\n", "y".repeat(150))));
    // Under the budget: all of it.
    let short = "GITHUB_TOKEN=abcdefgh12345678\nok\n";
    assert_eq!(
        vault.mask_end(short, 64 * 1024, How::default()),
        vault.mask(short, How::default())
    );
}

#[test]
fn placeholders_come_back_and_unknown_ones_are_refused() {
    let secrets = Secrets::new(Mode::Mask);
    let alice = secrets.vault("alice").unwrap();
    let bob = secrets.vault("bob").unwrap();
    let masked = alice
        .mask("API_TOKEN=s3cr3t-v4lue-0001", How::default())
        .into_owned();
    let placeholder = placeholders(&masked)[0].to_owned();
    let command = format!("curl -H 'X-Token: {placeholder}' https://example.invalid");
    assert_eq!(
        alice.restore(&command).unwrap(),
        "curl -H 'X-Token: s3cr3t-v4lue-0001' https://example.invalid"
    );
    let refused = bob.restore(&command).unwrap_err();
    assert_eq!(refused.placeholder, placeholder);
    let result = refused.refusal("send_text", "text");
    assert!(result.outcome.is_error());
    assert!(!format!("{result:?}").contains("s3cr3t"));
    // A placeholder of another kind with a known id is unknown too.
    let other = format!("[secret:jwt:{}", &placeholder[placeholder.len() - 5..]);
    assert!(alice.restore(&other).is_err());
    // Not a placeholder's grammar: left as it is.
    for text in [
        "[secret:",
        "[secret:Token:abcd]",
        "[secret:token:abc]",
        "see [secret:x]",
    ] {
        assert!(
            matches!(alice.restore(text), Ok(Cow::Borrowed(_))),
            "{text}"
        );
    }
    assert!(Secrets::new(Mode::Show).vault("alice").is_none());
}

#[test]
fn the_vault_is_bounded_and_forgets_the_oldest() {
    let vault = Vault::default();
    let first = vault
        .mask("A_TOKEN=value-number-0", How::default())
        .into_owned();
    for i in 1..=Vault::LIMIT {
        vault.mask(&format!("A_TOKEN=value-number-{i}"), How::default());
    }
    assert_eq!(vault.len(), Vault::LIMIT);
    assert!(vault.restore(&first).is_err());
    let last = vault
        .mask(
            &format!("A_TOKEN=value-number-{}", Vault::LIMIT),
            How::default(),
        )
        .into_owned();
    assert!(vault.restore(&last).is_ok());
}

#[test]
fn known_values_are_masked_wherever_they_stand() {
    let vault = Vault::default();
    vault.learn([
        ("DEPLOY_TOKEN", "plainvalue42"),
        ("HOME", "/home/rat"),
        ("X_SECRET", "short"),
    ]);
    let masked = vault.mask("echo plainvalue42 and plainvalue420", How::default());
    let id = placeholders(&masked)[0].to_owned();
    assert!(id.starts_with("[secret:env-deploy-token:"), "{id}");
    assert_eq!(masked, format!("echo {id} and plainvalue420"));
    assert_eq!(
        vault.mask("/home/rat short", How::default()),
        "/home/rat short"
    );
}

#[test]
fn rows_keep_their_count() {
    let vault = Vault::default();
    let key = synthetic::private_key(&mut Random::new(10), "EC", 64);
    let rows: Vec<Cow<str>> = format!("a\n{key}\nb")
        .split('\n')
        .map(|r| Cow::Owned(r.to_owned()))
        .collect();
    let n = rows.len();
    let masked = super::mask_rows(Some(&vault), rows, true);
    assert_eq!(masked.len(), n);
    assert!(masked[1].starts_with("[secret:private-key:"));
    assert_eq!(masked[n - 1], "b");
}

/// Not a test: `cargo test --release -p rat-core --lib secrets::tests::timing -- --ignored
/// --nocapture` prints what masking costs per byte on a quiet text and on a text with a keyword
/// in every few words.
/// The hook's globs (bash) and the rules (`says_secret`) read names alike: the names bash's
/// `case` keeps are those the rules say secret, and the gate keeps all of them.
#[test]
fn bash_reads_names_as_the_rules_do() {
    let names = [
        "DB_PASSWORD",
        "PASSWORD",
        "MY_API_KEY",
        "GITHUB_TOKEN",
        "github_token",
        "Stripe_Secret",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "DB_PASS",
        "PGPASS",
        "GPG_PASSPHRASE",
        "X_PASSWD",
        "OLDPWD",
        "PWD",
        "PATH",
        "EDITOR",
        "HOME",
        "TOKENS",
        "SECRETARY",
        "MONKEY",
        "apikey",
        "SSH_PRIVATE_KEY",
        "SECRETKEY",
        "BASH_ALIASES",
    ];
    let (gate, cases) = super::bash_name_globs();
    let script = format!(
        "for n in {}; do case $n in {cases}) echo \"$n\";; esac; done; echo --; \
         for n in {}; do [[ $n == {gate} ]] && echo \"$n\"; done",
        names.join(" "),
        names.join(" ")
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .output()
        .expect("bash runs");
    let out = String::from_utf8(out.stdout).unwrap();
    let (kept, gated) = out.split_once("--\n").expect("both parts");
    let secret: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| super::rules::says_secret(n.as_bytes()).is_some())
        .collect();
    assert_eq!(kept.lines().collect::<Vec<_>>(), secret);
    let gated: Vec<&str> = gated.lines().collect();
    for name in &secret {
        assert!(gated.contains(name), "{name} not through the gate {gate}");
    }
    // Ordinary names do not pass it: a shell without secrets pays the gate alone.
    for name in ["PATH", "EDITOR", "HOME", "PWD", "OLDPWD"] {
        assert!(!gated.contains(&name), "{name} through the gate {gate}");
    }
}

/// Values handed over by the hook (`NAME=VALUE` entries ended by NULs, then `.`): learned
/// whole, with spaces, quotes and new lines; a file without its end teaches nothing; a value
/// under 8 bytes (spaces around it left out) is never learned; a name that does not say
/// secret is not learned; the way back gives the value.
#[test]
fn handed_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0");
    let vault = Vault::default();
    let text = "pw: hunter2x9 and \"more\"; short: abc1234; key:\ntwo\nlines!\neditor vim-is-long";
    std::fs::write(
        &path,
        b"DB_PASSWORD=hunter2x9 and \"more\"\0SHORT_TOKEN=  abc1234  \0",
    )
    .unwrap();
    vault.learn_handed(&path);
    assert_eq!(
        vault.mask(text, How::default()),
        text,
        "no end: nothing learned"
    );
    vault.learn_handed(&dir.path().join("missing"));
    std::fs::write(
        &path,
        b"DB_PASSWORD=hunter2x9 and \"more\"\0SHORT_TOKEN=  abc1234  \0\
          MY_API_KEY=two\nlines!\0EDITOR=vim-is-long\0.\0",
    )
    .unwrap();
    vault.learn_handed(&path);
    let masked = vault.mask(text, How::default()).into_owned();
    let found = placeholders(&masked);
    assert_eq!(found.len(), 2, "{masked}");
    assert!(found[0].starts_with("[secret:env-db-password:"), "{masked}");
    assert!(found[1].starts_with("[secret:env-my-api-key:"), "{masked}");
    assert_eq!(
        masked,
        format!(
            "pw: {}; short: abc1234; key:\n{}\neditor vim-is-long",
            found[0], found[1]
        )
    );
    assert_eq!(vault.restore(&masked).unwrap(), text);
    // An empty list (the variables unset) forgets nothing.
    std::fs::write(&path, b".\0").unwrap();
    vault.learn_handed(&path);
    assert_eq!(vault.mask(text, How::default()), masked);
}
