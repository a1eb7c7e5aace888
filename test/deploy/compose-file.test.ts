import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadAuthServerConfig } from '../../auth-server/config.ts';
import { configSchema, loadConfig } from '../../shared/config/config.ts';
import { QueueName } from '../../shared/queue/queues.ts';

const root = path.resolve(import.meta.dirname, '../..');

const service = z.object({
  image: z.string().optional(),
  build: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  profiles: z.array(z.string()).optional(),
  depends_on: z.union([z.array(z.string()), z.record(z.string(), z.object({ condition: z.string() }))]).optional(),
});
const composeFile = z.object({ services: z.record(z.string(), service) });

/**
 * What `docker compose config` would hand each container, with every `${VAR:-default}` taken at
 * its default and every `${VAR:?message}` (a value the operator must give) set to a plausible one.
 */
const required: Record<string, string> = {
  SECRETS_KEY: 'a'.repeat(64),
  MINIO_ROOT_PASSWORD: 'minio-password',
  POSTGRES_PASSWORD: 'postgres-password',
  SERVICE_OAUTH_CLIENT_ID: 'pca_compose_check',
  SERVICE_OAUTH_CLIENT_SECRET: 'pcs_compose_check',
};
function interpolate(value: string): string {
  const variable = /\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g;
  return value.replace(variable, (_match, name: string, kind?: string, fallback?: string) => {
    if (kind === '-') return fallback ?? '';
    const given = required[name];
    if (given === undefined) throw new Error(`the compose file requires ${name}, which this check does not know`);
    return given;
  });
}

// The YAML parser resolves the file's anchors and merge keys (<<) as Compose does.
const compose = composeFile.parse(parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }));
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const built = Object.entries(compose.services).filter(([, spec]) => spec.build !== undefined);
const environmentOf = (name: string): Record<string, string> => Object.fromEntries(
  Object.entries(compose.services[name]?.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
);

/** The production compose file, checked without docker (which our machines do not run). */
describe('docker-compose.yml', () => {
  it('runs every SPS service from a script the image contains', () => {
    expect(built.map(([name]) => name).sort()).toEqual(
      ['api', 'auth-server', 'workers-media', 'workers-platform', 'workers-publish', 'workers-video'],
    );
    for (const [name, spec] of built) {
      const script = spec.command?.find((part) => part.endsWith('.ts'));
      expect(script, name).toBeDefined();
      expect(existsSync(path.join(root, script ?? '')), `${name}: ${script ?? ''}`).toBe(true);
      const folder = (script ?? '').split('/')[0] ?? '';
      expect(dockerfile, `${name}: the image copies ${folder}/`).toMatch(new RegExp(`^COPY ${folder} `, 'm'));
    }
  });

  it('gives each SPS service an environment its configuration accepts, naming only settings that exist', () => {
    const apiKeys = new Set(Object.keys(configSchema.shape));
    for (const [name] of built) {
      const env = environmentOf(name);
      if (name === 'auth-server') {
        expect(() => loadAuthServerConfig(env), name).not.toThrow();
        continue;
      }
      const config = loadConfig(env);
      expect(config.NODE_ENV, name).toBe('production');
      for (const key of Object.keys(env)) expect(apiKeys.has(key), `${name}: ${key} is not a setting`).toBe(true);
    }
  });

  it('serves every queue from some worker group, maintenance included, and only known queues', () => {
    const served = built.flatMap(([name]) => environmentOf(name).WORKER_QUEUES?.split(',') ?? []);
    expect(new Set(served)).toEqual(new Set(Object.values(QueueName)));
  });

  it('checks the health of every long-running service, SPS ones on the endpoints they serve', () => {
    // minio-setup runs once and exits; MinIO's image names no probe command we can rely on.
    const unprobed = new Set(['minio-setup', 'minio']);
    for (const [name, spec] of Object.entries(compose.services)) {
      if (!unprobed.has(name)) expect(spec.healthcheck, name).toBeDefined();
    }
    const probe = (name: string) => compose.services[name]?.healthcheck?.test.join(' ') ?? '';
    expect(probe('api')).toContain('http://127.0.0.1:5000/ready');
    expect(probe('auth-server')).toContain('http://127.0.0.1:3111/health');
    for (const name of ['workers-publish', 'workers-media', 'workers-platform', 'workers-video']) {
      const port = environmentOf(name).WORKER_HTTP_PORT;
      expect(probe(name), name).toContain(`http://127.0.0.1:${port ?? '-'}/ready`);
    }
    expect(environmentOf('api').PORT).toBe('5000');
    expect(environmentOf('auth-server').PORT).toBe('3111');
  });

  it('passes the metrics token through to the api and the workers, and names no operator by email', () => {
    expect(Object.keys(environmentOf('api'))).toContain('METRICS_TOKEN');
    expect(Object.keys(environmentOf('api'))).not.toContain('OPERATOR_EMAILS');
    for (const name of ['workers-publish', 'workers-media', 'workers-platform', 'workers-video']) {
      expect(Object.keys(environmentOf(name)), name).toContain('METRICS_TOKEN');
    }
  });
});
