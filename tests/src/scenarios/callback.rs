//! Host callbacks that call their own server: the event hook, a progress callback, the
//! input-wait hook and the `_meta` provider each make a request to the server whose event they
//! see, and the request and the call around it both finish. Blocking callbacks call and wait
//! on the spot; async ones start the request on the callback's own thread (its first poll
//! sends it) and leave the wait to a task of the runtime's. Every wait here is bounded: a
//! callback that deadlocks its server fails the scenario with a message, it does not hang it.
//! The glue module `rt` is the one described in `scenarios.rs`, plus `rt::Server` and, for the
//! async runtimes, `rt::spawner()`: called on the runtime, it returns a [`Spawner`] for it,
//! callable from any thread.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Spawns a future on a runtime, from any thread.
pub type Spawner = Arc<dyn Fn(Pin<Box<dyn Future<Output = ()> + Send>>) + Send + Sync>;

/// Defines `pub mod callback_scenarios` for the glue `rt` of mcpwire-blocking.
#[macro_export]
macro_rules! define_blocking_callback_scenarios {
    () => {
/// Blocking callbacks that call their own server, instantiated for mcpwire-blocking.
pub mod callback_scenarios {
    use super::rt;
    use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use $crate::mcpwire_core::{
        Event, InputWaitDecision, ListKind, Notification, Progress, RequestMetaContext, RequestOptions,
    };
    use $crate::serde_json::{json, Map, Value};
    use $crate::support;

    /// How long a call around a callback, or the callback's own call, may take at most.
    const LIMIT: Duration = Duration::from_secs(30);

    /// The server a callback calls, set once the client is built (and taken before it closes,
    /// so the hook's copy does not keep the server open).
    type ServerCell = Arc<Mutex<Option<rt::Server>>>;

    fn server_in(cell: &ServerCell) -> rt::Server {
        cell.lock().unwrap().clone().expect("the server is set before any call")
    }

    /// Runs `f` on a thread of its own and waits for it at most [`LIMIT`].
    fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, result) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(f());
        });
        received(what, &result)
    }

    /// What `rx` receives within [`LIMIT`].
    fn received<T>(what: &str, rx: &Receiver<T>) -> T {
        match rx.recv_timeout(LIMIT) {
            Ok(value) => value,
            Err(RecvTimeoutError::Timeout) => {
                panic!("{what} did not finish within {LIMIT:?}: a callback calling its server deadlocked")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
        }
    }

    /// Echoes `message` on the server and sends what came back.
    fn echo_to(server: &rt::Server, message: &str, to: &Mutex<Sender<Result<String, String>>>) {
        let r = server.call_tool("echo", json!({"message": message})).send();
        let _ = to.lock().unwrap().send(r.map(|r| r.text()).map_err(|e| e.to_string()));
    }

    fn close(client: rt::Client, cell: &ServerCell) {
        cell.lock().unwrap().take();
        within("close", move || client.close().send());
    }

    /// An event hook that, seeing the tools' `list_changed`, calls the same server and waits.
    pub fn event_hook_calls_its_server() {
        for proto in ["modern", "2025-11-25"] {
            let cell = ServerCell::default();
            let (to, nested) = mpsc::channel();
            let (hook_cell, to) = (cell.clone(), Mutex::new(to));
            let hook = move |_: &str, e: &Event| {
                if *e == Event::Notification(Notification::ListChanged(ListKind::Tools)) {
                    echo_to(&server_in(&hook_cell), "from the hook", &to);
                }
            };
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = rt::build(rt::Client::builder().server(spec).on_event(hook)).expect("build");
            *cell.lock().unwrap() = Some(client.servers()[0].clone());
            let outer = client.clone();
            let r = within("the notify call", move || outer.call_tool("notify", json!({})).send());
            assert_eq!(r.expect("notify").text(), "notified", "{proto}");
            let nested = received("the hook's own call", &nested);
            assert_eq!(nested.as_deref(), Ok("from the hook"), "{proto}");
            close(client, &cell);
        }
    }

    /// A progress callback that, at the first step, calls the same server and waits; the call
    /// it reports on returns after it, with every step reported. Its own call reports progress
    /// too: that call returns at once (its progress runs after the callback that made it).
    pub fn progress_callback_calls_its_server() {
        let cell = ServerCell::default();
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        *cell.lock().unwrap() = Some(client.servers()[0].clone());
        let (to, nested) = mpsc::channel();
        let (callback_cell, to) = (cell.clone(), Mutex::new(to));
        let steps = Arc::new(Mutex::new(Vec::new()));
        let nested_steps = Arc::new(Mutex::new(Vec::new()));
        let (seen, nested_seen) = (steps.clone(), nested_steps.clone());
        let callback = move |p: Progress| {
            seen.lock().unwrap().push(p.progress);
            if p.progress == 1.0 {
                let server = server_in(&callback_cell);
                let record = nested_seen.clone();
                let on_nested = move |p: Progress| record.lock().unwrap().push(p.progress);
                let r = server.call_tool("progress", json!({"steps": 2})).on_progress(on_nested).send();
                let _ = to.lock().unwrap().send(r.map(|r| r.text()).map_err(|e| e.to_string()));
            }
        };
        let outer = client.servers()[0].clone();
        let r = within("the progress call", move || {
            outer.call_tool("progress", json!({"steps": 3})).on_progress(callback).send()
        });
        assert_eq!(r.expect("progress").text(), "done 3");
        let nested = received("the progress callback's own call", &nested);
        assert_eq!(nested.as_deref(), Ok("done 2"));
        assert_eq!(*steps.lock().unwrap(), [1.0, 2.0, 3.0], "every step, before the call returned");
        let deadline = std::time::Instant::now() + LIMIT;
        while nested_steps.lock().unwrap().len() < 2 {
            assert!(std::time::Instant::now() < deadline, "the nested call's progress never came");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(*nested_steps.lock().unwrap(), [1.0, 2.0]);
        close(client, &cell);
    }

    /// An input-wait hook that calls the same server and waits before it lets the wait go on.
    pub fn input_wait_hook_calls_its_server() {
        let cell = ServerCell::default();
        let (to, nested) = mpsc::channel();
        let (hook_cell, to) = (cell.clone(), Mutex::new(to));
        let hook = move |_: &str, wait: &$crate::mcpwire_core::InputWait| {
            if wait.round == 1 {
                echo_to(&server_in(&hook_cell), "from the input-wait hook", &to);
            }
            InputWaitDecision::Continue
        };
        let spec = support::spec(support::test_server(), "t", &["--protocol", "modern", "--input-waits"]);
        let client = rt::build(rt::Client::builder().server(spec).on_input_wait(hook)).expect("build");
        *cell.lock().unwrap() = Some(client.servers()[0].clone());
        let outer = client.clone();
        let r = within("the not_yet call", move || outer.call_tool("not_yet", json!({"times": 2})).send());
        assert_eq!(r.expect("not_yet").text(), "ready after 2 waits");
        let nested = received("the input-wait hook's own call", &nested);
        assert_eq!(nested.as_deref(), Ok("from the input-wait hook"));
        close(client, &cell);
    }

    /// A `_meta` provider that pings the same server before it answers for a tool call (and
    /// adds nothing to the ping's own request).
    pub fn meta_provider_calls_its_server() {
        let cell = ServerCell::default();
        let provider_cell = cell.clone();
        let provider = move |ctx: &RequestMetaContext<'_>| {
            let mut meta = Map::new();
            if ctx.method == "tools/call" {
                let pinged = server_in(&provider_cell).ping().send().map_err(|e| e.to_string());
                meta.insert("com.example/pinged".into(), json!(format!("{pinged:?}")));
            }
            meta
        };
        let spec = support::spec(support::test_server(), "t", &["--protocol", "modern"]);
        let client = rt::build(rt::Client::builder().server(spec).request_meta_provider(provider)).expect("build");
        *cell.lock().unwrap() = Some(client.servers()[0].clone());
        let outer = client.clone();
        let r = within("the echo call", move || outer.call_tool("echo", json!({"message": "hi"})).send());
        let r = r.expect("echo");
        assert_eq!(r.text(), "hi");
        let sc = r.structured_content.clone().expect("echo has structured content");
        assert_eq!(sc["receivedMeta"]["com.example/pinged"], Value::from("Ok(())"), "{sc}");
        close(client, &cell);
    }

    /// `close` returns once the event hook has seen everything up to `Closed`, `Closed`
    /// included, even when the hook takes its time on another thread.
    pub fn close_returns_after_the_hook_saw_closed() {
        let saw_closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = saw_closed.clone();
        let hook = move |_: &str, e: &Event| {
            if *e == Event::Closed {
                std::thread::sleep(Duration::from_millis(200));
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        };
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = rt::build(rt::Client::builder().server(spec).on_event(hook)).expect("build");
        let r = client.call_tool("echo", json!({"message": "hi"})).send().expect("echo");
        assert_eq!(r.text(), "hi");
        within("close", move || client.close().send());
        assert!(saw_closed.load(std::sync::atomic::Ordering::SeqCst), "close returned before the hook saw Closed");
    }
}
    };
}

/// Generates the `#[test]`s of [`define_blocking_callback_scenarios!`].
#[macro_export]
macro_rules! all_blocking_callback_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(callback_scenarios, $run;
            event_hook_calls_its_server, progress_callback_calls_its_server,
            input_wait_hook_calls_its_server, meta_provider_calls_its_server,
            close_returns_after_the_hook_saw_closed);
    };
}

/// Defines `pub mod callback_scenarios` for the glue `rt` of an async runtime.
#[macro_export]
macro_rules! define_async_callback_scenarios {
    () => {
/// Async callbacks that call their own server, instantiated for this runtime.
pub mod callback_scenarios {
    use super::rt;
    use std::future::Future;
    use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use $crate::futures_lite::future;
    use $crate::mcpwire_core::{Event, ListKind, Notification, Progress, RequestOptions};
    use $crate::serde_json::json;
    use $crate::support;

    /// How long a call around a callback, or the callback's own call, may take at most.
    const LIMIT: Duration = Duration::from_secs(30);

    type ServerCell = Arc<Mutex<Option<rt::Server>>>;
    type Nested = Mutex<Sender<Result<String, String>>>;

    /// What `rx` receives within [`LIMIT`]. A blocking wait, not one on the runtime's timer:
    /// a deadlocked engine also blocks the runtime's workers whose tasks wait for its lock,
    /// and with them the timer, which would then never fail the scenario. (The scenario runs
    /// in `block_on` on a thread of its own, not on a worker.)
    async fn received<T>(what: &str, rx: &Receiver<T>) -> T {
        match rx.recv_timeout(LIMIT) {
            Ok(value) => value,
            Err(RecvTimeoutError::Timeout) => {
                panic!("{what} did not finish within {LIMIT:?}: a callback calling its server deadlocked")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
        }
    }

    /// Runs `call` on a thread of its own (so a deadlock there cannot stop this task from
    /// failing the scenario) and waits for it at most [`LIMIT`].
    async fn within<T: Send + 'static>(what: &str, call: impl Future<Output = T> + Send + 'static) -> T {
        let (done, result) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(future::block_on(call));
        });
        received(what, &result).await
    }

    /// From a callback: echoes `message` on the server in `cell`. The request is sent here, on
    /// the callback's thread (the call's first poll); a task of the runtime's waits for the
    /// answer and sends it on.
    fn echo_from_callback(cell: &ServerCell, message: &str, to: &Arc<Nested>, spawn: &$crate::scenarios::callback::Spawner) {
        let server = cell.lock().unwrap().clone().expect("the server is set before any call");
        let message = message.to_owned();
        let mut call = Box::pin(async move { server.call_tool("echo", json!({"message": message})).await });
        let first = future::block_on(future::poll_once(&mut call));
        let to = to.clone();
        spawn(Box::pin(async move {
            let r = match first {
                Some(r) => r,
                None => call.await,
            };
            let _ = to.lock().unwrap().send(r.map(|r| r.text()).map_err(|e| e.to_string()));
        }));
    }

    /// An event hook that, seeing the tools' `list_changed`, makes a request to the same server.
    pub async fn event_hook_calls_its_server() {
        for proto in ["modern", "2025-11-25"] {
            let cell = ServerCell::default();
            let (to, nested) = mpsc::channel();
            let (hook_cell, to) = (cell.clone(), Arc::new(Mutex::new(to)));
            let spawn = rt::spawner();
            let hook = move |_: &str, e: &Event| {
                if *e == Event::Notification(Notification::ListChanged(ListKind::Tools)) {
                    echo_from_callback(&hook_cell, "from the hook", &to, &spawn);
                }
            };
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = rt::build(rt::Client::builder().server(spec).on_event(hook)).expect("build");
            *cell.lock().unwrap() = Some(client.servers()[0].clone());
            let outer = client.clone();
            let r = within("the notify call", async move { outer.call_tool("notify", json!({})).await }).await;
            assert_eq!(r.expect("notify").text(), "notified", "{proto}");
            let nested = received("the hook's own call", &nested).await;
            assert_eq!(nested.as_deref(), Ok("from the hook"), "{proto}");
            cell.lock().unwrap().take();
            client.close().await;
        }
    }

    /// A progress callback that, at the first step, makes a request to the same server; the
    /// call it reports on returns after its last step.
    pub async fn progress_callback_calls_its_server() {
        let cell = ServerCell::default();
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        *cell.lock().unwrap() = Some(client.servers()[0].clone());
        let (to, nested) = mpsc::channel();
        let (callback_cell, to) = (cell.clone(), Arc::new(Mutex::new(to)));
        let steps = Arc::new(Mutex::new(Vec::new()));
        let seen = steps.clone();
        let spawn = rt::spawner();
        let callback = move |p: Progress| {
            seen.lock().unwrap().push(p.progress);
            if p.progress == 1.0 {
                echo_from_callback(&callback_cell, "from the progress callback", &to, &spawn);
            }
        };
        let outer = client.servers()[0].clone();
        let call = async move {
            outer.call_tool("progress", json!({"steps": 3})).on_progress(callback).await
        };
        let r = within("the progress call", call).await;
        assert_eq!(r.expect("progress").text(), "done 3");
        let nested = received("the progress callback's own call", &nested).await;
        assert_eq!(nested.as_deref(), Ok("from the progress callback"));
        assert_eq!(*steps.lock().unwrap(), [1.0, 2.0, 3.0], "every step, before the call returned");
        cell.lock().unwrap().take();
        client.close().await;
    }

    /// `close` returns once the event hook has seen everything up to `Closed`, `Closed`
    /// included, even when the hook takes its time.
    pub async fn close_returns_after_the_hook_saw_closed() {
        let saw_closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = saw_closed.clone();
        let hook = move |_: &str, e: &Event| {
            if *e == Event::Closed {
                std::thread::sleep(Duration::from_millis(200));
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        };
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = rt::build(rt::Client::builder().server(spec).on_event(hook)).expect("build");
        let r = client.call_tool("echo", json!({"message": "hi"})).await.expect("echo");
        assert_eq!(r.text(), "hi");
        within("close", async move { client.close().await }).await;
        assert!(saw_closed.load(std::sync::atomic::Ordering::SeqCst), "close returned before the hook saw Closed");
    }
}
    };
}

/// Generates the `#[test]`s of [`define_async_callback_scenarios!`].
#[macro_export]
macro_rules! all_async_callback_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(callback_scenarios, $run;
            event_hook_calls_its_server, progress_callback_calls_its_server,
            close_returns_after_the_hook_saw_closed);
    };
}
