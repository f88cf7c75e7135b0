/**
 * The audit operation each chained event stands for, in the specification's words where it names
 * one (spec 1 §6, spec 2 §6: COVERAGE_IMPORTED, REPORT_IMPORT_REFUSED, SETTING_UPDATED, ...);
 * otherwise the event type in capitals (RepositoryRegistered -> REPOSITORY_REGISTERED). Entries
 * keep the event type; GET /audit-log shows and filters by this name, and CEF `act` agrees with it.
 */
export const AUDIT_OPERATIONS: Record<string, string> = {
  CoverageImportAccepted: 'COVERAGE_IMPORTED',
  TestReportImportAccepted: 'TEST_REPORT_IMPORTED',
  BuildSbomImportAccepted: 'BUILD_SBOM_IMPORTED',
  SarifImportAccepted: 'SARIF_IMPORTED',
  ReportImportRefused: 'REPORT_IMPORT_REFUSED',
  SarifImportRefused: 'SARIF_IMPORT_REFUSED',
  SourceDeclared: 'SARIF_SOURCE_DECLARED',
  SourceRedeclared: 'SARIF_SOURCE_CHANGED',
  SourceEnabled: 'SARIF_SOURCE_ENABLED',
  SourceDisabled: 'SARIF_SOURCE_DISABLED',
  SourceRemoved: 'SARIF_SOURCE_REMOVED',
  SettingChanged: 'SETTING_UPDATED',
  GateVerdictGiven: 'GATE_EVALUATED',
  AuditVerificationFailed: 'AUDIT_VERIFIED',
  SiemExportConfigured: 'SIEM_CONFIGURED',
  SiemExportLeft: 'SIEM_EXPORT_LEFT',
  SiemTestSent: 'SIEM_TESTED',
  TriageContradictedByTracker: 'TRIAGE_CONTRADICTED_BY_TRACKER',
  // A scan failure reported by its executor (an agent or the built-in worker), spec 1 §6.
  ScanFailed: 'AGENT_SCAN_FAILED',
};

export function operationOf(type: string): string {
  return Object.hasOwn(AUDIT_OPERATIONS, type) ? AUDIT_OPERATIONS[type] : type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** The event types an operation name stands for, among those given. */
export function typesOf(operation: string, known: readonly string[]): string[] {
  return known.filter((t) => operationOf(t) === operation);
}

/**
 * The outcome an entry records: refusals, failures and ceilings reached are failures, a verdict's
 * own outcome is in its data (the gate's register), everything else is a success.
 */
export function outcomeOf(type: string): 'success' | 'failure' {
  return /Refused|Failed|FailureCeiling|Throttle(d)?$/.test(type) ? 'failure' : 'success';
}
