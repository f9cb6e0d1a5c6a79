// The decided view's filters and page in the page's address
// (#decided?reviewer=me&decidedBy=policy&client=…&page=…, by the history
// route's names), so that a reload or a shared link keeps them, as the
// queue's are kept (queue-address.js).

// keys maps the view's filters to their names in the address.
const keys = { whose: 'reviewer', decidedBy: 'decidedBy', client: 'client' };

// shown tells whether the address names the decided view: a view drawn
// late does not take the address of another one.
const shown = (hash) => hash === '#decided' || hash.startsWith('#decided?');

/** writeDecidedAddress puts the filters and page ({whose, decidedBy, client, page}) in the address; the first page and empty filters are left out. */
export function writeDecidedAddress(state) {
  if (!shown(location.hash)) return;
  const q = new URLSearchParams();
  for (const [k, name] of Object.entries(keys)) if (state[k]) q.set(name, state[k]);
  if (state.page > 1) q.set('page', String(state.page));
  const hash = q.size ? `#decided?${q}` : '#decided';
  if (hash !== location.hash) history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
}

/** decidedFromAddress reads the filters and page the address names ({whose, decidedBy, client, page}); null when it names none (a bare #decided). */
export function decidedFromAddress() {
  const at = location.hash.indexOf('?');
  if (!shown(location.hash) || at < 0) return null;
  const q = new URLSearchParams(location.hash.slice(at + 1));
  const out = { page: Math.max(1, Number.parseInt(q.get('page') ?? '', 10) || 1) };
  for (const [k, name] of Object.entries(keys)) out[k] = q.get(name) ?? '';
  return out;
}
