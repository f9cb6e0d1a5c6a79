// Reviewers together: the queue follows PocketBase's realtime updates (new
// proposals appear, revisions decided or closed elsewhere leave, without a
// reload); the revision a reviewer opens is claimed for them (renewed while
// it stays open, released when they move on or leave) and a revision that
// another reviewer holds says who; and the queue's triage filters.
import * as api from '../lib/api.js';
import { $, h, message, replace, when } from '../lib/dom.js';
import * as outbox from '../lib/outbox.js';
import * as queue from './queue.js';

// renewMs renews a claim well within its 120 s.
const renewMs = 60_000;

let held = null; // the revision this page claims
let renewTimer = 0;
let unsubscribe = null;
let streams = 0; // starts and closes so far: a start that a close outlived keeps nothing
let left = false; // the page was left (pagehide) and not shown again

/**
 * start follows realtime updates and reads the brands of the triage
 * filters, after sign-in, once the first view is drawn: the queue is read
 * again once the updates are on, for what changed before. A page left
 * meanwhile starts nothing.
 */
export async function start() {
  if (left) return;
  loadBrands();
  if (unsubscribe) return;
  const mine = ++streams;
  let off;
  try {
    off = await api.pb.collection('revisions').subscribe('*', onRevision);
  } catch (err) {
    if (mine === streams) outbox.say(`Live updates are off: ${message(err)}`, { error: true });
    return;
  }
  // note: closed while it connected (closeStream): nothing is kept
  if (mine !== streams) {
    off().catch(() => {});
    return;
  }
  unsubscribe = off;
  if (!$('#queue-view').hidden) queue.reloadSoon();
}

/** stop releases the claim and stops following updates (sign-out). */
export async function stop() {
  hold(null);
  closeStream();
}

// closeStream closes the realtime stream now, whatever its state. note:
// the SDK's unsubscribe closes it only once the server has named the
// stream (PB_CONNECT); one still connecting stays open, and a page left
// then kept it open in the back/forward cache for a minute, holding one of
// the six connections a browser allows per server (six such, and every
// request of the next page waited)
function closeStream() {
  streams++;
  unsubscribe = null;
  api.pb.realtime.unsubscribe().catch(() => {}); // drops every subscription, at once
  api.pb.realtime.disconnect(); // closes the EventSource and its reconnects
}

// onRevision keeps the queue current: a new pending revision may belong in
// it, one that is no longer pending leaves it.
function onRevision(e) {
  const r = e.record;
  if (r.status === 'pending') {
    if (e.action === 'create') queue.reloadSoon();
  } else if (queue.holds(r.id)) {
    queue.decided([r.id]);
  }
}

/**
 * hold claims revision id for the signed-in reviewer while it is shown and
 * releases the one held before (null: nothing shown). A revision whose
 * decision the page still holds for its undo is not released: the decision
 * ends its claim. Superusers hold no claims.
 */
export function hold(id) {
  if (id === held) return;
  clearInterval(renewTimer);
  if (held && !outbox.excluded().includes(held)) release(held);
  held = null;
  showHolder(null);
  if (!id || api.isSuperuser() || !api.pb.authStore.isValid) return;
  held = id;
  claim(id);
  renewTimer = setInterval(() => claim(id), renewMs);
}

async function claim(id) {
  try {
    await api.claim(id);
    if (held === id) showHolder(null);
  } catch (err) {
    if (held !== id) return;
    const holder = err.status === 409 ? err.response?.data?.claim?.params : null;
    showHolder(holder ?? null);
  }
}

function release(id, { keepalive = false } = {}) {
  api.release(id, { keepalive }).catch(() => {}); // note: an unreleased claim expires by itself
}

// showHolder says in the revision view who else is reviewing it.
function showHolder(holder) {
  const el = $('#claim-holder');
  el.hidden = !holder;
  if (!holder) return;
  const who = holder.name ? `${holder.name} (${holder.email})` : holder.email;
  replace(el, h('strong', {}, who), ` is reviewing this revision (until ${when(holder.expiresAt)}): a decision here would be refused.`);
}

// The triage filters.

async function loadBrands() {
  try {
    const brands = await api.brands();
    const keep = $('#f-brand').value || queue.triage().brand || '';
    replace($('#f-brand'), h('option', { value: '' }, 'All brands'), brands.map((b) => h('option', { value: b.id }, b.name)));
    $('#f-brand').value = keep;
  } catch (err) {
    outbox.say(`Could not load the brands: ${message(err)}`, { error: true });
  }
}

/**
 * drawFilters fills the triage form's fields from the vocabulary and shows
 * the filters the address names, once, when the queue is first read (the
 * brands follow with the live updates).
 */
export function drawFilters() {
  if ($('#f-field').options.length) return;
  replace($('#f-field'), h('option', { value: '' }, 'Any field'),
    api.fieldNames.map((f) => h('option', { value: f }, api.fieldLabels[f] ?? f)));
  showTriage(queue.triage());
}

// showTriage sets the triage form to filters read from the address, and
// opens it when any is set.
function showTriage(t) {
  const field = t.field ?? '';
  $('#f-attr').value = field.startsWith('attributes.') ? field.slice('attributes.'.length) : '';
  $('#f-field').value = field.startsWith('attributes.') ? '' : field;
  $('#f-category').value = t.category ?? '';
  $('#f-older').value = t.olderThan ?? '';
  $('#f-q').value = t.q ?? '';
  $('#f-model').value = t.model ?? '';
  $('#f-model-version').value = t.modelVersion ?? '';
  $('#f-competing').checked = t.competing === 'true';
  $('#f-issues').checked = t.issues === 'true';
  $('#f-claimed').checked = t.claimed === 'include';
  if (Object.keys(t).length) $('#triage-box').open = true;
}

/** initTogether wires the triage filters and releases the claim when the page is left. */
export function initTogether() {
  const form = $('#triage');
  let timer = 0;
  const apply = () => {
    clearTimeout(timer);
    timer = setTimeout(() => queue.setTriage(readTriage()), 250);
  };
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', (e) => e.preventDefault());
  // note: the realtime stream is closed while the page is hidden in the
  // browser's back/forward cache, where its open connection would keep one
  // of the six a browser allows per server; none starts until it is shown
  window.addEventListener('pagehide', () => {
    clearInterval(renewTimer);
    if (held && !outbox.excluded().includes(held)) release(held, { keepalive: true });
    held = null;
    left = true;
    closeStream();
  });
  window.addEventListener('pageshow', (e) => {
    if (!e.persisted) return;
    left = false;
    if (!api.pb.authStore.isValid) return;
    start();
    queue.reloadSoon();
  });
}

// readTriage reads the triage filters as the queue's parameters.
function readTriage() {
  const out = {};
  const attr = $('#f-attr').value.trim();
  const field = attr ? `attributes.${attr}` : $('#f-field').value;
  if (field) out.field = field;
  if ($('#f-brand').value) out.brand = $('#f-brand').value;
  const category = $('#f-category').value.trim();
  if (category) out.category = category;
  const days = $('#f-older').value.trim();
  if (/^\d+$/.test(days) && Number(days) > 0) out.olderThan = days;
  const text = $('#f-q').value.trim();
  if (text) out.q = text;
  for (const [key, id] of [['model', '#f-model'], ['modelVersion', '#f-model-version']]) {
    const value = $(id).value.trim();
    if (value) out[key] = value;
  }
  if ($('#f-competing').checked) out.competing = 'true';
  if ($('#f-issues').checked) out.issues = 'true';
  if ($('#f-claimed').checked) out.claimed = 'include';
  return out;
}
