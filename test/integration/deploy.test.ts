import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { SETTINGS } from '../../src/config/settings.js';
import { describeEachDatabase } from '../support/server.js';
import { requireOrSkip, sqliteTarget } from '../support/services.js';

// deploy/: the Kubernetes example agrees with itself, with the image and with what the service
// serves and reads (the probes are asked of a real server); HAProxy accepts its configuration.
// docker-compose.yml and deploy/pgbouncer are checked with the other deployment files
// (test/contract/deployment-files.test.ts).
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> } } & Record<string, any>;

const manifests = parseAllDocuments(read('deploy/kubernetes/content-data-service.yaml')).map(
  (doc) => doc.toJS() as Manifest,
);
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const api = ofKind('Deployment').find((m) => m.metadata.name.endsWith('-api')) as Manifest;
const worker = ofKind('Deployment').find((m) => m.metadata.name.endsWith('-worker')) as Manifest;
const apiContainer = api.spec.template.spec.containers[0];
const configMap = ofKind('ConfigMap')[0] as Manifest;
const SETTING_NAMES = new Set(SETTINGS.flatMap((section) => section.settings.map((setting) => setting.name)));
const asSettingName = (variable: string) =>
  variable.replace(/^STORAGE_(?!LOCAL_ROOT$|LOCATIONS$)[A-Z0-9]+_/, 'STORAGE_<KEY>_');
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60 };
const seconds = (duration: string) => {
  const match = /^(\d+)(ms|s|m)?$/.exec(duration);
  if (match === null) throw new Error(`not a duration: ${duration}`);
  return Number(match[1]) * (UNIT_SECONDS[match[2] ?? 'ms'] ?? 0);
};

describe('deploy/kubernetes', () => {
  it('has a ConfigMap, the API and worker Deployments, a Service and a HorizontalPodAutoscaler', () => {
    expect(manifests.map((m) => m.kind).sort()).to.deep.equal([
      'ConfigMap',
      'Deployment',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Service',
    ]);
  });

  it('configures only variables the service reads, through PgBouncer without prepared statements', () => {
    const names = Object.keys(configMap['data'] as Record<string, string>);
    expect(names.filter((name) => !SETTING_NAMES.has(asSettingName(name)))).to.deep.equal([]);
    expect(configMap['data']).to.include({ DB_CLIENT: 'pg', DB_PREPARED_STATEMENTS: 'false' });
    for (const deployment of [api, worker]) {
      const envFrom = deployment.spec.template.spec.containers[0].envFrom as Record<string, { name: string }>[];
      expect(envFrom.map((source) => Object.values(source)[0]?.name)).to.include(configMap.metadata.name);
    }
  });

  it('the Service and the autoscaler reach the API Deployment, on the port the image listens on', () => {
    const service = ofKind('Service')[0] as Manifest;
    const labels = api.spec.template.metadata.labels as Record<string, string>;
    expect(labels).to.include(service['spec'].selector);
    expect(api.spec.selector.matchLabels).to.deep.equal(labels);
    const port = /^ENV .*\bPORT=(\d+)/m.exec(read('Dockerfile'))?.[1];
    expect(apiContainer.ports).to.deep.equal([{ name: 'http', containerPort: Number(port) }]);
    expect(service['spec'].ports[0].targetPort).to.equal('http');
    const hpa = ofKind('HorizontalPodAutoscaler')[0] as Manifest;
    expect(hpa['spec'].scaleTargetRef).to.deep.equal({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: api.metadata.name,
    });
    expect(hpa['spec'].metrics[0].resource.name).to.equal('cpu');
    expect(hpa['spec'].minReplicas).to.be.at.least(2);
  });

  it('a rolling restart never leaves fewer pods ready, and the grace period covers preStop and SHUTDOWN_TIMEOUT', () => {
    expect(api.spec.strategy.rollingUpdate.maxUnavailable).to.equal(0);
    const preStop = Number(apiContainer.lifecycle.preStop.sleep.seconds);
    const shutdown = seconds(String(configMap['data'].SHUTDOWN_TIMEOUT));
    expect(api.spec.template.spec.terminationGracePeriodSeconds).to.be.greaterThan(preStop + shutdown);
    // The readiness probe takes a draining pod out at once; liveness does not kill it meanwhile.
    expect(apiContainer.readinessProbe.httpGet.path).not.to.equal(apiContainer.livenessProbe.httpGet.path);
    expect(worker.spec.template.spec.containers[0].command).to.include('dist/workers/index.js');
  });

  describeEachDatabase(
    'the probes',
    (ctx) => {
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'] as const) {
        it(`${probe} asks a route the service answers with 200`, async () => {
          const res = await ctx().api(String(apiContainer[probe].httpGet.path));
          expect(res.status).to.equal(200);
        });
      }
    },
    { targets: [sqliteTarget] },
  );
});

describe('deploy/haproxy', () => {
  const HAPROXY_BIN = process.env['TEST_HAPROXY_BIN'] ?? '/usr/sbin/haproxy';

  it('HAProxy accepts haproxy.cfg as it is', async function () {
    requireOrSkip(
      this,
      existsSync(HAPROXY_BIN)
        ? undefined
        : `no haproxy at ${HAPROXY_BIN} (apt-get install haproxy, or TEST_HAPROXY_BIN)`,
    );
    const { stdout } = await promisify(execFile)(HAPROXY_BIN, ['-c', '-f', 'deploy/haproxy/haproxy.cfg'], {
      cwd: new URL('../..', import.meta.url),
    });
    expect(stdout).to.contain('Configuration file is valid');
  });
});
