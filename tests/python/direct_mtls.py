"""The official Python MCP SDK (`mcp` on PyPI) reaching ratd directly over mutual TLS.

    python3 direct_mtls.py URL CLIENT_DIR

The only addition to a plain SDK client, outside the protocol: an httpx2 client whose
ssl.SSLContext presents the client certificate of the bundle, trusts the bundle's CA alone, and
does not check the host name (ratd's certificate names a tenant, not a host). Connects twice:
with the initialize handshake (mode="legacy"), then with server/discover (mode="auto", which
probes discover and adopts protocol 2026-07-28). Each connection lists the tools and calls
list_windows. Prints one JSON line per step: {"step", "isError", "text"}.
"""

import asyncio
import ssl
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from steps import emit, text_of


def tls_context(client_dir):
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=f"{client_dir}/ca.crt")
    context.check_hostname = False
    context.load_cert_chain(f"{client_dir}/client.crt", f"{client_dir}/client.key")
    return context


async def connect(url, client_dir, mode):
    async with httpx2.AsyncClient(verify=tls_context(client_dir), trust_env=False, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            info = client.server_info
            emit(
                f"{mode}: connected",
                f"protocol {client.protocol_version}, server {info.name} {info.version}, title {info.title!r}",
            )
            emit(f"{mode}: instructions", client.instructions or "")
            tools = await client.list_tools()
            emit(f"{mode}: tools/list", " ".join(tool.name for tool in tools.tools))
            result = await client.call_tool("list_windows", {})
            emit(f"{mode}: list_windows", text_of(result), result.is_error)


async def main(url, client_dir):
    await connect(url, client_dir, "legacy")
    await connect(url, client_dir, "auto")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
