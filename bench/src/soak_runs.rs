//! The soak's load and long runs, on each runtime family (see `soak` for what each checks).
//! Every run returns a report row; a client or server that cannot start is a failed row, never
//! a panic.

use std::future::IntoFuture;
use std::time::{Duration, Instant};

use mcpwire_core::{ClientError, ServerSpec};

use crate::soak::{broken, caller, caller_sync, echo_args, rss_kib, Options, Rt, StdioServer, Tally};
use crate::soak_report::Row;
use mcp_bench::clients::quantile;

/// A tokio runtime for one run: current-thread for [`Rt::TokioCt`], else multi-thread.
pub fn tokio_runtime(rt: Rt) -> Result<tokio::runtime::Runtime, String> {
    let mut builder = match rt {
        Rt::TokioCt => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    builder.enable_all().build().map_err(|e| format!("tokio runtime: {e}"))
}

fn failed(what: &str) -> impl Fn(ClientError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Joins scoped caller threads; a panicked caller is an error.
pub fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Result<Vec<T>, String> {
    handles.into_iter().map(|h| h.join().map_err(|_| "a caller thread panicked".to_owned())).collect()
}

/// Load: `opts.callers` callers x `opts.caller_calls` echo calls on the server `spec` names.
pub fn load(
    rt: Rt,
    transport: &'static str,
    spec: impl Fn(&str) -> Result<ServerSpec, String>,
    key: &'static str,
    opts: &Options,
) -> Row {
    let spec = match spec("soak") {
        Ok(spec) => spec,
        Err(why) => return broken("load", rt, transport, why),
    };
    let (callers, calls) = (opts.callers, opts.caller_calls);
    let run = match rt {
        Rt::Tokio | Rt::TokioCt => load_tokio(rt, spec, key, callers, calls),
        Rt::Smol => load_smol(spec, key, callers, calls),
        Rt::Blocking => load_blocking(spec, key, callers, calls),
    };
    let (tallies, wall) = match run {
        Ok(run) => run,
        Err(why) => return broken("load", rt, transport, why),
    };
    let mut row = Row::new("load", rt, transport);
    let short: Vec<(usize, usize)> =
        tallies.iter().enumerate().filter(|(_, t)| t.ok != calls).map(|(id, t)| (id, t.ok)).collect();
    let mut all = Tally::default();
    for tally in tallies {
        all.merge(tally);
    }
    all.latencies.sort_by(f64::total_cmp);
    let expected = callers * calls;
    row.set("calls", expected as u64);
    row.set("answered", all.ok as u64);
    row.set("wrong", all.wrong as u64);
    row.set("errors", (all.closed.len() + all.other) as u64);
    row.set("calls/s", expected as f64 / wall.as_secs_f64().max(1e-9));
    row.set("p50 µs", quantile(&all.latencies, 0.5));
    row.set("p99 µs", quantile(&all.latencies, 0.99));
    row.set("secs", wall.as_secs_f64());
    row.check(all.outcomes() == expected, || format!("{} outcomes for {expected} calls", all.outcomes()));
    row.check(short.is_empty(), || {
        format!(
            "{} callers did not get every own payload back (caller, answered): {:?}",
            short.len(),
            &short[..short.len().min(5)]
        )
    });
    row.check(all.wrong == 0, || format!("{} answers carried another payload: {:?}", all.wrong, all.samples));
    row.check(all.closed.is_empty() && all.other == 0, || {
        format!("{} calls failed: {:?}", all.closed.len() + all.other, all.samples)
    });
    row
}

type LoadRun = Result<(Vec<Tally>, Duration), String>;

fn load_tokio(rt: Rt, spec: ServerSpec, key: &'static str, callers: usize, calls: usize) -> LoadRun {
    let runtime = tokio_runtime(rt)?;
    runtime.block_on(async {
        let client = mcpwire_tokio::Client::builder().server(spec).build().map_err(failed("build"))?;
        client.list_tools().await.into_result().map_err(failed("connect"))?;
        let started = Instant::now();
        let tasks: Vec<_> = (0..callers)
            .map(|id| {
                let client = client.clone();
                tokio::spawn(async move {
                    let client = &client;
                    caller("load", id, calls, move |payload| async move {
                        client.call_tool("echo", echo_args(key, &payload)).await.map(|r| r.text())
                    })
                    .await
                })
            })
            .collect();
        let mut tallies = Vec::with_capacity(callers);
        for task in tasks {
            tallies.push(task.await.map_err(|e| format!("a caller task: {e}"))?);
        }
        let wall = started.elapsed();
        client.close().await;
        Ok((tallies, wall))
    })
}

fn load_smol(spec: ServerSpec, key: &'static str, callers: usize, calls: usize) -> LoadRun {
    use async_io::block_on;
    let client = mcpwire_smol::Client::builder().server(spec).build().map_err(failed("build"))?;
    block_on(client.list_tools().into_future()).into_result().map_err(failed("connect"))?;
    let started = Instant::now();
    let tallies = std::thread::scope(|scope| {
        let client = &client;
        let handles = (0..callers)
            .map(|id| {
                scope.spawn(move || {
                    block_on(caller("load", id, calls, |payload| async move {
                        client.call_tool("echo", echo_args(key, &payload)).await.map(|r| r.text())
                    }))
                })
            })
            .collect();
        join_all(handles)
    });
    let wall = started.elapsed();
    block_on(client.close().into_future());
    Ok((tallies?, wall))
}

fn load_blocking(spec: ServerSpec, key: &'static str, callers: usize, calls: usize) -> LoadRun {
    let client = mcpwire_blocking::Client::builder().server(spec).build().map_err(failed("build"))?;
    client.list_tools().send().into_result().map_err(failed("connect"))?;
    let started = Instant::now();
    let tallies = std::thread::scope(|scope| {
        let client = &client;
        let handles = (0..callers)
            .map(|id| {
                scope.spawn(move || {
                    caller_sync("load", id, calls, |payload| {
                        client.call_tool("echo", echo_args(key, &payload)).send().map(|r| r.text())
                    })
                })
            })
            .collect();
        join_all(handles)
    });
    let wall = started.elapsed();
    client.close().send();
    Ok((tallies?, wall))
}

/// What a long sequential run saw.
#[derive(Debug, Default)]
struct LongRun {
    ok: usize,
    failed: usize,
    samples: Vec<String>,
    wall: Duration,
    rss_start: u64,
    rss_end: u64,
    rss_max: u64,
}

/// Calls before the RSS baseline: 5 % of the run, at least 100, at most 50 000.
fn warm_up(n: usize) -> usize {
    (n / 20).clamp(100, 50_000)
}

/// `warm` calls, the RSS baseline, `n` measured calls with RSS sampled ten times, the end RSS.
/// No per-call allocation is kept (it would be the growth measured).
async fn long_loop<F, Fut>(n: usize, warm: usize, mut call: F) -> LongRun
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = Result<String, ClientError>>,
{
    let mut run = LongRun::default();
    let every = (n / 10).max(1);
    let mut started = Instant::now();
    for i in 0..warm + n {
        if i == warm {
            run.rss_start = rss_kib();
            run.rss_max = run.rss_start;
            started = Instant::now();
        } else if i > warm && (i - warm).is_multiple_of(every) {
            run.rss_max = run.rss_max.max(rss_kib());
        }
        let payload = format!("long-{i}");
        match call(payload.clone()).await {
            Ok(text) if text == payload => run.ok += 1,
            outcome => {
                run.failed += 1;
                if run.samples.len() < 3 {
                    run.samples.push(format!("{payload}: {outcome:?}"));
                }
            }
        }
    }
    run.wall = started.elapsed();
    run.rss_end = rss_kib();
    run.rss_max = run.rss_max.max(run.rss_end);
    run
}

/// Long: `opts.sequential` calls one after another on a stdio server, RSS checked.
pub fn long(rt: Rt, server: &StdioServer, opts: &Options) -> Row {
    let spec = match server.spec("soak") {
        Ok(spec) => spec,
        Err(why) => return broken("long", rt, "stdio", why),
    };
    let (n, warm, key) = (opts.sequential, warm_up(opts.sequential), server.key);
    let run = match rt {
        Rt::Tokio | Rt::TokioCt => tokio_runtime(rt).and_then(|runtime| {
            runtime.block_on(async {
                let client =
                    mcpwire_tokio::Client::builder().server(spec).build().map_err(failed("build"))?;
                let c = &client;
                let run = long_loop(n, warm, |p| async move {
                    c.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                })
                .await;
                client.close().await;
                Ok(run)
            })
        }),
        Rt::Smol => {
            mcpwire_smol::Client::builder().server(spec).build().map_err(failed("build")).map(|client| {
                let c = &client;
                let run = async_io::block_on(long_loop(n, warm, |p| async move {
                    c.call_tool("echo", echo_args(key, &p)).await.map(|r| r.text())
                }));
                async_io::block_on(client.close().into_future());
                run
            })
        }
        Rt::Blocking => {
            mcpwire_blocking::Client::builder().server(spec).build().map_err(failed("build")).map(|client| {
                let run = futures_lite::future::block_on(long_loop(n, warm, |p| {
                    std::future::ready(client.call_tool("echo", echo_args(key, &p)).send().map(|r| r.text()))
                }));
                client.close().send();
                run
            })
        }
    };
    let run = match run {
        Ok(run) => run,
        Err(why) => return broken("long", rt, "stdio", why),
    };
    let mut row = Row::new("long", rt, "stdio");
    let mib = |kib: u64| kib as f64 / 1024.0;
    let growth = if run.rss_start == 0 {
        f64::NAN
    } else {
        (run.rss_end as f64 - run.rss_start as f64) / run.rss_start as f64 * 100.0
    };
    row.set("calls", n as u64);
    row.set("warm-up", warm as u64);
    row.set("calls/s", n as f64 / run.wall.as_secs_f64().max(1e-9));
    row.set("secs", run.wall.as_secs_f64());
    row.set("rss start MiB", mib(run.rss_start));
    row.set("rss end MiB", mib(run.rss_end));
    row.set("rss max MiB", mib(run.rss_max));
    row.set("growth %", growth);
    row.set("limit %", opts.max_rss_growth.map_or(serde_json::Value::Null, serde_json::Value::from));
    row.check(run.ok == warm + n, || {
        format!(
            "{} of {} calls did not come back with their payload: {:?}",
            run.failed,
            warm + n,
            run.samples
        )
    });
    if let Some(limit) = opts.max_rss_growth {
        row.check(run.rss_start > 0, || "VmRSS unreadable (/proc/self/status)".into());
        row.check(growth.is_nan() || growth <= limit, || {
            format!(
                "RSS grew {growth:.2} % over {n} calls ({:.1} -> {:.1} MiB), more than {limit} %",
                mib(run.rss_start),
                mib(run.rss_end)
            )
        });
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_is_bounded() {
        assert_eq!(warm_up(20_000), 1_000);
        assert_eq!(warm_up(1_000_000), 50_000);
        assert_eq!(warm_up(10_000_000), 50_000);
        assert_eq!(warm_up(10), 100);
    }

    #[test]
    fn the_long_loop_counts_every_call_and_samples_rss() {
        let mut n = 0;
        let run = futures_lite::future::block_on(long_loop(30, 5, |payload| {
            n += 1;
            std::future::ready(if n == 7 { Err(ClientError::Closed) } else { Ok(payload) })
        }));
        assert_eq!((run.ok, run.failed), (34, 1));
        assert!(run.rss_start > 0 && run.rss_end > 0 && run.rss_max >= run.rss_end);
    }
}
