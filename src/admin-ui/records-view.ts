// The records list's view (filter, status, sort, page size, offset), carried in the record form's URL as the list's own
// query parameters: `#/models/m/records/r?filter=…&sort=…`. Saving, cancelling or deleting on the form returns to
// that view, and a reload or the back button keeps it, since it is in the address.

const VIEW_PARAMETERS = ['filter', 'status', 'sort', 'limit', 'offset'] as const;

/** The list's view parameters of a hash query; the others are left out. */
export function recordsViewOf(query: URLSearchParams): URLSearchParams {
  const view = new URLSearchParams();
  for (const name of VIEW_PARAMETERS) {
    const value = query.get(name);
    if (value !== null) view.set(name, value);
  }
  return view;
}

function withQuery(path: string, view: URLSearchParams): string {
  const query = view.toString();
  return query === '' ? path : `${path}?${query}`;
}

/** The records list of a model in that view. */
export function recordsListHref(modelId: string, view: URLSearchParams): string {
  return withQuery(`#/models/${modelId}/records`, view);
}

/** The form of a record (`new` for a new one), which returns to the list in that view. */
export function recordFormHref(modelId: string, recordId: string, view: URLSearchParams): string {
  return withQuery(`#/models/${modelId}/records/${recordId}`, view);
}
