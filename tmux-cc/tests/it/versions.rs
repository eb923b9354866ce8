//! The server's version and what it does differently, on the tmux first on PATH (the version
//! matrix, `scripts/tmux-matrix`, runs this file with each release).

use crate::common::{env, wait_capture};
use tmux_cc::{Capture, Difference, Features, NewSession, TmuxVersion};

/// `tmux -V` of the tmux on PATH, forked: independent of tmux-cc.
fn tmux_v() -> String {
    let out = std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .expect("run tmux -V");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn the_client_knows_the_server_version_and_its_rows() {
    let env = env("version").await;
    let said = tmux_v();
    assert_eq!(env.client.version().said, said);
    assert_eq!(env.client.version(), env.server.version());
    let expected = Features::of_release(&TmuxVersion::parse(&said).unwrap())
        .expect("the matrix runs releases");
    assert_eq!(env.client.features(), &expected);
}

/// What a development build would get (each row that has a probe tried on the server) is what
/// the table says of this release: the probes tell the rows apart on every version.
#[tokio::test]
async fn trying_each_row_finds_what_the_table_says() {
    let env = env("probe").await;
    let probed = env.client.probe_features().await.unwrap();
    let mut tried = 0;
    for row in tmux_cc::DIFFERENCES {
        if row.difference.probe("=x:").is_some() {
            tried += 1;
            assert_eq!(
                probed.has(row.difference),
                env.client.features().has(row.difference),
                "{:?} on {}",
                row.difference,
                env.client.version()
            );
        }
    }
    assert_eq!(tried, 2, "PasteEscapes and OptionDollarEscaped are tried");
    // The probe leaves nothing behind on the service session.
    let session = format!("={}:", env.client.session_name());
    assert_eq!(
        env.client
            .option(tmux_cc::OptionScope::Session(&session), "@tmux-cc-probe")
            .await
            .unwrap(),
        None
    );
}

/// ESC sequences, a bracketed paste's end and control bytes arrive as they are: tmux 3.7 would
/// paste `\033[31m` for `ESC[31m` without `-S` (the row `PasteEscapes`).
#[tokio::test]
async fn a_paste_holding_escape_sequences_arrives_as_it_is() {
    let env = env("paste-esc").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("got");
    let data = b"\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[201~ end\x01\x7f\t\r\n".to_vec();
    let mut new = NewSession::new("e");
    new.command = vec![
        b"sh".to_vec(),
        b"-c".to_vec(),
        format!(
            "stty raw -echo; printf READY; head -c {} > '{}'; stty sane; echo DONE; exec sleep 1000",
            data.len(),
            file.display()
        )
        .into_bytes(),
    ];
    env.client.new_session(&new).await.unwrap();
    wait_capture(&env.client, "=e:", &Capture::default(), |s| {
        s.contains("READY")
    })
    .await;
    env.client.paste("=e:", &data, &[], &[]).await.unwrap();
    wait_capture(&env.client, "=e:", &Capture::default(), |s| {
        s.contains("DONE")
    })
    .await;
    assert_eq!(std::fs::read(&file).unwrap(), data);
    let with_s = env.client.features().has(Difference::PasteEscapes);
    assert_eq!(with_s, env.client.features().paste_flags().contains(&"-S"));
}
