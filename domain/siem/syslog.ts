import { bandOf, SYSLOG_SEVERITY } from './signatures';

/**
 * RFC 5424 syslog carrying a CEF line (spec 2 §4.5): facility 10 (authpriv), the severity
 * mapping of signatures.ts, the instance's host name, application `vigil`, no process id, MSGID
 * the signature, no structured data, the CEF line as MSG without a byte-order mark (S2.4.5-10..12).
 */
export const SYSLOG_FACILITY = 10;
export const SYSLOG_APP = 'vigil';

/** RFC 5424 HOSTNAME: 1..255 printable US-ASCII without spaces; anything else becomes "-" (NILVALUE) or is cut. */
export function syslogHostname(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '');
  return clean === '' ? '-' : clean.slice(0, 255);
}

export interface SyslogFields {
  severity: number;
  /** Event time, epoch milliseconds. */
  at: number;
  hostname: string;
  signature: string;
  cef: string;
}

export function formatSyslog(f: SyslogFields): string {
  const pri = SYSLOG_FACILITY * 8 + SYSLOG_SEVERITY[bandOf(f.severity)].code;
  // MSGID is at most 32 printable characters (RFC 5424 §6.2.7); signatures are 11.
  return `<${pri}>1 ${new Date(f.at).toISOString()} ${syslogHostname(f.hostname)} ${SYSLOG_APP} - ${f.signature.slice(0, 32)} - ${f.cef}`;
}

/** RFC 6587 octet counting for TCP and TLS (S2.4.5-13): the message's length in bytes, a space, the message. */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
