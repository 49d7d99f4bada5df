import {
  Model,
  snakeCaseMappers,
  type ColumnNameMappers,
  type Pojo,
  type RelationMappings,
  type TableMetadata,
} from 'objection';

/**
 * The system tables the service reads and writes row by row (users, roles, permissions,
 * sessions, settings) as objection models: typed rows, camelCase properties for the snake_case
 * columns, booleans as booleans on every dialect, and the relations between them. Column names
 * in `where`, `select` and `orderBy` stay the database's (snake_case).
 *
 * No model is bound to a knex instance: every query names the one it runs on
 * (`UserModel.query(db)`, `UserModel.query(trx)`), so one process can serve several databases
 * and every statement joins the caller's transaction. User collections never come here: they
 * go through the query compiler and the commands.
 */
abstract class SystemModel extends Model {
  static override get columnNameMappers(): ColumnNameMappers {
    return snakeCaseMappers();
  }

  /** Properties stored as booleans, which SQLite and MySQL hand back as 0/1. */
  static booleanProperties: readonly string[] = [];

  override $parseDatabaseJson(json: Pojo): Pojo {
    const parsed = super.$parseDatabaseJson(json);
    for (const property of (this.constructor as typeof SystemModel).booleanProperties) {
      const value: unknown = parsed[property];
      if (value !== null && value !== undefined) parsed[property] = Boolean(value);
    }
    return parsed;
  }
}

/** svc_roles. */
export class RoleModel extends SystemModel {
  static override tableName = 'svc_roles';
  static override booleanProperties = ['enforceTfa', 'adminAccess', 'appAccess'];

  /**
   * The columns a joined read of roles (`withGraphJoined('assignedRole')`) selects. Given
   * here, objection never asks the database for the table's columns (a query of its own).
   */
  static override tableMetadata(): TableMetadata {
    return { columns: ['id', 'name', 'ip_access', 'enforce_tfa', 'admin_access', 'app_access'] };
  }

  declare id: string;
  declare name: string;
  declare icon: string;
  /** CSV of addresses and ranges, as stored. */
  declare ipAccess: string | null;
  declare enforceTfa: boolean;
  declare adminAccess: boolean;
  declare appAccess: boolean;
  declare permissions?: PermissionModel[];
  declare users?: UserModel[];

  static override get relationMappings(): RelationMappings {
    return {
      permissions: {
        relation: Model.HasManyRelation,
        modelClass: PermissionModel,
        join: { from: 'svc_roles.id', to: 'svc_permissions.role' },
      },
      users: {
        relation: Model.HasManyRelation,
        modelClass: UserModel,
        join: { from: 'svc_roles.id', to: 'svc_users.role' },
      },
    };
  }
}

/** svc_users: the columns the service itself reads and writes (the rest go through the commands). */
export class UserModel extends SystemModel {
  static override tableName = 'svc_users';

  declare id: string;
  declare email: string | null;
  declare firstName: string | null;
  declare lastName: string | null;
  /** argon2 hash; null for users without a password (SSO, invited). */
  declare password: string | null;
  declare status: string;
  declare provider: string;
  declare externalIdentifier: string | null;
  declare tfaSecret: string | null;
  declare role: string | null;
  declare token: string | null;
  /** As the database stores timestamps (db/to-database-timestamp.ts). */
  declare lastAccess: Date | string | null;
  declare lastPage: string | null;
  /** The row of `role` (the relation cannot share the column's name). */
  declare assignedRole?: RoleModel | null;
  declare sessions?: SessionModel[];

  static override get relationMappings(): RelationMappings {
    return {
      assignedRole: {
        relation: Model.BelongsToOneRelation,
        modelClass: RoleModel,
        join: { from: 'svc_users.role', to: 'svc_roles.id' },
      },
      sessions: {
        relation: Model.HasManyRelation,
        modelClass: SessionModel,
        join: { from: 'svc_users.id', to: 'svc_sessions.user' },
      },
    };
  }
}

/** svc_permissions, as stored: the JSON columns are parsed by access/permission-rules.ts. */
export class PermissionModel extends SystemModel {
  static override tableName = 'svc_permissions';

  declare id: number;
  declare role: string | null;
  declare collection: string;
  declare action: string;
  declare permissions: unknown;
  declare validation: unknown;
  declare presets: unknown;
  declare fields: unknown;
}

/** svc_sessions: one per refresh token (its primary key). */
export class SessionModel extends SystemModel {
  static override tableName = 'svc_sessions';
  static override idColumn = 'token';

  declare token: string;
  declare user: string | null;
  declare expires: Date | string;
  declare ip: string | null;
  declare userAgent: string | null;
  declare origin: string | null;
  /** Set once a session-mode refresh rotated this session (grace period). */
  declare nextToken: string | null;
}

/** svc_settings: the one row of project settings (it may be missing: the column defaults apply). */
export class SettingsModel extends SystemModel {
  static override tableName = 'svc_settings';
  static override booleanProperties = ['publicRegistration', 'publicRegistrationVerifyEmail'];
  static override jsonAttributes = ['publicRegistrationEmailFilter'];

  declare id: number;
  declare projectName: string | null;
  declare authLoginAttempts: number | string | null;
  declare authPasswordPolicy: string | null;
  declare publicRegistration: boolean;
  declare publicRegistrationVerifyEmail: boolean;
  declare publicRegistrationRole: string | null;
  declare publicRegistrationEmailFilter: unknown;
  declare exportRetention: string | null;
}
