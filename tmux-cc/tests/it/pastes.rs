//! Pastes and groups against a real tmux server: a paste arrives byte for byte and leaves no
//! buffer, runs at a prompt with its Enter, never presses its keys alone when cut short, and a
//! group stops at its first failure.

use std::time::Duration;

use crate::common::{Env, env, env_with_session, wait_capture};
use crate::ops::{assert_no_buffers, check_window_size, sh};
use tmux_cc::{
    Capture, Command, Error, NewSession, OptionScope, leave_modes, send_keys, send_literal,
    set_pane_option,
};
/// A pane that says READY once its terminal is raw, writes exactly `len` bytes of its raw
/// input to `file`, then says DONE.
fn sink(file: &std::path::Path, len: usize) -> Vec<Vec<u8>> {
    sh(&format!(
        "stty raw -echo; printf READY; head -c {len} > '{}'; stty sane; echo DONE; exec sleep 1000",
        file.display()
    ))
}

#[tokio::test]
async fn a_paste_arrives_byte_for_byte_and_leaves_no_trace() {
    let env = env("paste").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("got");
    // Every byte but NUL and ESC (an ESC sequence would be the terminal's, not the data's),
    // LF and tabs included, then mixed Unicode.
    let mut data: Vec<u8> = (1..=255u8).filter(|b| *b != 0x1b).collect();
    data.extend_from_slice("\nmixed: é ü 中文 🦀\ttab\n".as_bytes());
    let mut new = NewSession::new("p");
    new.command = sink(&file, data.len());
    env.client.new_session(&new).await.unwrap();
    // Not before the terminal is raw: the line discipline would take some bytes for itself.
    wait_capture(&env.client, "=p:", &Capture::default(), |s| {
        s.contains("READY")
    })
    .await;
    env.client
        .paste(
            "=p:",
            &data,
            &[
                leave_modes("=p:"),
                set_pane_option("=p:", "@tcc_input", b"1"),
            ],
            &[],
        )
        .await
        .unwrap();
    wait_capture(&env.client, "=p:", &Capture::default(), |s| {
        s.contains("DONE")
    })
    .await;
    assert_eq!(std::fs::read(&file).unwrap(), data);
    assert_eq!(
        env.client.pane_option("=p:", "@tcc_input").await.unwrap(),
        Some(b"1".to_vec())
    );
    // No buffer left, no text in tmux's message log, no file left in the private directory.
    assert_no_buffers(&env).await;
    let dir = env.client.private_dir();
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(dir).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o700);
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        0,
        "a file was left"
    );
    let log = env
        .client
        .run(&Command::new("show-messages"))
        .await
        .unwrap();
    let log = log.join(&b'\n');
    assert!(
        !log.windows(5).any(|w| w == b"mixed"),
        "the text is in the message log"
    );
    check_window_size(&env).await;
}

/// Session `b`: a bash without startup files, prompt `$ `, at its prompt.
async fn bash_at_its_prompt(env: &Env) {
    let mut new = NewSession::new("b");
    new.command = vec![
        b"bash".to_vec(),
        b"--norc".to_vec(),
        b"--noprofile".to_vec(),
    ];
    new.environment = vec![("PS1".into(), b"$ ".to_vec())];
    env.client.new_session(&new).await.unwrap();
    wait_capture(&env.client, "=b:", &Capture::default(), |s| {
        s.starts_with('$')
    })
    .await;
}

#[tokio::test]
async fn a_paste_then_enter_runs_at_a_prompt() {
    let env = env("enter").await;
    bash_at_its_prompt(&env).await;
    env.client
        .paste(
            "=b:",
            b"echo pasted-$((6*7))",
            &[leave_modes("=b:")],
            &[send_keys("=b:", &["Enter"])],
        )
        .await
        .unwrap();
    wait_capture(&env.client, "=b:", &Capture::default(), |s| {
        s.contains("pasted-42")
    })
    .await;
    // send-keys and literal keys.
    env.client
        .run(&send_literal("=b:", b"echo typed-$((1+1))"))
        .await
        .unwrap();
    env.client.send_keys("=b:", &["Enter"]).await.unwrap();
    wait_capture(&env.client, "=b:", &Capture::default(), |s| {
        s.contains("typed-2")
    })
    .await;
    // An empty paste sends only what comes before and after it.
    env.client
        .paste(
            "=b:",
            b"",
            &[send_literal("=b:", b"echo empty-ok")],
            &[send_keys("=b:", &["Enter"])],
        )
        .await
        .unwrap();
    wait_capture(&env.client, "=b:", &Capture::default(), |s| {
        s.contains("\nempty-ok")
    })
    .await;
    check_window_size(&env).await;
}

#[tokio::test]
async fn a_paste_cut_short_by_a_stopped_tmux_never_presses_its_keys_alone() {
    // tmux stopped (SIGSTOP) reads what was written once it resumes: a paste whose call gave
    // up meanwhile (its file removed) must not press the Enter after it, which would run what
    // was typed on the line before. Repeated: the stop can land anywhere in the input.
    let env = env("frozen").await;
    bash_at_its_prompt(&env).await;
    let pid = nix::unistd::Pid::from_raw(env.server.pid() as i32);
    let quick = env.client.with_timeout(Duration::from_millis(300));
    for round in 0..5 {
        let typed = format!("echo typed-before-{round}");
        env.client
            .run(&send_literal("=b:", typed.as_bytes()))
            .await
            .unwrap();
        wait_capture(&env.client, "=b:", &Capture::default(), |s| {
            s.trim_end().ends_with(&typed)
        })
        .await;
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
        let err = quick
            .paste(
                "=b:",
                b" ; echo pasted-late",
                &[leave_modes("=b:")],
                &[send_keys("=b:", &["Enter"])],
            )
            .await
            .unwrap_err();
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
        assert!(matches!(err, Error::Timeout { .. }), "{err}");
        // Everything written meanwhile has been read once a later command is answered.
        let screen = env
            .client
            .capture("=b:", &Capture::default())
            .await
            .unwrap();
        let screen = String::from_utf8_lossy(&screen).into_owned();
        let ran = screen
            .lines()
            .any(|l| l.starts_with("typed-before") || l.starts_with("pasted-late"));
        assert!(
            !ran,
            "round {round}: an Enter arrived without its text:\n{screen}"
        );
        assert!(
            screen.trim_end().ends_with(&typed),
            "round {round}: the text arrived after its call gave up:\n{screen}"
        );
        env.client.send_keys("=b:", &["C-u"]).await.unwrap();
    }
    // No buffer holding the text was left behind.
    assert_no_buffers(&env).await;
    check_window_size(&env).await;
}

#[tokio::test]
async fn a_group_stops_at_its_first_failure() {
    let env = env_with_session("group", "g").await;
    let replies = env
        .client
        .group(&[
            Command::new("display-message").args(["-p", "one"]),
            Command::new("has-session").args(["-t", "=nosuch"]),
            Command::new("set-option").args(["-g", "@ran", "yes"]),
        ])
        .await
        .unwrap();
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0].lines, vec![b"one".to_vec()]);
    assert!(!replies[1].success);
    // The command after the failure never ran, and the next reply is the next command's.
    let ran = env
        .client
        .option(OptionScope::GlobalSession, "@ran")
        .await
        .unwrap();
    assert_eq!(ran, None);
    let all = env
        .client
        .group(&[
            Command::new("display-message").args(["-p", "a"]),
            Command::new("display-message").args(["-p", "b"]),
        ])
        .await
        .unwrap();
    let lines: Vec<_> = all.iter().map(|r| r.lines.clone()).collect();
    assert_eq!(lines, vec![vec![b"a".to_vec()], vec![b"b".to_vec()]]);
    check_window_size(&env).await;
}

#[tokio::test]
async fn a_failed_paste_deletes_its_buffer_and_says_why() {
    let env = env_with_session("pastefail", "f").await;
    let err = env
        .client
        .paste("=f:=nosuch", b"secret text", &[], &[])
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `paste-buffer`: can't find window: nosuch");
    assert_no_buffers(&env).await;
    check_window_size(&env).await;
}
