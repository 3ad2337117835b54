//! rmcp client bench.
//! Usage: rmcp-bench stdio N SERVER_CMD [ARGS...]
//!        rmcp-bench http  N URL [pooled]
//! Env RT=current selects a current-thread tokio runtime (default multi-thread); TASK=1 runs
//! everything inside a spawned task instead of on the thread in `block_on`.
//! Env CALLERS=C (C > 1) runs C concurrent tasks of N calls each on clones of
//! the peer and adds p50/p99 call latency to the RESULT line.
//! Prints one RESULT JSON line: connect(+initialize)+list_tools time, N
//! sequential echo tools/call wall and process CPU, close time, max RSS.
use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{StreamableHttpClientTransport, TokioChildProcess},
};
use std::time::Instant;

fn self_usage() -> (f64, i64) {
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
        (t(ru.ru_utime) + t(ru.ru_stime), ru.ru_maxrss)
    }
}

async fn run(args: Vec<String>) -> anyhow_like::Result<()> {
    let transport_kind = args[1].clone();
    let n: usize = args[2].parse()?;
    let t0 = Instant::now();
    let mut client = match transport_kind.as_str() {
        "stdio" => {
            let mut cmd = tokio::process::Command::new(&args[3]);
            cmd.args(&args[4..]);
            ().serve(TokioChildProcess::new(cmd)?).await?
        }
        "http" => {
            let url = args[3].clone();
            let pooled = args.get(4).map(|s| s == "pooled").unwrap_or(false);
            if pooled {
                let cfg = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url);
                ().serve(StreamableHttpClientTransport::with_client(reqwest::Client::new(), cfg)).await?
            } else {
                ().serve(StreamableHttpClientTransport::from_uri(url)).await?
            }
        }
        _ => panic!("transport"),
    };
    let tools = client.list_tools(Default::default()).await?;
    assert_eq!(tools.tools.len(), 1);
    let t_conn = t0.elapsed();
    let mut arguments = serde_json::Map::new();
    arguments.insert("text".into(), serde_json::Value::String("hello world".into()));
    let callers: usize = std::env::var("CALLERS").ok().and_then(|c| c.parse().ok()).unwrap_or(1);
    let (cpu0, _) = self_usage();
    let t1 = Instant::now();
    let mut latencies: Vec<f64> = Vec::new();
    if callers > 1 {
        let mut tasks = Vec::new();
        for _ in 0..callers {
            let peer = client.peer().clone();
            let arguments = arguments.clone();
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::with_capacity(n);
                for _ in 0..n {
                    let t = Instant::now();
                    let r = peer
                        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.clone()))
                        .await
                        .expect("call");
                    let text = r.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str());
                    assert_eq!(text, Some("hello world"));
                    lat.push(t.elapsed().as_secs_f64() * 1e6);
                }
                lat
            }));
        }
        for t in tasks {
            latencies.extend(t.await?);
        }
    } else {
        for _ in 0..n {
            let r = client
                .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.clone()))
                .await?;
            let text = r.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str());
            assert_eq!(text, Some("hello world"));
        }
    }
    let wall = t1.elapsed();
    let (cpu1, rss) = self_usage();
    latencies.sort_by(|a, b| a.total_cmp(b));
    let pct = |q: f64| latencies.get(((latencies.len() as f64 - 1.0) * q) as usize).copied().unwrap_or(0.0);
    let (p50, p99) = (pct(0.5), pct(0.99));
    let t2 = Instant::now();
    client.close().await?;
    let t_close = t2.elapsed();
    let label = if transport_kind == "http" && args.get(4).map(|s| s == "pooled").unwrap_or(false) {
        "rmcp-pooled"
    } else {
        "rmcp"
    };
    let rt = std::env::var("RT").unwrap_or_else(|_| "multi".into());
    println!(
        "RESULT {{\"client\":\"{label}\",\"rt\":\"{rt}\",\"transport\":\"{transport_kind}\",\"n\":{n},\"callers\":{callers},\"connect_list_us\":{:.1},\"calls_wall_us\":{:.1},\"calls_cpu_us\":{:.1},\"close_us\":{:.1},\"maxrss_kb\":{rss},\"p50_us\":{p50:.1},\"p99_us\":{p99:.1}}}",
        t_conn.as_secs_f64() * 1e6,
        wall.as_secs_f64() * 1e6,
        (cpu1 - cpu0) * 1e6,
        t_close.as_secs_f64() * 1e6
    );
    Ok(())
}

mod anyhow_like {
    pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = match std::env::var("RT").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        _ => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
    }
    .unwrap();
    // TASK=1: the whole run inside a spawned task, not on the thread in `block_on`.
    let result = if std::env::var("TASK").as_deref() == Ok("1") {
        rt.block_on(async { tokio::spawn(run(args)).await.expect("the run task") })
    } else {
        rt.block_on(run(args))
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
