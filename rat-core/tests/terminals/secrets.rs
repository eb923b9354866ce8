//! Secrets masked in real terminals (`docs/design/secrets.md`): synthetic secrets of every kind
//! (valid in shape and checksum, made here, never real) printed by real commands, none in any
//! answer; the round trips of a `.env`; the outputs of a real session untouched.

use std::path::Path;

use rat_core::files::{self, ReadFile, WriteFile};
use rat_core::result::{ReadBudget, ToolResult};
use rat_core::secrets::synthetic::{self, Random, Sample, corpus};
use rat_core::terminals::Terminals;

use crate::common::*;

/// No secret of `samples`, nor a piece of one (16 characters of its end or its start), in
/// `text`.
fn assert_clean(text: &str, samples: &[Sample], what: &str) {
    for s in samples {
        let v = s.value.replace('\n', "");
        for piece in [&v[..16.min(v.len())], &v[v.len().saturating_sub(16)..]] {
            assert!(
                !text.contains(piece),
                "{what}: a piece of {} ({piece}) in:\n{text}",
                s.kind
            );
        }
    }
}

fn placeholders(text: &str) -> usize {
    text.matches("[secret:").count()
}

fn kinds_shown(text: &str, samples: &[Sample], what: &str) {
    for s in samples {
        assert!(
            text.contains(&format!("[secret:{}:", s.kind)),
            "{what}: no placeholder of {} in:\n{text}",
            s.kind
        );
    }
}

async fn read_all(t: &Terminals, rows: u32) -> String {
    t.read_window(read("main", rows)).await.text
}

#[tokio::test]
async fn every_kind_printed_by_real_commands_becomes_its_placeholder() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let samples = corpus(31);
    let lines: String = samples.iter().map(|s| format!("{}\n", s.line)).collect();
    std::fs::write(f.home().join("corpus.txt"), &lines).unwrap();

    // cat: the wait's answer and the screen.
    let answer = f.run("s", "main", "cat ~/corpus.txt").await.text;
    assert_clean(&answer, &samples, "cat, answer");
    let screen = read_all(&t, 200).await;
    assert_clean(&screen, &samples, "cat, read_window");
    kinds_shown(&screen, &samples, "cat, read_window");

    // A YAML and a JSON file.
    let r = &mut Random::new(5);
    let (yaml_token, json_password) = (
        synthetic::checksummed(r, "ghp_"),
        r.chars(18, b"abcdef0123456789!#"),
    );
    std::fs::write(
        f.home().join("config.yaml"),
        format!("github:\n  token: {yaml_token}\ndb:\n  password: \"{json_password}\"\n"),
    )
    .unwrap();
    std::fs::write(
        f.home().join("config.json"),
        format!("{{\n  \"db\": {{\"password\": \"{json_password}\", \"port\": 5432}}\n}}\n"),
    )
    .unwrap();
    let answer = f
        .run("s", "main", "cat ~/config.yaml ~/config.json")
        .await
        .text;
    for secret in [&yaml_token, &json_password] {
        assert!(!answer.contains(secret.as_str()), "{answer}");
    }
    assert!(
        answer.contains("  token: [secret:github-token:"),
        "{answer}"
    );
    assert!(answer.contains("\"port\": 5432"), "{answer}");

    // env: exported variables.
    let token = &samples[0].value;
    let stripe = &samples[6].value;
    f.run(
        "s",
        "main",
        &format!("export DEPLOY_TOKEN={token} STRIPE={stripe}"),
    )
    .await;
    let answer = f
        .run(
            "s",
            "main",
            "env | grep -E '^(DEPLOY_TOKEN|STRIPE)=' | sort",
        )
        .await
        .text;
    assert_clean(&answer, &samples[..7], "env");
    assert!(
        answer.contains("DEPLOY_TOKEN=[secret:github-token:"),
        "{answer}"
    );
    assert!(answer.contains("STRIPE=[secret:stripe-key:"), "{answer}");

    // git remote -v: a token as the user, a password after it.
    let password = &samples[16].value;
    f.run("s", "main", &format!(
        "git init -q ~/repo && cd ~/repo && git remote add origin https://{token}@github.com/o/r.git && \
         git remote add deploy https://deploy:{password}@git.example.com/app.git"
    ))
    .await;
    let answer = f.run("s", "main", "git remote -v").await.text;
    assert_clean(&answer, &samples, "git remote -v");
    assert_eq!(
        answer.matches("https://[secret:github-token:").count(),
        2,
        "{answer}"
    );
    assert_eq!(
        answer
            .matches("https://deploy:[secret:url-password:")
            .count(),
        2,
        "{answer}"
    );
    assert_clean(&read_all(&t, 100).await, &samples, "git, read_window");
}

#[tokio::test]
async fn curl_v_against_a_local_server_shows_no_authorization() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let bearer = Random::new(11).chars(
        40,
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    f.run(
        "s",
        "main",
        &format!(
            "cd ~ && (python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 &) ; sleep 1"
        ),
    )
    .await;
    let answer = f
        .run("s", "main", &format!("curl -sv -o /dev/null -H 'Authorization: Bearer {bearer}' http://127.0.0.1:{port}/ 2>&1 | grep -i '^> '"))
        .await
        .text;
    let screen = read_all(&t, 100).await;
    f.run("s", "main", "pkill -f 'http.server {port}' || true")
        .await;
    for text in [&answer, &screen] {
        assert!(
            !text.contains(&bearer[..16]) && !text.contains(&bearer[24..]),
            "{text}"
        );
    }
    assert!(
        answer.contains("> Authorization: Bearer [secret:authorization:"),
        "{answer}"
    );
    assert!(answer.contains("> GET / HTTP/1.1"), "{answer}");
}

#[tokio::test]
async fn a_token_wrapped_at_200_columns_is_masked_whole_joined_or_not() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let token = synthetic::checksummed(&mut Random::new(12), "ghp_");
    let line = format!("{} {token} end", "w".repeat(180));
    std::fs::write(f.home().join("wide.txt"), format!("{line}\n")).unwrap();
    let samples = [Sample {
        kind: "github-token",
        value: token.clone(),
        line,
    }];
    let answer = f.run("s", "main", "cat ~/wide.txt").await.text;
    assert_clean(&answer, &samples, "wrapped, answer");
    let screen = read_all(&t, 0).await;
    assert_clean(&screen, &samples, "wrapped, read_window");
    assert!(
        screen.contains(&format!("{} [secret:github-token:", "w".repeat(180))),
        "{screen}"
    );
    // less shows the rows as displayed, the token split over two of them.
    t.send_text(text("main", "less ~/wide.txt", true)).await;
    let shown = f
        .read_until("s", "main", 0, |s| {
            // less drawn: its screen is on before its rows are.
            (s.contains("full-screen") && s.contains("[secret:")) || s.contains(" end")
        })
        .await
        .text;
    assert_clean(&shown, &samples, "wrapped, less");
    assert!(shown.contains("[secret:github-token:"), "{shown}");
    t.send_keys(keys("main", &["q"])).await;
}

#[tokio::test]
async fn a_cut_for_the_read_budget_or_the_last_rows_leaves_no_piece_of_a_secret() {
    let f = start(Home {
        budget: Some(ReadBudget::new(20 * 1024).unwrap()),
        ..Home::default()
    })
    .await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = &mut Random::new(13);
    // 10000 rows; every row a token whole (the cut lands in one), every 100th an assignment.
    let mut samples = Vec::new();
    let mut file = String::new();
    for i in 0..10_000 {
        if i % 100 == 0 {
            let v = r.chars(24, b"abcdefghijklmnopqrstuvwxyz0123456789");
            file += &format!("API_TOKEN={v}\n");
            samples.push(Sample {
                kind: "token",
                value: v,
                line: String::new(),
            });
        } else {
            let v = synthetic::checksummed(r, "ghp_");
            file += &format!("{v}\n");
            if i % 7 == 0 {
                samples.push(Sample {
                    kind: "github-token",
                    value: v,
                    line: String::new(),
                });
            }
        }
    }
    std::fs::write(f.home().join("many.txt"), &file).unwrap();
    let answer = f.run("s", "main", "cat ~/many.txt").await.text;
    assert!(
        answer.contains("[10000 rows printed, the last 40 below"),
        "{answer}"
    );
    assert_clean(&answer, &samples, "10000 rows, answer");
    assert_eq!(placeholders(&answer), 40, "{answer}");
    for rows in [10_000, 2_000, 1_000] {
        let text = read_all(&t, rows).await;
        assert!(text.len() <= 20 * 1024, "{}", text.len());
        assert!(
            text.contains("history cut at its start"),
            "{}",
            &text[..200]
        );
        assert_clean(&text, &samples, "10000 rows, read_window");
        // The first row kept, cut anywhere, is the end of a placeholder, never of a token.
        let first = text.lines().nth(1).unwrap();
        assert!(first.ends_with(']'), "{first}");
    }
}

async fn read_file(path: &Path) -> ToolResult {
    files::read_file(
        ReadFile {
            path: path.to_string_lossy().into_owned(),
            ..Default::default()
        },
        ReadBudget::DEFAULT,
        std::time::Duration::from_secs(5),
    )
    .await
}

#[tokio::test]
async fn a_dotenv_read_changed_and_written_back_equals_the_original_but_that_line() {
    let f = start_ready().await;
    let vault = f.controller.secrets().vault("s").unwrap();
    let samples = corpus(40);
    // With a URL's password and an Authorization header's credentials, whose placeholders
    // must not be masked again where ratd masks a whole answer after the rows.
    let r = &mut Random::new(4040);
    let (url_password, bearer) = (r.chars(16, ALNUM), r.chars(24, ALNUM));
    let original = format!(
        "# app\nDEBUG=false\nGITHUB_TOKEN={}\nDB_PASSWORD='{}'\nAWS_ACCESS_KEY_ID={}\n\
         DATABASE_URL=postgres://app:{url_password}@db:5432/app\n\
         # curl -H 'Authorization: Bearer {bearer}'\nPORT=8080\n",
        samples[0].value, samples[18].value, samples[7].value
    );
    let path = f.home().join(".env");
    std::fs::write(&path, &original).unwrap();
    let expected = original.replace("PORT=8080", "PORT=9090");

    // read_file: the content after its header, masked as ratd masks it.
    let mut read = read_file(&path).await;
    vault.mask_result(&mut read);
    assert_clean(&read.text, &samples, "read_file");
    assert_eq!(placeholders(&read.text), 5, "{}", read.text);
    assert!(!read.text.contains(&url_password) && !read.text.contains(&bearer));
    let content = read
        .text
        .split_once('\n')
        .unwrap()
        .1
        .replace("PORT=8080", "PORT=9090");
    let restored = vault.restore(&content).unwrap().into_owned();
    let written = files::write_file(
        WriteFile {
            path: path.to_string_lossy().into_owned(),
            content: restored,
        },
        std::time::Duration::from_secs(5),
    )
    .await;
    assert!(!written.outcome.is_error(), "{}", written.text);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);

    // cat: the rows of the wait's answer.
    std::fs::write(&path, &original).unwrap();
    // Masked again whole, as the entry point masks every answer but read_window's.
    let mut answer = f.run("s", "main", "cat ~/.env").await;
    vault.mask_result(&mut answer);
    let answer = answer.text;
    assert_clean(&answer, &samples, "cat .env");
    assert_eq!(placeholders(&answer), 5, "{answer}");
    assert!(!answer.contains(&url_password) && !answer.contains(&bearer));
    let rows = answer.split_once("rows printed]\n").unwrap().1;
    let content = format!("{}\n", rows.replace("PORT=8080", "PORT=9090"));
    let restored = vault.restore(&content).unwrap().into_owned();
    std::fs::write(&path, restored).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);

    // A placeholder in a command reaches the program as the value: it writes it to a file.
    let placeholder = &answer[answer.find("[secret:github-token:").unwrap()..][..26];
    let command = vault
        .restore(&format!("printf '%s' {placeholder} > ~/got"))
        .unwrap()
        .into_owned();
    let echo = f.run("s", "main", &command).await.text;
    assert_clean(&echo, &samples, "the command's echo");
    assert_eq!(
        std::fs::read_to_string(f.home().join("got")).unwrap(),
        samples[0].value
    );
    // Another session's vault does not know it.
    let other = f.controller.secrets().vault("other").unwrap();
    assert_eq!(
        other.restore(placeholder).unwrap_err().placeholder,
        placeholder
    );
}

#[tokio::test]
async fn the_outputs_of_a_real_session_lose_nothing() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let repo = repo.display();
    // cargo is rustup's: its toolchains under the user's home, not the test's.
    let rustup = std::env::var("RUSTUP_HOME")
        .unwrap_or_else(|_| format!("{}/.rustup", std::env::var("HOME").unwrap()));
    // A PNG of random pixels, in base64.
    let png = f.home().join("image.png");
    let script = format!(
        "import os,struct,zlib\nraw=b''.join(b'\\x00'+os.urandom(192) for _ in range(64))\n\
         c=lambda t,d: struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d))\n\
         open('{}','wb').write(b'\\x89PNG\\r\\n\\x1a\\n'+c(b'IHDR',struct.pack('>IIBBBBB',64,64,8,2,0,0,0))+c(b'IDAT',zlib.compress(raw))+c(b'IEND',b''))\n",
        png.display()
    );
    std::fs::write(f.home().join("png.py"), script).unwrap();
    let commands = [
        "python3 ~/png.py && base64 ~/image.png".to_string(),
        format!(
            "export RUSTUP_HOME={rustup}; cargo new -q --vcs none ~/hello && cd ~/hello && \
             cargo build --offline 2>&1; cd ~"
        ),
        format!("git -C {repo} log -n 300 --stat"),
        format!("{repo}/tests/python/.venv/bin/pip freeze 2>/dev/null || python3 -m pip freeze"),
        format!("ls -la {repo} {repo}/rat-core/src /usr/bin | head -400"),
        format!("sha256sum {repo}/rat-core/src/*/*.rs {repo}/Cargo.lock"),
        format!("cat {repo}/tests/node/package-lock.json"),
        format!("cat {repo}/Cargo.lock"),
    ];
    for command in &commands {
        let answer = f.run("s", "main", command).await.text;
        assert_eq!(placeholders(&answer), 0, "{command}:\n{answer}");
        let text = read_all(&t, 10_000).await;
        assert_eq!(placeholders(&text), 0, "{command}:\n{text}");
        f.run("s", "main", "clear").await;
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `text` is one placeholder, whole.
fn is_placeholder(text: &str) -> bool {
    text.starts_with("[secret:") && text.ends_with(']') && placeholders(text) == 1
}

/// The rows of a wait's answer, after its head and their count.
fn rows_of(answer: &str) -> &str {
    answer
        .split_once(" printed]\n")
        .map_or("", |(_, rows)| rows)
}

/// The values of secret-named variables set in the shell after it started (`export`, a plain
/// assignment, `read`), which its start environment does not hold: the prompt hook hands them
/// to ratd, and a later command printing them shows placeholders, old and new values alike;
/// a placeholder sent comes back as the value; ordinary variables lose nothing.
#[tokio::test]
async fn variables_set_in_the_shell_are_masked_where_later_printed() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let vault = f.controller.secrets().vault("s").unwrap();
    let r = &mut Random::new(3131);
    let (first, second, key) = (r.chars(20, ALNUM), r.chars(20, ALNUM), r.chars(24, ALNUM));
    let spaced = format!("{} \"{}\" it's", r.chars(6, ALNUM), r.chars(6, ALNUM));
    let values = [&first, &second, &key, &spaced];
    let clean = |text: &str, what: &str| {
        for v in values {
            assert!(!text.contains(v.as_str()), "{what}: {v} in:\n{text}");
        }
    };

    // Ordinary variables: nothing masked.
    let plain = f
        .run(
            "s",
            "main",
            "export EDITOR=vim-tiny PAGER=less-long PATH=$PATH:/opt/rat-bin; \
             env | grep -E '^(EDITOR|PAGER)=' | sort; echo \"$PATH\" | tr : '\\n' | tail -1",
        )
        .await
        .text;
    assert_eq!(
        rows_of(&plain),
        "EDITOR=vim-tiny\nPAGER=less-long\n/opt/rat-bin",
        "{plain}"
    );
    assert_eq!(placeholders(&read_all(&t, 100).await), 0);
    assert_eq!(vault.len(), 0);

    // export, then echo in another call.
    let set = f
        .run("s", "main", &format!("export DB_PASSWORD={first}"))
        .await
        .text;
    clean(&set, "export's echo");
    let answer = f.run("s", "main", "echo $DB_PASSWORD").await.text;
    let p_first = rows_of(&answer);
    assert!(is_placeholder(p_first), "{answer}");
    assert_eq!(vault.restore(p_first).unwrap(), first);
    let answer = f.run("s", "main", "printenv DB_PASSWORD").await.text;
    assert_eq!(rows_of(&answer), p_first, "{answer}");

    // A plain assignment, not exported, printed by the next command.
    f.run("s", "main", &format!("MY_API_KEY={key}")).await;
    let answer = f.run("s", "main", "echo \"key: $MY_API_KEY.\"").await.text;
    let p_key = rows_of(&answer)
        .strip_prefix("key: ")
        .and_then(|r| r.strip_suffix('.'))
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(is_placeholder(p_key), "{answer}");
    assert_eq!(vault.restore(p_key).unwrap(), key);

    // Changed: the new value masked, and the old one still (printed from a file, never typed).
    f.run("s", "main", &format!("DB_PASSWORD={second}")).await;
    std::fs::write(f.home().join("both.txt"), format!("old {first}\n")).unwrap();
    let answer = f
        .run("s", "main", "cat ~/both.txt; echo \"new $DB_PASSWORD\"")
        .await
        .text;
    let rows = rows_of(&answer);
    let p_second = rows
        .strip_prefix(&format!("old {p_first}\nnew "))
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(is_placeholder(p_second) && p_second != p_first, "{answer}");
    assert_eq!(vault.restore(p_second).unwrap(), second);

    // Read from a file (no assignment typed), spaces and quotes in it; set and printed on one
    // line: the answer comes after the prompt, when the hook has handed it over.
    std::fs::write(f.home().join("spaced.txt"), format!("{spaced}\n")).unwrap();
    let answer = f
        .run(
            "s",
            "main",
            "IFS= read -r SESSION_SECRET < ~/spaced.txt; echo \"[$SESSION_SECRET]\"",
        )
        .await
        .text;
    let p_spaced = rows_of(&answer)
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        p_spaced.starts_with("[secret:env-session-secret:"),
        "{answer}"
    );
    assert_eq!(vault.restore(p_spaced).unwrap(), spaced);

    // A command still running: an exported value reaches it in its environment, read by ratd
    // from the process leading the terminal before the answer.
    let answer = t
        .send_text(run_text(
            "main",
            &format!(
                "export LATE_TOKEN={}; sh -c 'echo \"late $LATE_TOKEN\"; sleep 2'",
                &key[..12].repeat(2)
            ),
            1,
        ))
        .await
        .text;
    assert!(!answer.contains(&key[..12].repeat(2)), "{answer}");
    assert!(answer.contains("late [secret:"), "{answer}");
    waited(&t, "main", 10).await;

    // The screen, with its history: every value masked.
    let screen = read_all(&t, 200).await;
    clean(&screen, "read_window");
    for p in [p_first, p_key, p_second, p_spaced] {
        assert!(screen.contains(p), "{p} not in:\n{screen}");
    }

    // The way back: a placeholder in a command reaches the program as the value.
    let command = vault
        .restore(&format!("printf '%s' {p_second} > ~/got"))
        .unwrap()
        .into_owned();
    clean(
        &f.run("s", "main", &command).await.text,
        "the command's echo",
    );
    assert_eq!(
        std::fs::read_to_string(f.home().join("got")).unwrap(),
        second
    );
}

/// A variable set by a shell function or an alias called by name (a command line with no
/// assignment, `read` or `$` in it, which alone would not make the hook list the variables):
/// the hook finds the word names a function or alias and lists, so that the value printed
/// bare by a later plain command (`cat` of the file it came from) shows its placeholder.
#[tokio::test]
async fn variables_set_by_a_function_or_an_alias_are_masked_where_later_printed() {
    let f = start_ready().await;
    let vault = f.controller.secrets().vault("s").unwrap();
    let r = &mut Random::new(3132);
    let (by_function, by_alias) = (r.chars(20, ALNUM), r.chars(20, ALNUM));
    std::fs::write(f.home().join("fn.txt"), format!("{by_function}\n")).unwrap();
    std::fs::write(f.home().join("al.txt"), format!("{by_alias}\n")).unwrap();
    f.run(
        "s",
        "main",
        "login() { read -r CLOUD_TOKEN < ~/fn.txt; }; alias relogin='read -r OTHER_SECRET < ~/al.txt'",
    )
    .await;
    assert_eq!(rows_of(&f.run("s", "main", "true").await.text), "");
    f.run("s", "main", "login").await;
    let answer = f.run("s", "main", "cat ~/fn.txt").await.text;
    let p_function = rows_of(&answer);
    assert!(
        p_function.starts_with("[secret:env-cloud-token:"),
        "{answer}"
    );
    assert_eq!(vault.restore(p_function).unwrap(), by_function);
    f.run("s", "main", "relogin").await;
    let answer = f.run("s", "main", "cat ~/al.txt").await.text;
    let p_alias = rows_of(&answer);
    assert!(p_alias.starts_with("[secret:env-other-secret:"), "{answer}");
    assert_eq!(vault.restore(p_alias).unwrap(), by_alias);
}

#[tokio::test]
async fn rows_read_by_number_are_masked() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let samples = corpus(31);
    let lines: String = samples.iter().map(|s| format!("{}\n", s.line)).collect();
    std::fs::write(f.home().join("corpus.txt"), &lines).unwrap();
    // The secrets among the rows the answer leaves out, read back by number.
    let answer = f.run("s", "main", "cat ~/corpus.txt; seq 100").await.text;
    assert_clean(&answer, &samples, "answer");
    let header = answer.lines().nth(1).unwrap();
    let (_, range) = header.split_once("output_rows ").expect(header);
    let to: u64 = range
        .split("\"to\": ")
        .nth(1)
        .and_then(|r| r.split('}').next())
        .and_then(|n| n.parse().ok())
        .expect(header);
    let read = t.read_window(read_rows("main", 1, to)).await.text;
    assert!(
        read.starts_with(&format!("[rows 1 to {to} of the {} ", to + 40)),
        "{read}"
    );
    assert_clean(&read, &samples, "output_rows");
    kinds_shown(&read, &samples, "output_rows");
}

/// A token's start at the end of an answer is masked only while its row may still grow: a
/// command that ended printed its last row whole, so a short word that only begins like a
/// token (`sk-ant-x`, `ghp_zzzz`) is shown as printed, with or without a final new line.
#[tokio::test]
async fn the_last_row_of_a_command_that_ended_is_shown_as_printed() {
    let f = start_ready().await;
    let answer = f.run("s", "main", "echo first; echo sk-ant-x").await.text;
    assert_eq!(rows_of(&answer), "first\nsk-ant-x", "{answer}");
    let answer = f.run("s", "main", "echo first; printf ghp_zzzz").await.text;
    assert_eq!(rows_of(&answer), "first\nghp_zzzz", "{answer}");
}
