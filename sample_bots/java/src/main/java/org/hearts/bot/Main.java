package org.hearts.bot;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.hearts.v1.HeartsBotGrpc;
import sun.misc.Signal;

/** Entry point: parses the command line and serves the bot until SIGTERM or SIGINT. */
public final class Main {
  private static final String USAGE = "usage: java -jar target/java-starter.jar --port PORT [--host HOST]";

  private Main() {}

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    Integer port = null;
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
          } else {
            try {
              port = Integer.parseInt(value);
            } catch (NumberFormatException e) {
              fail("bad port: " + value);
            }
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
    if (port == null) {
      fail("--port is required");
    }

    HealthStatusManager health = new HealthStatusManager();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(new HeartsBotService())
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance())
            .addService(legacyReflection())
            .build()
            .start();
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(HeartsBotGrpc.SERVICE_NAME, ServingStatus.SERVING);
    System.err.printf("%s %s serving hearts.v1 on %s:%d%n",
        HeartsBotService.NAME, HeartsBotService.VERSION, host, server.getPort());

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
    System.exit(0);
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
