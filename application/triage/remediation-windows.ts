import { DEFAULT_REMEDIATION_WINDOWS, type RemediationWindows } from '../../domain/triage';
import { SEVERITIES } from '../../domain/gate/severity';

/** The remediation windows (days per severity) from the installation settings remediation_days_*. */
export function remediationWindowsOf(settings: Readonly<Record<string, unknown>>): RemediationWindows {
  const windows = { ...DEFAULT_REMEDIATION_WINDOWS };
  for (const severity of SEVERITIES) {
    const days = settings[`remediation_days_${severity}`];
    if (typeof days === 'number' && Number.isInteger(days) && days > 0) windows[severity] = days;
  }
  return windows;
}
