// The catalogue the records-table e2e tests filter: categories (a text display field) and tags (a translatable one),
// which their products point at.
import type { Admin } from '../support/client.js';

export const CATEGORIES = ['Kitchen tools', 'Garden', 'Sports gear', 'Kids toys', 'Outdoor kitchen'];
/** Tags are named by a translatable field. */
export const TAGS = [
  { en: 'Summer', pl: 'Lato' },
  { en: 'Gifts', pl: 'Prezenty' },
  { en: 'Gift cards', pl: 'Karty podarunkowe' },
  { en: 'Sale', pl: 'Wyprzedaż' },
];

/** The `category` and `tag` models with their records; ids by category name and by a tag's English name. */
export async function createCategoriesAndTags(admin: Admin) {
  const categoryIds = new Map<string, string>();
  const tagIds = new Map<string, string>();
  const category = await admin.createModel({
    slug: 'category',
    name: 'Category',
    displayField: 'name',
    fields: [{ key: 'name', label: 'Name', type: 'text', required: true }],
  });
  for (const name of CATEGORIES) categoryIds.set(name, (await admin.createRecord(category.id, { name })).id);
  const tag = await admin.createModel({
    slug: 'tag',
    name: 'Tag',
    displayField: 'name',
    fields: [{ key: 'name', label: 'Name', type: 'translatable', required: true }],
  });
  for (const name of TAGS) tagIds.set(name.en, (await admin.createRecord(tag.id, { name })).id);
  return { categoryIds, tagIds };
}
