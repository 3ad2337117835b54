// The TypeScript SDK's clients in the shape of the kit's other clients: v1 is
// `@modelcontextprotocol/sdk` (its `Client`), v2 is `@modelcontextprotocol/client`.
//
//   node --experimental-import-meta-resolve ts-bench.mjs v1|v2 stdio N SERVER_CMD [ARGS...]
//   node --experimental-import-meta-resolve ts-bench.mjs v1|v2 http N URL
//
// The SDKs are the ones peers/setup.sh installs: `$MCP_PEERS/node/node_modules` (the flag lets
// this file resolve them from there; `$MCP_PEERS/bin/node22` is the Node to run it with).
// Connects (spawn or first HTTP exchange, initialize, tools/list), makes WARMUP untimed echo
// calls (the JIT's warm-up; 0 unless set), then N timed ones, closes, and prints one
// `RESULT {json}` line with the fields of bench/kit/README.md. With CALLERS=C, C callers make N
// calls each at once (promises on the one event loop) and the line adds p50/p99 latency.
import { pathToFileURL } from 'node:url';

const usage = 'usage: ts-bench.mjs v1|v2 stdio|http N TARGET... (MCP_PEERS set; CALLERS, WARMUP optional)';
const [sdk, transportKind, nText, ...target] = process.argv.slice(2);
const n = Number.parseInt(nText ?? '', 10);
if (!['v1', 'v2'].includes(sdk) || !['stdio', 'http'].includes(transportKind) || !(n >= 0) || target.length === 0) {
  console.error(usage);
  process.exit(2);
}
const peers = process.env.MCP_PEERS;
if (!peers) {
  console.error('ts-bench: MCP_PEERS is not set; install the peers with `bash peers/setup.sh .peers` and export MCP_PEERS');
  process.exit(2);
}
const callers = Math.max(1, Number.parseInt(process.env.CALLERS ?? '1', 10) || 1);
const warmup = Math.max(0, Number.parseInt(process.env.WARMUP ?? '0', 10) || 0);

/** Imports `specifier` as the peers' node_modules resolve it. */
async function load(specifier) {
  const base = pathToFileURL(`${peers}/node/`).href;
  let url;
  try {
    url = import.meta.resolve(specifier, base);
  } catch (e) {
    throw new Error(`ts-bench: cannot find ${specifier} under ${peers}/node (run \`bash peers/setup.sh .peers\`; ` +
      `and run node with --experimental-import-meta-resolve): ${e.message}`);
  }
  return import(url);
}

let Client, StdioClientTransport, StreamableHTTPClientTransport;
if (sdk === 'v1') {
  ({ Client } = await load('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js'));
  ({ StreamableHTTPClientTransport } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = await load('@modelcontextprotocol/client/stdio'));
}

const now = () => process.hrtime.bigint();
const us = (from, to) => Number(to - from) / 1e3;

async function call(client) {
  const r = await client.callTool({ name: 'echo', arguments: { text: 'hello world' } });
  if (r.content?.[0]?.text !== 'hello world') throw new Error(`the echo tool answered ${JSON.stringify(r)}`);
}

const t0 = now();
const client = new Client({ name: 'ts-bench', version: '0.1.0' });
const transport = transportKind === 'stdio'
  ? new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(target[0]));
await client.connect(transport);
const tools = await client.listTools();
if (tools.tools.length !== 1) throw new Error(`tools/list answered ${tools.tools.length} tools`);
const connected = now();
for (let i = 0; i < warmup; i++) await call(client);

const latencies = [];
const cpu0 = process.cpuUsage();
const t1 = now();
if (callers > 1) {
  const caller = async () => {
    for (let i = 0; i < n; i++) {
      const t = now();
      await call(client);
      latencies.push(us(t, now()));
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
} else {
  for (let i = 0; i < n; i++) await call(client);
}
const t2 = now();
const cpu = process.cpuUsage(cpu0);
const maxrssKb = process.resourceUsage().maxRSS; // KiB
await client.close();
const t3 = now();

latencies.sort((a, b) => a - b);
const quantile = (q) => (latencies.length ? latencies[Math.floor((latencies.length - 1) * q)] : 0);
console.log('RESULT ' + JSON.stringify({
  client: `ts-${sdk}`,
  rt: 'node',
  transport: transportKind,
  n,
  callers,
  warmup,
  connect_list_us: us(t0, connected),
  calls_wall_us: us(t1, t2),
  calls_cpu_us: cpu.user + cpu.system,
  close_us: us(t2, t3),
  maxrss_kb: maxrssKb,
  p50_us: quantile(0.5),
  p99_us: quantile(0.99),
}));
