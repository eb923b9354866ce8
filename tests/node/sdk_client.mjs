// The official TypeScript MCP SDK (@modelcontextprotocol/sdk) driving rat as a stdio server.
//
//     node sdk_client.mjs RAT SERVER CLIENT_DIR SCRATCH_DIR
//
// Starts `RAT --server SERVER --bundle CLIENT_DIR` with the SDK's StdioClientTransport
// (initialize handshake: the SDK's latest protocol, 2025-11-25), lists the tools, then calls a
// few as an agent would: list_windows, create_window, wait_window, send_text, wait_window,
// read_file, a tool with bad arguments, close_window. Prints one JSON line per step:
// {"step", "isError", "text"}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rat, server, clientDir, scratch] = process.argv.slice(2);

function emit(step, text, isError) {
  const line = { step, text };
  if (isError !== undefined) line.isError = isError;
  process.stdout.write(JSON.stringify(line) + "\n");
}

const transport = new StdioClientTransport({
  command: rat,
  args: ["--server", server, "--bundle", clientDir],
  stderr: "inherit",
});
// The client tells the transport the negotiated version when the transport takes it.
let negotiated = "none";
transport.setProtocolVersion = (version) => {
  negotiated = version;
};
const client = new Client({ name: "rat-e2e-typescript", version: "1.0.0" });
await client.connect(transport);
const info = client.getServerVersion();
emit("initialize", `protocol ${negotiated}, server ${info.name} ${info.version}, title ${info.title}`);

const { tools } = await client.listTools();
emit("tools/list", tools.map((tool) => tool.name).join(" "));
emit(
  "tools/list: annotations",
  tools
    .map((tool) => `${tool.name}: readOnly=${tool.annotations?.readOnlyHint} destructive=${tool.annotations?.destructiveHint} idempotent=${tool.annotations?.idempotentHint} openWorld=${tool.annotations?.openWorldHint}`)
    .join("\n"),
);

async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content.filter((block) => block.type === "text").map((block) => block.text).join("");
  emit(name, text, Boolean(result.isError));
}

const file = `${scratch}/from-typescript`;
await call("list_windows", {});
await call("create_window", { name: "ts" });
await call("wait_window", { window: "ts", max_seconds: 20 });
await call("send_text", { window: "ts", text: `echo typescript > ${file}`, enter: true });
await call("wait_window", { window: "ts", max_seconds: 20 });
await call("read_file", { path: file });
await call("send_keys", { window: "ts", keys: ["C-x", "NoSuchKey"] });
await call("close_window", { name: "ts" });
await client.close();
