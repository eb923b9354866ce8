//! Loads a file into a tmux buffer through one control connection, reads it back, compares.
//!
//! ```sh
//! cargo run --release -p tmux-cc --example roundtrip -- FILE
//! ```
//! Starts a private tmux server (`-L tmux-cc-roundtrip-PID`), loads FILE with `load-buffer`
//! (through a private file, as every paste does), reads the buffer back with `save-buffer`,
//! and prints `ok N bytes`, or the first differing offset and exits 1. Stops the server in
//! every case. Holds for any file up to 4 MiB without NUL bytes, UTF-8 or not (and with NUL
//! bytes too: a file carries any byte).

use std::process::ExitCode;

use tmux_cc::{ClientOptions, Server};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: roundtrip FILE");
        return ExitCode::from(2);
    };
    let data = match std::fs::read(&path) {
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
        Ok(back) => match first_difference(&data, &back) {
            None => {
                println!("ok {} bytes", data.len());
                ExitCode::SUCCESS
            }
            Some(offset) => {
                println!(
                    "differ at offset {offset} (sent {} bytes, got back {})",
                    data.len(),
                    back.len()
                );
                ExitCode::from(1)
            }
        },
        Err(e) => {
            eprintln!("roundtrip: {e}");
            ExitCode::from(2)
        }
    }
}

async fn roundtrip(server: &Server, data: &[u8]) -> tmux_cc::Result<Vec<u8>> {
    let client = server.connect(ClientOptions::default()).await?;
    client.load_buffer("roundtrip", data).await?;
    let back = client.save_buffer("roundtrip").await?;
    client.close().await;
    Ok(back)
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}
