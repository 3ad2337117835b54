use super::*;
use std::sync::mpsc;
use std::task::Wake;

/// Sends `raw` to the listener and returns its whole answer.
fn send(port: u16, raw: &[u8]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = stream.write_all(raw);
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

fn get(port: u16, target: &str) -> String {
    send(port, format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes())
}

struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// A minimal executor: polls `fut` on this thread until it is ready.
fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

#[test]
fn answers_the_callback_and_refuses_the_rest() {
    let cb = LoopbackCallback::bind(0).unwrap();
    let port = cb.port();
    assert_ne!(port, 0);
    assert_eq!(cb.redirect_uri(), format!("http://127.0.0.1:{port}/callback"));
    let (tx, rx) = mpsc::channel();
    let client = std::thread::spawn(move || {
        tx.send(get(port, "/favicon.ico")).unwrap();
        tx.send(send(port, b"POST /callback?code=x HTTP/1.1\r\n\r\n")).unwrap();
        tx.send(send(port, b"nonsense\r\n\r\n")).unwrap();
        tx.send(get(port, "/callback")).unwrap();
        tx.send(get(port, "/callback?state=s")).unwrap();
        tx.send(get(port, "/callback?code=abc&state=s%20t")).unwrap();
    });
    let url = cb.wait(Duration::from_secs(20)).unwrap();
    client.join().unwrap();
    assert_eq!(url, format!("http://127.0.0.1:{port}/callback?code=abc&state=s%20t"));
    let answers: Vec<String> = rx.iter().collect();
    assert!(answers[0].starts_with("HTTP/1.1 404"), "{}", answers[0]);
    assert!(answers[1].starts_with("HTTP/1.1 405"), "{}", answers[1]);
    assert!(answers[2].starts_with("HTTP/1.1 400"), "{}", answers[2]);
    assert!(answers[3].starts_with("HTTP/1.1 400"), "no code: {}", answers[3]);
    assert!(answers[4].starts_with("HTTP/1.1 400"), "no code: {}", answers[4]);
    assert!(answers[5].starts_with("HTTP/1.1 200") && answers[5].contains("close this tab"));
}

#[test]
fn an_error_redirect_ends_the_wait_too() {
    let cb = LoopbackCallback::bind_path(0, "/oauth/done").unwrap();
    let port = cb.port();
    let client = std::thread::spawn(move || get(port, "/oauth/done?error=access_denied&state=s"));
    let url = cb.wait(Duration::from_secs(20)).unwrap();
    assert!(url.ends_with("/oauth/done?error=access_denied&state=s"), "{url}");
    let answer = client.join().unwrap();
    assert!(answer.contains("not granted") && !answer.contains("access_denied"), "no echo: {answer}");
}

#[test]
fn oversize_requests_are_refused() {
    let cb = LoopbackCallback::bind(0).unwrap();
    let port = cb.port();
    let client = std::thread::spawn(move || {
        let long = format!("GET /callback?code={} HTTP/1.1\r\n\r\n", "a".repeat(MAX_CALLBACK_REQUEST_BYTES));
        let refused = send(port, long.as_bytes());
        let ok = get(port, "/callback?code=short");
        (refused, ok)
    });
    let url = cb.wait(Duration::from_secs(20)).unwrap();
    let (refused, ok) = client.join().unwrap();
    assert!(refused.starts_with("HTTP/1.1 431"), "{refused}");
    assert!(ok.starts_with("HTTP/1.1 200"));
    assert!(url.ends_with("code=short"));
}

#[test]
fn a_silent_client_cannot_hang_the_wait() {
    let cb = LoopbackCallback::bind(0).unwrap();
    let silent = TcpStream::connect(("127.0.0.1", cb.port())).unwrap();
    let started = Instant::now();
    let err = cb.wait(Duration::from_millis(600)).unwrap_err();
    assert!(matches!(err, CallbackError::TimedOut(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(4), "bounded by the overall timeout");
    drop(silent);
}

#[test]
fn waits_in_a_thread_as_a_future_or_blocking() {
    let cb = LoopbackCallback::bind(0).unwrap();
    let port = cb.port();
    let wait = cb.wait_in_thread(Duration::from_secs(20));
    let client = std::thread::spawn(move || get(port, "/callback?code=fut"));
    let url = block_on(wait).unwrap();
    assert!(url.ends_with("/callback?code=fut"));
    client.join().unwrap();

    let cb = LoopbackCallback::bind(0).unwrap();
    let port = cb.port();
    let wait = cb.wait_in_thread(Duration::from_secs(20));
    let client = std::thread::spawn(move || get(port, "/callback?code=blk"));
    assert!(wait.wait().unwrap().ends_with("code=blk"));
    client.join().unwrap();

    let wait = LoopbackCallback::bind(0).unwrap().wait_in_thread(Duration::from_millis(50));
    assert!(matches!(wait.wait(), Err(CallbackError::TimedOut(_))));
}

#[test]
fn dropping_the_wait_frees_the_port() {
    let cb = LoopbackCallback::bind(0).unwrap();
    let port = cb.port();
    drop(cb.wait_in_thread(Duration::from_secs(60)));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match LoopbackCallback::bind(port) {
            Ok(_) => break,
            Err(e) => assert!(Instant::now() < deadline, "port still taken: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn redirect_uris_are_checked() {
    for bad in [
        "https://127.0.0.1:8080/callback",
        "http://example.com:8080/callback",
        "http://127.0.0.1/callback",
        "http://127.0.0.1:0/callback",
        "http://127.0.0.1:80/callback",
        "http://127.0.0.1:99999/callback",
        "http://127.0.0.1:8080/a b",
        "http://user@127.0.0.1:8080/callback",
        "http://localhost.evil.example:8080/callback",
        "http://10.0.0.1:8080/callback",
    ] {
        assert!(
            matches!(LoopbackCallback::for_redirect_uri(bad), Err(CallbackError::InvalidRedirectUri(_))),
            "{bad}"
        );
    }
    assert!(LoopbackCallback::bind_path(0, "no-slash").is_err());
    let probe = LoopbackCallback::bind(0).unwrap();
    let port = probe.port();
    drop(probe);
    let cb = LoopbackCallback::for_redirect_uri(&format!("http://localhost:{port}/cb")).unwrap();
    assert_eq!(cb.redirect_uri(), format!("http://localhost:{port}/cb"));
    let taken = LoopbackCallback::for_redirect_uri(&format!("http://127.0.0.1:{port}/cb"));
    assert!(matches!(taken, Err(CallbackError::Bind { .. })), "the port is in use");
}
