"""The Python SDK's clients in the shape of the kit's other clients: `mcp` is the official SDK's
`ClientSession`, `fastmcp` is FastMCP's `Client`.

    python py-bench.py mcp|fastmcp stdio N SERVER_CMD [ARGS...]
    python py-bench.py mcp|fastmcp http N URL

Run with the Python of the venv peers/setup.sh installs (`$MCP_PEERS/venv/bin/python`).
Connects (spawn or first HTTP exchange, initialize, tools/list), makes WARMUP untimed echo calls
(0 unless set), then N timed ones, closes, and prints one `RESULT {json}` line with the fields of
bench/kit/README.md. With CALLERS=C, C callers make N calls each at once (tasks of one anyio task
group on the one event loop) and the line adds p50/p99 latency.
"""

import functools
import json
import os
import resource
import sys
import time

USAGE = "usage: py-bench.py mcp|fastmcp stdio|http N TARGET... (CALLERS, WARMUP optional)"


def cpu_s():
    """User + system CPU seconds of this process, every thread."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def check(result):
    text = result.content[0].text if result.content else None
    if text != "hello world":
        raise SystemExit(f"py-bench: the echo tool answered {result!r}")


async def timed_calls(call, n, callers, warmup):
    """Runs the warm-up, then the timed calls; (wall s, cpu s, latencies in µs)."""
    import anyio

    for _ in range(warmup):
        check(await call())
    latencies = []

    async def caller():
        for _ in range(n):
            t = time.perf_counter()
            check(await call())
            latencies.append((time.perf_counter() - t) * 1e6)

    c0, t1 = cpu_s(), time.perf_counter()
    if callers > 1:
        async with anyio.create_task_group() as group:
            for _ in range(callers):
                group.start_soon(caller)
    else:
        for _ in range(n):
            check(await call())
    return time.perf_counter() - t1, cpu_s() - c0, latencies


async def connected(t0, tool_count, call, n, callers, warmup):
    """What follows the connection: the connect figure, the calls, peak RSS; and when close starts."""
    if tool_count != 1:
        raise SystemExit(f"py-bench: tools/list answered {tool_count} tools")
    connect_list = time.perf_counter() - t0
    figures = await timed_calls(call, n, callers, warmup)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return connect_list, figures, rss, time.perf_counter()


async def bench_mcp(kind, n, target, callers, warmup):
    # Imports first: the in-process connect figure starts at the client, as in ts-bench.mjs.
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    t0 = time.perf_counter()
    if kind == "stdio":
        streams = stdio_client(StdioServerParameters(command=target[0], args=target[1:]))
    else:
        streams = streamable_http_client(target[0])
    async with streams as pair:
        async with ClientSession(pair[0], pair[1]) as session:
            await session.initialize()
            tools = await session.list_tools()
            call = functools.partial(session.call_tool, "echo", {"text": "hello world"})
            connect_list, figures, rss, t2 = await connected(t0, len(tools.tools), call, n, callers, warmup)
    return connect_list, figures, rss, time.perf_counter() - t2


async def bench_fastmcp(kind, n, target, callers, warmup):
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

    t0 = time.perf_counter()
    if kind == "stdio":
        transport = StdioTransport(command=target[0], args=target[1:])
    else:
        transport = StreamableHttpTransport(target[0])
    async with Client(transport) as client:
        tools = await client.list_tools()
        call = functools.partial(client.call_tool, "echo", {"text": "hello world"})
        connect_list, figures, rss, t2 = await connected(t0, len(tools), call, n, callers, warmup)
    return connect_list, figures, rss, time.perf_counter() - t2


def quantile(values, q):
    return values[int((len(values) - 1) * q)] if values else 0.0


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[0] not in ("mcp", "fastmcp") or args[1] not in ("stdio", "http"):
        raise SystemExit(USAGE)
    which, kind, n_text, target = args[0], args[1], args[2], args[3:]
    if not n_text.isdigit():
        raise SystemExit(USAGE)
    callers = max(1, int(os.environ.get("CALLERS", "1") or 1))
    warmup = max(0, int(os.environ.get("WARMUP", "0") or 0))
    try:
        import anyio
    except ImportError as e:
        raise SystemExit(
            f"py-bench: {e}; run this with the peers' venv ($MCP_PEERS/venv/bin/python, "
            "installed by `bash peers/setup.sh .peers`)"
        ) from e
    bench = bench_mcp if which == "mcp" else bench_fastmcp
    connect_list, (wall, cpu, latencies), rss, close = anyio.run(
        bench, kind, int(n_text), target, callers, warmup
    )
    latencies.sort()
    line = {
        "client": "py-mcp" if which == "mcp" else "fastmcp",
        "rt": "asyncio",
        "transport": kind,
        "n": int(n_text),
        "callers": callers,
        "warmup": warmup,
        "connect_list_us": connect_list * 1e6,
        "calls_wall_us": wall * 1e6,
        "calls_cpu_us": cpu * 1e6,
        "close_us": close * 1e6,
        "maxrss_kb": rss,
        "p50_us": quantile(latencies, 0.5),
        "p99_us": quantile(latencies, 0.99),
    }
    print("RESULT " + json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
