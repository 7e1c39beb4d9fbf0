package org.hearts.bot;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.hearts.v1.Card;
import org.hearts.v1.HeartsBotGrpc;
import org.hearts.v1.PassCardsRequest;
import org.hearts.v1.Play;
import org.hearts.v1.PlayCardRequest;
import org.hearts.v1.Rank;
import org.hearts.v1.Suit;
import org.hearts.v1.Trick;
import sun.misc.Signal;

/** Entry point: parses the command line and serves the bot until SIGTERM or SIGINT. */
public final class Main {
  private static final String USAGE =
      "usage: java -jar target/java-starter.jar"
          + " --address unix:/path/bot.sock | --address HOST:PORT | --port PORT [--host HOST]";

  private Main() {}

  /**
   * Plays made-up decisions before serving, so that the strategy's and protobuf's classes are
   * loaded and compiled before the first real decision. The referee starts a fresh process for
   * every game of a duplicate tournament (bot_lifetime: game), and the health check waits for
   * this; a cold JVM's first answers can otherwise take most of the move time.
   */
  static void warmUp() throws Exception {
    List<Card> hand = new ArrayList<>();
    for (Suit suit : new Suit[] {Suit.SUIT_CLUBS, Suit.SUIT_SPADES, Suit.SUIT_HEARTS}) {
      for (Rank rank : new Rank[] {Rank.RANK_TWO, Rank.RANK_NINE, Rank.RANK_QUEEN, Rank.RANK_ACE}) {
        hand.add(Card.newBuilder().setSuit(suit).setRank(rank).build());
      }
    }
    PassCardsRequest pass = PassCardsRequest.newBuilder().addAllHand(hand).setCount(3).build();
    Trick trick =
        Trick.newBuilder().addPlays(Play.newBuilder().setSeat(1).setCard(hand.get(4))).build();
    PlayCardRequest lead = PlayCardRequest.newBuilder().addAllHand(hand).addAllLegalMoves(hand).build();
    PlayCardRequest follow =
        lead.toBuilder().setCurrentTrick(trick).clearLegalMoves().addAllLegalMoves(hand.subList(4, 8)).build();
    PlayCardRequest discard =
        lead.toBuilder().setCurrentTrick(trick).clearLegalMoves().addAllLegalMoves(hand.subList(8, 12)).build();
    for (int i = 0; i < 3000; i++) {
      Strategy.pass(PassCardsRequest.parseFrom(pass.toByteArray()));
      Strategy.play(PlayCardRequest.parseFrom(lead.toByteArray()));
      Strategy.play(PlayCardRequest.parseFrom(follow.toByteArray()));
      Strategy.play(PlayCardRequest.parseFrom(discard.toByteArray()));
    }
  }

  public static void main(String[] args) throws Exception {
    String host = null;
    Integer port = null;
    String address = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = null;
      String name = arg;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      switch (name) {
        case "--address":
        case "--port":
        case "--host":
          if (value == null) {
            if (i + 1 >= args.length) {
              fail(name + " needs a value");
            }
            value = args[++i];
          }
          if (name.equals("--host")) {
            host = value;
          } else if (name.equals("--address")) {
            address = value;
          } else {
            port = parsePort(value);
          }
          break;
        case "-h":
        case "--help":
          System.out.println(USAGE);
          return;
        default:
          fail("unknown argument: " + arg);
      }
    }
    if ((address == null) == (port == null) || (address != null && host != null)) {
      fail("give either --address, or --port [--host]");
    }

    warmUp();
    NettyServerBuilder builder;
    EventLoopGroup[] loops = {};
    String socketPath = unixPath(address);
    InetSocketAddress tcp = null;
    if (socketPath != null) {
      // A Unix domain socket, as the referee gives a sandboxed bot: Netty's
      // native epoll transport (bundled, shaded, in grpc-netty-shaded).
      if (!Epoll.isAvailable()) {
        System.err.println("cannot serve on a Unix socket: " + Epoll.unavailabilityCause());
        System.exit(1);
      }
      removeStaleSocket(Paths.get(socketPath));
      EventLoopGroup boss = new EpollEventLoopGroup(1);
      EventLoopGroup workers = new EpollEventLoopGroup();
      loops = new EventLoopGroup[] {boss, workers};
      builder =
          NettyServerBuilder.forAddress(new DomainSocketAddress(socketPath))
              .channelType(EpollServerDomainSocketChannel.class)
              .bossEventLoopGroup(boss)
              .workerEventLoopGroup(workers);
    } else {
      tcp =
          address != null
              ? hostPort(address)
              : new InetSocketAddress(host == null ? "127.0.0.1" : host, port);
      builder = NettyServerBuilder.forAddress(tcp);
    }

    HealthStatusManager health = new HealthStatusManager();
    Server server;
    try {
      server =
          builder
              .addService(new HeartsBotService())
              .addService(health.getHealthService())
              .addService(ProtoReflectionServiceV1.newInstance())
              .addService(legacyReflection())
              .build()
              .start();
    } catch (IOException e) {
      String where =
          socketPath != null ? "unix:" + socketPath : tcp.getHostString() + ":" + tcp.getPort();
      System.err.println("cannot listen on " + where + ": " + e);
      System.exit(1);
      return;
    }
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(HeartsBotGrpc.SERVICE_NAME, ServingStatus.SERVING);
    // With port 0 the port is picked now; a Unix socket is served as given.
    String served =
        socketPath != null ? "unix:" + socketPath : tcp.getHostString() + ":" + server.getPort();
    System.err.printf("%s %s serving hearts.v1 on %s%n",
        HeartsBotService.NAME, HeartsBotService.VERSION, served);

    CountDownLatch stop = new CountDownLatch(1);
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal.handle(new Signal(name), sig -> stop.countDown());
      } catch (IllegalArgumentException e) {
        System.err.println("cannot handle SIG" + name + ": " + e.getMessage());
      }
    }
    stop.await();

    System.err.println("shutting down");
    health.enterTerminalState();
    server.shutdown();
    if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
      server.shutdownNow();
      server.awaitTermination(1, TimeUnit.SECONDS);
    }
    for (EventLoopGroup loop : loops) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
    System.exit(0);
  }

  /** The socket path of a gRPC {@code unix:} address (unix:/abs, unix:///abs), or null. */
  static String unixPath(String address) {
    if (address == null) {
      return null;
    }
    if (address.startsWith("unix://")) {
      return address.substring("unix://".length());
    }
    if (address.startsWith("unix:")) {
      return address.substring("unix:".length());
    }
    return null;
  }

  /** {@code host:port} (also {@code [::1]:port}) as a socket address. */
  private static InetSocketAddress hostPort(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      fail("bad address (unix:/path or host:port): " + address);
    }
    String h = address.substring(0, colon);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return new InetSocketAddress(h, parsePort(address.substring(colon + 1)));
  }

  /** A socket file left at {@code path} by an earlier run would make the bind fail. */
  private static void removeStaleSocket(Path path) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return; // nothing there
    }
    if (attributes.isOther()) { // a socket: not a file, a folder or a link
      Files.delete(path);
    }
  }

  private static int parsePort(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    fail("bad port: " + value);
    return -1;
  }

  /** The v1alpha reflection service too: some clients (grpcio-reflection) still ask for it. */
  @SuppressWarnings("deprecation")
  private static io.grpc.BindableService legacyReflection() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  private static void fail(String message) {
    System.err.println(message);
    System.err.println(USAGE);
    System.exit(2);
  }
}
