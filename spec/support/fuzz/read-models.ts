import { abbreviate } from './encoding';
import { rawRequest } from './raw-http';

/** One entry of GET /api/v1/health's projections. */
export interface ProjectionHealth {
  name: string;
  position: number;
  lagEvents: number;
  /** Failures the runner recorded for this projection, where the health document has them. */
  failures?: unknown;
}

export interface Health {
  status: number;
  body: { status?: string; projections?: ProjectionHealth[] } | null;
}

export async function health(url: string): Promise<Health> {
  const a = await rawRequest(url, 'GET', '/api/v1/health', {}, null, 15_000);
  let body: Health['body'] = null;
  try { body = JSON.parse(a.text); } catch { /* not JSON: reported by the caller */ }
  return { status: a.status, body };
}

/** How many failures a projection's health entry reports (a count or a list). */
export function failureCount(p: ProjectionHealth): number {
  if (typeof p.failures === 'number') return p.failures;
  if (Array.isArray(p.failures)) return p.failures.length;
  return 0;
}

/**
 * Watches the read models between requests, so that a request whose events a projection cannot
 * take is named as the one that did it: after every request that appended something (the event
 * log's newest position moved), the health document must show every projection caught up and no
 * new recorded failure. A projection that has stopped says nothing about later requests by its
 * lag, so from then on only the others' lag (and new recorded failures) are looked at.
 */
export class ReadModelWatch {
  private readonly stopped = new Set<string>();
  private failures = 0;
  private head = -1;

  constructor(private readonly url: string, private readonly eventHead: () => Promise<number>, private readonly causeOf: (projection: string) => string | null) {}

  async baseline(): Promise<void> {
    this.head = await this.eventHead();
    const h = await health(this.url);
    this.failures = (h.body?.projections ?? []).reduce((n, p) => n + failureCount(p), 0);
  }

  /** Null, or what went wrong in the read models since the last look. */
  async afterRequest(): Promise<string | null> {
    const head = await this.eventHead();
    if (head === this.head) return null;
    this.head = head;
    let h = await health(this.url);
    const projections = () => h.body?.projections ?? [];
    const failures = projections().reduce((n, p) => n + failureCount(p), 0);
    if (failures > this.failures) {
      const named = projections().filter((p) => failureCount(p) > 0).map((p) => `${p.name}: ${abbreviate(JSON.stringify(p.failures), 400)}`);
      const added = failures - this.failures;
      this.failures = failures;
      return `its events made ${added} projection failure(s) (${named.join('; ')})`;
    }
    const lagging = () => projections().filter((p) => p.lagEvents > 0 && !this.stopped.has(p.name));
    for (let i = 0; i < 50 && lagging().length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      h = await health(this.url);
    }
    const stopped = lagging();
    if (stopped.length === 0) return null;
    for (const p of stopped) this.stopped.add(p.name);
    return `the read model(s) ${stopped.map((p) => `${p.name} (${p.lagEvents} events behind; ${this.causeOf(p.name) ?? 'no error logged'})`).join(', ')} stopped on its events`;
  }

  /** The projections that stopped while the fuzz ran. */
  get stoppedProjections(): string[] {
    return [...this.stopped];
  }
}
