//! Server-sent events: every change of a job (its state, a measured point, its progress) goes
//! to every open `/api/events` stream. A stream whose client went away is dropped on the next
//! event; a slow client that lets its queue fill loses its stream (it reconnects and reloads).

use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Mutex;
use std::time::Duration;

/// Most events waiting for one slow client.
const QUEUE: usize = 1024;
/// Most open event streams.
pub const MAX_STREAMS: usize = 32;

/// The subscribers.
#[derive(Default)]
pub struct Events {
    subscribers: Mutex<Vec<SyncSender<String>>>,
}

impl Events {
    /// Sends `event` to every stream.
    pub fn publish(&self, event: &serde_json::Value) {
        let text = event.to_string();
        self.subscribers
            .lock()
            .unwrap()
            .retain(|s| match s.try_send(text.clone()) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            });
    }

    /// A new stream's receiver, or `None` when too many are open.
    pub fn subscribe(&self) -> Option<Receiver<String>> {
        let mut subs = self.subscribers.lock().unwrap();
        if subs.len() >= MAX_STREAMS {
            return None;
        }
        let (tx, rx) = sync_channel(QUEUE);
        subs.push(tx);
        Some(rx)
    }
}

/// Writes events from `rx` to `stream` until the client leaves or the server stops; a comment
/// line every few seconds finds a client that left.
pub fn pump(stream: &mut TcpStream, rx: Receiver<String>, stop: &AtomicBool) {
    if stream.write_all(b"retry: 1000\n\n").is_err() {
        return;
    }
    while !stop.load(Ordering::SeqCst) {
        let line = match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(event) => format!("data: {event}\n\n"),
            Err(RecvTimeoutError::Timeout) => ":\n\n".to_string(),
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if stream.write_all(line.as_bytes()).is_err() {
            return;
        }
    }
}
