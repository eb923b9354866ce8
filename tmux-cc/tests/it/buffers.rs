//! Arguments and buffers round-tripped byte for byte through a real tmux: every awkward byte
//! and word quoted into `set-buffer` then read back with `save-buffer`, and the same data
//! loaded with `load-buffer` (up to 4 MiB).

use crate::common::env;
use tmux_cc::{Command, Error};

/// The table: what tmux's parser, a shell or a format would otherwise change.
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let mut every: Vec<u8> = (1..=255u8).collect();
    every.extend((1..=255u8).rev());
    vec![
        ("single quotes", b"it's 'quoted' ''".to_vec()),
        ("double quotes", b"say \"hi\" \"\"".to_vec()),
        ("backslashes", b"a\\b\\\\c\\".to_vec()),
        ("dollar", b"$HOME ${HOME} $(id) `id`".to_vec()),
        ("tilde", b"~ ~/x ~root".to_vec()),
        ("semicolon at the end", b"echo one;".to_vec()),
        ("semicolons", b"; ;; \\;".to_vec()),
        ("format", b"#{pane_id} #{session_name} ##".to_vec()),
        ("hash first", b"# not a comment".to_vec()),
        ("percent if", b"%if 1\n%endif".to_vec()),
        ("braces", b"{ } {} {new-window}".to_vec()),
        ("leading dash", b"-t =x -- -".to_vec()),
        ("carriage return", b"a\rb\r\n".to_vec()),
        ("escape", b"\x1b[31mred\x1b[0m \x1b[201~".to_vec()),
        ("tabs", b"\ta\t\tb\t".to_vec()),
        ("new lines", b"\n\nline\n\n".to_vec()),
        (
            "invalid UTF-8",
            b"\xc3\x28 \xa0\xa1 \xe2\x28\xa1 \xf0\x28\x8c\xbc".to_vec(),
        ),
        ("0xFF", b"\xff\xff a \xff".to_vec()),
        ("unicode", "é 中文 🦀 \u{200b}".as_bytes().to_vec()),
        ("a single space", b" ".to_vec()),
        ("every byte 0x01-0xFF", every),
    ]
}

#[tokio::test]
async fn every_case_of_the_table_round_trips_through_set_buffer() {
    let env = env("setbuf").await;
    for (name, data) in cases() {
        let set = Command::new("set-buffer")
            .args(["-b", "tcc"])
            .arg("--")
            .arg(&data);
        env.client.run(&set).await.unwrap();
        let got = env.client.save_buffer("tcc").await.unwrap();
        assert_eq!(got, data, "{name}");
    }
}

#[tokio::test]
async fn every_case_of_the_table_round_trips_through_load_buffer() {
    let env = env("loadbuf").await;
    for (name, data) in cases() {
        env.client.load_buffer("tcc", &data).await.unwrap();
        assert_eq!(env.client.save_buffer("tcc").await.unwrap(), data, "{name}");
    }
}

/// 4 MiB of mixed Unicode, every ASCII punctuation, tabs, new lines and invalid UTF-8.
fn four_mib() -> Vec<u8> {
    let mut chunk = Vec::new();
    chunk.extend_from_slice("é ü 中文 🦀 ".as_bytes());
    chunk.extend(b'!'..=b'/');
    chunk.extend(b':'..=b'@');
    chunk.extend(b'['..=b'`');
    chunk.extend(b'{'..=b'~');
    chunk.extend_from_slice(b"\t\n\r\xff\xfe\x01\x1b");
    let mut data = Vec::with_capacity(4 << 20);
    let mut i = 0u32;
    while data.len() < 4 << 20 {
        data.extend_from_slice(&chunk);
        data.extend_from_slice(i.to_string().as_bytes());
        i += 1;
    }
    data.truncate(4 << 20);
    data
}

#[tokio::test]
async fn four_mib_round_trip_through_load_buffer_and_set_buffer() {
    let env = env("fourmib").await;
    let data = four_mib();
    env.client.load_buffer("big", &data).await.unwrap();
    assert!(env.client.save_buffer("big").await.unwrap() == data);
    let set = Command::new("set-buffer")
        .args(["-b", "big2", "--"])
        .arg(&data);
    env.client.run(&set).await.unwrap();
    assert!(env.client.save_buffer("big2").await.unwrap() == data);
}

#[tokio::test]
async fn nul_cannot_go_into_a_command_line_and_nothing_is_sent() {
    let env = env("nul").await;
    let err = env
        .client
        .run(
            &Command::new("set-buffer")
                .args(["-b", "n", "--"])
                .arg(b"a\0b"),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Quote(_)), "{err:?}");
    let err = env.client.save_buffer("n").await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `save-buffer`: no buffer n");
    // Through a file, NUL is data like any other byte.
    env.client.load_buffer("n", b"a\0b").await.unwrap();
    assert_eq!(env.client.save_buffer("n").await.unwrap(), b"a\0b");
}

#[tokio::test]
async fn an_empty_load_is_refused_as_tmux_keeps_no_empty_buffer() {
    let env = env("emptyload").await;
    let err = env.client.load_buffer("e", b"").await.unwrap_err();
    assert!(matches!(err, Error::Refused(_)), "{err:?}");
    insta::assert_snapshot!(err.to_string(), @"refused: tmux keeps no empty buffer: there is nothing to load");
    let err = env.client.load_buffer("a,b", b"x").await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"refused: a buffer name is ASCII letters, digits, '_', '-' or '.'");
}
