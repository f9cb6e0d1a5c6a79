// How one proposed field is shown: one inline diff from the product's value
// now to the proposal (what accepting does), with long unchanged stretches
// folded, and the three columns (now, when proposed, proposed) on demand;
// attributes as a table with units, files as a list. Vendor text only ever
// goes in as text.
import { collapse, compareAttributes, compareLists, optionOf, rewritten, wordDiff } from './diff.js';
import { h, replace } from './dom.js';
import { fieldLabels, outcomeLabels } from './api.js';

/** labels name the fields for people, as the server's vocabulary does. */
export const labels = fieldLabels;

/**
 * fieldBlock draws field (the n-th proposed, from 1) of revision rev.
 * view: {product, options (Map id → option), decidable (pending and
 * decidable: a tick box), changed (the product's value changed since the
 * proposal), state (the field's own state), now (compare with the
 * product now; else with the value when proposed)}.
 */
export function fieldBlock(field, n, rev, view) {
  const superseded = view.state === 'superseded';
  const tickable = view.decidable && !superseded;
  const head = h('div', { class: 'field-head' },
    tickable
      ? h('h3', {}, h('input', { type: 'checkbox', id: `pick-${field}`, class: 'pick', checked: true, dataset: { field } }),
        h('label', { for: `pick-${field}` }, h('kbd', {}, String(n)), ' ', labels[field]))
      : h('h3', {}, labels[field]),
    view.now && view.changed ? h('span', { class: 'badge warn' }, 'changed since proposal') : null,
    view.state && view.state !== 'pending'
      ? h('span', { class: `badge fs-${view.state}` }, outcomeLabels[view.state] || view.state) : null);
  const now = view.product?.[field];
  const base = rev.base?.[field];
  const proposed = rev.proposed[field];
  let body;
  if (field === 'attributes') body = attributesTable(view.now ? now : base, base, proposed, view);
  else if (field === 'files') body = withColumns(filesInline(view.now ? now : base, proposed), filesColumns(now, base, proposed, view));
  else {
    const from = view.now ? now : base;
    body = withColumns(textInline(from, proposed), textColumns(now, base, proposed, view), rewritten(from, proposed));
  }
  return h('section', {
    class: `field-block${view.now && view.changed ? ' changed' : ''}${superseded ? ' superseded' : ''}`,
    dataset: { field },
  }, head, body);
}

function empty(text = '(empty)') {
  return h('span', { class: 'empty' }, text);
}

// withColumns shows the inline view, with a button that swaps in the
// columns; a text rewritten (share: the share of its words changed, see
// diff.js's rewriteRule) opens in columns, saying why.
function withColumns(inline, columns, share = null) {
  const box = h('div', { class: 'inline' }, inline);
  const cols = h('div', { class: 'cols' }, columns);
  const toggle = h('button', {
    type: 'button', class: 'link-button cols-toggle', onclick: () => showColumns(cols.hidden),
  });
  const showColumns = (open) => {
    cols.hidden = !open;
    box.hidden = open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Show as one diff' : 'Show in columns';
  };
  showColumns(share !== null);
  const why = share !== null ? `Rewritten, ${Math.round(share * 100)} % of the words changed: shown side by side. ` : null;
  return [box, cols, h('p', { class: 'toggles' }, why ? h('span', { class: 'small muted' }, why) : null, toggle)];
}

/** textInline is the word diff of from → to, long unchanged stretches folded. */
export function textInline(from, to) {
  const a = from == null ? '' : String(from);
  const b = to == null ? '' : String(to);
  if (!a && !b) return h('div', { class: 'val' }, empty());
  const segments = collapse(wordDiff(a, b));
  return h('div', { class: 'val diff' }, segments.map((s, i) => {
    // note: the space before a removed word is the old text's, kept so that words do not run together
    if (s.op === 'same') return segments[i + 1]?.op === 'del' && /\s$/.test(s.a) && !/\s$/.test(s.b) ? s.b + s.a.match(/\s+$/)[0] : s.b;
    if (s.op === 'del' || s.op === 'ins') return [h(s.op, {}, s.text), between(s, segments[i + 1])];
    return fold(s);
  }));
}

// between separates a removed text from the added one right after it (or
// the other way round) by a space when neither ends or starts with one,
// so that copying, innerText and screen readers read "old new", not
// "oldnew".
function between(s, next) {
  const other = s.op === 'del' ? 'ins' : 'del';
  return next?.op === other && !/\s$/.test(s.text) && !/^\s/.test(next.text) ? ' ' : null;
}

// fold is an unchanged stretch shown by its ends, with a button for the rest.
function fold(s) {
  const span = h('span', { class: 'fold' });
  const open = h('button', {
    type: 'button', class: 'fold-button', 'aria-expanded': 'false',
    onclick: () => replace(span, s.text),
  }, `… ${s.hidden.length} unchanged characters …`);
  return replace(span, s.head, open, s.tail);
}

// textColumns: now, when proposed and proposed side by side; "now" only
// when it differs from "when proposed" (or the revision is closed, where
// now is not compared at all).
function textColumns(now, base, proposed, view) {
  const text = (v) => (v ? String(v) : empty());
  const cols = [];
  const nowDiffers = String(now ?? '') !== String(base ?? '');
  if (view.now && nowDiffers) cols.push(column('now', 'Now', text(now)));
  const [b, p] = textCompared(base, proposed);
  cols.push(column('base', view.now && !nowDiffers ? 'Now (= when proposed)' : 'When proposed', b));
  cols.push(column('proposed', 'Proposed', p));
  return cols;
}

function column(cls, title, content) {
  return h('div', { class: `col ${cls}` }, h('h4', {}, title), h('div', { class: 'val' }, content));
}

// textCompared renders base with removed words struck and the proposal
// with added words marked.
function textCompared(base, proposed) {
  const segments = wordDiff(base ?? '', proposed ?? '');
  const side = (keep, mark, tag) => {
    const out = segments.flatMap((s) => {
      if (s.op === 'same') return [s[keep]];
      if (s.op === mark) return [h(tag, {}, s.text)];
      return [];
    });
    return out.some((x) => x !== '') ? out : [empty()];
  };
  return [side('a', 'del', 'del'), side('b', 'ins', 'ins')];
}

/**
 * filesInline lists the files after accepting: kept, added (marked) and,
 * struck, the ones the proposal drops.
 */
export function filesInline(from, proposed) {
  const c = compareLists(from, proposed);
  const rows = [
    ...c.proposed.map((r) => h('li', {}, r.op === 'ins' ? [h('ins', {}, r.text), h('span', { class: 'note' }, ' added')] : r.text)),
    ...c.base.filter((r) => r.op === 'del').map((r) => h('li', {}, h('del', {}, r.text), h('span', { class: 'note' }, ' removed'))),
  ];
  return h('div', { class: 'val' }, rows.length ? h('ul', { class: 'files' }, rows) : empty());
}

function filesColumns(now, base, proposed, view) {
  const c = compareLists(base, proposed);
  const list = (rows, mark, tag, note) => (rows.length === 0 ? empty() : h('ul', { class: 'files' },
    rows.map((r) => h('li', {}, r.op === mark ? [h(tag, {}, r.text), h('span', { class: 'note' }, ` ${note}`)] : r.text))));
  const plain = (items) => (Array.isArray(items) && items.length ? h('ul', { class: 'files' }, items.map((f) => h('li', {}, String(f)))) : empty());
  const cols = [];
  const nowDiffers = JSON.stringify(now ?? []) !== JSON.stringify(base ?? []);
  if (view.now && nowDiffers) cols.push(column('now', 'Now', plain(now)));
  cols.push(column('base', view.now && !nowDiffers ? 'Now (= when proposed)' : 'When proposed', list(c.base, 'del', 'del', 'removed')));
  cols.push(column('proposed', 'Proposed', list(c.proposed, 'ins', 'ins', 'added')));
  return cols;
}

/**
 * formatDetail writes an attribute's value for people: a yes/no for a
 * BOOLEAN option, the option's unit after the value ("2.4 kg").
 */
export function formatDetail(detail, option) {
  if (detail === undefined) return undefined;
  if (detail === '') return '';
  const type = String(option?.dataType || '').toUpperCase();
  if (type === 'BOOLEAN') {
    const v = String(detail).trim().toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return 'Yes';
    if (['false', '0', 'no'].includes(v)) return 'No';
  }
  return option?.unit ? `${detail} ${option.unit}` : String(detail);
}

const changeLabels = {
  added: 'added', changed: 'changed', removed: 'removed', unchanged: 'unchanged', kept: 'kept, not in proposal',
};

// attributesTable: one row per attribute, what accepting does to each as
// the product is now (or, for a closed revision, as it was when proposed).
// "When proposed" is a column only where it differs from now.
function attributesTable(from, base, proposed, view) {
  const rows = compareAttributes(from, base, proposed);
  const byId = view.options || new Map();
  const template = view.product?.attributeTemplate;
  const optionFor = (name, ...lists) => {
    for (const l of lists) {
      const o = optionOf(l, name, byId);
      if (o) return o;
    }
    return [...byId.values()].find((o) => o.template === template && o.attribute === name);
  };
  const sinceColumn = view.now && rows.some((r) => r.changedSince && r.isProposed);
  // note: what accepting does is said of a pending revision; of an accepted
  // one, what it did; a rejected or closed one applied nothing
  const changeTitle = view.now ? 'Accepting' : view.state === 'applied' ? 'Applied' : null;
  const shown = rows.filter((r) => r.isProposed);
  const folded = rows.filter((r) => !r.isProposed);
  const cell = (v) => (v === undefined ? empty('—') : v === '' ? empty() : v);
  const row = (r) => {
    const nowOption = optionFor(r.name, from);
    const proposedOption = optionFor(r.name, proposed, from);
    const nowText = formatDetail(r.now, nowOption);
    const proposedText = formatDetail(r.proposed, proposedOption);
    let p = cell(proposedText);
    if (r.status === 'changed') p = textInline(nowText, proposedText);
    else if (r.status === 'added') p = h('ins', {}, proposedText);
    else if (r.status === 'removed') p = empty('(removed)');
    else if (r.status === 'kept') p = empty('— not proposed');
    return h('tr', { class: `st-${r.status}`, dataset: { attribute: r.name } },
      h('th', { scope: 'row' }, r.name),
      h('td', { class: 'c-now', 'data-label': view.now ? 'Now' : 'When proposed' }, cell(nowText)),
      sinceColumn ? h('td', { class: 'c-base', 'data-label': 'When proposed' },
        r.changedSince ? [cell(formatDetail(r.base, optionFor(r.name, base))), h('span', { class: 'badge warn' }, 'changed')] : empty('same')) : null,
      h('td', { class: 'c-proposed', 'data-label': 'Proposed' }, p),
      changeTitle ? h('td', { class: 'c-change', 'data-label': changeTitle }, h('span', { class: `badge st-${r.status}` }, changeLabels[r.status])) : null);
  };
  const columns = (sinceColumn ? 5 : 4) - (changeTitle ? 0 : 1);
  const more = h('tbody', { class: 'folded', hidden: true }, folded.map(row));
  const noun = folded.length === 1 ? 'attribute' : 'attributes';
  const toggle = h('button', {
    type: 'button', class: 'link-button', 'aria-expanded': 'false',
    onclick: () => {
      more.hidden = !more.hidden;
      toggle.setAttribute('aria-expanded', String(!more.hidden));
      toggle.textContent = `${more.hidden ? 'Show' : 'Hide'} ${folded.length} ${noun} not in the proposal`;
    },
  }, `Show ${folded.length} ${noun} not in the proposal`);
  return h('table', { class: 'attrs' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Attribute'), h('th', { scope: 'col' }, view.now ? 'Now' : 'When proposed'),
      sinceColumn ? h('th', { scope: 'col' }, 'When proposed') : null,
      h('th', { scope: 'col' }, 'Proposed'), changeTitle ? h('th', { scope: 'col' }, changeTitle) : null)),
    h('tbody', {}, shown.map(row)),
    folded.length ? h('tbody', {}, h('tr', { class: 'more' }, h('td', { colspan: String(columns) }, toggle))) : null,
    more);
}
