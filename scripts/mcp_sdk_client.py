"""Drive `hunkgen mcp` with the official MCP Python SDK (PyPI `mcp`), a client nobody
here wrote: start the server over stdio, initialize, list the tools, call each one once.

Usage: mcp_sdk_client.py HUNKGEN ROOT CALLS_JSON
  CALLS_JSON: {"tool name": {arguments}, ...}

Prints one JSON object: the negotiated protocol version, the server's name, the listed
tool names and input schemas' types, and per call isError, the structured content and
the text content, as the SDK parsed them. Run with the venv `make deps` creates
(target/venv-mcp).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    hunkgen, root, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    server = StdioServerParameters(command=hunkgen, args=["mcp", "--root", root])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            out = {
                "protocol_version": init.protocol_version,
                "server": init.server_info.name,
                "tools": [t.name for t in listed.tools],
                "schema_types": [t.input_schema.get("type") for t in listed.tools],
                "calls": {},
            }
            for name, arguments in calls.items():
                r = await session.call_tool(name, arguments)
                out["calls"][name] = {
                    "is_error": r.is_error,
                    "structured": r.structured_content,
                    "text": [c.text for c in r.content if c.type == "text"],
                }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
