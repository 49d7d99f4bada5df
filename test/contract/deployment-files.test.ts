import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { SETTINGS } from '../../src/config/settings.js';
import { parse } from 'yaml';

// The files that start the service outside `make start` agree with each other and with what
// the service reads: docker-compose.yml, the Dockerfile, the Makefile and CI.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };
type Service = Record<string, YamlValue>;

const compose = parse(read('docker-compose.yml'), { merge: true }) as Record<string, YamlValue>;
const services = compose['services'] as Record<string, Service>;
const dockerfile = read('Dockerfile');
const stages = dockerfile.split(/^FROM /m).slice(1);
const finalStage = stages.at(-1) ?? '';
const APP_SERVICES = ['api-1', 'api-2', 'worker'];
const haproxyCfg = read('deploy/haproxy/haproxy.cfg');
/** PgBouncer's settings and databases by name (one flat map: the file names no key twice). */
const pgbouncerIni = Object.fromEntries(
  read('deploy/pgbouncer/pgbouncer.ini')
    .split('\n')
    .map((line) => /^(\w+)\s*=\s*(.*)$/.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => [match[1], match[2]]),
) as Record<string, string>;
const SETTING_NAMES = new Set(SETTINGS.flatMap((section) => section.settings.map((setting) => setting.name)));

/** A storage location's variable as the settings table writes it (`STORAGE_S3_KEY` → `STORAGE_<KEY>_KEY`). */
const asSettingName = (variable: string) =>
  variable.replace(/^STORAGE_(?!LOCAL_ROOT$|LOCATIONS$)[A-Z0-9]+_/, 'STORAGE_<KEY>_');
const envOf = (name: string) => (services[name]?.['environment'] ?? {}) as Record<string, string>;

describe('deployment files', () => {
  it('docker-compose.yml has PostgreSQL behind PgBouncer, Redis, MinIO, two API instances behind a balancer and one worker, each restarting unless stopped', () => {
    expect(Object.keys(services).sort()).to.deep.equal([
      'api-1',
      'api-2',
      'balancer',
      'minio',
      'minio-bucket',
      'pgbouncer',
      'postgres',
      'redis',
      'worker',
    ]);
    for (const [name, service] of Object.entries(services)) {
      expect(service['restart'], name).to.equal(name === 'minio-bucket' ? 'no' : 'unless-stopped');
    }
  });

  it('file contents live in the S3-compatible storage, not in a volume the app containers share', () => {
    const minio = envOf('minio');
    const bucketJob = services['minio-bucket'] ?? {};
    for (const name of APP_SERVICES) {
      const env = envOf(name);
      expect(services[name], name).not.to.have.property('volumes');
      expect(env, name).to.include({
        STORAGE_LOCATIONS: 's3',
        STORAGE_S3_DRIVER: 's3',
        STORAGE_S3_KEY: minio['MINIO_ROOT_USER'],
        STORAGE_S3_SECRET: minio['MINIO_ROOT_PASSWORD'],
        STORAGE_S3_FORCE_PATH_STYLE: 'true',
      });
      expect(new URL(env['STORAGE_S3_ENDPOINT'] ?? '').hostname, name).to.equal('minio');
      expect(String(bucketJob['command']), 'minio-bucket creates the bucket the apps use').to.contain(
        `mb --ignore-existing store/${env['STORAGE_S3_BUCKET']}`,
      );
    }
    expect(envOf('minio-bucket')).to.deep.equal(minio);
    expect(bucketJob['depends_on']).to.deep.equal({ minio: { condition: 'service_healthy' } });
    expect(services['minio']?.['volumes']).to.deep.equal(['miniodata:/data']);
    expect(Object.keys(compose['volumes'] as Record<string, YamlValue>)).to.deep.equal(['pgdata', 'miniodata']);
  });

  it("the app services are this repository's image, wait for PgBouncer and healthy Redis, and set only variables the service reads", () => {
    const postgres = envOf('postgres');
    for (const name of APP_SERVICES) {
      const service = services[name] ?? {};
      expect(service['build'], name).to.equal('.');
      expect(service['depends_on'], name).to.deep.equal({
        pgbouncer: { condition: 'service_started' },
        redis: { condition: 'service_healthy' },
        'minio-bucket': { condition: 'service_completed_successfully' },
      });
      const env = envOf(name);
      expect(
        Object.keys(env).filter((variable) => !SETTING_NAMES.has(asSettingName(variable))),
        `${name}: unknown variables`,
      ).to.deep.equal([]);
      expect(env).to.include({
        DB_CLIENT: 'pg',
        DB_HOST: 'pgbouncer',
        DB_PORT: String(pgbouncerIni['listen_port']),
        DB_PREPARED_STATEMENTS: 'false',
        DB_DATABASE: postgres['POSTGRES_DB'],
        DB_USER: postgres['POSTGRES_USER'],
        DB_PASSWORD: postgres['POSTGRES_PASSWORD'],
      });
      expect(new URL(env['REDIS'] ?? '').hostname, name).to.equal('redis');
    }
  });

  it('the balancer publishes the port the image listens on and checks the API instances, which publish none; the worker runs the compiled worker unchecked', () => {
    const port = /^ENV .*\bPORT=(\d+)/m.exec(finalStage)?.[1];
    expect(port).to.equal('8055');
    expect(finalStage).to.match(new RegExp(`^EXPOSE ${port}$`, 'm'));
    expect(services['balancer']?.['ports']).to.deep.equal([`${port}:8055`]);
    expect(haproxyCfg).to.match(/^frontend \S+\n\s+bind :8055$/m);
    const servers = [...haproxyCfg.matchAll(/^\s+server (\S+) (\S+):(\d+)$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(servers).to.deep.equal([
      ['api-1', 'api-1', port],
      ['api-2', 'api-2', port],
    ]);
    expect(haproxyCfg).to.match(/^\s+option httpchk GET \/server\/health$/m);
    for (const name of ['api-1', 'api-2']) {
      expect(services[name], name).not.to.have.property('ports');
      expect(services[name], name).not.to.have.property('healthcheck');
      expect(services[name], name).not.to.have.property('command');
    }
    const worker = services['worker'] ?? {};
    expect(worker['command']).to.include('dist/workers/index.js');
    expect(worker['healthcheck']).to.deep.equal({ disable: true });
    expect(finalStage).to.match(/^COPY --from=build \/app\/dist\/workers dist\/workers$/m);
  });

  it('PgBouncer pools in transaction mode the database and user the apps connect as, with room for every client', () => {
    const postgres = envOf('postgres');
    const env = envOf('api-1');
    expect(pgbouncerIni['pool_mode']).to.equal('transaction');
    expect(pgbouncerIni['svc']).to.equal(`host=postgres port=5432 dbname=${postgres['POSTGRES_DB']}`);
    expect(Object.keys(pgbouncerIni)).to.include(env['DB_DATABASE']);
    expect(read('deploy/pgbouncer/userlist.txt').trim()).to.equal(
      `"${postgres['POSTGRES_USER']}" "${postgres['POSTGRES_PASSWORD']}"`,
    );
    // Every app service's pool (DB_POOL__MAX, 10 by default) fits under max_client_conn.
    const clients = APP_SERVICES.reduce((sum, name) => sum + Number(envOf(name)['DB_POOL__MAX'] ?? 10), 0);
    expect(Number(pgbouncerIni['max_client_conn'])).to.be.greaterThan(clients);
    expect(services['pgbouncer']?.['depends_on']).to.deep.equal({ postgres: { condition: 'service_healthy' } });
  });

  it('the images built from deploy/ install Debian packages on a pinned Debian release and run unprivileged', () => {
    for (const name of ['pgbouncer', 'balancer']) {
      const context = String(services[name]?.['build']);
      const file = read(`${context}/Dockerfile`);
      expect(file, context).to.match(/^FROM debian:\d+\.\d+-slim$/m);
      expect(file, context).to.match(/^USER (?!root\b|0\b)\S+$/m);
    }
  });

  it('the image runs dist/src/server.js as a non-root user with production dependencies only and a HEALTHCHECK on /server/health', () => {
    expect(stages.length, 'a build stage and a final stage at least').to.be.greaterThan(1);
    // The image runs the API with the node flags `make start` does.
    const flags = /^API_NODE_FLAGS \?= (.+)$/m.exec(read('Makefile'))?.[1];
    expect(flags, 'API_NODE_FLAGS in the Makefile').to.be.a('string');
    expect(read('Makefile')).to.match(/^\tNODE_ENV=production node \$\(API_NODE_FLAGS\) dist\/src\/server\.js$/m);
    const command = ['node', ...(flags ?? '').split(' '), 'dist/src/server.js'].map((part) => `"${part}"`).join(', ');
    expect(finalStage).to.match(new RegExp(`^CMD \\[${command.replaceAll('.', '\\.')}\\]$`, 'm'));
    expect(finalStage).to.match(/^USER (?!root\b|0\b)\S+$/m);
    expect(finalStage, 'no toolchain in the final image').not.to.match(/apt-get install|npm (ci|install)\b/);
    // One install (npm ci, every dependency, for the build), then the development ones dropped
    // (npm prune --omit=dev) from the node_modules the final image copies.
    expect(dockerfile.match(/\bnpm ci\b/g), 'npm ci runs once').to.have.length(1);
    const deps = stages.find((stage) => /\bnpm ci\b[\s\S]*\bnpm prune --omit=dev\b/.test(stage));
    expect(deps, 'a stage installs with npm ci, then prunes with npm prune --omit=dev').to.be.a('string');
    const depsName = /^\S+ AS (\S+)/.exec(deps ?? '')?.[1];
    expect(finalStage).to.match(new RegExp(`^COPY --from=${depsName} /app/node_modules node_modules$`, 'm'));
    const healthcheck =
      /^HEALTHCHECK [^\n]*\\\n\s+CMD (.*)$/m.exec(finalStage)?.[1] ?? /^HEALTHCHECK .*CMD (.*)$/m.exec(finalStage)?.[1];
    expect(healthcheck).to.contain('/server/health');
  });

  it('every install is npm ci (the lock file, exactly): Makefile, CI and the image', () => {
    for (const path of ['Makefile', '.ci/run', 'Dockerfile'])
      expect(read(path), path).not.to.match(/npm (install|i)\b/);
    expect(read('Makefile')).to.match(/^\tnpm ci\b/m);
  });

  it('.dockerignore keeps local state, secrets, tests and benchmarks out of the image', () => {
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).to.include.members(['node_modules', 'dist', 'data', 'uploads', '.env', '.git', 'test', 'bench']);
    expect(dockerfile, 'the image copies no tests or benchmarks').not.to.match(/^COPY (\S+ )*(test|bench)\b/m);
  });

  it('the image runs on an LTS line package.json supports, newer than Node 20 (out of support since April 2026)', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const oldest = Number(/^>=(\d+)\.\d+$/.exec(engines)?.[1]);
    expect(oldest, `engines.node ${engines}`).to.be.at.least(22);
    for (const stage of stages) {
      const major = Number(/^node:(\d+)-/.exec(stage)?.[1]);
      expect(major, stage.split('\n')[0]).to.be.at.least(oldest);
      expect(major % 2, 'an even major: an LTS line').to.equal(0);
    }
  });

  it('CI runs every test on the line the image runs (.nvmrc), and a part of them on the oldest line engines accepts', () => {
    const line = Number(read('.nvmrc').trim());
    for (const stage of stages) {
      expect(Number(/^node:(\d+)-/.exec(stage)?.[1]), stage.split('\n')[0]).to.equal(line);
    }
    const ci = read('.ci/run');
    expect(ci, "make test on .nvmrc's line").to.match(
      /use_node "\$\(cat \.nvmrc\)"\n(.*\n)?REQUIRE_SERVICES=1 make test/,
    );
    expect(ci, "then on engines' oldest line").to.match(/use_node .*engines\.node.*\n(.*\n)*.*npx mocha/);
  });

  it('docker-compose.yml starts only with SECRET, ADMIN_PASSWORD and S3_SECRET set: no default, nor any example value', () => {
    const text = read('docker-compose.yml');
    expect(text).not.to.match(/change-?me/i);
    const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
    for (const name of APP_SERVICES) {
      const env = envOf(name);
      expect(env['SECRET'], name).to.match(required('SECRET'));
      expect(env['ADMIN_PASSWORD'], name).to.match(required('ADMIN_PASSWORD'));
      expect(env['STORAGE_S3_SECRET'], name).to.match(required('S3_SECRET'));
    }
    expect(envOf('minio')['MINIO_ROOT_PASSWORD']).to.match(required('S3_SECRET'));
  });

  it('docker-compose.yml pins every image to a version (never latest, never a bare major)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service['build'] !== undefined) continue;
      const image = String(service['image']);
      expect(image, name).to.match(/^[a-z0-9./-]+:(\d+\.\d+(\.\d+)?|RELEASE\.\d{4}-\d\d-\d\dT[\d-]+Z)$/);
    }
  });

  it('docker-compose.yml turns the data cache on where it names its store (CACHE_STORE alone does nothing)', () => {
    for (const name of APP_SERVICES) {
      const env = envOf(name);
      if (env['CACHE_STORE'] !== undefined) expect(env['CACHE_ENABLED'], name).to.equal('true');
    }
  });
});
