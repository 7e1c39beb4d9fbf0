// The gRPC server of the node-starter Hearts bot: command line, the
// hearts.v1.HeartsBot service, health, reflection and clean shutdown.
// The decisions themselves are in strategy.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';

import type { ProtoGrpcType } from './generated/hearts';
import type { HeartsBotHandlers } from './generated/hearts/v1/HeartsBot';
import { MoonScoring } from './generated/hearts/v1/MoonScoring';
import { choosePass, choosePlay, chooseMoonScoring, playNote } from './strategy';

const BOT_NAME = 'node-starter';
const BOT_VERSION = '0.1.0';
const BOT_AUTHOR = 'Hearts referee authors';
const BOT_LANGUAGE = 'TypeScript';
const PROTOCOL_VERSION = 1;
const SERVICE_NAME = 'hearts.v1.HeartsBot';

// The proto is read at run time from the kit's own copy (proto/, kept
// identical to the repository's by scripts/sync_kit_protos.py), found relative
// to this file (dist/main.js -> ../proto), not to the working directory.
const PROTO_ROOT = path.resolve(__dirname, '..', 'proto');
const HEARTS_PROTO = 'hearts/v1/hearts.proto';
const HEALTH_PROTO = 'grpc/health/v1/health.proto';

// Must match the options given to proto-loader-gen-types in package.json
// (--keepCase --longs=Number --defaults), which the generated types describe.
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  defaults: true,
};

function log(message: string): void {
  process.stderr.write(`[${BOT_NAME}] ${message}\n`);
}

/**
 * Where to serve, as a gRPC address: --address as given (unix:/abs/path.sock,
 * as the referee gives a sandboxed bot, or host:port), or --port with --host.
 */
function parseCommandLine(): string {
  const usage =
    'usage: node dist/main.js --address unix:/path/bot.sock | --address HOST:PORT | --port PORT [--host HOST]';
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        address: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    log(`${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  if ((values.address === undefined) === (values.port === undefined) || (values.address && values.host)) {
    log(`give either --address, or --port [--host]\n${usage}`);
    process.exit(2);
  }
  if (values.address !== undefined) {
    return values.address;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    log(`bad port: ${values.port}\n${usage}`);
    process.exit(2);
  }
  const host = values.host ?? '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The socket path of a gRPC unix: address (unix:/abs/path, unix:///abs/path), or null. */
function unixPath(address: string): string | null {
  if (address.startsWith('unix://')) return address.slice('unix://'.length);
  if (address.startsWith('unix:')) return address.slice('unix:'.length);
  return null;
}

/** A socket file left at the path by an earlier run would make the bind fail. */
function removeStaleSocket(socketPath: string): void {
  try {
    if (fs.lstatSync(socketPath).isSocket()) fs.unlinkSync(socketPath);
  } catch {
    // nothing there
  }
}

/** Wraps a unary handler so that an exception becomes a logged fallback answer. */
function unary<Req, Res>(
  name: string,
  decide: (req: Req) => Res,
  fallback: (req: Req) => Res,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    try {
      callback(null, decide(call.request));
    } catch (err) {
      log(`${name} failed, answering a fallback: ${(err as Error).stack ?? err}`);
      try {
        callback(null, fallback(call.request));
      } catch (err2) {
        callback({ code: grpc.status.INTERNAL, details: String(err2) });
      }
    }
  };
}

const handlers: HeartsBotHandlers = {
  Handshake: (_call, callback) => {
    callback(null, {
      name: BOT_NAME,
      version: BOT_VERSION,
      author: BOT_AUTHOR,
      language: BOT_LANGUAGE,
      protocol_version: PROTOCOL_VERSION,
    });
  },

  // Notifications: this bot is stateless, so it just acknowledges them.
  StartGame: (_call, callback) => callback(null, {}),
  DealHand: (_call, callback) => callback(null, {}),
  EndHand: (_call, callback) => callback(null, {}),
  EndGame: (_call, callback) => callback(null, {}),

  // Decisions.
  PassCards: unary(
    'PassCards',
    (req) => ({ cards: choosePass(req) }),
    (req) => ({ cards: req.hand.slice(0, req.count) }),
  ),
  PlayCard: unary(
    'PlayCard',
    (req) => {
      const card = choosePlay(req);
      return { card, note: playNote(req, card) };
    },
    (req) => ({ card: req.legal_moves[0] }),
  ),
  ChooseMoonScoring: unary(
    'ChooseMoonScoring',
    (req) => ({ choice: chooseMoonScoring(req) }),
    () => ({ choice: MoonScoring.MOON_SCORING_ADD_TO_OTHERS }),
  ),
};

function main(): void {
  const address = parseCommandLine();

  const server = new grpc.Server();
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });

  // Clean shutdown on SIGTERM / SIGINT: health NOT_SERVING, a short grace for
  // calls in flight, then exit 0.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, shutting down`);
    health.setStatus('', 'NOT_SERVING');
    health.setStatus(SERVICE_NAME, 'NOT_SERVING');
    const force = setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, 1000);
    server.tryShutdown(() => {
      clearTimeout(force);
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const heartsDefinition = protoLoader.loadSync(HEARTS_PROTO, {
    ...LOADER_OPTIONS,
    includeDirs: [PROTO_ROOT],
  });
  const hearts = grpc.loadPackageDefinition(heartsDefinition) as unknown as ProtoGrpcType;
  server.addService(hearts.hearts.v1.HeartsBot.service, handlers);
  health.addToServer(server);

  // Reflection describes the bot service and the health service, the latter
  // from the kit's copy of the health.proto that grpc-health-check implements
  // (Check and Watch): its own copy also lists List, which it does not
  // implement, and whose map field protobuf.js's descriptors get wrong.
  const healthDefinition = protoLoader.loadSync(HEALTH_PROTO, { includeDirs: [PROTO_ROOT] });
  new ReflectionService({ ...heartsDefinition, ...healthDefinition }).addToServer(server);

  const socketPath = unixPath(address);
  if (socketPath !== null) removeStaleSocket(socketPath);
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
    if (err) {
      log(`cannot listen on ${address}: ${err.message}`);
      process.exit(1);
    }
    // With port 0 the port is picked now; a unix: address is served as given.
    const served = socketPath !== null ? address : address.replace(/:\d+$/, `:${boundPort}`);
    log(`${BOT_NAME} ${BOT_VERSION} serving ${SERVICE_NAME} on ${served}`);
  });
}

main();
