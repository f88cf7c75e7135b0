import { ALL_GRADES, type Grade } from './grades';

/** Traffic-light colours; NO_DATA is grey, never green. */
const FILL: Readonly<Record<Grade, string>> = {
  A: '#2e7d32',
  B: '#689f38',
  C: '#f9a825',
  D: '#ef6c00',
  E: '#d84315',
  F: '#b71c1c',
  NO_DATA: '#757575',
};

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/**
 * The public badge (GET /scorecards/badges/{token}.svg): the letter only, never the score or any
 * number (S1.2.9-16), since anyone may fetch it. NO_DATA shows "?". A grade read from storage that
 * is not one we know renders as NO_DATA rather than echoing unknown text into a public image.
 */
export function renderBadgeSvg(grade: Grade): string {
  const known: Grade = ALL_GRADES.includes(grade) ? grade : 'NO_DATA';
  const letter = known === 'NO_DATA' ? '?' : known;
  const label = escapeXml(known === 'NO_DATA' ? 'Security grade: no data' : `Security grade ${letter}`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" viewBox="0 0 20 20" role="img" aria-label="${label}">` +
    `<title>${label}</title>` +
    `<rect width="20" height="20" rx="3" fill="${FILL[known]}"/>` +
    `<text x="10" y="14.5" fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="13" font-weight="bold" text-anchor="middle">${escapeXml(letter)}</text>` +
    `</svg>`
  );
}
