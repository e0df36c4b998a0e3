import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its headers and raw body, as a webhook handler sees them. */
export interface Received {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How a receiver answers a request; it may leave `response` unanswered (a receiver that hangs, or dies). */
export type Answer = (request: Received, response: ServerResponse) => void;

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`: append a path. */
  origin: string;
  /** Every request so far, in order of arrival (body read whole). */
  received: Received[];
  /** How the next requests are answered: 200 `ok` unless set. */
  answer: Answer;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A node:http receiver on 127.0.0.1 recording each request, for the delivery tests. */
export async function startWebhookReceiver(answer: Answer = (_request, response) => response.end('ok')): Promise<WebhookReceiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      };
      receiver.received.push(got);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) waiter.resolve();
      receiver.answer(got, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: [],
    answer,
    waitFor: (count) =>
      receiver.received.length >= count
        ? Promise.resolve(receiver.received)
        : new Promise((resolve) => waiters.push({ count, resolve: () => resolve(receiver.received) })),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}
