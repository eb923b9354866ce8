//! `rat-tool bundle generate` and `bundle inspect`, run as a user runs them: outputs and exit
//! statuses.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime};

use crate::common::{rat_tool, redact};

#[test]
fn generate_then_inspect_every_side() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bundles/prod");
    let run = rat_tool(
        [
            "bundle", "generate", "--tenant", "prod", "--client", "alice", "--client", "bob",
            "--output",
        ]
        .map(String::from)
        .into_iter()
        .chain([out.display().to_string()]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("generate", redact(&run.text(), tmp.path()));

    let run = rat_tool(
        [
            out.join("server"),
            out.join("clients/alice"),
            out.join("clients/bob"),
        ]
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .into_iter()
        .fold(
            vec!["bundle".to_owned(), "inspect".to_owned()],
            |mut v, p| {
                v.push(p);
                v
            },
        ),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout.matches("  ok    ").count(), 21);
    insta::assert_snapshot!("inspect_one_bundle", redact(&run.text(), tmp.path()));
}

#[test]
fn generate_refuses_an_existing_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("empty");
    fs::create_dir(&out).unwrap();
    let run = rat_tool([
        "bundle",
        "generate",
        "--tenant",
        "prod",
        "--client",
        "alice",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    assert!(fs::read_dir(&out).unwrap().next().is_none());
    insta::assert_snapshot!(redact(&run.text(), tmp.path()));
}

#[test]
fn generate_refuses_bad_names_and_missing_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("b");
    let o = out.to_str().unwrap();
    let mut text = String::new();
    for args in [
        vec![
            "bundle",
            "generate",
            "--tenant",
            "prod.example",
            "--client",
            "alice",
            "--output",
            o,
        ],
        vec![
            "bundle", "generate", "--tenant", "prod", "--client", "alice", "--client", "alice",
            "--output", o,
        ],
        vec!["bundle", "generate", "--tenant", "prod", "--output", o],
    ] {
        let run = rat_tool(&args);
        text += &format!("$ rat-tool {}\n{}\n", args.join(" "), run.text());
    }
    assert!(!out.exists());
    insta::assert_snapshot!(redact(&text, tmp.path()));
}

#[test]
fn inspect_tells_directories_of_several_bundles() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    rat_wire::mtls::generate("prod", &["alice"], &a).unwrap();
    rat_wire::mtls::generate("prod", &["alice"], &b).unwrap();
    let run = rat_tool(
        [
            a.join("server"),
            b.join("clients/alice"),
            a.join("clients/alice"),
        ]
        .iter()
        .fold(
            vec!["bundle".to_owned(), "inspect".to_owned()],
            |mut v, p| {
                v.push(p.display().to_string());
                v
            },
        ),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("These directories belong to 2 different bundles:")
    );
    insta::assert_snapshot!(redact(&run.text(), tmp.path()));
}

#[test]
fn inspect_fails_on_a_failing_check() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    rat_wire::mtls::generate("prod", &["alice", "bob"], &a).unwrap();
    let key = a.join("clients/bob/client.key");
    fs::set_permissions(&key, fs::Permissions::from_mode(0o644)).unwrap();
    let run = rat_tool([
        "bundle",
        "inspect",
        a.join("clients/alice").to_str().unwrap(),
        a.join("clients/bob").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    insta::assert_snapshot!(redact(&run.text(), tmp.path()));
}

#[test]
fn inspect_warns_under_a_year_of_validity() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    // generated 9.5 years ago: about half a year left
    let at = SystemTime::now() - Duration::from_secs(9 * 365 * 86_400 + 180 * 86_400);
    rat_wire::mtls::generate_at("prod", &["alice"], &a, at).unwrap();
    let run = rat_tool(["bundle", "inspect", a.join("server").to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(redact(&run.text(), tmp.path()));
}

#[test]
fn help_documents_the_exit_statuses() {
    let mut text = String::new();
    for args in [
        vec!["--help"],
        vec!["bundle", "generate", "--help"],
        vec!["bundle", "inspect", "--help"],
        vec!["check", "--help"],
    ] {
        let run = rat_tool(&args);
        assert_eq!(run.code, 0);
        text += &format!("$ rat-tool {}\n{}\n", args.join(" "), run.stdout);
    }
    insta::assert_snapshot!(text);
}

#[test]
fn generate_refuses_client_names_of_ratds_own_sessions() {
    // tmux-cc names its sessions tmux-cc-PID-N by default (ratd's own were named so); ratd's
    // are now ratd+PID+N, which the plain-name rule refuses already.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("b");
    for (client, reason) in [
        (
            "tmux-cc-1-0",
            "a client name may not begin with tmux-cc-, which names the tmux sessions ratd uses itself (choose another client name)",
        ),
        (
            "ratd+1+0",
            "only letters, digits, '_' and '-' are allowed (1 to 32 characters)",
        ),
    ] {
        let run = rat_tool([
            "bundle",
            "generate",
            "--tenant",
            "prod",
            "--client",
            "alice",
            "--client",
            client,
            "--output",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 1, "{}", run.text());
        assert_eq!(
            run.stderr,
            format!("rat-tool: client: invalid name {client:?}: {reason}\n")
        );
        assert!(!out.exists());
    }
}
