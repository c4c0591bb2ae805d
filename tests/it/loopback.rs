//! A loopback HTTP/1.1 server for the API tests (GitHub, JIRA): canned answers per path
//! and query, used once each in order and the last one kept, a log of what was asked,
//! and ETags with `304 Not Modified` as GitHub sends them. It binds 127.0.0.1 only and
//! stops when dropped; nothing here reaches the internet.

use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Reply {
    pub fn json(v: &Value) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: v.to_string(),
        }
    }

    pub fn status(status: u16, message: &str) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: json!({ "message": message }).to_string(),
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Path and query.
    pub path: String,
    /// The `If-None-Match` header.
    pub if_none_match: Option<String>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The status answered.
    pub status: u16,
}

#[derive(Default)]
struct State {
    /// Per path and query: answers used once each in order, the last one kept.
    routes: HashMap<String, VecDeque<Reply>>,
    log: Vec<Seen>,
    /// Requests that cost quota (everything but 304s, as on GitHub).
    charged: usize,
}

/// A loopback HTTP/1.1 server, one connection at a time, `Connection: close`.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, halt) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(s) = stream {
                    serve(s, &st);
                }
            }
        });
        Server { base, state, stop }
    }

    pub fn route(&self, path: &str, replies: Vec<Reply>) {
        self.lock().routes.insert(path.into(), replies.into());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn log(&self) -> Vec<Seen> {
        self.lock().log.clone()
    }

    pub fn charged(&self) -> usize {
        self.lock().charged
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.base.trim_start_matches("http://"));
    }
}

fn etag_of(body: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let if_none_match = headers.get("if-none-match").cloned();
    let reply = {
        let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
        let reply = match st.routes.get_mut(&path) {
            Some(q) if q.len() > 1 => q.pop_front().expect("non-empty"),
            Some(q) => q.front().cloned().expect("one reply"),
            None => Reply::status(404, "Not Found"),
        };
        let etag = etag_of(&reply.body);
        let reply = if reply.status == 200 && if_none_match.as_deref() == Some(etag.as_str()) {
            Reply {
                status: 304,
                headers: Vec::new(),
                body: String::new(),
            }
        } else {
            reply
        };
        if reply.status != 304 {
            st.charged += 1;
        }
        st.log.push(Seen {
            path: path.clone(),
            if_none_match,
            authorization: headers.get("authorization").cloned(),
            status: reply.status,
        });
        reply
    };
    let mut out = format!(
        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n",
        reply.status,
        reply.body.len()
    );
    if reply.status == 200 {
        out.push_str(&format!("etag: {}\r\n", etag_of(&reply.body)));
    }
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&reply.body);
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.flush();
}
