import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { EpssFile } from '../../application/enrichment/ports';
import { FeedRefusal } from '../../domain/enrichment/feed-refusal';

/**
 * Reads an EPSS scores file (FIRST's daily `epss_scores-YYYY-MM-DD.csv.gz`, or the same CSV
 * uncompressed) as it streams in:
 *
 *   #model_version:v2025.03.14,score_date:2025-08-25T12:55:00Z
 *   cve,epss,percentile
 *   CVE-1999-0001,0.01025,0.76591
 *
 * Compressed input (magic bytes 1f 8b) is inflated with zlib on the way; counting the inflated
 * bytes stops it past 128 MiB (S1.8.3-53) before more is inflated: a gzip bomb costs at most the
 * bound. Refused (FeedRefusal): a missing or malformed header, a malformed row, a CVE twice, a
 * score or percentile outside [0,1] (S1.8.3-52), fewer than 100,000 scores (S1.8.3-51), more
 * than a million (a defensive bound: the real file holds about 300,000), a truncated gzip.
 */
export const EPSS_MAX_INFLATED_BYTES = 128 * 1024 * 1024;
export const EPSS_MIN_SCORES = 100_000;
export const EPSS_MAX_SCORES = 1_000_000;
const MAX_LINE = 1024;

export interface EpssLimits {
  maxInflatedBytes: number;
  minScores: number;
  maxScores: number;
}

const LABEL = 'The EPSS file';
const ROW = /^(CVE-\d{4}-\d{4,19}),(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?),(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)$/;
const MODEL = /^[0-9A-Za-z][0-9A-Za-z._-]{0,63}$/;
const SCORE_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

export async function readEpssScores(source: AsyncIterable<Buffer>, limits: Partial<EpssLimits> = {}): Promise<EpssFile> {
  const bound = limits.maxInflatedBytes ?? EPSS_MAX_INFLATED_BYTES;
  const minScores = limits.minScores ?? EPSS_MIN_SCORES;
  const maxScores = limits.maxScores ?? EPSS_MAX_SCORES;
  const { first, rest } = await peek(source);
  const compressed = first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
  const parser = new EpssParser(maxScores);
  const hash = createHash('sha256');
  let inflated = 0;
  // The first refusal wins: pipeline may report the teardown of another stage (AbortError) instead.
  let refused: FeedRefusal | null = null;
  const input = Readable.from(prepend(first, rest, (e) => { refused ??= e; }), { objectMode: false });
  const consume = async (stream: AsyncIterable<Buffer>) => {
    try {
      for await (const chunk of stream) {
        inflated += chunk.length;
        if (inflated > bound) {
          throw new FeedRefusal('too-large', `${LABEL} inflates to more than ${bound / (1024 * 1024)} MiB; inflation was stopped there.`);
        }
        hash.update(chunk);
        parser.push(chunk);
      }
    } catch (error) {
      if (error instanceof FeedRefusal) refused ??= error;
      throw error;
    }
  };
  try {
    if (compressed) await pipeline(input, createGunzip(), consume);
    else await pipeline(input, consume);
  } catch (error) {
    if (refused) throw refused;
    if (error instanceof FeedRefusal) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_') || code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw new FeedRefusal(/unexpected end/i.test((error as Error).message) ? 'partial' : 'malformed',
        `${LABEL} is not a complete gzip stream (${(error as Error).message}): truncated or corrupt.`);
    }
    throw error;
  }
  const file = parser.end();
  if (file.count < minScores) {
    throw new FeedRefusal('partial', `${LABEL} holds ${file.count} scores; at least ${minScores.toLocaleString('en')} are needed (a partial file).`);
  }
  return { ...file, sha256: hash.digest('hex'), inflatedBytes: inflated, compressed };
}

async function peek(source: AsyncIterable<Buffer>): Promise<{ first: Buffer; rest: AsyncIterator<Buffer> }> {
  const rest = source[Symbol.asyncIterator]();
  let first = Buffer.alloc(0);
  while (first.length < 2) {
    const step = await rest.next();
    if (step.done) break;
    first = Buffer.concat([first, step.value]);
  }
  return { first, rest };
}

async function* prepend(first: Buffer, rest: AsyncIterator<Buffer>, onRefusal: (e: FeedRefusal) => void): AsyncGenerator<Buffer> {
  try {
    if (first.length) yield first;
    for (;;) {
      let step: IteratorResult<Buffer>;
      try {
        step = await rest.next();
      } catch (error) {
        if (error instanceof FeedRefusal) onRefusal(error);
        throw error;
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Stops the download when the reader gave up (bound, malformed row).
    await rest.return?.();
  }
}

class EpssParser {
  private partial = '';
  private line = 0;
  private modelVersion: string | null = null;
  private scoreDate: string | null = null;
  private readonly seen = new Set<string>();
  readonly cves: string[] = [];
  readonly scores: number[] = [];
  readonly percentiles: number[] = [];

  constructor(private readonly maxScores: number) {}

  push(chunk: Buffer): void {
    // ASCII by format: latin1 never splits a character across chunks, and any other byte fails ROW.
    const text = this.partial + chunk.toString('latin1');
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      if (nl > start) this.take(text.slice(start, nl));
      else this.line++;
      start = nl + 1;
    }
    this.partial = text.slice(start);
    if (this.partial.length > MAX_LINE) throw this.malformed(`line ${this.line + 1} is longer than ${MAX_LINE} characters`);
  }

  end(): { modelVersion: string; scoreDate: string; count: number; cves: string[]; scores: number[]; percentiles: number[] } {
    if (this.partial.length) this.take(this.partial);
    this.partial = '';
    if (this.modelVersion === null || this.scoreDate === null) throw this.malformed('it has no #model_version/score_date line');
    if (this.line < 2) throw this.malformed('it has no cve,epss,percentile header');
    return { modelVersion: this.modelVersion, scoreDate: this.scoreDate, count: this.cves.length, cves: this.cves, scores: this.scores, percentiles: this.percentiles };
  }

  private take(raw: string): void {
    const index = this.line++;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (index === 0) {
      if (line.startsWith('\u00ef\u00bb\u00bf')) line = line.slice(3); // UTF-8 byte-order mark read as latin1
      this.header(line);
      return;
    }
    if (index === 1) {
      if (line.replace(/\s/g, '').toLowerCase() !== 'cve,epss,percentile') throw this.malformed('its second line is not the header cve,epss,percentile');
      return;
    }
    if (line.length === 0) return;
    const m = ROW.exec(line);
    if (!m) throw this.malformed(`line ${index + 1} is not CVE id, score, percentile`);
    const [, cve, scoreText, percentileText] = m;
    const score = Number(scoreText);
    const percentile = Number(percentileText);
    if (!(score >= 0 && score <= 1)) throw new FeedRefusal('malformed', `${LABEL} gives ${cve} the score ${scoreText}, outside [0,1].`);
    if (!(percentile >= 0 && percentile <= 1)) throw new FeedRefusal('malformed', `${LABEL} gives ${cve} the percentile ${percentileText}, outside [0,1].`);
    if (this.seen.has(cve)) throw new FeedRefusal('malformed', `${LABEL} scores ${cve} twice.`);
    if (this.cves.length >= this.maxScores) throw new FeedRefusal('too-large', `${LABEL} holds more than ${this.maxScores.toLocaleString('en')} scores.`);
    this.seen.add(cve);
    this.cves.push(cve);
    this.scores.push(score);
    this.percentiles.push(percentile);
  }

  private header(line: string): void {
    if (!line.startsWith('#')) throw this.malformed('its first line is not #model_version:...,score_date:...');
    const fields = new Map<string, string>();
    for (const part of line.slice(1).split(',')) {
      const colon = part.indexOf(':');
      if (colon > 0) fields.set(part.slice(0, colon).trim(), part.slice(colon + 1).trim());
    }
    const model = fields.get('model_version');
    const date = fields.get('score_date');
    if (!model || !MODEL.test(model)) throw this.malformed('its header names no model_version');
    if (!date || !SCORE_DATE.test(date) || Number.isNaN(Date.parse(date))) throw this.malformed('its header names no valid score_date');
    this.modelVersion = model;
    this.scoreDate = date;
  }

  private malformed(why: string): FeedRefusal {
    return new FeedRefusal('malformed', `${LABEL} is malformed: ${why}.`);
  }
}
