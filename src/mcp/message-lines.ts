import { Transform, type TransformCallback } from 'node:stream';

/** A message dropped for its size: how many bytes it had, and the request's id when its first or last bytes name it. */
export interface DroppedMessage {
  bytes: number;
  id: string | number | undefined;
}

/** How much of a dropped message's start and end is kept to find its id. */
const EDGE_BYTES = 1024;

/**
 * Stdin cut into whole JSON-RPC lines (each pushed as one chunk, its `\n` kept), none over `maxBytes`. A longer
 * line is dropped as it comes, keeping only its edges, and `onDropped` hears of it at its end: the MCP SDK's stdio
 * transport, given these lines, never meets one over its own limit (where it would close the server).
 */
export class MessageLines extends Transform {
  #parts: Buffer[] = [];
  #bytes = 0;
  /** The first and last bytes of a line being dropped (undefined while the line is within the limit). */
  #head: Buffer | undefined;
  #tail: Buffer = Buffer.alloc(0);

  constructor(
    readonly maxBytes: number,
    private readonly onDropped: (dropped: DroppedMessage) => void,
  ) {
    // Object mode on the readable side: each line reaches the transport as a 'data' event of its own.
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; start = end + 1, end = chunk.indexOf(10, start)) {
      this.#add(chunk.subarray(start, end + 1));
      this.#endLine();
    }
    if (start < chunk.length) this.#add(chunk.subarray(start));
    done();
  }

  #add(part: Buffer): void {
    this.#bytes += part.length;
    if (this.#head === undefined && this.#bytes <= this.maxBytes) {
      this.#parts.push(part);
      return;
    }
    // Copies of the edges only: a view would keep the whole line in memory.
    const edges =
      this.#head === undefined ? Buffer.concat([...this.#parts, part]) : Buffer.concat([this.#tail, part.subarray(-EDGE_BYTES)]);
    this.#head ??= Buffer.from(edges.subarray(0, EDGE_BYTES));
    this.#tail = Buffer.from(edges.subarray(-EDGE_BYTES));
    this.#parts = [];
  }

  #endLine(): void {
    if (this.#head === undefined) {
      this.push(Buffer.concat(this.#parts));
    } else {
      this.onDropped({ bytes: this.#bytes, id: requestIdOf(this.#head.toString('utf8'), this.#tail.toString('utf8')) });
    }
    [this.#parts, this.#bytes, this.#head, this.#tail] = [[], 0, undefined, Buffer.alloc(0)];
  }
}

/** A JSON-RPC id: an integer or a string. */
const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The id as the object's first member, or after `jsonrpc` and `method` (as most clients write a request). */
const ID_FIRST = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*${ID}`);
/** The id as the object's last member (as the MCP SDK writes a request): `"id"` is always a key, and this one closes the line. */
const ID_LAST = new RegExp(String.raw`${ID}\s*\}\s*$`);

/** The id of the request whose line starts with `head` and ends with `tail`, when either names it plainly. */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  const found = ID_FIRST.exec(head)?.[1] ?? ID_LAST.exec(tail)?.[1];
  if (found === undefined) return undefined;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return undefined;
  }
}
