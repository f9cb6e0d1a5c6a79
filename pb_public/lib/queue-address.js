// The queue's filters and order in the page's address (?client=…&band=…
// &sku=…, and the triage filters by their API names: ?field=…&q=…), so
// that a reload or a shared link keeps them.

const addressKeys = ['client', 'template', 'sku', 'band', 'sort'];
const triageKeys = ['field', 'brand', 'category', 'olderThan', 'q', 'model', 'modelVersion', 'competing', 'issues', 'claimed'];

/** writeAddress puts filters ({client, band, template, sku, triage}) and order sortKey in the address; the default order (defaultSort) is left out. */
export function writeAddress(filters, sortKey, defaultSort) {
  const q = new URLSearchParams();
  const f = { ...filters, band: filters.band === 'all' ? '' : filters.band || 'none', sort: sortKey };
  if (f.sort === defaultSort) f.sort = '';
  for (const k of addressKeys) if (f[k]) q.set(k, f[k]);
  for (const k of triageKeys) if (filters.triage[k]) q.set(k, filters.triage[k]);
  const search = q.size ? `?${q}` : '';
  if (search !== location.search) history.replaceState(history.state, '', `${location.pathname}${search}${location.hash}`);
}

/**
 * fromAddress reads the filters and order the address names over the
 * defaults, with the orders known: {f, sortKey}, as api.listQueue takes them.
 */
export function fromAddress(known) {
  const q = new URLSearchParams(location.search);
  const f = { client: '', band: 'all', template: '', sku: '' };
  for (const k of ['client', 'template', 'sku']) if (q.has(k)) f[k] = q.get(k);
  if (q.has('band')) f.band = q.get('band') === 'none' ? '' : q.get('band');
  f.triage = Object.fromEntries(triageKeys.filter((k) => q.get(k)).map((k) => [k, q.get(k)]));
  const sortKey = known.some((s) => s.value === q.get('sort')) ? q.get('sort') : known[0]?.value;
  return { f, sortKey };
}
