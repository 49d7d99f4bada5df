import type { ITransport } from '../transport.js';

/** What POST /schema/diff answers when the snapshot differs: apply it with that `hash` and `diff`. */
export interface SchemaDiff {
  readonly hash: string;
  readonly diff: Readonly<Record<string, unknown>>;
}

/** /schema (admin only): the snapshot, its diff against this server, and applying that diff. */
export class SchemaHandler {
  constructor(private readonly transport: ITransport) {}

  /** The schema snapshot (collections, fields, relations) as an object. */
  async snapshot(): Promise<Record<string, unknown> | undefined> {
    return (await this.transport.get<Record<string, unknown>>('/schema/snapshot')).data;
  }

  /**
   * What applying `snapshot` (an object, or a JSON/YAML file) would change here; null when nothing
   * differs. `force` diffs across database vendors and versions.
   */
  async diff(snapshot: Readonly<Record<string, unknown>> | Blob, force = false): Promise<SchemaDiff | null> {
    const body = snapshot instanceof Blob ? fileForm(snapshot) : snapshot;
    const answer = await this.transport.post<SchemaDiff>(
      '/schema/diff',
      body,
      force ? { params: { force: true } } : {},
    );
    return answer.status === 204 ? null : (answer.data ?? null);
  }

  /** Applies a diff; `allowDestructive` lets it drop collections, fields or data. */
  async apply(diff: SchemaDiff, allowDestructive = false): Promise<void> {
    await this.transport.post('/schema/apply', diff, allowDestructive ? { params: { allow_destructive: true } } : {});
  }
}

function fileForm(file: Blob): FormData {
  const form = new FormData();
  form.append('file', file, 'snapshot.json');
  return form;
}
