#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { Writable } from 'node:stream';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { bootstrap } from '../../catalog/bootstrap.js';
import { migrate } from '../../catalog/migrate.js';
import {
  applySchema,
  diffSchema,
  promotionContext,
  snapshotSchema,
  type SchemaPromotionContext,
} from '../../catalog/schema/index.js';
import { assertPasswordPolicy } from '../access/password-policy.js';
import { hashPassword } from '../access/passwords.js';
import { endSessionsOnUserWrite, isEmailAddress } from '../commands/user-rules.js';
import { RoleModel, UserModel } from '../db/models/system-models.js';
import { ServiceError } from '../errors.js';
import { SERVICE_VERSION } from '../version.js';
import { EXPORT_QUERY_FORMATS } from '../files/export/export-formats.js';
import type { ExportFormat } from '../query/index.js';
import { CliError, cliConfig, EXIT, withDatabase, type CliContext } from './context.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../logger/index.js';
import { loadCliExtensions } from '../extensions/cli.js';
import type { Extensions } from '../extensions/index.js';
import { progressBar } from './progress.js';
import { withOutputFile, writeOutputFile } from './output-file.js';
import { exportCollection, importFile } from './transfer.js';

/** The commands that build the catalogue, and so may create a SQLite file that is not there yet. */
const CREATES = { creates: true } as const;

/**
 * The command line (src/cli/README.md): same configuration as the server (environment and
 * .env), one line per result on stdout, errors on stderr, exit codes of `EXIT`.
 */
export function buildProgram(
  env: Readonly<Record<string, string | undefined>>,
  out: NodeJS.WritableStream = process.stdout,
): Command {
  const run = <T>(body: (ctx: CliContext) => Promise<T>, options: { creates?: boolean } = {}) =>
    withDatabase(cliConfig(env), body, options);
  const print = (line: string) => out.write(`${line}\n`);
  // Before the commands: subcommands inherit it (usage errors throw, mapped to EXIT.usage by main).
  const program = new Command('content-data-service')
    .description('Content data service command line')
    .version(SERVICE_VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('bootstrap')
    .description('Migrate the catalogue and create the first admin (ADMIN_EMAIL, ADMIN_PASSWORD) when no user exists')
    .action(() =>
      run(async ({ config, db }) => {
        const result = await bootstrap(db, {
          adminEmail: config.admin.email,
          adminPassword: config.admin.password,
          adminToken: config.admin.token,
          hashPassword,
        });
        print(
          `migrations applied: ${result.appliedMigrations.length === 0 ? 'none' : result.appliedMigrations.join(', ')}`,
        );
        if (result.createdAdmin !== undefined) {
          const { email, password, isGenerated } = result.createdAdmin;
          print(`admin created: ${email}${isGenerated ? ` (generated password: ${password})` : ''}`);
        }
      }, CREATES),
    );

  const database = program.command('database').description('The catalogue tables');
  database
    .command('migrate:latest')
    .description('Apply the pending catalogue migrations')
    .action(() =>
      run(async ({ db }) => {
        const applied = await migrate(db);
        print(`migrations applied: ${applied.length === 0 ? 'none' : applied.join(', ')}`);
      }, CREATES),
    );
  database
    .command('migrate:down')
    .description('Undo the last catalogue migration')
    .action(() => {
      throw new CliError('The catalogue migrations are forward-only: restore a backup to go back', EXIT.failed);
    });

  const schema = program.command('schema').description('Promote a schema between environments');
  schema
    .command('snapshot [file]')
    .description('Write the schema snapshot to a file, or to stdout')
    .addOption(new Option('--format <format>', 'file format').choices(['yaml', 'json']).default('yaml'))
    .action((file: string | undefined, options: { format: 'yaml' | 'json' }) =>
      run(async (ctx) => {
        const snapshot = await snapshotSchema(await promotion(ctx));
        const text = options.format === 'yaml' ? toYaml(snapshot) : `${JSON.stringify(snapshot, null, 2)}\n`;
        if (file === undefined) out.write(text);
        else {
          await writeOutputFile(file, text);
          print(`snapshot written to ${file}`);
        }
      }),
    );
  schema
    .command('apply <file>')
    .description('Apply a snapshot file (yaml or json): print the plan, then apply it')
    .option('-y, --yes', 'apply without asking')
    .option('--dry-run', 'print the plan only')
    .option('--force', 'apply a snapshot of another database vendor')
    .option('--allow-destructive', 'allow steps that drop stored data')
    .action((file: string, options: { yes?: true; dryRun?: true; force?: true; allowDestructive?: true }) =>
      run(async (ctx) => {
        const snapshot = await readSnapshotFile(file);
        const promoting = await promotion(ctx);
        const plan = await diffSchema(promoting, snapshot, { force: options.force === true, forceFlag: '--force' });
        if (plan === null) {
          print('no changes: the schema matches the snapshot');
          return;
        }
        print(`plan (${String(plan.steps.length)} steps):`);
        for (const step of plan.steps) print(`  - ${step}`);
        if (options.dryRun === true) return;
        if (options.yes !== true && !(await confirm('Apply these changes?'))) {
          throw new CliError('Not applied: confirm with --yes (or answer "y" on a terminal)', EXIT.failed);
        }
        await applySchema(
          promoting,
          { hash: plan.hash, diff: plan.diff },
          { allowDestructive: options.allowDestructive === true },
        );
        print('applied');
      }),
    );

  program
    .command('roles')
    .description('Roles')
    .command('create')
    .description('Create a role; prints its id, and on stderr what it may do')
    .requiredOption('--name <name>', 'role name')
    .option('--app-access', 'its users may sign in to the Studio (/admin): the default, as for POST /roles')
    .option('--no-app-access', 'its users may use the API only')
    .option('--admin-access', 'full access to everything (app access included)')
    .addOption(new Option('--admin', 'the same as --admin-access').hideHelp())
    .action((options: { name: string; appAccess?: boolean; adminAccess?: true; admin?: true }) =>
      run(async ({ db }) => {
        const name = options.name.trim();
        if (name === '') throw new CliError('--name must not be empty', EXIT.usage);
        const id = randomUUID();
        const isAdmin = options.adminAccess === true || options.admin === true;
        // As POST /roles and Directus 10 (svc_roles.app_access defaults to true); an
        // administrator role uses the Studio too.
        const hasAppAccess = isAdmin || options.appAccess !== false;
        await RoleModel.query(db).insert({
          id,
          name,
          icon: 'supervised_user_circle',
          adminAccess: isAdmin,
          appAccess: hasAppAccess,
        });
        print(id);
        process.stderr.write(`${describeRole(name, isAdmin, hasAppAccess)}\n`);
      }),
    );

  const users = program.command('users').description('Users');
  users
    .command('create')
    .description('Create an active user (password per the auth_password_policy setting); prints its id')
    .requiredOption('--email <email>', 'e-mail address')
    .requiredOption('--password <password>', 'password')
    .requiredOption('--role <role>', 'role id or name')
    .action((options: { email: string; password: string; role: string }) =>
      run(async ({ db }) => {
        const email = options.email.trim().toLowerCase();
        if (!isEmailAddress(email)) throw new CliError(`Invalid e-mail address "${options.email}"`, EXIT.usage);
        const role = await findRole(db, options.role);
        if ((await UserModel.query(db).whereRaw('lower(email) = ?', [email]).select('id').first()) !== undefined) {
          throw new CliError(`A user with e-mail "${email}" exists already`, EXIT.failed);
        }
        await assertPasswordPolicy(db, options.password);
        const id = randomUUID();
        await UserModel.query(db).insert({
          id,
          email,
          password: await hashPassword(options.password),
          role,
          status: 'active',
        });
        print(id);
      }),
    );
  users
    .command('passwd')
    .description("Set a user's password")
    .requiredOption('--email <email>', 'e-mail address')
    .requiredOption('--password <password>', 'new password')
    .action((options: { email: string; password: string }) =>
      run(async ({ db }) => {
        await assertPasswordPolicy(db, options.password);
        const password = await hashPassword(options.password);
        // The tool for a taken account: as a password change through the API, the user keeps no
        // session (refresh tokens die), and access tokens signed before it are refused at once.
        const changed = await db.transaction(async (trx) => {
          const user = await UserModel.query(trx)
            .whereRaw('lower(email) = ?', [options.email.trim().toLowerCase()])
            .select('id')
            .first();
          if (user === undefined) return false;
          await UserModel.query(trx).findById(user.id).patch({ password });
          await endSessionsOnUserWrite(trx, user.id, { password });
          return true;
        });
        if (!changed) throw new CliError(`No user with e-mail "${options.email}"`, EXIT.failed);
        print('password changed');
      }),
    );

  program
    .command('export <collection>')
    .description('Stream the items of a collection to stdout or a file (progress bar on a terminal)')
    .addOption(new Option('--format <format>', 'file format').choices(EXPORT_QUERY_FORMATS).default('json'))
    .option('--query <json>', 'a query as JSON: fields, filter, sort, limit, ... (default: every item)')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (collection: string, options: { format: ExportFormat; query?: string; output?: string }) => {
      const query = parseJsonOption(options.query, '--query');
      const exportTo = (out: Writable) =>
        run((ctx) =>
          exportCollection(ctx, { collection, format: options.format, query, out, progress: progressBar('export') }),
        );
      // A file is checked before the database is opened, and replaced only by a whole export.
      const count = await (options.output === undefined
        ? exportTo(process.stdout)
        : withOutputFile(options.output, exportTo));
      process.stderr.write(`exported ${String(count)} items\n`);
    });

  program
    .command('import <collection> <file>')
    .description('Import a csv or json file into a collection, all or nothing (progress bar on a terminal)')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'json']))
    .action((collection: string, file: string, options: { format?: 'csv' | 'json' }) =>
      run(async (ctx) => {
        const format = options.format ?? formatOf(file);
        const count = await importFile(ctx, { collection, file, format, progress: progressBar('import') });
        print(`imported ${String(count)} items`);
      }),
    );

  return program;
}

function parseJsonOption(text: string | undefined, name: string): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${name} is not JSON: ${(error as Error).message}`, EXIT.usage);
  }
}

function formatOf(file: string): 'csv' | 'json' {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.json$/i.test(file)) return 'json';
  throw new CliError(`Can't tell the format of "${file}": name it .csv or .json, or pass --format`, EXIT.usage);
}

async function promotion(ctx: CliContext): Promise<SchemaPromotionContext> {
  const schema = await ctx.schema();
  return promotionContext(
    { db: ctx.db, schema, reporter: ctx.logger },
    { service: SERVICE_VERSION, excludeTables: ctx.config.db.excludeTables },
  );
}

/** A snapshot file, YAML or JSON (JSON is YAML); a truncated or garbled file fails with its line. */
async function readSnapshotFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Can't read "${file}": ${(error as Error).message}`, EXIT.usage);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (error) {
    throw new CliError(
      `"${file}" is not a snapshot (YAML or JSON): ${(error as Error).message.split('\n')[0] ?? ''}`,
      EXIT.failed,
    );
  }
}

/** What `roles create` made, in a sentence: who may sign in where, and what the role may touch. */
function describeRole(name: string, isAdmin: boolean, hasAppAccess: boolean): string {
  if (isAdmin) return `role "${name}" created: admin access (everything) and app access (the Studio)`;
  const app = hasAppAccess
    ? 'app access: its users may sign in to the Studio'
    : 'no app access: its users may use the API only';
  return `role "${name}" created: ${app}; no permissions yet (grant them with POST /permissions or in the Studio)`;
}

async function findRole(db: CliContext['db'], role: string): Promise<string> {
  const rows = await RoleModel.query(db).select('id', 'name');
  const found = rows.filter((r) => r.id === role || r.name === role);
  const [first] = found;
  if (first === undefined) throw new CliError(`No role "${role}"`, EXIT.failed);
  if (found.length > 1) throw new CliError(`Several roles are named "${role}": give its id`, EXIT.failed);
  return first.id;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** Runs the command line; resolves to the exit code. */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const program = buildProgram(env);
  let extensions: Extensions | undefined;
  try {
    extensions = await cliExtensions(env);
    // Directus 10's command-line init events: extensions add their commands to the program.
    await extensions?.init('cli.before', { program });
    await extensions?.init('cli.after', { program });
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof ServiceError) {
      process.stderr.write(`error: ${error.message} (${error.code})\n`);
      return EXIT.failed;
    }
    process.stderr.write(`error: ${(error as Error).message || String(error)}\n`);
    return EXIT.failed;
  } finally {
    await extensions?.close();
  }
}

/** The extensions of EXTENSIONS_PATH, when the configuration loads (else the command reports it). */
async function cliExtensions(env: Readonly<Record<string, string | undefined>>): Promise<Extensions | undefined> {
  let config: Config;
  try {
    config = cliConfig(env);
  } catch {
    return undefined;
  }
  return loadCliExtensions(
    config,
    createLogger({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }),
  );
}

/** Run as a program (also through npm's bin symlink), not when imported. */
function isEntry(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
}

if (isEntry()) process.exitCode = await main(process.argv.slice(2), process.env);
