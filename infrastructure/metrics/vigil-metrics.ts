import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { NewEvent } from '../../domain/shared/event-envelope';
import type { AppendObserver } from '../eventstore/observed-event-store';

/** What the read-model gauges are read from at scrape time (bound once the contexts are composed). */
export interface MetricsReadModels {
  projections(): Promise<Array<{ name: string; position: number; lagEvents: number; failures: { count: number } }>>;
  scanCounts(): Promise<Record<string, number>>;
  /** SIEM outbox rows by delivery state (pending, retrying, failed). */
  outboxDepth(): Promise<Record<string, number>>;
}

export interface RequestMeasurement { method: string; route: string; status: number; seconds: number; requestBytes: number | null }

/** The kinds of report import, by the last segment of their route (`/repositories/{id}/sarif-imports`). */
const IMPORT_KINDS: Record<string, string> = { 'sarif-imports': 'sarif', 'coverage-imports': 'coverage', 'test-report-imports': 'test_report', 'build-sbom-imports': 'sbom' };

const SCAN_OUTCOMES: Record<string, string> = { ScanCompleted: 'completed', ScanFailed: 'failed', ScanRetryScheduled: 'retry_scheduled' };

/**
 * Vigil's Prometheus metrics (GET /metrics, docs/deployment.md), in a registry of its own (several
 * Vigils can share one process in tests). Counters and histograms count what this instance did
 * since it started; the gauges read the shared read models when scraped, so they are the
 * installation's and every instance reports the same value.
 */
export class VigilMetrics implements AppendObserver {
  readonly registry = new Registry();
  private readModels: MetricsReadModels | null = null;

  private readonly httpDuration = new Histogram({
    name: 'vigil_http_request_duration_seconds', help: 'HTTP requests by route template, method and status, from the request to the last byte of the answer',
    labelNames: ['method', 'route', 'status'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry],
  });

  private readonly importBytes = new Histogram({
    name: 'vigil_import_size_bytes', help: 'Report import request bodies by kind (sarif, coverage, test_report, sbom) and status',
    labelNames: ['kind', 'status'], buckets: [1e3, 1e4, 1e5, 1e6, 4e6, 16e6, 32e6, 64e6], registers: [this.registry],
  });

  private readonly importDuration = new Histogram({
    name: 'vigil_import_duration_seconds', help: 'Report imports by kind and status, from the request to the answer',
    labelNames: ['kind', 'status'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120], registers: [this.registry],
  });

  private readonly appendDuration = new Histogram({
    name: 'vigil_event_store_append_duration_seconds', help: 'Event store appends (one stream or several in one commit) and whether they succeeded',
    labelNames: ['operation', 'outcome'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [this.registry],
  });

  private readonly eventsAppended = new Counter({
    name: 'vigil_events_appended_total', help: 'Events this instance appended, by type', labelNames: ['type'], registers: [this.registry],
  });

  private readonly gateVerdicts = new Counter({
    name: 'vigil_gate_verdicts_total', help: 'Gate verdicts this instance gave, by outcome (passed, failed)', labelNames: ['outcome'], registers: [this.registry],
  });

  private readonly scanOutcomes = new Counter({
    name: 'vigil_scan_outcomes_total', help: 'Scan ends this instance recorded: completed, failed, retry_scheduled', labelNames: ['outcome'], registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
    const metrics = this;
    new Gauge({
      name: 'vigil_projection_lag_events', help: 'Events in the log a projection has not applied yet', labelNames: ['projection'], registers: [this.registry],
      async collect() {
        for (const p of (await metrics.readModels?.projections()) ?? []) this.set({ projection: p.name }, p.lagEvents);
      },
    });
    new Gauge({
      name: 'vigil_projection_failures', help: 'Events a projection set aside (projection_failures)', labelNames: ['projection'], registers: [this.registry],
      async collect() {
        for (const p of (await metrics.readModels?.projections()) ?? []) this.set({ projection: p.name }, p.failures.count);
      },
    });
    new Gauge({
      name: 'vigil_scan_queue_depth', help: 'Scans waiting (pending) and running (scanning), installation-wide', labelNames: ['status'], registers: [this.registry],
      async collect() {
        const counts = (await metrics.readModels?.scanCounts()) ?? {};
        for (const status of ['pending', 'scanning']) this.set({ status }, counts[status] ?? 0);
      },
    });
    new Gauge({
      name: 'vigil_siem_outbox_depth', help: 'Security events queued for the SIEM: never tried (pending), waiting for another attempt (retrying), given up (failed)', labelNames: ['status'], registers: [this.registry],
      async collect() {
        for (const [status, n] of Object.entries((await metrics.readModels?.outboxDepth()) ?? {})) this.set({ status }, n);
      },
    });
    new Gauge({
      name: 'vigil_scans', help: 'Scans by status in the read model (pending, scanning, completed, failed), installation-wide', labelNames: ['status'], registers: [this.registry],
      async collect() {
        for (const [status, n] of Object.entries((await metrics.readModels?.scanCounts()) ?? {})) this.set({ status }, n);
      },
    });
  }

  bindReadModels(readModels: MetricsReadModels): void {
    // Two gauges read the projections' status in one scrape: one query round serves both.
    let cached: { at: number; value: ReturnType<MetricsReadModels['projections']> } | null = null;
    this.readModels = {
      scanCounts: () => readModels.scanCounts(),
      outboxDepth: () => readModels.outboxDepth(),
      projections: () => {
        if (!cached || Date.now() - cached.at > 1000) cached = { at: Date.now(), value: readModels.projections() };
        return cached.value;
      },
    };
  }

  observeRequest(m: RequestMeasurement): void {
    this.httpDuration.observe({ method: m.method, route: m.route, status: String(m.status) }, m.seconds);
    const kind = m.method === 'POST' ? IMPORT_KINDS[m.route.slice(m.route.lastIndexOf('/') + 1)] : undefined;
    if (kind) {
      const labels = { kind, status: String(m.status) };
      this.importDuration.observe(labels, m.seconds);
      if (m.requestBytes !== null) this.importBytes.observe(labels, m.requestBytes);
    }
  }

  appended(operation: 'append' | 'appendMany', seconds: number, events: readonly NewEvent[], ok: boolean): void {
    this.appendDuration.observe({ operation, outcome: ok ? 'ok' : 'refused' }, seconds);
    if (!ok) return;
    for (const event of events) {
      this.eventsAppended.inc({ type: event.type });
      if (event.type === 'GateVerdictGiven') this.gateVerdicts.inc({ outcome: (event.data as { passed?: boolean }).passed ? 'passed' : 'failed' });
      const outcome = SCAN_OUTCOMES[event.type];
      if (outcome) this.scanOutcomes.inc({ outcome });
    }
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
