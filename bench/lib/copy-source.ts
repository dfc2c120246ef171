// The SQLite sources of bench/copy.ts, written by the raw driver in the service's schema. `catalogue`: one product
// model, ~200-byte rows, one indexed field. `mixed`: what a real store holds besides — several workspaces and
// models (each with indexed fields and a relation to another model), relation links, users, tokens and sessions,
// and data with nested objects, unicode, quotes, backslashes, tabs and newlines.
import Database from 'better-sqlite3';
import { newId } from '../../src/ids.js';
import { migrate } from '../../src/store/sqlite/migrations.js';
import { productModelInput, productRow, skuPrefix } from './catalog.js';

export type SourceShape = 'catalogue' | 'mixed';

export const SOURCE_SHAPES: readonly SourceShape[] = ['catalogue', 'mixed'];

/** Models of the mixed shape (spread over its workspaces), and links per record. */
const MIXED_MODELS = 24;
const MIXED_WORKSPACES = 4;
const LINKS_PER_RECORD = 2;

export function fillSource(path: string, count: number, shape: SourceShape): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  migrate(db);
  try {
    if (shape === 'catalogue') fillCatalogue(db, count);
    else fillMixed(db, count);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function insertTenancy(db: Database.Database, workspaces: number, now: number): string[] {
  const orgId = newId();
  db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(orgId, 'bench', now);
  const ids: string[] = [];
  for (let index = 0; index < workspaces; index++) {
    const id = newId();
    db.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(id, orgId, `w${index}`, now);
    ids.push(id);
  }
  return ids;
}

function insertModel(db: Database.Database, workspaceId: string, slug: string, fields: unknown, product: unknown, count: number) {
  const id = newId();
  const now = Date.now();
  db.prepare(
    `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, product, delivery_access, record_count, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'title', ?, ?, 'none', ?, ?, ?)`,
  ).run(id, workspaceId, slug, slug, JSON.stringify(fields), product === null ? null : JSON.stringify(product), count, now, now);
  return id;
}

function fillCatalogue(db: Database.Database, count: number): void {
  const now = Date.now();
  const [workspaceId] = insertTenancy(db, 1, now);
  const model = productModelInput('product');
  const fields = model.fields.map((field) => (field.key === 'price' ? { ...field, indexed: true } : field));
  const modelId = insertModel(db, workspaceId!, 'product', fields, model.product, count);
  const insert = db.prepare(
    'INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const prefix = skuPrefix();
  const batch = db.transaction((start: number, end: number) => {
    for (let index = start; index < end; index++) {
      const row = productRow(prefix, index);
      insert.run(newId(), modelId, workspaceId, JSON.stringify(row), row.sku, now + index, now + index);
    }
  });
  for (let start = 0; start < count; start += 50_000) batch(start, Math.min(count, start + 50_000));
}

const WORDS = ['Grüße', 'naïve café', '東京', 'emoji 🚲', 'tab\there', 'line\nbreak', 'back\\slash', 'say "hi"', 'plain'];

function mixedFields(relationTo: string) {
  return [
    { key: 'title', label: 'Title', type: 'text', required: true, indexed: true },
    { key: 'rank', label: 'Rank', type: 'number', indexed: true },
    { key: 'body', label: 'Body', type: 'text' },
    { key: 'published', label: 'Published', type: 'boolean' },
    { key: 'related', label: 'Related', type: 'relation', relationTo: `model:${relationTo}`, relationType: 'many' },
    {
      key: 'meta',
      label: 'Meta',
      type: 'object',
      fields: [
        { key: 'tags', type: 'text' },
        { key: 'score', type: 'number' },
      ],
    },
  ];
}

function mixedData(index: number, related: string[]): string {
  const word = WORDS[index % WORDS.length]!;
  return JSON.stringify({
    title: `${word} #${index}`,
    rank: (index * 7919) % 100_000,
    body: `${word} — ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(1 + (index % 6))}`,
    published: index % 3 === 0,
    related,
    meta: { tags: `${word},x${index % 13}`, score: ((index * 31) % 1000) / 10, nothing: null },
  });
}

function fillPeople(db: Database.Database, workspaces: readonly string[], now: number): void {
  const user = db.prepare('INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const member = db.prepare('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)');
  const token = db.prepare(
    'INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (let index = 0; index < 200; index++) {
    const userId = newId();
    user.run(userId, `user${index}@example.test`, null, now);
    member.run(workspaces[index % workspaces.length], userId, 'editor', now);
    token.run(newId(), `hash-${index}-${userId}`, workspaces[index % workspaces.length], userId, `token ${index}`, now);
  }
}

function fillMixed(db: Database.Database, count: number): void {
  const now = Date.now();
  const workspaces = insertTenancy(db, MIXED_WORKSPACES, now);
  fillPeople(db, workspaces, now);
  const perModel = Math.ceil(count / MIXED_MODELS);
  const models: { id: string; workspaceId: string; slug: string }[] = [];
  for (let index = 0; index < MIXED_MODELS; index++) {
    const workspaceId = workspaces[index % workspaces.length]!;
    const slug = `m${index}`;
    const next = `m${(index + workspaces.length) % MIXED_MODELS}`;
    models.push({ id: insertModel(db, workspaceId, slug, mixedFields(next), null, 0), workspaceId, slug });
  }
  const insert = db.prepare(
    'INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const link = db.prepare('INSERT OR IGNORE INTO record_links (target_id, source_id, field_key) VALUES (?, ?, ?)');
  const ids: string[] = [];
  const batch = db.transaction((start: number, end: number) => {
    for (let index = start; index < end; index++) {
      const model = models[index % MIXED_MODELS]!;
      const id = newId();
      const related = ids.length < LINKS_PER_RECORD ? [] : [ids[(index * 7) % ids.length]!, ids[(index * 13) % ids.length]!];
      const created = now - count + index;
      insert.run(id, model.id, model.workspaceId, mixedData(index, related), null, created, created + (index % 5), null);
      for (const target of related) link.run(target, id, 'related');
      ids.push(id);
    }
  });
  for (let start = 0; start < count; start += 50_000) batch(start, Math.min(count, start + 50_000));
  db.prepare('UPDATE models SET record_count = ?').run(perModel);
}
