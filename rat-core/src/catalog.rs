//! The nine tools as MCP sees them: names, input schemas, descriptions, annotations, and the MCP instructions (ratd-design.txt, Tools, Annotations, MCP instructions). Under construction (issue 3).
