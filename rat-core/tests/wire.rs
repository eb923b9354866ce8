//! What rat knows of the tools (`rat-wire/src/tools.json`: names, schemas, waits) is what the
//! table of tools says, and every tool file is in the table (`docs/design/tools.md`, Adding a
//! tool). After a change of the table, `RAT_WRITE_WIRE=1 cargo test -p rat-core --test wire`
//! writes the file again; the test fails until it is written.

use std::path::Path;

use rat_core::tools::{TOOLS, schema};
use rat_wire::tool::WireTool;

fn written() -> Vec<WireTool> {
    TOOLS
        .iter()
        .map(|tool| WireTool {
            name: tool.name.to_owned(),
            wait: tool.wait,
            input_schema: schema(tool).clone(),
        })
        .collect()
}

#[test]
fn rat_wire_knows_the_tools_of_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rat-wire/src/tools.json");
    let text = serde_json::to_string_pretty(&written()).unwrap() + "\n";
    if std::env::var_os("RAT_WRITE_WIRE").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        rat_wire::tool::TOOLS_JSON,
        text,
        "rat-wire/src/tools.json is not what the table of tools says: write it again with \
         RAT_WRITE_WIRE=1 cargo test -p rat-core --test wire"
    );
    assert_eq!(rat_wire::tool::tools(), written());
}

#[test]
fn every_tool_file_is_in_the_table() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut names: Vec<String> = TOOLS.iter().map(|tool| tool.name.to_owned()).collect();
    names.sort();
    assert_eq!(
        files, names,
        "a tool is a file of rat-core/src/tools/ named after it and a line of the table \
         (rat-core/src/tools.rs)"
    );
}
