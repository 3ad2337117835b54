//! The soak's many-servers and restarting-server runs, on each runtime family (see `soak`).
//!
//! What the client does when a stdio server dies (and so what the restart run asserts): every
//! request in flight on that process fails with `RequestError::TransportClosed` (the host sees
//! `Event::Disconnected` first); nothing is re-sent, `tools/call` included; the next request
//! starts a new process. The server records every line it receives (`--record`), so the run
//! checks from the server's side that no call arrived twice and that the call each crash
//! swallowed failed typed.

use std::collections::{HashMap, HashSet};
use std::future::IntoFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire_core::{ClientError, Event, ServerSpec};
use serde_json::Value;

use crate::soak::{broken, caller, caller_sync, echo_args, Options, Rt, StdioServer, Tally};
use crate::soak_report::Row;
use crate::soak_runs::{join_all, tokio_runtime};
use mcp_bench::clients::quantile;

/// One server's first contact: connect time, and the outcome of its first call.
#[derive(Debug)]
struct Contact {
    connect: Duration,
    /// Since the start of the run, when connect returned and when the call did.
    connected_at: Duration,
    answered_at: Duration,
    outcome: Result<(), String>,
}

/// Connects (timed) then makes one echo call whose payload must come back.
async fn first_contact<C, CF, K, KF>(t0: Instant, payload: String, connect: C, call: K) -> Contact
where
    C: FnOnce() -> CF,
    CF: std::future::Future<Output = Result<mcpwire_core::ServerInfo, ClientError>>,
    K: FnOnce(String) -> KF,
    KF: std::future::Future<Output = Result<String, ClientError>>,
{
    let started = Instant::now();
    let connected = connect().await;
    let connect_time = started.elapsed();
    let connected_at = t0.elapsed();
    let outcome = match connected {
        Err(e) => Err(format!("connect: {e}")),
        Ok(_) => match call(payload.clone()).await {
            Ok(text) if text == payload => Ok(()),
            Ok(text) => Err(format!("{payload} answered {text:?}")),
            Err(e) => Err(format!("{payload}: {e}")),
        },
    };
    Contact { connect: connect_time, connected_at, answered_at: t0.elapsed(), outcome }
}

type ManyRun = Result<(Vec<Contact>, Duration), String>;

/// Many: `opts.servers` stdio servers in one client, every one connected at once and called.
pub fn many(rt: Rt, server: &StdioServer, opts: &Options) -> Row {
    let names: Vec<String> = (0..opts.servers).map(|i| format!("s{i}")).collect();
    let specs: Result<Vec<ServerSpec>, String> = names.iter().map(|n| server.spec(n)).collect();
    let specs = match specs {
        Ok(specs) => specs,
        Err(why) => return broken("many", rt, "stdio", why),
    };
    let key = server.key;
    let run: ManyRun = match rt {
        Rt::Tokio | Rt::TokioCt => tokio_runtime(rt).and_then(|runtime| {
            runtime.block_on(async {
                let builder = specs.into_iter().fold(mcpwire_tokio::Client::builder(), |b, s| b.server(s));
                let client = builder.build().map_err(|e| format!("build: {e}"))?;
                let t0 = Instant::now();
                let tasks: Vec<_> = names
                    .iter()
                    .map(|name| {
                        let (client, name) = (client.clone(), name.clone());
                        tokio::spawn(async move {
                            let Some(server) = client.server(&name) else {
                                return Err(format!("no server {name} in the client"));
                            };
                            let payload = format!("many-{name}");
                            Ok(first_contact(
                                t0,
                                payload,
                                || server.connect().into_future(),
                                |p| async move {
                                    server.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                                },
                            )
                            .await)
                        })
                    })
                    .collect();
                let mut contacts = Vec::with_capacity(tasks.len());
                for task in tasks {
                    contacts.push(task.await.map_err(|e| format!("a server task: {e}"))??);
                }
                let closing = Instant::now();
                client.close().await;
                Ok((contacts, closing.elapsed()))
            })
        }),
        Rt::Smol => {
            use async_io::block_on;
            let builder = specs.into_iter().fold(mcpwire_smol::Client::builder(), |b, s| b.server(s));
            builder.build().map_err(|e| format!("build: {e}")).and_then(|client| {
                let t0 = Instant::now();
                let contacts = std::thread::scope(|scope| {
                    let handles = client
                        .servers()
                        .iter()
                        .map(|server| {
                            scope.spawn(move || {
                                let payload = format!("many-{}", server.name());
                                block_on(first_contact(
                                    t0,
                                    payload,
                                    || server.connect().into_future(),
                                    |p| async move {
                                        server.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                                    },
                                ))
                            })
                        })
                        .collect();
                    join_all(handles)
                });
                let closing = Instant::now();
                block_on(client.close().into_future());
                Ok((contacts?, closing.elapsed()))
            })
        }
        Rt::Blocking => {
            let builder = specs.into_iter().fold(mcpwire_blocking::Client::builder(), |b, s| b.server(s));
            builder.build().map_err(|e| format!("build: {e}")).and_then(|client| {
                let t0 = Instant::now();
                let contacts = std::thread::scope(|scope| {
                    let handles = client
                        .servers()
                        .iter()
                        .map(|server| {
                            scope.spawn(move || {
                                let payload = format!("many-{}", server.name());
                                futures_lite::future::block_on(first_contact(
                                    t0,
                                    payload,
                                    || std::future::ready(server.connect().send()),
                                    |p| {
                                        std::future::ready(
                                            server
                                                .call_tool("echo", echo_args(key, &p))
                                                .send()
                                                .map(|r| r.text()),
                                        )
                                    },
                                ))
                            })
                        })
                        .collect();
                    join_all(handles)
                });
                let closing = Instant::now();
                client.close().send();
                Ok((contacts?, closing.elapsed()))
            })
        }
    };
    let (contacts, close) = match run {
        Ok(run) => run,
        Err(why) => return broken("many", rt, "stdio", why),
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut connects: Vec<f64> = contacts.iter().map(|c| ms(c.connect)).collect();
    connects.sort_by(f64::total_cmp);
    let all_connected = contacts.iter().map(|c| c.connected_at).max().unwrap_or_default();
    let all_answered = contacts.iter().map(|c| c.answered_at).max().unwrap_or_default();
    let failures: Vec<&String> = contacts.iter().filter_map(|c| c.outcome.as_ref().err()).collect();
    let mut row = Row::new("many", rt, "stdio");
    row.set("servers", opts.servers as u64);
    row.set("answered", (contacts.len() - failures.len()) as u64);
    row.set("all connected ms", ms(all_connected));
    row.set("all answered ms", ms(all_answered));
    row.set("connect p50 ms", quantile(&connects, 0.5));
    row.set("connect p99 ms", quantile(&connects, 0.99));
    row.set("close ms", ms(close));
    row.check(contacts.len() == opts.servers, || {
        format!("{} contacts for {} servers", contacts.len(), opts.servers)
    });
    row.check(failures.is_empty(), || {
        format!("{} servers did not answer: {:?}", failures.len(), &failures[..failures.len().min(3)])
    });
    row
}

/// Restart: `opts.restart_calls` calls by `opts.restart_callers` callers on a test server that
/// exits on every `opts.exit_every`-th `tools/call`.
pub fn restart(rt: Rt, server: &StdioServer, opts: &Options) -> Row {
    let record =
        std::env::temp_dir().join(format!("mcp-bench-soak-{}-{}.jsonl", std::process::id(), rt.name()));
    let _ = std::fs::remove_file(&record);
    let args = [
        "--exit-after".to_owned(),
        opts.exit_every.to_string(),
        "--record".to_owned(),
        record.display().to_string(),
    ];
    let row = match server.with_args(&args).spec("soak") {
        Ok(spec) => restart_with(rt, spec, server.key, &record, opts),
        Err(why) => broken("restart", rt, "stdio", why),
    };
    let _ = std::fs::remove_file(&record);
    row
}

/// Calls of caller `id` when `total` calls are shared by `callers`.
fn share(total: usize, callers: usize, id: usize) -> usize {
    total / callers + usize::from(id < total % callers)
}

/// Connected and Disconnected events seen.
#[derive(Debug, Default)]
struct Lifecycle {
    connected: AtomicUsize,
    disconnected: AtomicUsize,
}

impl Lifecycle {
    fn hook(self: &Arc<Self>) -> impl Fn(&str, &Event) + Send + Sync + 'static {
        let counts = self.clone();
        move |_, event| match event {
            Event::Connected(_) => {
                counts.connected.fetch_add(1, Ordering::Relaxed);
            }
            Event::Disconnected { .. } => {
                counts.disconnected.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

fn restart_with(
    rt: Rt,
    spec: ServerSpec,
    key: &'static str,
    record: &std::path::Path,
    opts: &Options,
) -> Row {
    let (total, callers) = (opts.restart_calls, opts.restart_callers);
    let life = Arc::new(Lifecycle::default());
    let started = Instant::now();
    let run: Result<Vec<Tally>, String> = match rt {
        Rt::Tokio | Rt::TokioCt => tokio_runtime(rt).and_then(|runtime| {
            runtime.block_on(async {
                let client = mcpwire_tokio::Client::builder()
                    .server(spec)
                    .on_event(life.hook())
                    .build()
                    .map_err(|e| format!("build: {e}"))?;
                let tasks: Vec<_> = (0..callers)
                    .map(|id| {
                        let client = client.clone();
                        tokio::spawn(async move {
                            let client = &client;
                            caller("restart", id, share(total, callers, id), move |p| async move {
                                client.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                            })
                            .await
                        })
                    })
                    .collect();
                let mut tallies = Vec::with_capacity(callers);
                for task in tasks {
                    tallies.push(task.await.map_err(|e| format!("a caller task: {e}"))?);
                }
                client.close().await;
                Ok(tallies)
            })
        }),
        Rt::Smol => {
            use async_io::block_on;
            let built = mcpwire_smol::Client::builder().server(spec).on_event(life.hook()).build();
            built.map_err(|e| format!("build: {e}")).and_then(|client| {
                let tallies = std::thread::scope(|scope| {
                    let client = &client;
                    let handles = (0..callers)
                        .map(|id| {
                            scope.spawn(move || {
                                block_on(caller("restart", id, share(total, callers, id), |p| async move {
                                    client.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                                }))
                            })
                        })
                        .collect();
                    join_all(handles)
                });
                block_on(client.close().into_future());
                tallies
            })
        }
        Rt::Blocking => {
            let built = mcpwire_blocking::Client::builder().server(spec).on_event(life.hook()).build();
            built.map_err(|e| format!("build: {e}")).and_then(|client| {
                let tallies = std::thread::scope(|scope| {
                    let client = &client;
                    let handles = (0..callers)
                        .map(|id| {
                            scope.spawn(move || {
                                caller_sync("restart", id, share(total, callers, id), |p| {
                                    client.call_tool("echo", echo_args(key, &p)).send().map(|r| r.text())
                                })
                            })
                        })
                        .collect();
                    join_all(handles)
                });
                client.close().send();
                tallies
            })
        }
    };
    let wall = started.elapsed();
    let tallies = match run {
        Ok(tallies) => tallies,
        Err(why) => return broken("restart", rt, "stdio", why),
    };
    let mut all = Tally::default();
    for tally in tallies {
        all.merge(tally);
    }
    let seen = match received_calls(record, key) {
        Ok(seen) => seen,
        Err(why) => return broken("restart", rt, "stdio", why),
    };
    judge(rt, opts, &all, &seen, &life, wall)
}

/// The payloads of the `tools/call` requests the server processes received, in order.
fn received_calls(record: &std::path::Path, key: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(record)
        .map_err(|e| format!("the server's record {}: {e}", record.display()))?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|msg| msg["method"] == "tools/call" && msg.get("id").is_some())
        .map(|msg| msg["params"]["arguments"][key].as_str().unwrap_or("<no payload>").to_owned())
        .collect())
}

fn judge(rt: Rt, opts: &Options, all: &Tally, seen: &[String], life: &Lifecycle, wall: Duration) -> Row {
    let (total, every) = (opts.restart_calls, opts.exit_every as usize);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for payload in seen {
        *counts.entry(payload).or_default() += 1;
    }
    let duplicated: Vec<&&str> = counts.iter().filter(|(_, n)| **n > 1).map(|(p, _)| p).collect();
    let closed: HashSet<&str> = all.closed.iter().map(String::as_str).collect();
    // Each process exits on receiving its `every`-th call, unanswered: the records are one
    // process after another, so the calls at positions every, 2*every, ... are the swallowed ones.
    let crashes = seen.len() / every;
    let swallowed_ok: Vec<&String> =
        seen.iter().skip(every - 1).step_by(every).filter(|p| !closed.contains(p.as_str())).collect();
    let (connected, disconnected) =
        (life.connected.load(Ordering::Relaxed), life.disconnected.load(Ordering::Relaxed));
    let mut row = Row::new("restart", rt, "stdio");
    row.set("calls", total as u64);
    row.set("answered", all.ok as u64);
    row.set("closed", all.closed.len() as u64);
    row.set("other", (all.other + all.wrong) as u64);
    row.set("received", seen.len() as u64);
    row.set("crashes", crashes as u64);
    row.set("connects", connected as u64);
    row.set("disconnects", disconnected as u64);
    row.set("duplicated", duplicated.len() as u64);
    row.set("calls/s", total as f64 / wall.as_secs_f64().max(1e-9));
    row.check(all.outcomes() == total, || format!("{} outcomes for {total} calls", all.outcomes()));
    row.check(all.other == 0 && all.wrong == 0, || {
        format!(
            "{} calls ended neither answered nor TransportClosed: {:?}",
            all.other + all.wrong,
            all.samples
        )
    });
    row.check(duplicated.is_empty(), || {
        format!(
            "{} calls reached the server more than once (re-sent): {:?}",
            duplicated.len(),
            &duplicated[..duplicated.len().min(3)]
        )
    });
    row.check(seen.len() >= all.ok && seen.len() <= all.ok + all.closed.len(), || {
        format!(
            "the server received {} calls, but {} were answered and {} failed",
            seen.len(),
            all.ok,
            all.closed.len()
        )
    });
    row.check(swallowed_ok.is_empty(), || {
        format!("calls a crash swallowed did not fail typed: {swallowed_ok:?}")
    });
    row.check(total < every || crashes >= 1, || format!("{total} calls but the server never exited"));
    row.check(all.ok <= (crashes + 1) * (every - 1), || {
        format!("{} answers from {} processes", all.ok, crashes + 1)
    });
    row.check(all.closed.len() >= crashes, || {
        format!("{} crashes but only {} failed calls", crashes, all.closed.len())
    });
    row.check(disconnected == crashes, || {
        format!("{disconnected} Disconnected events for {crashes} crashes")
    });
    row.check(connected >= crashes && connected <= crashes + 1, || {
        format!("{connected} Connected events for {crashes} crashes (the client must restart after each)")
    });
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_shared_out_exactly() {
        assert_eq!((0..8).map(|id| share(1_000, 8, id)).sum::<usize>(), 1_000);
        assert_eq!((0..3).map(|id| share(10, 3, id)).collect::<Vec<_>>(), vec![4, 3, 3]);
    }

    fn opts(calls: usize, every: u64) -> Options {
        Options { restart_calls: calls, exit_every: every, ..Options::default() }
    }

    fn tally(ok: usize, closed: &[&str]) -> Tally {
        Tally { ok, closed: closed.iter().map(|s| s.to_string()).collect(), ..Tally::default() }
    }

    fn life(connected: usize, disconnected: usize) -> Lifecycle {
        Lifecycle { connected: connected.into(), disconnected: disconnected.into() }
    }

    #[test]
    fn judges_the_outcomes_against_what_the_server_received() {
        let seen: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        // Exits on every 3rd: "c" was swallowed, "f" failed unsent; 4 answered.
        let good =
            judge(Rt::Tokio, &opts(6, 3), &tally(4, &["c", "f"]), &seen, &life(2, 1), Duration::from_secs(1));
        assert!(good.failures.is_empty(), "{:?}", good.failures);
        // The swallowed call reported as answered, a call received twice, an event missing.
        let mut twice = seen.clone();
        twice.push("a".into());
        let bad =
            judge(Rt::Tokio, &opts(6, 3), &tally(5, &["f"]), &twice, &life(2, 0), Duration::from_secs(1));
        let said = bad.failures.join("\n");
        assert!(said.contains("more than once") && said.contains("did not fail typed"), "{said}");
        assert!(said.contains("Disconnected events"), "{said}");
    }
}
