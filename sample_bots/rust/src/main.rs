//! rust-starter: a Hearts bot for the hearts.v1 protocol.
//!
//! This file is the plumbing: command line, gRPC server, health, reflection
//! and shutdown. The decisions live in `src/strategy.rs`: put your own
//! strategy there.

mod strategy;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::UnixListener;
use tokio_stream::wrappers::UnixListenerStream;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// Code generated at build time (build.rs) from proto/hearts/v1/hearts.proto.
pub mod pb {
    tonic::include_proto!("hearts.v1");

    /// Encoded descriptors of hearts.proto, served by the reflection service.
    pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("hearts_descriptor");
}

use pb::hearts_bot_server::{HeartsBot, HeartsBotServer};

const BOT_NAME: &str = "rust-starter";
const BOT_AUTHOR: &str = "Hearts referee authors";
const PROTOCOL_VERSION: i32 = 1;
/// How long in-flight calls may take to finish after SIGTERM/SIGINT.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The bot keeps no state: every decision request carries all it needs, so one
/// instance safely serves any number of games and seats concurrently.
#[derive(Debug, Default, Clone, Copy)]
struct Bot;

#[tonic::async_trait]
impl HeartsBot for Bot {
    async fn handshake(
        &self,
        _request: Request<pb::HandshakeRequest>,
    ) -> Result<Response<pb::HandshakeResponse>, Status> {
        Ok(Response::new(pb::HandshakeResponse {
            name: BOT_NAME.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            author: BOT_AUTHOR.to_string(),
            protocol_version: PROTOCOL_VERSION,
            language: "Rust".to_string(),
        }))
    }

    async fn start_game(
        &self,
        _request: Request<pb::StartGameRequest>,
    ) -> Result<Response<pb::StartGameResponse>, Status> {
        Ok(Response::new(pb::StartGameResponse {}))
    }

    async fn deal_hand(
        &self,
        _request: Request<pb::DealHandRequest>,
    ) -> Result<Response<pb::DealHandResponse>, Status> {
        Ok(Response::new(pb::DealHandResponse {}))
    }

    async fn pass_cards(
        &self,
        request: Request<pb::PassCardsRequest>,
    ) -> Result<Response<pb::PassCardsResponse>, Status> {
        let cards = strategy::choose_pass(request.get_ref());
        Ok(Response::new(pb::PassCardsResponse {
            cards,
            note: String::new(),
        }))
    }

    async fn play_card(
        &self,
        request: Request<pb::PlayCardRequest>,
    ) -> Result<Response<pb::PlayCardResponse>, Status> {
        match strategy::choose_play(request.get_ref()) {
            Some(card) => Ok(Response::new(pb::PlayCardResponse {
                note: strategy::play_note(request.get_ref(), &card),
                card: Some(card),
            })),
            None => Err(Status::invalid_argument(
                "PlayCardRequest has no legal_moves",
            )),
        }
    }

    async fn choose_moon_scoring(
        &self,
        request: Request<pb::ChooseMoonScoringRequest>,
    ) -> Result<Response<pb::ChooseMoonScoringResponse>, Status> {
        let choice = strategy::choose_moon_scoring(request.get_ref());
        Ok(Response::new(pb::ChooseMoonScoringResponse {
            choice: choice as i32,
            note: String::new(),
        }))
    }

    async fn end_hand(
        &self,
        _request: Request<pb::EndHandRequest>,
    ) -> Result<Response<pb::EndHandResponse>, Status> {
        Ok(Response::new(pb::EndHandResponse {}))
    }

    async fn end_game(
        &self,
        _request: Request<pb::EndGameRequest>,
    ) -> Result<Response<pb::EndGameResponse>, Status> {
        Ok(Response::new(pb::EndGameResponse {}))
    }
}

const USAGE: &str = "usage: rust-starter --address unix:/path/bot.sock | --address HOST:PORT | --port PORT [--host HOST]";

/// Where the bot serves: the command line's `--address` or `--port`/`--host`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Listen {
    /// A Unix domain socket (`--address unix:/abs/path.sock`), as the referee
    /// gives a sandboxed bot.
    Unix(PathBuf),
    /// A TCP `host:port` (`--address HOST:PORT`, or `--port` with `--host`).
    Tcp(String, u16),
}

/// Parses `--address ADDR` or `--port PORT` (exactly one) and `--host HOST`
/// (default 127.0.0.1, with `--port` only); `--flag=value` works too.
fn parse_args() -> Result<Listen, String> {
    let mut host: Option<String> = None;
    let mut port: Option<u16> = None;
    let mut address: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--address" => address = Some(value("--address")?),
            "--port" => {
                let v = value("--port")?;
                port = Some(v.parse().map_err(|_| format!("bad port: {v}"))?);
            }
            "--host" => host = Some(value("--host")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    match (address, port) {
        (Some(address), None) if host.is_none() => parse_address(&address),
        (None, Some(port)) => Ok(Listen::Tcp(
            host.unwrap_or_else(|| "127.0.0.1".into()),
            port,
        )),
        (None, None) => Err("--address or --port is required".into()),
        _ => Err("give either --address, or --port [--host]".into()),
    }
}

/// A gRPC address: `unix:/abs/path` (also `unix:///abs/path`) or `host:port`.
fn parse_address(address: &str) -> Result<Listen, String> {
    if let Some(path) = address
        .strip_prefix("unix://")
        .or_else(|| address.strip_prefix("unix:"))
    {
        if path.is_empty() {
            return Err(format!("no socket path in {address}"));
        }
        return Ok(Listen::Unix(PathBuf::from(path)));
    }
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| format!("bad address (unix:/path or host:port): {address}"))?;
    let port = port
        .parse()
        .map_err(|_| format!("bad port in address: {address}"))?;
    Ok(Listen::Tcp(host.to_string(), port))
}

async fn resolve(host: &str, port: u16) -> std::io::Result<SocketAddr> {
    if let Ok(ip) = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        return Ok(SocketAddr::new(ip, port));
    }
    tokio::net::lookup_host((host, port))
        .await?
        .next()
        .ok_or_else(|| std::io::Error::other(format!("cannot resolve host {host}")))
}

/// Binds a Unix socket at `path`; a socket file left there by an earlier run
/// is removed first (as gRPC's own servers do), anything else is an error.
fn bind_unix(path: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_socket() {
            std::fs::remove_file(path)?;
        }
    }
    UnixListener::bind(path)
}

/// Completes on the first SIGTERM or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("install SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("install SIGINT handler");
        tokio::select! {
            _ = term.recv() => eprintln!("{BOT_NAME}: SIGTERM, shutting down"),
            _ = int.recv() => eprintln!("{BOT_NAME}: SIGINT, shutting down"),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("{BOT_NAME}: Ctrl-C, shutting down");
    }
}

async fn run(listen: Listen) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Health: "" (overall) is SERVING from the start; add the bot service.
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_serving::<HeartsBotServer<Bot>>().await;

    // Reflection (v1 and v1alpha, so every grpcurl version can list services).
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let router = Server::builder()
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(HeartsBotServer::new(Bot));
    let stopped = async {
        let _ = stop_rx.await;
    };
    let (mut server, served) = match listen {
        Listen::Unix(path) => {
            let listener = bind_unix(&path)
                .map_err(|e| format!("cannot listen on unix:{}: {e}", path.display()))?;
            let incoming = UnixListenerStream::new(listener);
            let server = tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped));
            (server, format!("unix:{}", path.display()))
        }
        Listen::Tcp(host, port) => {
            let addr = resolve(&host, port).await?;
            let incoming = TcpIncoming::bind(addr)
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?
                .with_nodelay(Some(true));
            let local_addr = incoming.local_addr().unwrap_or(addr);
            let server = tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped));
            (server, local_addr.to_string())
        }
    };
    eprintln!("{BOT_NAME}: serving hearts.v1.HeartsBot on {served}");

    tokio::select! {
        _ = shutdown_signal() => {}
        // The server stopped by itself: that is an error.
        res = &mut server => return Ok(res??),
    }

    // Graceful stop: refuse new calls, let in-flight ones finish, but only
    // for a short grace.
    health_reporter
        .set_not_serving::<HeartsBotServer<Bot>>()
        .await;
    let _ = stop_tx.send(());
    match tokio::time::timeout(SHUTDOWN_GRACE, &mut server).await {
        Ok(res) => Ok(res??),
        Err(_) => {
            eprintln!("{BOT_NAME}: grace period over, closing remaining connections");
            server.abort();
            Ok(())
        }
    }
}

fn main() {
    let listen = match parse_args() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{BOT_NAME}: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = runtime.block_on(run(listen));
    runtime.shutdown_timeout(Duration::from_millis(100));
    match result {
        Ok(()) => {
            eprintln!("{BOT_NAME}: stopped");
            std::process::exit(0);
        }
        Err(e) => {
            eprintln!("{BOT_NAME}: error: {e}");
            std::process::exit(1);
        }
    }
}
