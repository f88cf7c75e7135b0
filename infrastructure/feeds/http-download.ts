import { checkDestination, Lookup } from './destination-guard';
import { FeedRefusal } from '../../domain/enrichment/feed-refusal';

/**
 * Downloads one feed with node's fetch, bounded in size and time (spec 1 §8.3).
 *
 * - Every hop is checked by the destination guard before it is requested: redirects are followed
 *   by hand (at most MAX_REDIRECTS), so a public mirror answering 302 to a private address is refused.
 * - The body is streamed and counted; past `maxBytes` the download is aborted (a Content-Length
 *   above the bound is refused before reading).
 * - One time-out covers the whole exchange, headers and body.
 * - A body cut short (the connection closes before Content-Length, a broken chunked encoding) is
 *   an error of the stream: refused as partial.
 *
 * Known limit (ADR 0007): fetch resolves the host again when it connects; node's fetch offers no
 * lookup hook without the undici package, so a name whose DNS answer changes between the check
 * and the connection (rebinding) is not caught. The URL is the administrator's own setting.
 */
export interface DownloadOptions {
  allowPrivate: boolean;
  switchName: string;
  timeoutMs: number;
  maxBytes: number;
  /** What the feed is called in refusals ("The KEV catalogue"). */
  label: string;
  accept?: string;
  lookup?: Lookup;
  /** Aborts the download (the server stopping). */
  signal?: AbortSignal;
}

export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The body of the answer, chunk by chunk; throws FeedRefusal for every way it can fail. */
export async function* download(url: string, o: DownloadOptions): AsyncGenerator<Buffer> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, o.timeoutMs);
  const stop = () => controller.abort();
  o.signal?.addEventListener('abort', stop, { once: true });
  if (o.signal?.aborted) controller.abort();
  const failure = (error: unknown, host: string, stage: 'connect' | 'body'): FeedRefusal => {
    if (error instanceof FeedRefusal) return error;
    if (timedOut) return new FeedRefusal('download', `${o.label} was not downloaded within ${formatSeconds(o.timeoutMs)} (VIGIL_FEED_TIMEOUT).`);
    const cause = describe(error);
    return stage === 'connect'
      ? new FeedRefusal('download', `${o.label} could not be downloaded from ${host}: ${cause}.`)
      : new FeedRefusal('partial', `${o.label} download from ${host} broke off before its end (${cause}): a partial file.`);
  };
  try {
    let current = parseUrl(url, o.label);
    let response: Response;
    for (let hop = 0; ; hop++) {
      await checkDestination(current, { allowPrivate: o.allowPrivate, switchName: o.switchName, lookup: o.lookup });
      try {
        response = await fetch(current, {
          redirect: 'manual', signal: controller.signal,
          headers: { accept: o.accept ?? '*/*', 'accept-encoding': 'identity', 'user-agent': 'Vigil feed synchronisation' },
        });
      } catch (error) {
        throw failure(error, current.host, 'connect');
      }
      if (!REDIRECTS.has(response.status)) break;
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      if (!location) throw new FeedRefusal('download', `${o.label} host ${current.host} answered ${response.status} without a Location.`);
      if (hop >= MAX_REDIRECTS) throw new FeedRefusal('download', `${o.label} download was redirected more than ${MAX_REDIRECTS} times.`);
      current = parseUrl(new URL(location, current).toString(), o.label);
    }
    const host = current.host;
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new FeedRefusal('download', `${o.label} host ${host} answered HTTP ${response.status}.`);
    }
    // fetch undoes a Content-Encoding itself: the declared length is then that of the encoded body.
    const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
    const declared = encoded ? null : response.headers.get('content-length');
    if (declared !== null && Number(declared) > o.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new FeedRefusal('too-large', `${o.label} is ${declared} bytes, over the ${o.maxBytes}-byte download bound.`);
    }
    if (!response.body) throw new FeedRefusal('partial', `${o.label} host ${host} answered an empty body.`);
    const reader = response.body.getReader();
    let received = 0;
    try {
      for (;;) {
        let step: Awaited<ReturnType<typeof reader.read>>;
        try {
          step = await reader.read();
        } catch (error) {
          throw failure(error, host, 'body');
        }
        if (step.done) break;
        received += step.value.byteLength;
        if (received > o.maxBytes) throw new FeedRefusal('too-large', `${o.label} is over the ${o.maxBytes}-byte download bound; the download was stopped.`);
        yield Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength);
      }
    } finally {
      // Stops the transfer when the consumer gave up early (a refused line, the inflation bound).
      await reader.cancel().catch(() => undefined);
    }
    if (declared !== null && received !== Number(declared)) {
      throw new FeedRefusal('partial', `${o.label} download from ${host} ended after ${received} of ${declared} bytes: a partial file.`);
    }
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}

/** The whole body in memory (the KEV catalogue is about 1.3 MB; the bound applies while reading). */
export async function downloadAll(url: string, o: DownloadOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of download(url, o)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function parseUrl(text: string, label: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new FeedRefusal('destination', `${label} URL is not a valid URL.`);
  }
}

function describe(error: unknown): string {
  const e = error as { cause?: { code?: string; message?: string }; code?: string; message?: string };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? 'unknown error';
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
