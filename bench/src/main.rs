//! `mcp-bench`: benchmarks (not tests) of this client against the comparison kit in
//! `bench/kit/` (cheap MCP servers, raw floors, the official Rust SDK rmcp). `bench/run` builds
//! everything in release and runs `compare`; the figures are ratios from one run. They belong in
//! `docs/benchmarks.md` (compare, schema, fanout) and `docs/reliability.md` (soak): update the page after a run.
//!
//! ```text
//! bench/run [compare options]                      # build, then the side-by-side tables
//! mcp-bench compare --kit DIR [--calls N] [--rounds R] [--callers C] [--caller-calls M]
//!                   [--pin CORE] [--out FILE.jsonl]
//!                   [--sdks [--sdk-calls N] [--sdk-caller-calls M] [--sdk-warmup W]]
//! mcp-bench schema [N] [ROUNDS]                       # output-schema validation cost
//! mcp-bench soak --all | --load --long --many --restart --faults --process [sizes]   # see `soak`
//! mcp-bench fanout [--servers N] [--delay-ms MS] [--rounds R]   # many servers: one at a time vs at once
//! mcp-bench soak-stdio-server                        # the soak's cheap stdio server
//! mcp-bench soak-http-server [PORT] [--record FILE]   # the soak's cheap loopback HTTP server
//! ```
//!
//! `compare` runs this project's clients through the per-runtime binaries next to it
//! (`mcp-bench-tokio`, `mcp-bench-smol`, `mcp-bench-blocking`; see `mcp_bench::clients`).

mod compare;
mod fanout;
mod schema;
mod soak;
mod soak_faults;
mod soak_faults_runs;
mod soak_leaks;
mod soak_process;
mod soak_report;
mod soak_restart;
mod soak_runs;
mod soak_servers;
mod soak_watchdog;

use std::path::PathBuf;
use std::process::exit;

fn usage() -> ! {
    eprintln!(
        "usage: mcp-bench compare --kit DIR [--calls N] [--rounds R] [--callers C] [--caller-calls M] [--pin CORE] [--out FILE]\n       \
         {}\n       \
         mcp-bench schema [N] [ROUNDS]\n       \
         {}\n       \
         {}\n       \
         mcp-bench soak-stdio-server | soak-http-server [PORT] [--record FILE]",
        SDKS_USAGE,
        soak::USAGE,
        fanout::USAGE
    );
    exit(2)
}

/// `compare`'s SDK options.
const SDKS_USAGE: &str =
    "                  [--sdks [--sdk-calls N] [--sdk-caller-calls M] [--sdk-warmup W]]: \
     also the TypeScript SDK (v1, v2) and Python SDK (mcp, fastmcp) clients, run with the peers \
     ($MCP_PEERS, else ./.peers; install them with `bash peers/setup.sh .peers`); defaults 20000, 50, 2000 (Node's JIT warms for thousands of calls)";

fn number(value: Option<String>) -> usize {
    value.and_then(|v| v.parse().ok()).unwrap_or_else(|| usage())
}

fn main() {
    // `mcp-bench __serve-mcp-test-server [FLAGS]` is the bundled test server (the soak's).
    let _ = mcpwire_test_server::serve_if_asked();
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("soak") => match soak::parse(args) {
            Ok(opts) => match soak::run(&opts) {
                Ok(true) => {}
                Ok(false) => exit(1),
                Err(why) => {
                    eprintln!("mcp-bench soak: {why}");
                    println!("soak: FAILED ({why})");
                    exit(1)
                }
            },
            Err(why) => {
                eprintln!("mcp-bench soak: {why}\nusage: {}", soak::USAGE);
                exit(2)
            }
        },
        Some("fanout") => match fanout::parse(args) {
            Ok(opts) => {
                if let Err(why) = fanout::run(&opts) {
                    eprintln!("mcp-bench fanout: {why}");
                    exit(1)
                }
            }
            Err(why) => {
                eprintln!("mcp-bench fanout: {why}\nusage: {}", fanout::USAGE);
                exit(2)
            }
        },
        Some("soak-http-server") => {
            let (mut port, mut record) = (0, None);
            while let Some(arg) = args.next() {
                match arg.as_str() {
                    "--record" => record = Some(args.next().map(PathBuf::from).unwrap_or_else(|| usage())),
                    p => port = p.parse().unwrap_or_else(|_| usage()),
                }
            }
            soak_servers::run_http(port, record.as_deref())
        }
        Some("soak-stdio-server") => soak_servers::run_stdio(),
        Some("schema") => {
            let n = args.next().map_or(20_000, |v| number(Some(v)));
            let rounds = args.next().map_or(3, |v| number(Some(v)));
            schema::run(n, rounds.max(1));
        }
        Some("compare") => {
            let mut opts = compare::Options {
                kit_bin: PathBuf::new(),
                calls: 10_000,
                rounds: 3,
                callers: 64,
                caller_calls: 1_000,
                pin: None,
                out: None,
                sdks: None,
            };
            let mut sdks = compare::Sdks {
                peers: compare::Sdks::peers_dir(),
                calls: 20_000,
                caller_calls: 50,
                warmup: 2_000,
            };
            let mut with_sdks = false;
            while let Some(flag) = args.next() {
                match flag.as_str() {
                    "--kit" => opts.kit_bin = args.next().map(PathBuf::from).unwrap_or_else(|| usage()),
                    "--calls" => opts.calls = number(args.next()),
                    "--rounds" => opts.rounds = number(args.next()).max(1),
                    "--callers" => opts.callers = number(args.next()),
                    "--caller-calls" => opts.caller_calls = number(args.next()),
                    "--pin" => opts.pin = Some(number(args.next())),
                    "--out" => opts.out = args.next().map(PathBuf::from),
                    "--sdks" => with_sdks = true,
                    "--sdk-calls" => sdks.calls = number(args.next()),
                    "--sdk-caller-calls" => sdks.caller_calls = number(args.next()),
                    "--sdk-warmup" => sdks.warmup = number(args.next()),
                    _ => usage(),
                }
            }
            if opts.kit_bin.as_os_str().is_empty() {
                usage();
            }
            if with_sdks {
                if let Err(why) = sdks.check() {
                    eprintln!("mcp-bench compare: {why}");
                    exit(1)
                }
                opts.sdks = Some(sdks);
            }
            let ours = std::env::current_exe().expect("the path of mcp-bench");
            compare::run(&ours, &opts);
        }
        _ => usage(),
    }
}
