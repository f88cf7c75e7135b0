import { SIGNATURES, Signature } from './signatures';

/**
 * One security event as the SIEM receives it (spec 2 §6): what the CEF line says. The outbox
 * keeps it as decided from the event; the line is written when the event leaves.
 */
export interface SiemSignal {
  signature: Signature;
  /** CEF severity 0..10: the event's own (VGL-SEC-030 varies), compared with the minimum. */
  severity: number;
  outcome: 'success' | 'failure' | 'detected';
  /** The audit operation (act), GATE_EVALUATED or AUDIT_VERIFIED. */
  act: string;
  /** Event time, epoch milliseconds (rt). */
  rt: number;
  /** The account's user name (suser); absent for the system. */
  suser?: string | null;
  /** The client address the audit entry recorded (trusted proxies already applied). */
  src?: string | null;
  target?: string | null;
  userAgent?: string | null;
  /** A CVE (cs3 Identifier). */
  identifier?: string | null;
  /** A package (cs4 Component). */
  component?: string | null;
  /** The event id: the same on every sending, for the receiver's deduplication. */
  externalId: string;
  msg?: string | null;
}

export const CEF_VENDOR = 'Vigil';
export const CEF_PRODUCT = 'Vigil';
/** CEF msg is at most 1,024 characters (S2.6-25). */
export const MSG_MAX = 1024;

/** Line breaks as \n and \r, other control characters (C0, DEL, C1) as a space (S2.6-28). */
function controls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Header fields escape backslash and pipe (S2.6-27). */
export function escapeHeader(text: string): string {
  return controls(text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|'));
}

/** Extension values escape backslash and equals (S2.6-26); pipes are literal there. */
export function escapeExtension(text: string): string {
  return controls(text.replace(/\\/g, '\\\\').replace(/=/g, '\\='));
}

/** At most `max` characters (code points, so a surrogate pair is never cut in half). */
function cut(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join('');
}

/**
 * `CEF:0|Vigil|Vigil|<version>|<signature>|<name>|<severity>|<extensions>` (S2.6-17), extensions in
 * a fixed order, absent values left out.
 */
export function formatCef(signal: SiemSignal, version: string): string {
  const header = ['CEF:0', CEF_VENDOR, CEF_PRODUCT, version, signal.signature, SIGNATURES[signal.signature].name, String(signal.severity)]
    .map((field, i) => (i === 0 ? field : escapeHeader(field)));
  const ext: Array<[string, string | null | undefined]> = [
    ['rt', String(signal.rt)],
    ['outcome', signal.outcome],
    ['suser', signal.suser],
    ['src', signal.src],
    ['act', signal.act],
    ...labelled('cs1', 'Target', signal.target),
    ...labelled('cs2', 'UserAgent', signal.userAgent),
    ...labelled('cs3', 'Identifier', signal.identifier),
    ...labelled('cs4', 'Component', signal.component),
    ['externalId', signal.externalId],
    ['msg', signal.msg == null ? null : cut(signal.msg, MSG_MAX)],
  ];
  const extensions = ext.filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => `${k}=${escapeExtension(v!)}`).join(' ');
  return `${header.join('|')}|${extensions}`;
}

function labelled(key: string, label: string, value: string | null | undefined): Array<[string, string | null | undefined]> {
  return value === null || value === undefined || value === '' ? [] : [[key, value], [`${key}Label`, label]];
}
