// The queue of pending revisions: filters, counts per band, the list with
// the revision shown (one Tab stop; arrows, j and k move), the revisions
// selected for a group decision (selection.js), and paging; the filters
// live in the address too (queue-address.js). Revisions decided on the page
// but not yet sent (outbox.excluded) are left out of lists and counts.
import * as api from '../lib/api.js';
import { $, ago, h, message, replace } from '../lib/dom.js';
import * as outbox from '../lib/outbox.js';
import { claimMark } from '../lib/claims.js';
import { fromAddress, writeAddress } from '../lib/queue-address.js';
import * as selection from './selection.js';
import { drawVersionReject } from './version_reject.js';

const state = {
  filters: { client: '', band: 'all', template: '', sku: '', triage: {} }, // triage: together.js
  sort: '', // the vocabulary's first order, once read
  page: 1,
  totalPages: 1,
  totalItems: 0,
  items: [],
  reasonRequired: false, // the server says rejecting the queue's revisions needs a reason
  index: -1, // the revision shown, when it is on this page
  alone: null, // the id of a revision shown that the list does not hold
  clients: [],
  loadSeq: 0,
  loading: 0, // loads under way
  typing: false, // a SKU filter change waits to be loaded
  bandsDrawn: '', // the counts and band the band buttons show
  moves: 0, // selections made so far
  reloadTimer: 0,
  onSelect: () => {},
};

/**
 * initQueue wires the filters; onSelect(item) runs when the revision shown
 * moves, onAhead(item) when the list is about to be drawn with item to be
 * shown, so that its reads leave before the drawing.
 */
export function initQueue({ onSelect, onGroup, onAhead }) {
  state.onSelect = onSelect;
  state.onAhead = onAhead;
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
  $('#f-client').addEventListener('change', () => {
    if (state.filters.client) $('#bulk-client').value = state.filters.client;
  });
  selection.initSelection({ onFocusLost: focusCurrent });
  $('#selection-accept').addEventListener('click', () => onGroup('accepted', selection.selectedItems()));
  $('#selection-reject').addEventListener('click', () => onGroup('rejected', selection.selectedItems()));
  $('#selection-clear').addEventListener('click', () => selection.clearSelection());
  $('#queue-list').addEventListener('keydown', listKeys);
}

function readAddress() {
  const { f, sortKey } = fromAddress(api.sorts);
  Object.assign(state.filters, f);
  state.sort = sortKey;
  $('#f-sku').value = state.filters.sku;
}

/**
 * firstAsk is what the queue's first load will ask, with the orders known,
 * before anything is read: the filters and order of the address, the
 * first page (the one that holds revision around, when one is linked).
 */
export function firstAsk(known, around = null) {
  return { ...fromAddress(known), around };
}

/** triage is the triage filters in force (from the address after a reload), by their API names. */
export function triage() {
  return { ...state.filters.triage };
}

function readFilters() {
  state.filters.client = $('#f-client').value;
  state.filters.template = $('#f-template').value;
  state.filters.sku = $('#f-sku').value.trim();
  state.sort = $('#f-sort').value;
  state.page = 1;
}

/** loadChoices fills the order (once), client and template pickers. */
export async function loadChoices() {
  const sort = $('#f-sort');
  if (!sort.options.length) {
    replace(sort, api.sorts.map((s) => h('option', { value: s.value }, s.label)));
    state.sort = api.sorts[0]?.value;
    readAddress();
    sort.value = state.sort;
  }
  const [clients, templates] = await Promise.all([api.clients(), api.templates()]);
  state.clients = clients;
  const label = (c) => `${c.name || 'unnamed'} (#${c.id}${c.active ? '' : ', revoked'})`;
  replace($('#f-client'), h('option', { value: '' }, 'All clients'),
    clients.map((c) => h('option', { value: c.id }, label(c))));
  replace($('#bulk-client'), h('option', { value: '' }, 'All clients'), clients.map((c) => h('option', { value: c.id }, label(c))));
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
 * revision shown on keepId when it is on the page (null: on the same
 * position; none: nothing shown from the list).
 */
export async function reload({ keepId, around } = {}) {
  if (!api.pb.authStore.isValid) return; // note: signed out meanwhile
  const seq = ++state.loadSeq;
  writeAddress(state.filters, state.sort, api.sorts[0]?.value);
  const moves = state.moves;
  const startId = keepId !== undefined ? keepId : current()?.id;
  const exclude = outbox.excluded();
  state.loading++;
  busy();
  try {
    const list = await api.listQueue(state.filters, state.sort, state.page, exclude, around);
    if (seq !== state.loadSeq) return; // a newer load started meanwhile
    const counts = list.counts;
    state.page = list.page;
    if (list.items.length === 0 && state.page > 1 && list.totalPages < state.page) {
      state.page = Math.max(1, list.totalPages);
      return reload({ keepId });
    }
    // note: a move made while the page loaded wins over the one before
    const wanted = state.moves !== moves ? current()?.id : startId;
    const oldIndex = state.index;
    // note: the list is drawn again only when what it shows changed, so
    // that an element being clicked or focused is not replaced under the
    // pointer (a click whose press and release land on different elements
    // is lost); the page's own claims, renewed every minute, are not shown
    const items = list.items.filter((r) => !outbox.excluded().includes(r.id));
    const changed = JSON.stringify(items.map(asDrawn)) !== JSON.stringify(state.items.map(asDrawn));
    state.items = items;
    state.totalItems = list.totalItems;
    state.reasonRequired = list.reasonRequired;
    state.totalPages = Math.max(1, list.totalPages);
    if (JSON.stringify([counts, state.filters.band]) !== state.bandsDrawn) renderBands(counts);
    let index = state.items.findIndex((r) => r.id === (state.alone ?? wanted));
    if (index < 0 && !state.alone) index = Math.min(Math.max(oldIndex, 0), state.items.length - 1);
    if (changed) {
      // note: the revision about to be shown is read while the list is drawn
      if (index >= 0) state.onAhead?.(state.items[index]);
      state.index = index;
      renderList();
    } else {
      renderSummary();
    }
    // note: a revision shown alone stays shown until the reviewer moves
    if (index >= 0 || !state.alone) select(index, { force: changed || index !== oldIndex });
    else markCurrent();
  } catch (err) {
    if (seq !== state.loadSeq) return;
    $('#queue-summary').textContent = `Could not load the queue: ${message(err)}`;
  } finally {
    state.loading--;
    busy();
  }
}

/** stop forgets the loads under way and the reload waiting (the reviewer signs out). */
export function stop() {
  clearTimeout(state.reloadTimer);
  state.loadSeq++;
}

/** reloadSoon reloads once the reviewer pauses: decisions in a row share one reload. */
export function reloadSoon() {
  clearTimeout(state.reloadTimer);
  state.reloadTimer = setTimeout(() => reload(), 400);
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

// asDrawn is a queue item as far as renderList shows it: one's own claim
// is not (claimMark).
function asDrawn(r) {
  return r.claim?.mine ? { ...r, claim: null } : r;
}

function renderList() {
  const list = $('#queue-list');
  const hadFocus = list.contains(document.activeElement);
  replace(list, state.items.map((r) => {
    const fields = api.fieldNames.filter((f) => r.proposed && Object.hasOwn(r.proposed, f));
    // note: an item finds its place when clicked: decided ones leave the list without drawing it again
    const at = () => state.items.findIndex((x) => x.id === r.id);
    return h('li', { class: selection.isSelected(r.id) ? 'picked' : null },
      h('input', {
        type: 'checkbox', class: 'sel', tabindex: '-1', checked: selection.isSelected(r.id),
        'aria-label': `Select ${r.sku}`, dataset: { id: r.id },
        onclick: (e) => selection.toggle(state.items, at(), { range: e.shiftKey }),
      }),
      h('button', {
        type: 'button', class: 'item', dataset: { id: r.id, sku: r.sku }, tabindex: '-1',
        onclick: (e) => (e.shiftKey ? selection.toggle(state.items, at(), { range: true }) : select(at(), { focus: true, open: true })),
      },
      h('span', { class: `conf band-${r.confidenceBand || 'none'}`, title: 'Confidence' },
        r.confidenceBand ? String(r.confidence) : '–'),
      h('span', { class: 'sku' }, r.sku),
      h('span', { class: 'pname' }, r.expand?.product?.name || '(product gone)'),
      h('span', { class: 'meta' },
        claimMark(r.claim),
        rivalsMark(r.rivals),
        `${r.expand?.apiClient?.name || clientName(r.apiClient)} · ${fields.join(', ')} · ${ago(r.created)}`)));
  }));
  markCurrent();
  if (hadFocus) focusCurrent();
  renderSummary();
  selection.renderSelection();
}

// dropItems takes the items of ids off the list drawn, keeping the others
// as they are, as renderList would draw what is left.
function dropItems(ids) {
  const list = $('#queue-list');
  const hadFocus = list.contains(document.activeElement);
  for (const li of [...list.children]) {
    if (ids.has(li.querySelector('.item')?.dataset.id)) li.remove();
  }
  markCurrent();
  if (hadFocus) focusCurrent();
  renderSummary();
  selection.renderSelection();
}

// rivalsMark says that n proposals wait for one product, when they compete.
function rivalsMark(n) {
  return n > 1 ? h('span', { class: 'rivals', title: `${n} pending proposals for this product` }, `${n} proposals · `) : null;
}

function renderSummary() {
  const from = (state.page - 1) * api.limits.queuePageSize;
  $('#queue-summary').textContent = state.totalItems === 0
    ? 'Nothing pending here.'
    : `${state.totalItems} pending · ${from + 1}–${from + state.items.length} shown`;
  drawVersionReject(state.filters, state.totalItems, () => reload());
  $('#pager').hidden = state.totalPages <= 1;
  $('#page-info').textContent = `Page ${state.page} of ${state.totalPages}`;
  $('#page-prev').disabled = state.page <= 1;
  $('#page-next').disabled = state.page >= state.totalPages;
}

// markCurrent marks the revision shown and makes it the list's one Tab stop.
function markCurrent() {
  const items = [...$('#queue-list').querySelectorAll('.item')];
  items.forEach((el, i) => {
    if (i === state.index) el.setAttribute('aria-current', 'true');
    else el.removeAttribute('aria-current');
    el.tabIndex = i === Math.max(state.index, 0) ? 0 : -1;
  });
}

function focusCurrent() {
  const el = $('#queue-list').querySelectorAll('.item')[Math.max(state.index, 0)];
  el?.focus({ preventScroll: true });
  scrollSoon(el);
}

// scrollSoon brings el into view at the next frame, when the browser lays
// the page out anyway, rather than laying it out once more now.
function scrollSoon(el) {
  if (el) requestAnimationFrame(() => el.isConnected && el.scrollIntoView({ block: 'nearest' }));
}

/** current is the revision shown, when it is on this page of the list. */
export function current() {
  return state.items[state.index];
}

/**
 * select shows the revision at index of the list (-1: none from the list).
 * open: the reviewer chose it (on a phone, the revision takes the screen).
 */
export function select(index, { focus = false, force = false, open = false } = {}) {
  if (index < 0 || index >= state.items.length) {
    state.index = -1;
    markCurrent();
    state.onSelect(null);
    return;
  }
  if (index === state.index && !force) {
    if (open) state.onSelect(state.items[index], { open });
    return;
  }
  state.alone = null;
  state.index = index;
  state.moves++;
  markCurrent();
  const el = $('#queue-list').querySelectorAll('.item')[index];
  // note: the revision's reads leave first, unless the reviewer opened it
  // (on a phone, the list then hides)
  if (!open) state.onSelect(state.items[index], { open });
  if (focus) el?.focus({ preventScroll: true });
  scrollSoon(el);
  if (open) state.onSelect(state.items[index], { open });
}

/** move goes to the next (+1) or previous (-1) revision, across pages; extend: select on the way. */
export async function move(step, { extend = false } = {}) {
  const focus = $('#queue-list').contains(document.activeElement);
  if (extend && state.index >= 0) selection.selectItem(state.items[state.index]);
  const next = state.index < 0 ? 0 : state.index + step;
  if (next >= 0 && next < state.items.length) {
    if (extend) selection.selectItem(state.items[next]);
    select(next, { focus });
    selection.renderSelection();
  } else if (step > 0 && state.page < state.totalPages) {
    state.page++;
    state.index = 0;
    await reload({ keepId: null });
  } else if (step < 0 && state.page > 1) {
    state.page--;
    state.index = api.limits.queuePageSize - 1;
    await reload({ keepId: null });
  }
}

// listKeys: Space selects the focused revision, Home and End jump.
function listKeys(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === ' ') {
    e.preventDefault();
    toggleCurrent({ range: e.shiftKey });
  } else if (e.key === 'Home' || e.key === 'End') {
    e.preventDefault();
    select(e.key === 'Home' ? 0 : state.items.length - 1, { focus: true });
  }
}

/** toggleCurrent selects or unselects the revision shown (shift: the range from the last one). */
export function toggleCurrent({ range = false } = {}) {
  if (state.index >= 0) selection.toggle(state.items, state.index, { range });
}

/**
 * decided takes revisions decided on the page off the list (and off the
 * selection) and shows the next one; the list and counts are read again
 * once the reviewer pauses.
 */
export function decided(ids) {
  const gone = new Set(ids);
  selection.unselect(ids);
  const shownId = current()?.id ?? state.alone;
  const wasShown = shownId && gone.has(shownId);
  if (wasShown) state.alone = null;
  const before = state.items.slice(0, Math.max(state.index, 0)).filter((r) => gone.has(r.id)).length;
  const removed = state.items.filter((r) => gone.has(r.id));
  state.items = state.items.filter((r) => !gone.has(r.id));
  state.totalItems = Math.max(0, state.totalItems - removed.length);
  for (const r of removed) {
    for (const band of ['all', r.confidenceBand || '']) {
      const count = $(`#bands .band[data-band="${band}"] .count`);
      if (count) count.textContent = String(Math.max(0, Number(count.textContent) - 1));
    }
  }
  if (state.index >= 0) state.index = Math.min(state.index - before, state.items.length - 1);
  dropItems(gone);
  if (state.items.length === 0) {
    reload({ keepId: null }); // the page is empty: the next page moves up
  } else if (wasShown || (state.index < 0 && !state.alone)) {
    select(Math.max(state.index, 0), { force: true });
    reloadSoon();
  } else {
    reloadSoon();
  }
}

/**
 * open shows revision id, on the page of the list that holds it: a link
 * (#queue/ID), an undo. A revision the list does not hold (decided, or
 * filtered out) is shown with nothing marked in the list.
 */
export async function open(id, showAlone) {
  let index = state.items.findIndex((r) => r.id === id);
  if (index >= 0) {
    select(index, { force: true, open: true });
    return;
  }
  // note: nothing else is shown in its place while its page is read
  state.alone = id;
  await reload({ keepId: id, around: id });
  index = state.items.findIndex((r) => r.id === id);
  if (index >= 0) {
    select(index, { force: true, open: true });
    return;
  }
  state.index = -1;
  state.alone = id;
  markCurrent();
  showAlone(id);
}

/** focusSKU puts the cursor in the SKU filter. */
export function focusSKU() {
  $('#f-sku').focus();
  $('#f-sku').select();
}

/** filters are the reviewer's current choices, for group decisions. */
export function filters() {
  return state.filters;
}

/** sort is the queue's order, as the reviewer chose it. */
export function sort() {
  return state.sort;
}

/** next is the revision after the one shown, to read ahead. */
export function next() {
  return state.items[state.index + 1];
}

/** focusList puts the focus on the list's revision shown (its one Tab stop). */
export function focusList() {
  focusCurrent();
}

/** setTriage sets the triage filters (the API's parameters) and reads the first page again. */
export function setTriage(triage) {
  if (JSON.stringify(triage) === JSON.stringify(state.filters.triage)) return;
  state.filters.triage = triage;
  state.page = 1;
  reload();
}

/** reasonRequired tells whether the server says rejecting the queue's revisions needs a reason. */
export function reasonRequired() {
  return state.reasonRequired;
}

/** holds tells whether the list shows revision id. */
export function holds(id) {
  return state.items.some((r) => r.id === id);
}
