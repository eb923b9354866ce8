//! The inputs of the file tools, read by their files in `crate::tools` and taken by
//! [`super::write_file`] and [`super::read_file`]: their JSON schemas come from these types
//! (schemars), their doc comments becoming the descriptions of the properties.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The input of write_file: `{path, content}`, both required (the content may be empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct WriteFile {
    /// absolute, or starting with ~/ for the home directory
    pub path: String,
    /// the whole content of the file, written as is: nothing is added
    pub content: String,
}

/// The input of read_file: `{path, start_line, max_lines, line_numbers}`, only the path
/// required. `start_line` 0 is no start (lines count from 1, and a schema can not tell 0 from a
/// missing number), and so is `max_lines` 0; `max_lines` is unsigned, so that the schema refuses
/// a negative number.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct ReadFile {
    /// absolute, or starting with ~/ for the home directory
    pub path: String,
    /// the first line to read, from 1 (the default, and 0 the same); negative counts from the end: -100 for the last 100 lines
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub start_line: Option<i64>,
    /// the most lines to read; 0 or absent reads all
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub max_lines: Option<u64>,
    /// prefix each line with its number and a tab, as cat -n does: to refer to lines, not to write the content back
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub line_numbers: Option<bool>,
}
