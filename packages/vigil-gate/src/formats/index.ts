import { GateVerdict, ReportContext } from '../verdict';
import { githubAnnotations } from './github';
import { junit } from './junit';
import { sarif } from './sarif';
import { summary } from './text';

export const FORMATS = ['text', 'json', 'sarif', 'junit', 'github'] as const;
export type Format = typeof FORMATS[number];

/** The verdict written in one format, as the text to print or to save. */
export function render(format: Format, verdict: GateVerdict, ctx: ReportContext): string {
  switch (format) {
    case 'text': return `${summary(ctx, verdict).join('\n')}\n`;
    case 'json': return `${JSON.stringify(verdict, null, 2)}\n`;
    case 'sarif': return `${sarif(verdict, ctx)}\n`;
    case 'junit': return junit(verdict, ctx);
    case 'github': return `${githubAnnotations(verdict, ctx).join('\n')}\n`;
  }
}
