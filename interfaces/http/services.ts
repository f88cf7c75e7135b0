import { BacklogService } from '../../application/backlog/backlog-service';
import { IssueQueries } from '../../application/backlog/issue-queries';
import { CommandHandler } from '../../application/command-handler';
import { ImportAccess } from '../../application/imports/import-access';
import { SarifImportService } from '../../application/imports/sarif-import';
import { SourceService } from '../../application/sources/source-service';
import { IdentityService } from '../../application/identity/identity-service';
import { TeamService } from '../../application/identity/team-service';
import { SettingsService } from '../../application/settings/settings-service';
import { Clock } from '../../application/ports/clock';
import { EventStore } from '../../application/ports/event-store';
import { Config } from '../../infrastructure/config/config';
import { Database } from '../../infrastructure/db/database';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import type { TargetService } from '../../application/targets/target-service';
import type { Logger } from 'winston';

/** What the HTTP routes call: the application services, built by the container. */
export interface Services {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Database;
  store: EventStore;
  commands: CommandHandler;
  projections: ProjectionRunner;
  identity: IdentityService;
  teams: TeamService;
  settings: SettingsService;
  targets: TargetService;
  backlog: BacklogService;
  issues: IssueQueries;
  sources: SourceService;
  importAccess: ImportAccess;
  sarifImports: SarifImportService;
}
