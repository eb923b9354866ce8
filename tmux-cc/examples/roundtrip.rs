//! Sends a file through one control connection twice, into a buffer and as a paste into a
//! pane, reads both back, compares them with the file.
//!
//! ```sh
//! cargo run --release -p tmux-cc --example roundtrip -- --write-mixed /tmp/mixed  # 4 MiB
//! cargo run --release -p tmux-cc --example roundtrip -- FILE
//! ```
//! Starts a private tmux server (`-L tmux-cc-roundtrip-PID`), loads FILE with `load-buffer`
//! (through a private file, as every paste does) and reads the buffer back with
//! `save-buffer`; then pastes FILE with `Client::paste` into a pane whose program, its
//! terminal raw, writes what it reads to a file. Prints `ok N bytes (buffer and paste, tmux
//! VERSION)`, or the first differing offset of each and exits 1. Stops the server in every
//! case. Holds for any file, UTF-8 or not, NUL bytes included; an empty file is refused (tmux
//! keeps no empty buffer).
//!
//! `--write-mixed FILE` writes the 4 MiB test file: every byte value, UTF-8 text of several
//! scripts, escape sequences (a bracketed paste's end `ESC[201~` included), CR LF and LF line
//! ends, long lines; the same bytes on every run.

use std::error::Error;
use std::process::ExitCode;
use std::time::Duration;

use tmux_cc::{Capture, ClientOptions, NewSession, Server};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let path = match &args[..] {
        [flag, path] if flag == "--write-mixed" => {
            return match std::fs::write(path, mixed(4 << 20)) {
                Ok(()) => {
                    println!("wrote {} bytes to {}", 4 << 20, path.to_string_lossy());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("roundtrip: writing {}: {e}", path.to_string_lossy());
                    ExitCode::from(2)
                }
            };
        }
        [path] => path,
        _ => {
            eprintln!("usage: roundtrip FILE | roundtrip --write-mixed FILE");
            return ExitCode::from(2);
        }
    };
    let data = match std::fs::read(path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("roundtrip: reading {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let socket = format!("tmux-cc-roundtrip-{}", std::process::id());
    let server = match Server::start(&socket).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("roundtrip: {e}");
            return ExitCode::from(2);
        }
    };
    let result = roundtrip(&server, &data).await;
    if let Err(e) = server.stop().await {
        eprintln!("roundtrip: stopping the server: {e}");
    }
    match result {
        Ok((buffer, pasted)) => {
            let mut code = ExitCode::SUCCESS;
            for (what, back) in [("buffer", &buffer), ("paste", &pasted)] {
                if let Some(offset) = first_difference(&data, back) {
                    println!(
                        "{what} differs at offset {offset} (sent {} bytes, got back {})",
                        data.len(),
                        back.len()
                    );
                    code = ExitCode::from(1);
                }
            }
            if code == ExitCode::SUCCESS {
                println!(
                    "ok {} bytes (buffer and paste, tmux {})",
                    data.len(),
                    server.version()
                );
            }
            code
        }
        Err(e) => {
            eprintln!("roundtrip: {e}");
            ExitCode::from(2)
        }
    }
}

/// The buffer read back, and what the pane's program read from the paste.
async fn roundtrip(server: &Server, data: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Box<dyn Error>> {
    let client = server.connect(ClientOptions::default()).await?;
    client.load_buffer("roundtrip", data).await?;
    let buffer = client.save_buffer("roundtrip").await?;
    client.delete_buffer("roundtrip").await?;

    let dir = client.private_dir().to_path_buf();
    let got = dir.join("pasted");
    let mut sink = NewSession::new("roundtrip");
    // Raw: the terminal's line discipline neither edits nor takes any byte.
    sink.command = vec![
        b"sh".to_vec(),
        b"-c".to_vec(),
        format!(
            "stty raw -echo; printf READY; head -c {} > '{}'; printf DONE; exec sleep 1000",
            data.len(),
            got.display()
        )
        .into_bytes(),
    ];
    client.new_session(&sink).await?;
    wait_for(&client, "READY").await?;
    client.paste("=roundtrip:", data, &[], &[]).await?;
    wait_for(&client, "DONE").await?;
    let pasted = std::fs::read(&got).map_err(|e| format!("reading the paste: {e}"))?;
    let _ = std::fs::remove_file(&got);
    client.close().await;
    Ok((buffer, pasted))
}

async fn wait_for(client: &tmux_cc::Client, text: &str) -> Result<(), Box<dyn Error>> {
    for _ in 0..3000 {
        let screen = client.capture("=roundtrip:", &Capture::default()).await?;
        if String::from_utf8_lossy(&screen).contains(text) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(format!("the pane's program did not print {text} within 60 s").into())
}

/// `len` bytes: a cycle of every byte value, several scripts, escape sequences and line ends.
fn mixed(len: usize) -> Vec<u8> {
    let pieces: [&[u8]; 8] = [
        "plain ASCII text, a line of it\n".as_bytes(),
        "é ü ß — 中文字符 日本語 한국어 Ελληνικά русский 🦀🚀 e\u{301}\r\n".as_bytes(),
        b"\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[201~ bracket end\n",
        b"\xff\xfe\x80\xc3 invalid UTF-8 \xe2\x82\n",
        b"tab\there\x08\x7f ^C\x03 ^D\x04 ^Z\x1a ^S\x13 ^Q\x11 CR\r\n",
        b"'single' \"double\" $HOME ~ #{pane_id} ; \\ `x` %end 1 2 1\n",
        &[b'x'; 3000],
        b"\n",
    ];
    let mut out = Vec::with_capacity(len + 4096);
    let mut byte = 0u8;
    while out.len() < len {
        for piece in pieces {
            out.extend_from_slice(piece);
        }
        // 64 consecutive byte values (NUL included) each round.
        for _ in 0..64 {
            out.push(byte);
            byte = byte.wrapping_add(1);
        }
        out.push(b'\n');
    }
    out.truncate(len);
    out
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}
