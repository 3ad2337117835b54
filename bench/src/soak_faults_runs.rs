//! The fault soak's callers on each runtime family: a client built on the family, and
//! [`Callers::run`], which has every caller make its calls (the [`Op`] mix) concurrently and
//! gathers their outcomes.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_core::types::ResourceContents;
use mcpwire_core::{ClientError, ServerSpec};

use crate::soak::{echo_args, Rt};
use crate::soak_faults::{fault_caller, Mix, Op, Outcomes};
use crate::soak_runs::{join_all, tokio_runtime};
use crate::soak_watchdog::InFlight;

/// One operation on a client: `$wait` turns the request value `$x` into its outcome (`.await`
/// or `.send()`); the answer's text is what [`Op::expected`] compares.
macro_rules! perform {
    ($client:expr, $op:expr, $payload:expr, |$x:ident| $wait:expr) => {{
        let client = $client;
        match $op {
            Op::Call => {
                let $x = client.call_tool("echo", echo_args("message", &$payload));
                $wait.map(|r| r.text())
            }
            Op::ListTools => {
                let $x = client.list_tools();
                $wait.into_result().map(|all| names(all.iter().map(|t| t.tool.name.as_str())))
            }
            Op::ListPrompts => {
                let $x = client.list_prompts();
                $wait.into_result().map(|all| names(all.iter().map(|p| p.prompt.name.as_str())))
            }
            Op::ListResources => {
                let $x = client.list_resources();
                $wait.into_result().map(|all| names(all.iter().map(|r| r.resource.uri.as_str())))
            }
            Op::Big => {
                let $x = client.call_tool("big", serde_json::json!({ "bytes": crate::soak_faults::BIG_BYTES }));
                $wait.map(|r| r.text().len().to_string())
            }
            Op::Read => {
                let $x = client.read_resource(crate::soak_faults::RESOURCE);
                $wait.map(|read| {
                    names(read.contents.iter().map(|c| match c {
                        ResourceContents::Text { text, .. } => text.as_str(),
                        _ => "<blob>",
                    }))
                })
            }
        }
    }};
}

fn names<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.collect::<Vec<_>>().join(",")
}

/// A client on one runtime family and its concurrent callers.
pub trait Callers {
    /// Every caller makes `calls` calls (payloads tagged `tag`, operations by `mix`); their
    /// outcomes, merged.
    fn run(&self, tag: &str, calls: usize, mix: Mix) -> Result<Outcomes, String>;
    /// Lets `pause` pass with the runtime running (a current-thread runtime runs only while
    /// someone blocks on it: the tasks that release ended exchanges wait for that).
    fn idle(&self, pause: Duration);
    /// Closes the client (and its runtime).
    fn close(self: Box<Self>);
}

/// The callers of `rt` on a client of the server `spec`, `callers` of them.
pub fn callers(
    rt: Rt,
    spec: ServerSpec,
    callers: usize,
    flight: Arc<InFlight>,
) -> Result<Box<dyn Callers>, String> {
    let built = |e: ClientError| format!("build: {e}");
    Ok(match rt {
        Rt::Tokio | Rt::TokioCt => {
            let runtime = tokio_runtime(rt)?;
            let client = {
                let _inside = runtime.enter();
                mcpwire_tokio::Client::builder().server(spec).build().map_err(built)?
            };
            Box::new(TokioCallers { runtime, client, callers, flight })
        }
        Rt::Smol => {
            let client = mcpwire_smol::Client::builder().server(spec).build().map_err(built)?;
            Box::new(SmolCallers { client, callers, flight })
        }
        Rt::Blocking => {
            let client = mcpwire_blocking::Client::builder().server(spec).build().map_err(built)?;
            Box::new(BlockingCallers { client, callers, flight })
        }
    })
}

struct TokioCallers {
    runtime: tokio::runtime::Runtime,
    client: mcpwire_tokio::Client,
    callers: usize,
    flight: Arc<InFlight>,
}

impl Callers for TokioCallers {
    fn run(&self, tag: &str, calls: usize, mix: Mix) -> Result<Outcomes, String> {
        self.runtime.block_on(async {
            let tasks: Vec<_> = (0..self.callers)
                .map(|id| {
                    let (client, flight, tag) = (self.client.clone(), self.flight.clone(), tag.to_owned());
                    tokio::spawn(async move {
                        let client = &client;
                        fault_caller(&flight, (&tag, mix), id, calls, |op, payload| async move {
                            perform!(client, op, payload, |x| x.await)
                        })
                        .await
                    })
                })
                .collect();
            let mut all = Outcomes::default();
            for task in tasks {
                all.merge(task.await.map_err(|e| format!("a caller task: {e}"))?);
            }
            Ok(all)
        })
    }

    fn idle(&self, pause: Duration) {
        self.runtime.block_on(async { tokio::time::sleep(pause).await });
    }

    fn close(self: Box<Self>) {
        self.runtime.block_on(self.client.close().into_future());
    }
}

/// Runs `caller(id)` for each of `callers` ids on a thread of its own; their outcomes, merged.
fn on_threads(callers: usize, caller: impl Fn(usize) -> Outcomes + Sync) -> Result<Outcomes, String> {
    let caller = &caller;
    let outcomes = std::thread::scope(|scope| {
        let handles = (0..callers).map(|id| scope.spawn(move || caller(id))).collect();
        join_all(handles)
    })?;
    Ok(Outcomes::merged(outcomes))
}

struct SmolCallers {
    client: mcpwire_smol::Client,
    callers: usize,
    flight: Arc<InFlight>,
}

impl Callers for SmolCallers {
    fn run(&self, tag: &str, calls: usize, mix: Mix) -> Result<Outcomes, String> {
        let client = &self.client;
        on_threads(self.callers, |id| {
            async_io::block_on(fault_caller(&self.flight, (tag, mix), id, calls, |op, payload| async move {
                perform!(client, op, payload, |x| x.await)
            }))
        })
    }

    fn idle(&self, pause: Duration) {
        std::thread::sleep(pause);
    }

    fn close(self: Box<Self>) {
        async_io::block_on(self.client.close().into_future());
    }
}

struct BlockingCallers {
    client: mcpwire_blocking::Client,
    callers: usize,
    flight: Arc<InFlight>,
}

impl Callers for BlockingCallers {
    fn run(&self, tag: &str, calls: usize, mix: Mix) -> Result<Outcomes, String> {
        let client = &self.client;
        on_threads(self.callers, |id| {
            futures_lite::future::block_on(fault_caller(
                &self.flight,
                (tag, mix),
                id,
                calls,
                |op, payload| std::future::ready(perform!(client, op, payload, |x| x.send())),
            ))
        })
    }

    fn idle(&self, pause: Duration) {
        std::thread::sleep(pause);
    }

    fn close(self: Box<Self>) {
        self.client.close().send();
    }
}
