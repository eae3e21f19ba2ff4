/**
 * A reader of server-sent events (the `text/event-stream` of `POST /v1/subscribe`), after the
 * WHATWG HTML standard's "event stream interpretation": lines end in CRLF, LF or CR; `event:`,
 * `data:` (joined with newlines) and `id:` fields; a blank line dispatches; `:` lines are
 * comments (the server's keep-alives). Written here so the package needs nothing but Node.
 */

/** One dispatched event. */
export interface ServerEvent {
  /** The `event:` name, `message` when none was given. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The last `id:` seen on the stream, if any. */
  readonly id: string | undefined;
}

/** The name of an event that has no `event:` line. */
export const DEFAULT_EVENT = 'message';

/** Turns lines (without their line ending) into events. */
export class EventParser {
  #event = '';
  #data: string[] = [];
  #lastId: string | undefined;

  /** The event `line` completes (a blank line ends one), else `undefined`. */
  feed(line: string): ServerEvent | undefined {
    if (line === '') {
      return this.#dispatch();
    }
    if (line.startsWith(':')) {
      return undefined;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (name === 'data') {
      this.#data.push(value);
    } else if (name === 'event') {
      this.#event = value;
    } else if (name === 'id' && !value.includes('\0')) {
      this.#lastId = value;
    }
    return undefined;
  }

  #dispatch(): ServerEvent | undefined {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = '';
    if (data.length === 0) {
      return undefined;
    }
    return { event: event === '' ? DEFAULT_EVENT : event, data: data.join('\n'), id: this.#lastId };
  }
}

/** The lines of a byte stream decoded as UTF-8, split at CRLF, LF or CR. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let skipLf = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i += 1) {
        const char = buffer[i];
        if (skipLf) {
          skipLf = false;
          if (char === '\n') {
            start = i + 1;
            continue;
          }
        }
        if (char === '\n' || char === '\r') {
          yield buffer.slice(start, i);
          skipLf = char === '\r';
          start = i + 1;
        }
      }
      // A last line without its ending is an incomplete event: the standard discards it.
      buffer = buffer.slice(start);
      if (done) {
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** The events of an event stream. */
export async function* readEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const parser = new EventParser();
  for await (const line of readLines(stream)) {
    const event = parser.feed(line);
    if (event !== undefined) {
      yield event;
    }
  }
}
