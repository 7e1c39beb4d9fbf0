// cpp-starter: a Hearts bot, i.e. a gRPC server for hearts.v1.HeartsBot.
//
// This file is plumbing: command line, gRPC server, health, reflection and
// clean shutdown. The decisions are in strategy.cpp.
//
// Usage: hearts_bot --address unix:/path/bot.sock | --address HOST:PORT
//                  | --port PORT [--host HOST]
#include "hearts/v1/hearts.grpc.pb.h"
#include "strategy.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

namespace {

constexpr const char* kName = "cpp-starter";
constexpr const char* kVersion = "0.1.0";
constexpr const char* kAuthor = "Hearts referee authors";
constexpr const char* kLanguage = "C++";
constexpr int kProtocolVersion = 1;

using grpc::ServerContext;
using grpc::Status;
namespace pb = hearts::v1;

// Stateless service: every decision request carries all that is needed, so
// concurrent calls for different games and seats need no locking.
class HeartsBotService final : public pb::HeartsBot::Service {
  Status Handshake(ServerContext*, const pb::HandshakeRequest*,
                   pb::HandshakeResponse* resp) override {
    resp->set_name(kName);
    resp->set_version(kVersion);
    resp->set_author(kAuthor);
    resp->set_language(kLanguage);
    resp->set_protocol_version(kProtocolVersion);
    return Status::OK;
  }

  Status StartGame(ServerContext*, const pb::StartGameRequest*,
                   pb::StartGameResponse*) override {
    return Status::OK;
  }

  Status DealHand(ServerContext*, const pb::DealHandRequest*,
                  pb::DealHandResponse*) override {
    return Status::OK;
  }

  Status PassCards(ServerContext*, const pb::PassCardsRequest* req,
                   pb::PassCardsResponse* resp) override {
    for (const pb::Card& c : strategy::ChoosePass(*req)) *resp->add_cards() = c;
    return Status::OK;
  }

  Status PlayCard(ServerContext*, const pb::PlayCardRequest* req,
                  pb::PlayCardResponse* resp) override {
    if (req->legal_moves_size() == 0)
      return Status(grpc::StatusCode::INVALID_ARGUMENT, "no legal moves");
    *resp->mutable_card() = strategy::ChoosePlay(*req);
    resp->set_note(strategy::PlayNote(*req, resp->card()));
    return Status::OK;
  }

  Status ChooseMoonScoring(ServerContext*, const pb::ChooseMoonScoringRequest* req,
                           pb::ChooseMoonScoringResponse* resp) override {
    resp->set_choice(strategy::ChooseMoonScoring(*req));
    return Status::OK;
  }

  Status EndHand(ServerContext*, const pb::EndHandRequest*, pb::EndHandResponse*) override {
    return Status::OK;
  }

  Status EndGame(ServerContext*, const pb::EndGameRequest*, pb::EndGameResponse*) override {
    return Status::OK;
  }
};

[[noreturn]] void Usage(const std::string& error) {
  if (!error.empty()) std::cerr << "hearts_bot: " << error << "\n";
  std::cerr << "usage: hearts_bot --address unix:/path/bot.sock | --address HOST:PORT"
               " | --port PORT [--host HOST]\n";
  std::exit(2);
}

struct Options {
  // A gRPC address (--address): unix:/abs/path.sock, as the referee gives a
  // sandboxed bot, or host:port. Empty when --port is given.
  std::string address;
  std::string host = "127.0.0.1";
  int port = -1;
};

Options ParseArgs(int argc, char** argv) {
  Options opts;
  bool has_host = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg == "--port" || arg == "--host" || arg == "--address") {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "--port") {
      char* end = nullptr;
      const long port = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || port < 0 || port > 65535)
        Usage("bad port: " + value);
      opts.port = static_cast<int>(port);
    } else if (arg == "--host") {
      if (value.empty()) Usage("empty host");
      opts.host = value;
      has_host = true;
    } else if (arg == "--address") {
      if (value.empty()) Usage("empty address");
      opts.address = value;
    } else if (arg == "-h" || arg == "--help") {
      Usage("");
    } else {
      Usage("unknown argument: " + arg);
    }
  }
  if (opts.address.empty() == (opts.port < 0) || (!opts.address.empty() && has_host))
    Usage("give either --address, or --port [--host]");
  return opts;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opts = ParseArgs(argc, argv);

  // Block SIGTERM/SIGINT before any thread exists, so that every gRPC thread
  // inherits the mask and only our watcher thread receives them (sigwait):
  // no code runs in signal-handler context at all.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // gRPC serves a unix: address as it is (and removes a socket file left
  // there by an earlier run); --port becomes host:port.
  std::string address = opts.address;
  if (address.empty()) {
    const std::string host =
        opts.host.find(':') != std::string::npos && opts.host.front() != '['
            ? "[" + opts.host + "]"  // IPv6 literal
            : opts.host;
    address = host + ":" + std::to_string(opts.port);
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  HeartsBotService service;
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound_port == 0) {
    std::cerr << kName << ": could not listen on " << address << "\n";
    return 1;
  }
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  health->SetServingStatus("", true);
  health->SetServingStatus(pb::HeartsBot::service_full_name(), true);

  // With --port 0 the port is picked now; a unix: address is served as given.
  const std::string served =
      opts.address.empty() ? address.substr(0, address.rfind(':') + 1) + std::to_string(bound_port)
                           : opts.address;
  std::cerr << kName << " " << kVersion << " serving hearts.v1.HeartsBot on " << served
            << std::endl;

  // The watcher: waits for SIGTERM/SIGINT, then shuts the server down with a
  // short grace period for calls in flight. Only Shutdown() ends Wait() below.
  std::thread watcher([&server, health, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::cerr << kName << ": signal " << sig << ", shutting down" << std::endl;
    health->Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  });

  server->Wait();
  watcher.join();
  std::cerr << kName << ": stopped" << std::endl;
  return 0;
}
