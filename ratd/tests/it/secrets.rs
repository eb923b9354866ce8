//! Secrets through a real ratd (`docs/design/secrets.md`): masked in read_file, read_window and
//! the answers of waits, restored in send_text and write_file, an unknown placeholder refused
//! with nothing sent or written; `--secrets show` leaves all raw.

use rat_core::secrets::synthetic::corpus;
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use serde_json::json;

use crate::common::Served;

type Client = RunningService<RoleClient, rmcp::model::ClientConfig>;

async fn call(client: &Client, tool: &str, arguments: serde_json::Value) -> (bool, String) {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let result: CallToolResult = client
        .call_tool(
            CallToolRequestParams::new(tool.to_owned()).with_arguments(JsonObject::from(arguments)),
        )
        .await
        .unwrap_or_else(|error| panic!("{tool}: {error}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    (result.is_error == Some(true), text)
}

/// The client's session made, its main at its prompt.
async fn ready(client: &Client) {
    call(client, "list_windows", json!({})).await;
    let (error, text) = call(
        client,
        "wait_window",
        json!({"window": "main", "max_seconds": 20}),
    )
    .await;
    assert!(!error, "{text}");
}

#[tokio::test]
async fn secrets_are_masked_restored_and_unknown_placeholders_refused() {
    let mut served = Served::start(&["alice", "bob"]).await;
    let home = served.bundle.home();
    let samples = corpus(77);
    let (token, password) = (&samples[0].value, &samples[18].value);
    let original = format!("GITHUB_TOKEN={token}\nDB_PASSWORD='{password}'\nPORT=8080\n");
    let env = home.join(".env");
    std::fs::write(&env, &original).unwrap();
    let env_path = env.display().to_string();
    let alice = served.mcp("alice").await;
    ready(&alice).await;

    let (error, read) = call(&alice, "read_file", json!({"path": env_path})).await;
    assert!(!error, "{read}");
    assert!(
        !read.contains(token.as_str()) && !read.contains(password.as_str()),
        "{read}"
    );
    let content = read.split_once('\n').unwrap().1;
    assert!(
        content.starts_with("GITHUB_TOKEN=[secret:github-token:"),
        "{content}"
    );
    assert!(
        content.contains("DB_PASSWORD='[secret:password:"),
        "{content}"
    );

    // Written back with one line changed: the file is the original but that line.
    let changed = content.replace("PORT=8080", "PORT=9090");
    let (error, written) = call(
        &alice,
        "write_file",
        json!({"path": env_path, "content": changed}),
    )
    .await;
    assert!(!error, "{written}");
    assert_eq!(
        std::fs::read_to_string(&env).unwrap(),
        original.replace("8080", "9090")
    );

    // A placeholder in a command reaches the program as the value; the answers hold none.
    let placeholder = &content["GITHUB_TOKEN=".len()..content.find('\n').unwrap()];
    let got = home.join("got");
    let (error, answer) = call(
        &alice,
        "send_text",
        json!({"window": "main", "text": format!("printf '%s' {placeholder} > {}; cat {}", got.display(), env.display()), "enter": true, "wait_seconds": 20}),
    )
    .await;
    assert!(!error, "{answer}");
    assert_eq!(std::fs::read_to_string(&got).unwrap(), *token);
    let (_, screen) = call(
        &alice,
        "read_window",
        json!({"window": "main", "scrollback_rows": 100}),
    )
    .await;
    for text in [&answer, &screen] {
        assert!(
            !text.contains(token.as_str()) && !text.contains(password.as_str()),
            "{text}"
        );
        assert!(text.contains(placeholder), "{text}");
    }

    // The `.env` sourced (no value typed), then a variable printed bare in another call: the
    // prompt hook handed its value over, the answer holds its placeholder.
    let (error, _) = call(
        &alice,
        "send_text",
        json!({"window": "main", "text": format!("set -a; . {}; set +a", env.display()), "enter": true, "wait_seconds": 20}),
    )
    .await;
    assert!(!error);
    let (error, answer) = call(
        &alice,
        "send_text",
        json!({"window": "main", "text": "echo \"pw=$DB_PASSWORD.\"", "enter": true, "wait_seconds": 20}),
    )
    .await;
    assert!(!error, "{answer}");
    assert!(!answer.contains(password.as_str()), "{answer}");
    let row = answer.lines().last().unwrap();
    assert!(
        row.starts_with("pw=[secret:")
            && row.ends_with("].")
            && row.matches("[secret:").count() == 1,
        "{answer}"
    );

    // Bob's session does not know alice's placeholder: nothing sent, nothing written.
    let bob = served.mcp("bob").await;
    ready(&bob).await;
    let other = home.join("other");
    let (error, refused) = call(
        &bob,
        "send_text",
        json!({"window": "main", "text": format!("printf '%s' {placeholder} > {}", other.display()), "enter": true}),
    )
    .await;
    assert!(error);
    assert_eq!(
        refused,
        format!(
            "The text of send_text holds {placeholder}, a placeholder this session does not know \
             (masked in another session, or before ratd restarted). Nothing was sent or written: \
             read the secret again to get its placeholder."
        )
    );
    let (error, refused) = call(
        &bob,
        "write_file",
        json!({"path": other.display().to_string(), "content": placeholder}),
    )
    .await;
    assert!(error, "{refused}");
    assert!(
        refused.starts_with("The content of write_file holds [secret:github-token:"),
        "{refused}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!other.exists());
    served.stop().await;
}

#[tokio::test]
async fn secrets_show_leaves_answers_raw() {
    let mut served = Served::start_with(&["alice"], |config| {
        config.secrets = rat_core::secrets::Mode::Show;
    })
    .await;
    let token = &corpus(78)[0].value;
    let env = served.bundle.home().join(".env");
    std::fs::write(&env, format!("GITHUB_TOKEN={token}\n")).unwrap();
    let alice = served.mcp("alice").await;
    let (_, read) = call(
        &alice,
        "read_file",
        json!({"path": env.display().to_string()}),
    )
    .await;
    assert!(read.ends_with(&format!("GITHUB_TOKEN={token}\n")), "{read}");
    served.stop().await;
}
