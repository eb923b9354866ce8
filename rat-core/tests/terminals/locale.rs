//! Non-ASCII text survives from input to capture whatever ratd's locale: a service often has
//! none (systemd), where tmux would print `_` for non-ASCII without `-u`, and bash would mangle
//! its input without `LC_ALL=C.UTF-8` in the terminals.

use crate::common::*;
use rat_core::terminals::SendText;

const LOCALE: [&str; 3] = ["LANG", "LC_ALL", "LC_CTYPE"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_ascii_survives_with_the_locale_unset() {
    if LOCALE.iter().any(|v| std::env::var_os(v).is_some()) {
        // Run this very test again in a process with the locale unset, as ratd under systemd.
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child.args([
            "--exact",
            "locale::non_ascii_survives_with_the_locale_unset",
            "--nocapture",
        ]);
        for v in LOCALE {
            child.env_remove(v);
        }
        let status = child.status().expect("the test binary runs again");
        assert!(status.success(), "with the locale unset: {status}");
        return;
    }
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    let done = f
        .run(
            "s",
            "main",
            "mkdir -p café && cd café && echo 'é ✓ 漢字 🐀'",
        )
        .await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    let t = f.controller.session("s");
    // The hook records the prompt before bash prints it: the wait may end before the screen
    // shows the prompt, so the screen is read until it does.
    let screen = f.read_until("s", "main", 0, |s| s.ends_with("\n$")).await;
    assert_eq!(
        screen.text,
        "$ mkdir -p café && cd café && echo 'é ✓ 漢字 🐀'\né ✓ 漢字 🐀\n$"
    );
    let list = t.list_windows().await;
    assert_eq!(
        f.redact(&list.text),
        "main: bash in ~/café, active Ns ago, last command exited with status 0 (Ns ago)"
    );
    // A text with them waits on the command line as sent.
    t.send_text(SendText {
        window: "main".into(),
        text: "printf '%s\\n' 'ü→漢'".into(),
        enter: false,
        wait_seconds: 0,
    })
    .await;
    // Read until the last line shows a whole text (its four quotes; not after a fixed sleep):
    // it must then be as sent.
    let screen = f
        .read_until("s", "main", 0, |s| {
            let last = s.lines().last().unwrap_or("");
            last.starts_with("$ printf") && last.matches('\'').count() == 4 && last.ends_with('\'')
        })
        .await;
    assert!(
        screen.text.ends_with("$ printf '%s\\n' 'ü→漢'"),
        "{}",
        screen.text
    );
}
