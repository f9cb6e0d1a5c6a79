// Competing proposals together: every pending proposal for one product,
// from every client, field by field, each with its client and confidence.
// The reviewer picks one value per field (or keeps the product's); applying
// the picks accepts each proposal for the fields picked from it and rejects
// the others, with the reason and comment given, in one action. By key,
// the first a shows what the picks apply (focused) and a second applies it.
import * as api from '../lib/api.js';
import { $, h, replace } from '../lib/dom.js';
import { compareAttributes, optionOf } from '../lib/diff.js';
import { filesInline, formatDetail, labels, textInline } from '../lib/fields.js';
import { planChoices } from '../lib/plan.js';
import { pendingFields, reasonNeeded, reviewOf } from '../lib/review-state.js';
import { askReason, reasonAndComment, why } from '../lib/why.js';

let current = null; // {all, product, onDecide, sku}
let shownPicks = null; // the picks the summary on screen was made of (a second a applies them)

/**
 * render draws the proposals all (the revision opened first) for product:
 * {body, actions}, with picks (field → revision id) picked at first.
 * onAlone() shows the opened revision alone; onDecide is the revision view's.
 */
export function render(all, { rev, product, options, picks, onAlone, onDecide }) {
  current = { all, product, onDecide, sku: rev.sku };
  shownPicks = null;
  const fields = api.fieldNames.filter((f) => all.some((r) => pendingFields(r).includes(f)));
  const clients = new Set(all.map((r) => r.apiClient)).size;
  const body = h('div', { class: 'compete' },
    h('p', { class: 'rivals-note', id: 'compete-note' },
      `${all.length} pending proposals from ${clients} client${clients === 1 ? '' : 's'} for this product. ` +
      'Pick one value per field: accepting your picks rejects the proposals you did not pick. ',
      h('button', { type: 'button', class: 'link-button', id: 'show-alone', onclick: onAlone },
        `Show revision #${rev.id} alone `, h('kbd', {}, 't'))),
    h('div', { id: 'apply-summary', class: 'apply-summary', tabindex: '-1', hidden: true }),
    fields.map((f, i) => choice(f, i + 1, all, picks[f], { product, options, opened: rev.id })),
    h('p', { class: 'plan', id: 'plan', 'aria-live': 'polite' }),
    why({ required: all.some((r) => reviewOf(r).reasonRequired) }));
  body.addEventListener('change', (e) => {
    if (!e.target.matches('input[type=radio]')) return;
    showPlan();
    hideSummary(); // note: it said what other picks apply
  });
  const actions = [
    h('button', { type: 'button', class: 'primary', id: 'apply-choices', disabled: !product?.active, onclick: () => apply() },
      'Apply choices ', h('kbd', {}, 'a')),
    h('button', { type: 'button', class: 'danger', id: 'reject-all', onclick: () => rejectAll() },
      `Reject all ${all.length} `, h('kbd', {}, 'r')),
    h('p', { id: 'decision-status', role: 'status', class: 'small' }),
  ];
  queueMicrotask(showPlan);
  return { body, actions };
}

// choice is one field's radio group: keep the product's value, or one of
// the proposals for it, each shown as a diff against the product now.
function choice(field, n, all, picked, { product, options, opened }) {
  const now = product?.[field];
  const name = `pick-${field}`;
  const candidates = all.filter((r) => pendingFields(r).includes(field));
  const option = (value, checked, who, content, extra = {}) => h('label', { class: `option${checked ? ' on' : ''}`, ...extra },
    h('input', { type: 'radio', name, value, checked }),
    h('span', { class: 'who' }, who),
    h('div', { class: 'val' }, content));
  return h('fieldset', { class: 'choice', dataset: { field } },
    h('legend', {}, h('kbd', {}, String(n)), ' ', labels[field]),
    option('', !picked, 'Keep the current value', nowValue(field, now, candidates, product, options), { dataset: { revision: '' } }),
    candidates.map((r) => option(r.id, picked === r.id,
      [h('strong', {}, r.expand?.apiClient?.name || `client #${r.apiClient}`), ' · ',
        r.confidenceBand ? `confidence ${r.confidence}` : 'no confidence', ` · #${r.id}`,
        r.id === opened ? ' (this revision)' : ''],
      value(field, now, r.proposed[field], product, options),
      { dataset: { revision: r.id } })));
}

// nowValue shows the product's value of field now, in short.
function nowValue(field, now, candidates, product, options) {
  if (field === 'attributes') {
    const names = [...new Set(candidates.flatMap((r) => (r.proposed.attributes || []).map((a) => a.attribute)))];
    const rows = compareAttributes(now, now, []).filter((r) => names.includes(r.name));
    return rows.length
      ? h('ul', { class: 'attr-list' }, rows.map((r) => h('li', {}, `${r.name}: `, formatDetail(r.now, optionFor(r.name, options, product, now)))))
      : h('span', { class: 'empty' }, '(none of these attributes)');
  }
  if (field === 'files') return list(now);
  return textInline(now, now);
}

function value(field, now, proposed, product, options) {
  if (field === 'attributes') {
    return h('ul', { class: 'attr-list' }, compareAttributes(now, now, proposed).filter((r) => r.isProposed).map((r) => {
      const o = optionFor(r.name, options, product, proposed, now);
      const was = formatDetail(r.now, optionFor(r.name, options, product, now));
      const will = formatDetail(r.proposed, o);
      return h('li', { dataset: { attribute: r.name, change: r.status } }, `${r.name}: `,
        r.status === 'added' ? h('ins', {}, will) : r.status === 'changed' ? textInline(was, will) : will,
        h('span', { class: `badge st-${r.status}` }, r.status));
    }));
  }
  if (field === 'files') return filesInline(now, proposed);
  return textInline(now, proposed);
}

function optionFor(name, options, product, ...lists) {
  for (const l of lists) {
    const o = optionOf(l, name, options);
    if (o) return o;
  }
  return [...options.values()].find((o) => o.template === product?.attributeTemplate && o.attribute === name);
}

function list(items) {
  return Array.isArray(items) && items.length
    ? h('ul', { class: 'files' }, items.map((f) => h('li', {}, String(f))))
    : h('span', { class: 'empty' }, '(empty)');
}

function picks() {
  const out = {};
  for (const set of document.querySelectorAll('#revision-body .choice')) {
    out[set.dataset.field] = set.querySelector('input[type=radio]:checked')?.value || '';
    for (const label of set.querySelectorAll('.option')) label.classList.toggle('on', label.querySelector('input').checked);
  }
  return out;
}

// describe says what a plan does, one revision at a time.
function describe(plan) {
  return plan.map((d) => (d.fields.length
    ? `accept #${d.rev.id} (${d.fields.join(', ')}${d.partial ? ', in part' : ''})`
    : `reject #${d.rev.id}`)).join('; ');
}

function showPlan() {
  const el = $('#plan');
  if (!el || !current) return;
  const text = describe(planChoices(current.all, picks()));
  el.textContent = `Applying the choices will ${text}.`;
}

/** focusField puts the cursor on the n-th field's choice. */
export function focusField(n) {
  const set = document.querySelectorAll('#revision-body .choice')[n - 1];
  (set?.querySelector('input:checked') || set?.querySelector('input'))?.focus();
}

/** apply accepts the picks and rejects the rest. */
export function apply() {
  if (!current || !current.product?.active) return;
  decide(planChoices(current.all, picks(), reasonAndComment()), 'Apply the choices');
}

/**
 * applyByKey is a's (and s's) way to apply the picks: the first press
 * shows what they apply, focused, and applies nothing; a second press,
 * with the picks as shown, applies them.
 */
export function applyByKey() {
  if (!current || !current.product?.active) return;
  const now = JSON.stringify(picks());
  if (shownPicks === now) {
    hideSummary();
    apply();
    return;
  }
  shownPicks = now;
  showSummary();
}

// showSummary says, field by field, which value the picks apply (whose,
// and what), then what each proposal becomes.
function showSummary() {
  const box = $('#apply-summary');
  const chosen = picks();
  const byId = new Map(current.all.map((r) => [r.id, r]));
  replace(box,
    h('p', {}, h('strong', {}, 'Press a again to apply these choices'), ' (or change them first):'),
    h('ul', {}, Object.entries(chosen).map(([field, id]) => {
      const r = byId.get(id);
      return h('li', {}, `${labels[field]}: `, r
        ? [h('strong', {}, r.expand?.apiClient?.name || `client #${r.apiClient}`), ` #${r.id}: `, short(field, r.proposed[field])]
        : 'keep the current value');
    })),
    h('p', {}, `Then: ${describe(planChoices(current.all, chosen))}.`));
  box.hidden = false;
  box.focus({ preventScroll: true });
  box.scrollIntoView({ block: 'nearest' });
}

function hideSummary() {
  shownPicks = null;
  const box = $('#apply-summary');
  if (box) box.hidden = true;
}

// short is a proposed value in a line: text cut at 120 characters, files
// counted, attributes as name value.
function short(field, value) {
  if (field === 'files') return `${(value || []).length} file${(value || []).length === 1 ? '' : 's'}`;
  if (field === 'attributes') return (value || []).map((a) => `${a.attribute} ${a.detail}`).join(', ');
  const text = String(value ?? '');
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** rejectAll rejects every competing proposal. */
export function rejectAll() {
  if (!current) return;
  decide(planChoices(current.all, {}, reasonAndComment()), 'Reject them all');
}

function decide(plan, verb) {
  const { all, product, sku, onDecide } = current;
  const { reason } = reasonAndComment();
  if (!reason && plan.some((d) => reasonNeeded(d.rev, d.fields))) {
    askReason(`Choose a reason for the proposals not applied (↑ ↓), then press Enter to ${verb.toLowerCase()}.`,
      () => decide(planChoices(all, picks(), reasonAndComment()), verb));
    return;
  }
  const why = reason ? ` (${api.reasonLabel(reason)})` : '';
  onDecide({
    text: `${sku}: ${describe(plan)}${why}`,
    decisions: plan.map((d) => ({ id: d.rev.id, body: d.body })),
    stopOnFailure: true,
    precheck: () => unchanged(all, product.id, sku),
  });
}

// unchanged checks, just before sending, that the product's pending
// proposals are still the ones the reviewer chose among; else nothing is
// sent (a message says why).
async function unchanged(all, product, sku) {
  const now = await api.productProposals(product);
  const key = (list) => list.map((r) => `${r.id}:${(r.supersededFields || []).join('+')}`).sort().join(',');
  if (key(now) === key(all)) return null;
  return `The pending proposals for ${sku} changed meanwhile (someone decided one, or a client sent another): ` +
    'nothing was sent. Look at them again.';
}
