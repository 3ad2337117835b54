//! Floor for a thread-per-caller stdio client: C threads (env CALLERS, default 1) each make N
//! calls at once over one server; a caller writes its pre-serialized request under a lock on
//! stdin and sleeps on its own condition variable; one reader thread reads response lines,
//! parses each into a serde_json::Value and hands it to its caller. No timeouts, no
//! cancellation, no notifications: the least a blocking client with many callers must do.
//! Usage: raw-threads-stdio-client N SERVER_CMD [ARGS...]
use std::io::{BufRead, Write};
use std::process::ChildStdin;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

struct Slot {
    reply: Mutex<Option<serde_json::Value>>,
    ready: Condvar,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let callers: usize = std::env::var("CALLERS").ok().and_then(|c| c.parse().ok()).unwrap_or(1).max(1);
    let (mut child, w, mut r) = mini::start_stdio_server(&args[2..]);
    let stdin: Arc<Mutex<ChildStdin>> = Arc::new(Mutex::new(w));
    let slots: Arc<Vec<Slot>> =
        Arc::new((0..callers).map(|_| Slot { reply: Mutex::new(None), ready: Condvar::new() }).collect());
    let reader = {
        let slots = slots.clone();
        std::thread::spawn(move || {
            let mut line = String::with_capacity(4096);
            loop {
                line.clear();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let v: serde_json::Value = serde_json::from_str(&line).unwrap();
                let id = v["id"].as_u64().unwrap() as usize;
                let slot = &slots[id % callers];
                *slot.reply.lock().unwrap() = Some(v);
                slot.ready.notify_one();
            }
        })
    };
    let (cpu0, _) = mini::self_usage();
    let t1 = Instant::now();
    let threads: Vec<_> = (0..callers)
        .map(|c| {
            let (stdin, slots) = (stdin.clone(), slots.clone());
            std::thread::spawn(move || {
                let mut out = Vec::with_capacity(256);
                let mut latencies = Vec::with_capacity(n);
                for k in 0..n {
                    let sent = Instant::now();
                    let id = (k + 1) * callers + c;
                    out.clear();
                    let req = serde_json::json!({
                        "jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"text": "hello world"}}
                    });
                    serde_json::to_writer(&mut out, &req).unwrap();
                    out.push(b'\n');
                    stdin.lock().unwrap().write_all(&out).unwrap();
                    let slot = &slots[c];
                    let mut reply = slot.reply.lock().unwrap();
                    let v = loop {
                        match reply.take() {
                            Some(v) => break v,
                            None => reply = slot.ready.wait(reply).unwrap(),
                        }
                    };
                    assert_eq!(v["id"].as_u64(), Some(id as u64));
                    assert_eq!(v["result"]["content"][0]["text"].as_str(), Some("hello world"));
                    latencies.push(sent.elapsed().as_secs_f64() * 1e6);
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<f64> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    latencies.sort_by(f64::total_cmp);
    let quantile =
        |q: f64| latencies.get(((latencies.len() as f64 * q) as usize).min(latencies.len().max(1) - 1));
    let wall = t1.elapsed();
    let (cpu1, rss) = mini::self_usage();
    drop(stdin);
    let _ = child.wait();
    let _ = reader.join();
    println!(
        "RESULT {{\"client\":\"raw-threads\",\"transport\":\"stdio\",\"n\":{n},\"callers\":{callers},\"calls_wall_us\":{:.1},\"calls_cpu_us\":{:.1},\"maxrss_kb\":{rss},\"p50_us\":{:.1},\"p99_us\":{:.1}}}",
        wall.as_secs_f64() * 1e6,
        (cpu1 - cpu0) * 1e6,
        quantile(0.5).copied().unwrap_or(0.0),
        quantile(0.99).copied().unwrap_or(0.0)
    );
}
