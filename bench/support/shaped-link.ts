import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

/** A link as the internet gives one: the same delay and pace each way. */
export interface LinkShape {
  /** Shown in reports, e.g. `20 ms, 1 Gbit/s`. */
  label: string;
  /** Added to every byte's trip, in each direction, in ms. */
  oneWayMs: number;
  /** What each direction carries at most, in bits per second. */
  bitsPerSecond: number;
}

/**
 * Bytes allowed to wait for the wire in one direction before the sender is paused: a router's queue.
 * Together with what is in flight (the pace times the delay) it bounds the relay's memory per direction.
 */
const QUEUE_BYTES = 1 << 20;

/** One chunk on its way; `null` is the sender's end of stream, delivered in order after its last byte. */
interface InFlight {
  chunk: Buffer | null;
  arrivesAt: number;
}

/**
 * One direction of the link. Each chunk leaves the wire at max(now, previous departure) + its bytes at the
 * pace, and arrives a one-way delay later; arrivals are in order because departures are. The sender is
 * paused while the queue for the wire is full or the receiver is not draining, so memory stays bounded.
 */
class Direction {
  readonly #queue: InFlight[] = [];
  readonly #bytesPerMs: number;
  #lastDeparture: number;
  #timer: NodeJS.Timeout | undefined;
  #resumeCheck: NodeJS.Timeout | undefined;
  #receiverFull = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly shape: LinkShape,
    /** Nothing leaves before this (performance.now()): a new connection pays the handshake's round trip. */
    openAt: number,
  ) {
    this.#bytesPerMs = shape.bitsPerSecond / 8 / 1000;
    this.#lastDeparture = openAt;
    from.on('data', (chunk: Buffer) => this.#send(chunk));
    from.on('end', () => this.#enqueue(null, Math.max(performance.now(), this.#lastDeparture)));
    to.on('drain', () => {
      this.#receiverFull = false;
      this.#deliver();
    });
  }

  stop(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#resumeCheck);
  }

  #send(chunk: Buffer): void {
    const departure = Math.max(performance.now(), this.#lastDeparture) + chunk.length / this.#bytesPerMs;
    this.#lastDeparture = departure;
    this.#enqueue(chunk, departure);
    this.#flow();
  }

  #enqueue(chunk: Buffer | null, departure: number): void {
    this.#queue.push({ chunk, arrivesAt: departure + this.shape.oneWayMs });
    if (this.#timer === undefined && !this.#receiverFull) this.#deliver();
  }

  /** Hand the receiver every chunk that has arrived, then wait for the next one (or for the receiver to drain). */
  #deliver(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (!this.#receiverFull && (this.#queue[0]?.arrivesAt ?? Number.POSITIVE_INFINITY) <= now) {
      const { chunk } = this.#queue.shift() as InFlight;
      if (chunk === null) this.to.end();
      else this.#receiverFull = !this.to.write(chunk);
    }
    const next = this.#queue[0];
    if (next && !this.#receiverFull) this.#timer = setTimeout(() => this.#deliver(), next.arrivesAt - now);
    this.#flow();
  }

  /** Pause the sender while the wire's queue is full or the receiver is not draining; resume once both clear. */
  #flow(): void {
    const waitingMs = this.#lastDeparture - performance.now();
    const queueFull = waitingMs * this.#bytesPerMs > QUEUE_BYTES;
    if (queueFull || this.#receiverFull) {
      this.from.pause();
      // Check again when half the queue has gone onto the wire (drain calls back by itself).
      if (queueFull && this.#resumeCheck === undefined) {
        this.#resumeCheck = setTimeout(
          () => {
            this.#resumeCheck = undefined;
            this.#flow();
          },
          waitingMs - QUEUE_BYTES / 2 / this.#bytesPerMs,
        );
      }
    } else if (this.from.isPaused()) this.from.resume();
  }
}

/** Relay one accepted connection to `target`, shaped both ways; either side failing or closing early ends both. */
function relay(client: Socket, target: URL, shape: LinkShape): void {
  const openAt = performance.now() + 2 * shape.oneWayMs;
  const server = createConnection({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
  const directions = [new Direction(client, server, shape, openAt), new Direction(server, client, shape, 0)];
  const teardown = () => {
    for (const direction of directions) direction.stop();
    client.destroy();
    server.destroy();
  };
  for (const socket of [client, server]) {
    socket.setNoDelay(true);
    socket.on('error', teardown);
    // A side that closes before both ends are delivered takes the other down with it.
    socket.on('close', () => {
      if (!(client.writableFinished && server.writableFinished)) teardown();
    });
  }
}

/**
 * A node:net relay on loopback, shaped like an internet link: connect to `url` and it forwards to the origin
 * given by `forwardTo` (connections before that are refused), adding `shape.oneWayMs` each way and pacing at
 * `shape.bitsPerSecond` each way. A new connection's first bytes leave a round trip after it was accepted, as
 * after a TCP handshake. Not modelled: loss, TCP slow start and the receive window (the hops to and from the
 * relay are loopback, so the relay, not TCP, sets the pace).
 */
export async function startShapedLink(shape: LinkShape) {
  let target: URL | undefined;
  const sockets = new Set<Socket>();
  const listener = createServer({ allowHalfOpen: true }, (client) => {
    if (!target) return void client.destroy();
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    relay(client, target, shape);
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  return {
    shape,
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    forwardTo(origin: string): void {
      target = new URL(origin);
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}

export type ShapedLink = Awaited<ReturnType<typeof startShapedLink>>;
