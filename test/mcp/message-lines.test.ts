/**
 * The stdio server's line reader (src/mcp/message-lines.ts): whole lines pass as one chunk each, whatever the chunks
 * they came in; a line over the limit is dropped and reported with its size and the id its start or end names. The
 * server over a real pipe is tested in test/e2e/mcp-hostile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type DroppedMessage, MessageLines, requestIdOf } from '../../src/mcp/message-lines.js';

/** What `lines` gives for `chunks` written one after another: the lines passed, and the messages dropped. */
async function read(maxBytes: number, chunks: string[]) {
  const dropped: DroppedMessage[] = [];
  const lines = new MessageLines(maxBytes, (message) => dropped.push(message));
  const passed: string[] = [];
  lines.on('data', (line: Buffer) => passed.push(line.toString()));
  const ended = new Promise((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(Buffer.from(chunk));
  lines.end();
  await ended;
  return { passed, dropped };
}

describe('MessageLines', () => {
  it('passes each whole line as one chunk, across chunk boundaries, with its newline', async () => {
    const { passed, dropped } = await read(100, ['{"a":1}\n{"b"', ':2}\r\n{"c":3}\n{"d":', '4}\n']);
    expect(passed).toEqual(['{"a":1}\n', '{"b":2}\r\n', '{"c":3}\n', '{"d":4}\n']);
    expect(dropped).toEqual([]);
  });

  it('drops a line over the limit, reports its size and id, and passes the lines after it', async () => {
    const big = `{"method":"tools/call","params":{"x":"${'a'.repeat(5000)}"},"jsonrpc":"2.0","id":7}`;
    const chunks = ['{"id":1}\n', big.slice(0, 3000), big.slice(3000, 3001), `${big.slice(3001)}\n{"id":2}\n`];
    const { passed, dropped } = await read(1000, chunks);
    expect(passed).toEqual(['{"id":1}\n', '{"id":2}\n']);
    expect(dropped).toEqual([{ bytes: big.length + 1, id: 7 }]);
  });

  it('keeps a line of exactly the limit, its newline counted', async () => {
    const line = `{"x":"${'b'.repeat(91)}"}\n`;
    expect(line.length).toBe(100);
    expect((await read(100, [line])).passed).toEqual([line]);
    expect((await read(99, [line])).dropped).toEqual([{ bytes: 100, id: undefined }]);
  });
});

describe('requestIdOf', () => {
  it('finds the id first, after jsonrpc and method, or last; a string id is a string', () => {
    expect(requestIdOf('{"id":3,"method":"x","params":{"a":"', '')).toBe(3);
    expect(requestIdOf('{ "jsonrpc": "2.0", "method": "tools/call", "id": "req-9", "params": {', '')).toBe('req-9');
    expect(requestIdOf('{"method":"tools/call","params":{"a":"', 'aaa"}},"jsonrpc":"2.0","id":12}\r\n')).toBe(12);
  });

  it('takes no id from inside the params, and none when neither edge names one', () => {
    expect(requestIdOf('{"method":"x","params":{"id":5,"a":"', 'aaa"}}')).toBeUndefined();
    expect(requestIdOf('{"method":"x","params":{"a":"', 'a","nested":{"id":5}}}')).toBeUndefined();
    expect(requestIdOf('{"method":"x","params":{"a":"', 'a\\"id\\":5}"}}')).toBeUndefined();
  });
});
