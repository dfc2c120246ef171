// content-service schema with media fields: `multiple` and `acceptedTypes` pulled (defaults filled in), diffed,
// applied to another workspace, and mistakes in them named by JSON path, through the real CLI.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schemaCli } from '../support/schema-cli.js';

const { workspace, schema, file, pull } = schemaCli('media');

describe('schema with media fields', () => {
  test('multiple and acceptedTypes round-trip through pull, diff and apply', async () => {
    const source = await workspace();
    const target = await workspace();
    await source.createModel({
      slug: 'article',
      name: 'Article',
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'cover', type: 'media', acceptedTypes: ['image'] } as never,
        { key: 'files', type: 'media', multiple: true, acceptedTypes: ['document', 'image'] } as never,
        { key: 'any', type: 'media' },
      ],
    });
    const pulled = await pull(source);
    const article = JSON.parse(pulled).models[0];
    assert.deepEqual(article.fields.slice(1), [
      { key: 'cover', label: 'cover', type: 'media', required: false, indexed: false, multiple: false, acceptedTypes: ['image'] },
      {
        key: 'files',
        label: 'files',
        type: 'media',
        required: false,
        indexed: false,
        multiple: true,
        acceptedTypes: ['document', 'image'],
      },
      { key: 'any', label: 'any', type: 'media', required: false, indexed: false, multiple: false, acceptedTypes: [] },
    ]);
    assert.equal(article.fields[0].multiple, undefined, 'only media fields carry media settings');

    const path = file(pulled);
    const created = await schema(target, 'apply', path);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Applied: 1 created/);
    assert.equal(await pull(target), pulled, 'the target pulls the same file');
    assert.equal((await schema(target, 'diff', path)).code, 0, 'no changes');

    const changed = JSON.parse(pulled);
    changed.models[0].fields[1].multiple = true;
    changed.models[0].fields[2].acceptedTypes = ['document'];
    changed.models[0].fields[3].acceptedTypes = ['video', 'audio'];
    const changedPath = file(changed);
    const diff = await schema(target, 'diff', changedPath);
    assert.equal(diff.code, 2, diff.stderr);
    assert.deepEqual(diff.stdout.trim().split('\n'), [
      '~ field article.cover: multiple false → true',
      '~ field article.files: acceptedTypes ["document","image"] → ["document"]',
      '~ field article.any: acceptedTypes [] → ["video","audio"]',
    ]);
    const applied = await schema(target, 'apply', changedPath);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 0 created, 1 updated, 0 deleted/);
    assert.deepEqual(JSON.parse(await pull(target)), changed);
  });

  test('mistakes in media settings are named by their JSON path; nothing changes', async () => {
    const admin = await workspace();
    const path = file({
      version: 1,
      models: [
        {
          slug: 'thing',
          name: 'Thing',
          displayField: 'title',
          fields: [
            { key: 'title', type: 'text', multiple: true },
            { key: 'photo', type: 'media', multiple: 'yes', acceptedTypes: ['image', 'picture', 'image'] },
            { key: 'kinds', type: 'media', acceptedTypes: 'image' },
            { key: 'meta', type: 'object', fields: [{ key: 'icon', type: 'media' }] },
          ],
        },
      ],
    });
    const result = await schema(admin, 'apply', path);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const problems = result.stderr;
    assert.match(problems, /\$\.models\[0\]\.fields\[0\]\.multiple: is only allowed on media fields/);
    assert.match(problems, /\$\.models\[0\]\.fields\[1\]\.multiple: must be true or false/);
    assert.match(problems, /\$\.models\[0\]\.fields\[1\]\.acceptedTypes\[1\]: unknown kind "picture"/);
    assert.match(problems, /\$\.models\[0\]\.fields\[1\]\.acceptedTypes\[2\]: "image" is given twice/);
    assert.match(problems, /\$\.models\[0\]\.fields\[2\]\.acceptedTypes: must be an array of image, video, audio, document/);
    assert.match(problems, /\$\.models\[0\]\.fields\[3\]\.fields\[0\]\.type: media fields cannot be sub-fields/);
    assert.deepEqual(JSON.parse(await pull(admin)).models, []);
  });
});
