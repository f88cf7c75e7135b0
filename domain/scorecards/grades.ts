/** Spec 1 §8.2: any exploited (KEV) issue caps a score at 54. */
export const EXPLOITED_SCORE_CAP = 54;

export const LETTER_GRADES = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
export type LetterGrade = (typeof LETTER_GRADES)[number];
/** NO_DATA: never scanned, so nothing is known; it is not a good grade. */
export type Grade = LetterGrade | 'NO_DATA';
export const ALL_GRADES: readonly Grade[] = [...LETTER_GRADES, 'NO_DATA'];

/**
 * The lowest score of each letter (spec 1 §2.9 does not show them; Vigil's choice):
 *   A >= 90   at most about one open high (93) or a handful of mediums
 *   B >= 75   a critical (83) or a few highs
 *   C >= 55   just above the exploited cap, so any KEV-listed issue grades D or worse
 *   D >= 35
 *   E >= 15
 *   F below 15 (down to the floor of 1)
 * C's floor is written from the cap so the promise "exploited means D at best" survives a change of cap.
 */
export const GRADE_BANDS: readonly { readonly grade: LetterGrade; readonly minScore: number }[] = [
  { grade: 'A', minScore: 90 },
  { grade: 'B', minScore: 75 },
  { grade: 'C', minScore: EXPLOITED_SCORE_CAP + 1 },
  { grade: 'D', minScore: 35 },
  { grade: 'E', minScore: 15 },
  { grade: 'F', minScore: 0 },
];

export function gradeFor(score: number | null): Grade {
  if (score === null) return 'NO_DATA';
  for (const band of GRADE_BANDS) if (score >= band.minScore) return band.grade;
  return 'F';
}
