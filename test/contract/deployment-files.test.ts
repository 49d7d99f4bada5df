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
const SETTING_NAMES = new Set(SETTINGS.flatMap((section) => section.settings.map((setting) => setting.name)));

/** A storage location's variable as the settings table writes it (`STORAGE_S3_KEY` → `STORAGE_<KEY>_KEY`). */
const asSettingName = (variable: string) =>
  variable.replace(/^STORAGE_(?!LOCAL_ROOT$|LOCATIONS$)[A-Z0-9]+_/, 'STORAGE_<KEY>_');
const envOf = (name: string) => (services[name]?.['environment'] ?? {}) as Record<string, string>;

describe('deployment files', () => {
  it('docker-compose.yml has PostgreSQL, Redis, MinIO, two API instances and one worker, each restarting unless stopped', () => {
    expect(Object.keys(services).sort()).to.deep.equal([
      'api-1',
      'api-2',
      'minio',
      'minio-bucket',
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

  it("the app services are this repository's image, wait for healthy PostgreSQL and Redis, and set only variables the service reads", () => {
    const postgres = envOf('postgres');
    for (const name of APP_SERVICES) {
      const service = services[name] ?? {};
      expect(service['build'], name).to.equal('.');
      expect(service['depends_on'], name).to.deep.equal({
        postgres: { condition: 'service_healthy' },
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
        DB_HOST: 'postgres',
        DB_DATABASE: postgres['POSTGRES_DB'],
        DB_USER: postgres['POSTGRES_USER'],
        DB_PASSWORD: postgres['POSTGRES_PASSWORD'],
      });
      expect(new URL(env['REDIS'] ?? '').hostname, name).to.equal('redis');
    }
  });

  it("the API instances publish the port the image listens on and are checked by the image's HEALTHCHECK; the worker runs the compiled worker unchecked", () => {
    const port = /^ENV .*\bPORT=(\d+)/m.exec(finalStage)?.[1];
    expect(port).to.equal('8055');
    expect(finalStage).to.match(new RegExp(`^EXPOSE ${port}$`, 'm'));
    for (const name of ['api-1', 'api-2']) {
      const ports = services[name]?.['ports'] as string[];
      expect(
        ports.map((mapping) => mapping.split(':')[1]),
        name,
      ).to.deep.equal([port]);
      expect(services[name], name).not.to.have.property('healthcheck');
      expect(services[name], name).not.to.have.property('command');
    }
    const worker = services['worker'] ?? {};
    expect(worker['command']).to.include('dist/workers/index.js');
    expect(worker['healthcheck']).to.deep.equal({ disable: true });
    expect(finalStage).to.match(/^COPY --from=build \/app\/dist\/workers dist\/workers$/m);
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
    const deps = stages.find((stage) => /\bnpm ci --omit=dev\b/.test(stage));
    expect(deps, 'a stage installs production dependencies with npm ci --omit=dev').to.be.a('string');
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

  it('.dockerignore keeps local state and secrets out of the image', () => {
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).to.include.members(['node_modules', 'dist', 'data', 'uploads', '.env', '.git']);
  });
});
