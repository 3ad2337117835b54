//! `mcp-bench fanout [--servers N] [--delay-ms MS] [--rounds R]`: what asking many servers at
//! once buys. A fresh client over `N` (default 10) bundled test servers that each answer every
//! request `MS` ms late (default 200: `--answer-delay-ms`) connects and lists every server's
//! tools; the wall time is printed with `max_concurrent_servers(1)` (one server after the other,
//! the behaviour before the fan-out) and with the default, on each runtime. The best of `R`
//! rounds (default 1) is shown. A benchmark, not a test: it checks only that every server
//! answered.

use std::time::{Duration, Instant};

use mcpwire_core::{ServerSpec, StdioCommand};
use mcpwire_tokio::DEFAULT_MAX_CONCURRENT_SERVERS;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// How many servers the client has.
    pub servers: usize,
    /// How late each server answers every request.
    pub delay_ms: u64,
    /// How many times each figure is measured (the best is shown).
    pub rounds: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self { servers: 10, delay_ms: 200, rounds: 1 }
    }
}

/// The usage line.
pub const USAGE: &str = "mcp-bench fanout [--servers N] [--delay-ms MS] [--rounds R]";

/// Reads the flags after `fanout`.
pub fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut args = args;
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<u64>().map_err(|_| format!("{flag} expects a number, got {v:?}"));
        match flag.as_str() {
            "--servers" => opts.servers = number(&value)?.max(1) as usize,
            "--delay-ms" => opts.delay_ms = number(&value)?,
            "--rounds" => opts.rounds = number(&value)?.max(1) as usize,
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    Ok(opts)
}

/// The servers: this binary serving the bundled test server, each answering `delay_ms` late.
fn specs(opts: &Options) -> Result<Vec<ServerSpec>, String> {
    let ours = std::env::current_exe().map_err(|e| format!("the path of mcp-bench: {e}"))?;
    let ours = ours.display().to_string();
    let delay = opts.delay_ms.to_string();
    Ok((0..opts.servers)
        .map(|i| {
            let args = [mcpwire_test_server::SERVE_ARG, "--answer-delay-ms", &delay];
            ServerSpec::stdio(format!("s{i}"), StdioCommand::new(ours.as_str()).args(args))
        })
        .collect())
}

/// Checks that connect and list_tools answered for every server.
fn check(connected: usize, failed: usize, listed_failed: usize, servers: usize) -> Result<(), String> {
    if connected != servers || failed != 0 || listed_failed != 0 {
        return Err(format!(
            "{connected} of {servers} servers connected, {failed} failed to, {listed_failed} failed to list"
        ));
    }
    Ok(())
}

fn on_tokio(specs: Vec<ServerSpec>, limit: usize) -> Result<Duration, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    runtime.block_on(async {
        let servers = specs.len();
        let builder = specs.into_iter().fold(mcpwire_tokio::Client::builder(), |b, s| b.server(s));
        let client = builder.max_concurrent_servers(limit).build().map_err(|e| format!("build: {e}"))?;
        let started = Instant::now();
        let report = client.connect().await;
        let tools = client.list_tools().await;
        let wall = started.elapsed();
        client.close().await;
        check(report.connected.len(), report.failed.len(), tools.failed.len(), servers)?;
        Ok(wall)
    })
}

fn on_smol(specs: Vec<ServerSpec>, limit: usize) -> Result<Duration, String> {
    let servers = specs.len();
    let builder = specs.into_iter().fold(mcpwire_smol::Client::builder(), |b, s| b.server(s));
    let client = builder.max_concurrent_servers(limit).build().map_err(|e| format!("build: {e}"))?;
    async_io::block_on(async {
        let started = Instant::now();
        let report = client.connect().await;
        let tools = client.list_tools().await;
        let wall = started.elapsed();
        client.close().await;
        check(report.connected.len(), report.failed.len(), tools.failed.len(), servers)?;
        Ok(wall)
    })
}

fn on_blocking(specs: Vec<ServerSpec>, limit: usize) -> Result<Duration, String> {
    let servers = specs.len();
    let builder = specs.into_iter().fold(mcpwire_blocking::Client::builder(), |b, s| b.server(s));
    let client = builder.max_concurrent_servers(limit).build().map_err(|e| format!("build: {e}"))?;
    let started = Instant::now();
    let report = client.connect().send();
    let tools = client.list_tools().send();
    let wall = started.elapsed();
    client.close().send();
    check(report.connected.len(), report.failed.len(), tools.failed.len(), servers)?;
    Ok(wall)
}

type Runner = fn(Vec<ServerSpec>, usize) -> Result<Duration, String>;

/// Runs every runtime at both limits and prints the table.
pub fn run(opts: &Options) -> Result<(), String> {
    let runtimes: [(&str, Runner); 3] = [("tokio", on_tokio), ("smol", on_smol), ("blocking", on_blocking)];
    println!(
        "fanout: connect + list_tools on a fresh client, {} servers answering every request {} ms late \
         (best of {})",
        opts.servers, opts.delay_ms, opts.rounds
    );
    println!(
        "{:<10} {:>22} {:>22} {:>8}",
        "runtime",
        "one at a time (1)",
        format!("at once ({})", DEFAULT_MAX_CONCURRENT_SERVERS),
        "ratio"
    );
    for (name, runner) in runtimes {
        let mut best = [Duration::MAX; 2];
        for _ in 0..opts.rounds {
            for (slot, limit) in [1, DEFAULT_MAX_CONCURRENT_SERVERS].into_iter().enumerate() {
                let wall = runner(specs(opts)?, limit).map_err(|e| format!("{name}, limit {limit}: {e}"))?;
                best[slot] = best[slot].min(wall);
            }
        }
        let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1e3);
        let ratio = best[0].as_secs_f64() / best[1].as_secs_f64().max(1e-9);
        println!("{name:<10} {:>22} {:>22} {:>7.1}x", ms(best[0]), ms(best[1]), ratio);
    }
    Ok(())
}
