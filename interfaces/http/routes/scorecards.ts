import { TSchema, Type } from '@sinclair/typebox';
import { ALL_GRADES } from '../../../domain/scorecards';
import type { TargetKind } from '../../../domain/shared/target-kind';
import { RouteDef } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';

const Id = Type.Object({ id: RowId() });
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Grade = Type.Union(ALL_GRADES.map((g) => Type.Literal(g)));
const Kind = Type.Union([Type.Literal('repository'), Type.Literal('container')]);
const Grades = Type.Array(Type.Object({ grade: Grade, count: Type.Integer() }));
const Weakest = Nullable(Type.Object({ kind: Kind, id: Type.Integer(), name: Type.String(), score: Type.Integer(), grade: Grade, riskPoints: Type.Number() }));
const Counts = {
  openCriticalCount: Type.Integer(), openHighCount: Type.Integer(), openKevCount: Type.Integer(), overdueCount: Type.Integer(), licenseViolationCount: Type.Integer(),
};
const TargetScorecard = Type.Object({
  kind: Kind, id: Type.Integer(), name: Type.String(), projectId: Nullable(Type.Integer()), scanned: Type.Boolean(), lastScanFailed: Type.Boolean(),
  score: Nullable(Type.Integer()), grade: Grade, riskPoints: Nullable(Type.Number()), ...Counts, openMediumCount: Type.Integer(), openLowCount: Type.Integer(),
  updatedAt: Nullable(Type.String()),
});
const GlobalScorecard = Type.Object({
  grades: Grades, weakestTarget: Weakest, riskPoints: Type.Number(), totalTargets: Type.Integer(), observedTargets: Type.Integer(), ...Counts,
});
const ScoreboardEntry = Type.Object({
  kind: Kind, id: Type.Integer(), name: Type.String(), projectId: Nullable(Type.Integer()), score: Nullable(Type.Integer()), grade: Grade,
  riskPoints: Nullable(Type.Number()), openCriticalCount: Type.Integer(), openHighCount: Type.Integer(), openKevCount: Type.Integer(),
});
const ScopeFields = {
  id: Type.Integer(), name: Type.String(), score: Nullable(Type.Integer()), grade: Grade, riskPoints: Nullable(Type.Number()), weakestTarget: Weakest,
  totalTargets: Type.Integer(), observedTargets: Type.Integer(), scannedShare: Nullable(Type.Integer()), grades: Grades, ...Counts, targets: Type.Array(ScoreboardEntry),
};
const ProjectCompliance = Type.Object({ kind: Type.Literal('project'), solutionId: Nullable(Type.Integer()), ...ScopeFields });
const SolutionCompliance = Type.Object({
  kind: Type.Literal('solution'), ...ScopeFields,
  projects: Type.Array(Type.Object({
    id: Type.Integer(), name: Type.String(), score: Nullable(Type.Integer()), grade: Grade, riskPoints: Nullable(Type.Number()), weakestTarget: Weakest,
    totalTargets: Type.Integer(), observedTargets: Type.Integer(),
  })),
});
const read = { scope: 'read' } as const;
const administrators = { sessionOnly: true, roles: ['administrator'] as const, rolesDetail: 'Only an administrator manages scorecard badges.' };
const tag = 'Scorecards';

/** Scorecards, dashboards and badges (spec 1 §2.9, §4.6). Everything reads the scorecards projection's per-target rows. */
export function scorecardRoutes(s: Services): RouteDef[] {
  const perKind = (kind: TargetKind, plural: string): RouteDef => ({
    method: 'get', path: `/scorecards/${plural}/{id}`, tag, auth: read, params: Id,
    summary: `A ${kind === 'repository' ? 'repository' : 'container image'}'s scorecard: score, grade, riskPoints, open counts (NO_DATA until scanned)`,
    responses: { 200: { description: 'The scorecard', schema: TargetScorecard }, 404: { description: 'Unknown or not visible' } },
    handler: async (req) => s.scorecards.target(req.principal!, kind, Number(req.params.id)),
  });
  return [
    perKind('repository', 'repositories'),
    perKind('container', 'containers'),
    {
      method: 'get', path: '/scorecards/global', tag, auth: read,
      summary: 'Every visible target at once: grades (with NO_DATA), weakestTarget, riskPoints and counts; no single score or grade',
      responses: { 200: { description: 'The global scorecard', schema: GlobalScorecard } },
      handler: async (req) => s.scorecards.global(req.principal!),
    },
    {
      method: 'get', path: '/scorecards/badges', tag, auth: administrators, summary: 'Badge tokens issued (never the token itself)',
      responses: { 200: { description: 'Badges' } },
      handler: async () => s.badgeQueries.list(),
    },
    {
      method: 'post', path: '/scorecards/badges', tag, auth: administrators,
      summary: 'Issue a public badge token for one target; the token appears in this answer only',
      body: Type.Object({ repositoryId: Type.Optional(RowId()), containerId: Type.Optional(RowId()) }, { additionalProperties: false }),
      responses: { 201: { description: 'Issued: {id, token, targetKind, targetId, path, issuedAt}' }, 404: { description: 'Unknown target' } },
      handler: async (req, res) => { const badge = await s.badges.issue(req.ctx!, req.body); res.status(201); return badge; },
    },
    {
      method: 'delete', path: '/scorecards/badges/{id}', tag, auth: administrators, params: Id, summary: 'Revoke a badge token: its image answers 404 from now on',
      responses: { 204: { description: 'Revoked' }, 404: { description: 'Unknown badge' } },
      handler: async (req) => { await s.badges.revoke(req.ctx!, Number(req.params.id)); },
    },
    {
      // {token}.svg of spec 1 §4.6. The parameter's name only has to sort before DELETE's {id}: the request
      // validator tries paths in name order and would answer 405 from /scorecards/badges/{id} otherwise.
      method: 'get', path: '/scorecards/badges/{badgeToken}.svg', tag, auth: 'public',
      summary: "A target's grade letter as an SVG image, for anyone holding the badge token; never a number",
      params: Type.Object({ badgeToken: Text({ max: 100 }) }),
      responses: { 200: { description: 'image/svg+xml' }, 404: { description: 'Unknown or revoked token' } },
      handler: async (req, res) => {
        const svg = await s.badgeQueries.svg(String(req.params.badgeToken));
        res.status(200)
          .type('image/svg+xml')
          .set({ 'Cache-Control': 'no-cache, max-age=0', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
            // Embedded by other sites' pages (READMEs, wikis): the global same-origin policy would hide it there.
            'Cross-Origin-Resource-Policy': 'cross-origin' })
          .send(svg);
      },
    },
    {
      method: 'get', path: '/dashboard/posture-analytics', tag: 'Dashboards', auth: read,
      summary: 'targetScoreboard: every visible target ranked, best first; equal scores rank fewer riskPoints first',
      responses: { 200: { description: 'The scoreboard', schema: Type.Object({ targetScoreboard: Type.Array(Type.Object({ rank: Type.Integer(), ...ScoreboardEntry.properties })) }) } },
      handler: async (req) => s.scorecards.postureAnalytics(req.principal!),
    },
    {
      method: 'get', path: '/dashboard/trends', tag: 'Dashboards', auth: read,
      summary: 'score_formula_changed_on (null: this installation never changed formula) and one point per day of the last `days` (default 30)',
      query: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })) }),
      responses: { 200: { description: 'Trends' } },
      handler: async (req) => s.scorecards.trends(req.principal!, Number(req.query.days ?? 30)),
    },
    {
      method: 'get', path: '/security/overview', tag: 'Dashboards', auth: read,
      summary: 'Totals over visible targets; failingCount counts never-scanned targets and those whose last scan failed',
      responses: { 200: { description: 'The overview' } },
      handler: async (req) => s.scorecards.securityOverview(req.principal!),
    },
    {
      method: 'get', path: '/projects/{id}/compliance', tag, auth: read, params: Id,
      summary: "A project's scorecard: lowest visible scanned score held at the scanned share, riskPoints of its whole visible backlog, weakestTarget",
      responses: { 200: { description: 'The project scorecard', schema: ProjectCompliance }, 404: { description: 'Unknown or not visible' } },
      handler: async (req) => s.scorecards.projectCompliance(req.principal!, Number(req.params.id)),
    },
    {
      method: 'get', path: '/solutions/{id}/compliance', tag, auth: read, params: Id,
      summary: "A solution's scorecard over the targets of its projects, and each project's figures",
      responses: { 200: { description: 'The solution scorecard', schema: SolutionCompliance }, 404: { description: 'Unknown or not visible' } },
      handler: async (req) => s.scorecards.solutionCompliance(req.principal!, Number(req.params.id)),
    },
  ];
}
