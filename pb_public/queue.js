// The queue of pending revisions: filters, counts per band, the list with
// its selection, paging and the bulk accept.
import * as api from './api.js';
import { $, ago, h, message, replace } from './dom.js';

const state = {
  filters: { client: '', band: 'all', template: '', sku: '' },
  sort: 'confidence-desc',
  page: 1,
  totalPages: 1,
  totalItems: 0,
  items: [],
  index: -1,
  clients: [],
  loadSeq: 0,
  loading: 0, // loads under way
  typing: false, // a SKU filter change waits to be loaded
  bandsDrawn: '', // the counts and band the band buttons show
  moves: 0, // selections made so far
  onSelect: () => {},
  onChange: () => {},
};

/** initQueue wires the filters; onSelect(item) runs when the selection moves. */
export function initQueue({ onSelect }) {
  state.onSelect = onSelect;
  const sort = $('#f-sort');
  replace(sort, Object.entries(api.sorts).map(([value, s]) => h('option', { value }, s.label)));
  sort.value = state.sort;
  $('#filters').addEventListener('submit', (e) => e.preventDefault());
  for (const id of ['#f-client', '#f-template', '#f-sort']) {
    $(id).addEventListener('change', () => {
      readFilters();
      reload();
    });
  }
  let timer = 0;
  $('#f-sku').addEventListener('input', () => {
    clearTimeout(timer);
    state.typing = true;
    busy();
    timer = setTimeout(() => {
      state.typing = false;
      readFilters();
      reload();
    }, 250);
  });
  $('#page-prev').addEventListener('click', () => goToPage(state.page - 1));
  $('#page-next').addEventListener('click', () => goToPage(state.page + 1));
  $('#bulk-start').addEventListener('click', bulkAccept);
  $('#f-client').addEventListener('change', () => {
    if (state.filters.client) $('#bulk-client').value = state.filters.client;
  });
}

function readFilters() {
  state.filters.client = $('#f-client').value;
  state.filters.template = $('#f-template').value;
  state.filters.sku = $('#f-sku').value.trim();
  state.sort = $('#f-sort').value;
  state.page = 1;
}

/** loadChoices fills the client and template pickers. */
export async function loadChoices() {
  const [clients, templates] = await Promise.all([api.clients(), api.templates()]);
  state.clients = clients;
  const label = (c) => `${c.name || 'unnamed'} (#${c.id}${c.active ? '' : ', revoked'})`;
  replace($('#f-client'), h('option', { value: '' }, 'All clients'),
    clients.map((c) => h('option', { value: c.id }, label(c))));
  replace($('#bulk-client'), clients.map((c) => h('option', { value: c.id }, label(c))));
  replace($('#f-template'), h('option', { value: '' }, 'All templates'),
    templates.map((t) => h('option', { value: t.id }, t.active ? t.name : `${t.name} (inactive)`)));
  // note: a choice that is not offered (another identity's) falls back to all
  $('#f-client').value = state.filters.client;
  $('#f-template').value = state.filters.template;
  state.filters.client = $('#f-client').value;
  state.filters.template = $('#f-template').value;
}

/** clientName names an API client for people. */
export function clientName(id) {
  return state.clients.find((c) => c.id === id)?.name || `client #${id}`;
}

/**
 * reload reads the current page and the band counts again and keeps the
 * selection on keepId when it is still there (else on the same position).
 */
export async function reload({ keepId } = {}) {
  const seq = ++state.loadSeq;
  const moves = state.moves;
  const startId = keepId !== undefined ? keepId : current()?.id;
  state.loading++;
  busy();
  try {
    const [list, counts] = await Promise.all([
      api.listQueue(state.filters, state.sort, state.page),
      api.bandCounts(state.filters),
    ]);
    if (seq !== state.loadSeq) return; // a newer load started meanwhile
    if (list.items.length === 0 && state.page > 1 && list.totalPages < state.page) {
      state.page = Math.max(1, list.totalPages);
      return reload({ keepId });
    }
    // note: a selection made while the page loaded wins over the one before
    const wanted = state.moves !== moves ? current()?.id : startId;
    const oldIndex = state.index;
    // note: the list is drawn again only when it changed, so that an element
    // being clicked or focused is not replaced under the pointer
    const changed = JSON.stringify(list.items) !== JSON.stringify(state.items);
    state.items = list.items;
    state.totalItems = list.totalItems;
    state.totalPages = Math.max(1, list.totalPages);
    if (JSON.stringify([counts, state.filters.band]) !== state.bandsDrawn) renderBands(counts);
    if (changed) renderList();
    else renderSummary();
    let index = state.items.findIndex((r) => r.id === wanted);
    if (index < 0) index = Math.min(Math.max(oldIndex, 0), state.items.length - 1);
    select(index, { focus: false, force: true });
  } catch (err) {
    if (seq !== state.loadSeq) return;
    $('#queue-summary').textContent = `Could not load the queue: ${message(err)}`;
  } finally {
    state.loading--;
    busy();
  }
}

// busy marks the list as busy (aria-busy) while it is being loaded.
function busy() {
  const list = $('#queue-list');
  if (state.loading > 0 || state.typing) list.setAttribute('aria-busy', 'true');
  else list.removeAttribute('aria-busy');
}

function goToPage(page) {
  if (page < 1 || page > state.totalPages) return;
  state.page = page;
  state.index = 0;
  reload({ keepId: null });
}

function renderBands(counts) {
  state.bandsDrawn = JSON.stringify([counts, state.filters.band]);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const chip = (value, label, n) => h('button', {
    type: 'button',
    class: `band band-${value || 'none'}`,
    'aria-pressed': String(state.filters.band === value),
    dataset: { band: value },
    title: value === 'all' ? 'All pending revisions' : `Pending revisions with confidence ${label}`,
    onclick: () => {
      state.filters.band = value;
      state.page = 1;
      reload();
    },
  }, h('span', { class: 'label' }, label), ' ', h('span', { class: 'count' }, String(n)));
  replace($('#bands'), chip('all', 'All', total), api.bands.map((b) => chip(b.value, b.label, counts[b.value])));
}

function renderList() {
  const list = $('#queue-list');
  replace(list, state.items.map((r, i) => {
    const fields = api.fieldNames.filter((f) => r.proposed && Object.hasOwn(r.proposed, f));
    return h('li', {},
      h('button', {
        type: 'button', class: 'item', dataset: { id: r.id, sku: r.sku },
        onclick: () => select(i, { focus: true }),
      },
      h('span', { class: `conf band-${r.confidenceBand || 'none'}`, title: 'Confidence' },
        r.confidenceBand ? String(r.confidence) : '–'),
      h('span', { class: 'sku' }, r.sku),
      h('span', { class: 'pname' }, r.expand?.product?.name || '(product gone)'),
      h('span', { class: 'meta' },
        `${r.expand?.apiClient?.name || clientName(r.apiClient)} · ${fields.join(', ')} · ${ago(r.created)}`)));
  }));
  renderSummary();
}

function renderSummary() {
  const from = (state.page - 1) * api.pageSize;
  $('#queue-summary').textContent = state.totalItems === 0
    ? 'Nothing pending here.'
    : `${state.totalItems} pending · ${from + 1}–${from + state.items.length} shown`;
  $('#pager').hidden = state.totalPages <= 1;
  $('#page-info').textContent = `Page ${state.page} of ${state.totalPages}`;
  $('#page-prev').disabled = state.page <= 1;
  $('#page-next').disabled = state.page >= state.totalPages;
}

/** current is the selected revision of the list, if any. */
export function current() {
  return state.items[state.index];
}

/** select moves the selection to index and shows that revision. */
export function select(index, { focus = false, force = false } = {}) {
  if (index < 0 || index >= state.items.length) {
    state.index = -1;
    state.onSelect(null);
    return;
  }
  if (index === state.index && !force) return;
  state.index = index;
  state.moves++;
  for (const [i, el] of [...$('#queue-list').querySelectorAll('.item')].entries()) {
    if (i === index) el.setAttribute('aria-current', 'true');
    else el.removeAttribute('aria-current');
  }
  const el = $('#queue-list').querySelectorAll('.item')[index];
  el.scrollIntoView({ block: 'nearest' });
  if (focus) el.focus();
  state.onSelect(state.items[index]);
}

/** move goes to the next (+1) or previous (-1) revision, across pages. */
export async function move(step) {
  const next = state.index + step;
  if (next >= 0 && next < state.items.length) {
    select(next, { focus: true });
  } else if (step > 0 && state.page < state.totalPages) {
    state.page++;
    state.index = 0;
    await reload({ keepId: null });
  } else if (step < 0 && state.page > 1) {
    state.page--;
    state.index = api.pageSize - 1;
    await reload({ keepId: null });
  }
}

/** decided takes a decided revision off the list and selects the next one. */
export function decided(id) {
  const i = state.items.findIndex((r) => r.id === id);
  if (i < 0) return;
  state.items.splice(i, 1);
  state.totalItems--;
  if (state.index > i) state.index--;
  else if (state.index === i) state.index = Math.min(i, state.items.length - 1);
  const next = state.items[state.index];
  if (!next) {
    renderList(); // note: the reload finds the list as empty as this one and would not draw it
    reload({ keepId: null }); // the page is empty: the next page moves up
    return;
  }
  const hadFocus = document.activeElement?.classList.contains('item');
  renderList();
  select(state.index, { force: true, focus: hadFocus });
  reload({ keepId: next.id }); // fresh counts, and anything others decided
}

/** focusSKU puts the cursor in the SKU filter. */
export function focusSKU() {
  $('#f-sku').focus();
  $('#f-sku').select();
}

// bulkAccept accepts, after a confirmation that says how many, every
// pending revision of the chosen client with confidence 80 or more, one at
// a time; a revision decided meanwhile fails alone and is reported.
async function bulkAccept() {
  const client = $('#bulk-client').value;
  const status = $('#bulk-status');
  const failures = $('#bulk-failures');
  replace(failures);
  if (!client) {
    status.textContent = 'Choose an API client first.';
    return;
  }
  status.textContent = 'Counting…';
  let ids;
  try {
    ids = await api.bulkCandidates(client);
  } catch (err) {
    status.textContent = `Could not list the revisions: ${message(err)}`;
    return;
  }
  const name = clientName(client);
  if (ids.length === 0) {
    status.textContent = `No pending revision of “${name}” has confidence 80 or more.`;
    return;
  }
  const noun = ids.length === 1 ? 'revision' : 'revisions';
  status.textContent = 'Waiting for confirmation…';
  const ok = await confirmDialog(`Accept ${ids.length} pending ${noun} of “${name}” with confidence 80 or more? ` +
    'Every proposed field of each is applied to its product.', `Accept ${ids.length}`);
  if (!ok) {
    status.textContent = 'Cancelled; nothing was changed.';
    return;
  }
  let done = 0;
  let failed = 0;
  $('#bulk-start').disabled = true;
  for (const r of ids) {
    status.textContent = `Accepting… ${done + failed + 1} of ${ids.length}`;
    try {
      await api.decide(r.id, 'accepted');
      done++;
    } catch (err) {
      failed++;
      failures.append(h('li', {}, `#${r.id} ${r.sku}: ${message(err)}`));
    }
  }
  $('#bulk-start').disabled = false;
  status.textContent = `Accepted ${done} of ${ids.length}` + (failed ? `; ${failed} failed (listed below).` : '.');
  await reload();
}

/** confirmDialog asks a yes/no question in the page's modal dialog. */
export function confirmDialog(text, okLabel) {
  const dialog = $('#confirm');
  $('#confirm-text').textContent = text;
  $('#confirm-ok').textContent = okLabel;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
    $('#confirm-ok').focus();
  });
}
